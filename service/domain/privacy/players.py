"""The player's own slot (issue 48): the profile, the tokens' metadata and the feed; erased last, once
every other part has read what it needed from it (the match index, the claims).

Tokens are exported as listed (id, scopes, expiry, creation), never the token nor its hash.  Their
revocation is not here but the first step of a deletion
(:meth:`service.domain.privacy.erasure.Privacy.delete`), so the player acts no more while the rest goes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from service.domain.accounts import player_document, token_document
from service.domain.identity import player_key
from service.storage.accounts import AccountStore, player_slot_key
from service.storage.privacy import PrivacyStore

#: Feed entries read a round trip.
BATCH = 200


class ProfileData:
    """The profile, the tokens' metadata and the match index; erasing drops the whole player slot."""

    section = "profile"

    def __init__(self, players: AccountStore, keys: PrivacyStore) -> None:
        self.players = players
        self.keys = keys

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        found = self.players.player(app, player)
        if found is None:
            return
        tokens = self.players.tokens(player_key(app, player))
        yield {
            **player_document(found),
            "tokens": [token_document(tid, record) for tid, record in sorted(tokens.items())],
        }

    def erase(self, app: str, player: str, placeholder: str) -> int:
        """Every key of the player's slot (profile, tokens, match index, feed, claims, and whatever a
        later feature keeps there), and the player's place in the app's list of players."""
        key = player_key(app, player)
        slot = list(self.keys.scan(player_slot_key(key, "*")))
        removed = self.keys.delete(*slot)
        removed += self.players.unlist_player(app, player)
        return removed


class FeedData:
    """The player's feed (what their matches, seeks, challenges and tournaments told them); it goes
    with the player's slot (:class:`ProfileData`)."""

    section = "feed"

    def __init__(self, players: AccountStore) -> None:
        self.players = players

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        key = player_key(app, player)
        after = "0-0"
        while True:
            page = self.players.feed_after(key, after, BATCH)
            for entry in page:
                yield {"id": entry.id, **entry.entry}
            if len(page) < BATCH:
                return
            after = page[-1].id

    def erase(self, app: str, player: str, placeholder: str) -> int:
        key = player_key(app, player)
        return self.players.drop_feed(key)
