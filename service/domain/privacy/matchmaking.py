"""Matchmaking's parts of a player's data (issue 48): the player's seeks and challenges.

**Seeks.**  A seek record names its player (id, name, rating) and stays in its pool a while after it
closes (:data:`service.storage.seeks.SEEK_KEEP_SECONDS`).  Export: every seek of the player the app's
pools hold, open or closed.  Erasure: an open seek is withdrawn (``cancelled``, nobody told), then
every closed seek of the player leaves its pool; a seek being paired this very moment (``pairing``)
is left to its pairing, whose match the matches part then finds in the player's index only if it was
made before (a deletion racing a pairing may leave that one match to a second ``DELETE``).

**Challenges** (sent or received, listed in the player's slot).  Export: each as the API shows it.
Erasure: the challenge is dropped whole, open or closed: it names the player (challenger, challenged,
names, answers), and closed it holds nothing the others need (an accepted one's match stands on its
own).  An open one simply ends, nobody told (a note would name the player again); the other players'
feed entries about it name the placeholder instead (``challenger``, ``challenged``, ``declined_by``).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

from service.domain.identity import player_key
from service.domain.matchmaking.challenges import Challenges, participants
from service.domain.matchmaking.challenges import document as challenge_document
from service.domain.matchmaking.seeks import CANCELLED, OPEN, PAIRING, Seeks, document
from service.domain.privacy.rewriting import rewrite_stream, scrubbing
from service.storage.accounts import player_slot_key
from service.storage.privacy import PrivacyStore
from service.storage.seeks import Pool, SeekState

#: Challenges of a player read at most (a player's list is short: challenges expire within days).
MAX_CHALLENGES = 10_000


def _about_challenge(challenge_id: str, entry: dict[str, Any]) -> bool:
    return entry.get("challenge_id") == challenge_id


class SeekData:
    """The player's seeks, in every pool of the app."""

    section = "seeks"

    def __init__(self, seeks: Seeks) -> None:
        self.seeks = seeks

    def _mine(self, app: str, player: str) -> Iterator[tuple[Pool, str, SeekState]]:
        store = self.seeks.store
        for pool in store.app_pools(app):
            for seek_id, record in store.records(pool):
                if record.get("player", {}).get("id") != player:
                    continue
                state = store.seek(pool, seek_id)
                if state is not None:
                    yield pool, seek_id, state

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        for _, _, state in self._mine(app, player):
            yield document(state)

    def erase(self, app: str, player: str, placeholder: str) -> int:
        store = self.seeks.store
        key = player_key(app, player)
        removed = 0
        for pool, seek_id, state in list(self._mine(app, player)):
            if state.status == OPEN:
                store.close(pool, seek_id, CANCELLED, self.seeks.now(), tell=False)
            elif state.status == PAIRING:
                continue  # its pairing makes the match (see the module)
            store.drop_seek(pool, seek_id)
            removed += 1
        store.drop_claims(key)
        return removed


class ChallengeData:
    """The challenges the player sent or received."""

    section = "challenges"

    def __init__(self, challenges: Challenges, rewrites: PrivacyStore) -> None:
        self.challenges = challenges
        self.rewrites = rewrites

    def _ids(self, app: str, player: str) -> list[str]:
        return self.challenges.store.player_challenges(player_key(app, player), MAX_CHALLENGES)

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        store = self.challenges.store
        for challenge_id in self._ids(app, player):
            stored = store.challenge(app, challenge_id)
            if stored is not None:
                yield challenge_document(stored)

    def erase(self, app: str, player: str, placeholder: str) -> int:
        store = self.challenges.store
        removed = 0
        for challenge_id in self._ids(app, player):
            stored = store.challenge(app, challenge_id)
            others = [p for p in participants(stored["doc"]) if p != player] if stored is not None else []
            store.drop_challenge(app, challenge_id)
            about = scrubbing(player, placeholder, partial(_about_challenge, challenge_id))
            for other in others:
                rewrite_stream(self.rewrites, player_slot_key(player_key(app, other), "feed"), about)
            removed += 1
        store.unindex_challenges(player_key(app, player), self._ids(app, player))
        return removed
