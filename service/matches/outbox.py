"""Where a commit's news goes once the commit stands: players' feeds, the apps' webhooks, ratings.

A match's commit script appends one outbox entry (``{"version", "seq", "notes", "rating"?}``, built by
:meth:`service.matches.operations.Matches.outbox`) in the same script that writes the match, so a
process dying right after the commit loses nothing.  :meth:`Outbox.drain` then carries each entry on,
oldest first, and pops it only once everything of it is in place:

* each note to its player's feed, once (the feed script dedups by source and note number);
* each note to the webhook endpoints of the player's app that want its type
  (:meth:`service.matches.webhooks.Webhooks.enqueue`, idempotent per note and endpoint), asked every
  time the note is carried, so a drain that died between the feed and the webhooks is made whole by
  the next one;
* a finished rated match's outcome to the ratings (:meth:`service.matches.ratings.Ratings.record`,
  idempotent per match);
* a tournament match's end to its tournament (:meth:`service.matches.tournaments.Tournaments.recorded`,
  idempotent per match), and once the entry is popped, what follows it (the tournament's next match,
  :meth:`~service.matches.tournaments.Tournaments.follow`; the sweep does it if this process dies).

The committer drains right after its commit; the workers' sweep (:mod:`service.matches.feed_sweep`)
drains what a dead committer left.  Notes that no commit carries (a clock warning, a challenge) take
:meth:`Outbox.note`, the same road without the outbox.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from service.accounts_store import AccountStore
from service.matches.ratings import Ratings
from service.matches.webhooks import Webhooks

if TYPE_CHECKING:
    from service.matches.tournaments import Tournaments


class Outbox:
    """Carries outbox entries and single notes to feeds, webhooks and ratings."""

    def __init__(self, store: AccountStore, webhooks: Webhooks, ratings: Ratings) -> None:
        self.store = store
        self.webhooks = webhooks
        self.ratings = ratings
        #: Set by :class:`service.matches.operations.Matches` (the tournaments need the matches).
        self.tournaments: Tournaments | None = None

    def drain(self, match_id: str) -> int:
        """Carry the outbox of ``match_id`` on, oldest entry first; the number of notes that reached a
        feed now (each reaches it once, however many drain at once)."""
        delivered = 0
        while True:
            head = self.store.outbox_head(match_id)
            if head is None:
                return delivered
            entry: dict[str, Any] = json.loads(head)
            for n, note in enumerate(entry["notes"]):
                number = entry["version"] * 1000 + n
                if self.note(note["player"], match_id, number, note["entry"], entry["seq"]):
                    delivered += 1
            if entry.get("rating") is not None:
                self.ratings.record(match_id, entry["rating"])
            ended = entry.get("tournament") if self.tournaments is not None else None
            recorded = ended is not None and self.tournaments is not None and self.tournaments.recorded(ended)
            self.store.pop_outbox(match_id, head)
            if recorded and ended is not None and self.tournaments is not None:  # after the pop (issue 42)
                self.tournaments.follow(ended)

    def note(self, key: str, source: str, number: int, entry: dict[str, Any], seq: int | None) -> str:
        """Give the player ``key`` one note about ``source`` (a match id, or a challenge's or a seek's),
        numbered within its source: feed it (``seq``: the match's creation sequence, ``None`` for a
        source that is no match) and hand it to the app's webhooks.  The feed entry's id, or ``""`` if
        the feed had it already."""
        fed = self.store.feed_note(key, source, number, entry, seq)
        self.webhooks.enqueue(key, source, number, entry)
        return fed
