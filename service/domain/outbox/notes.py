"""The players' notes: the ``notes`` part of an outbox entry, and the road every note takes.

:class:`Notes` gives one note to a player: into the player's feed (once: the feed script dedups by
source and number, :mod:`service.domain.feeds.sources`) and to the webhook endpoints of the player's
app that want its type (:meth:`service.domain.webhooks.queueing.MessageQueue.enqueue`, idempotent per note
and endpoint) and to the player's push subscriptions that want it
(:meth:`service.domain.push.delivery.PushDelivery.enqueue`, once per note and subscription), asked every
time the note is carried, so a drain that died between the feed and the
webhooks is made whole by the next one.  :class:`FeedSubscriber` derives a commit's notes
(:func:`service.domain.feeds.feed.notes`) and carries them that way.
"""

from __future__ import annotations

from typing import Any

from service.domain.feeds import feed
from service.domain.feeds.sources import match_note, match_source
from service.domain.outbox.entries import Consumed
from service.domain.push.push import Push
from service.domain.webhooks.webhooks import Webhooks
from service.storage.accounts import AccountStore
from service.storage.matches import MatchMeta


class Notes:
    """Feeds notes to players and hands them to their apps' webhooks and their push subscriptions."""

    def __init__(self, store: AccountStore, webhooks: Webhooks, push: Push | None = None) -> None:
        self.store = store
        self.webhooks = webhooks
        self.push = push

    def note(self, key: str, source: str, number: int, entry: dict[str, Any], seq: int | None) -> str:
        """Give the player ``key`` one note about ``source`` (a match id, or a challenge's, a seek's or a
        tournament's), numbered within its source: feed it (``seq``: the match's creation sequence,
        ``None`` for a source that is no match) and hand it to the app's webhooks.  The feed entry's id,
        or ``""`` if the feed had it already."""
        fed = self.store.feed_note(key, source, number, entry, seq)
        self.webhooks.enqueue(key, source, number, entry)
        if self.push is not None:
            self.push.enqueue(key, source, number, entry)
        return fed


class FeedSubscriber:
    """The ``notes`` part: one note per player and event of the commit, in reading order."""

    part = "notes"

    def __init__(self, notes: Notes) -> None:
        self.notes = notes

    def derive(
        self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        return feed.notes(before, after, events)

    def consume(self, match_id: str, entry: dict[str, Any], part: Any) -> Consumed:
        delivered = 0
        for n, note in enumerate(part):
            number = match_note(entry["version"], n)
            if self.notes.note(note["player"], match_source(match_id), number, note["entry"], entry["seq"]):
                delivered += 1
        return Consumed(delivered)
