"""The outbox entry of a commit, and the drain that carries it on.

An entry is ``{"version", "seq", "notes", <part>?...}``: the commit's version and the match's creation
sequence, then one part per :class:`Subscriber` that has something to say (``notes`` always, maybe
empty).  :meth:`Outbox.entry` asks each subscriber for its part at the commit; :meth:`Outbox.drain`
hands each part back to its subscriber, oldest entry first, pops the entry once every part is in
place, and only then runs the work the subscribers handed on (:attr:`Consumed.then`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from service.storage.accounts import AccountStore
from service.storage.client import STORAGE_ERRORS
from service.storage.matches import MatchMeta

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Consumed:
    """What a subscriber did with its part: notes that reached a feed now, and the work it hands on
    to run once the entry is popped (``None``: none)."""

    delivered: int = 0
    then: Callable[[], None] | None = None


class Subscriber(Protocol):
    """One consumer of the outbox: derives its part of a commit's entry and consumes it, idempotently
    (a drain may run again after a crash, and several may run at once)."""

    #: The entry's field that holds this subscriber's part.
    part: str

    def derive(self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]) -> Any:
        """This subscriber's part of the commit from ``before`` (``None``: a creation) to ``after`` with
        ``events``; ``None`` or empty when it has nothing to do."""
        ...

    def consume(self, match_id: str, entry: dict[str, Any], part: Any) -> Consumed:
        """Put ``part`` of ``entry`` (the match's) in place, before the entry is popped."""
        ...


class Outbox:
    """The subscribers of the matches' outboxes, in the order they consume an entry."""

    def __init__(self, store: AccountStore, subscribers: Sequence[Subscriber]) -> None:
        self.store = store
        self.subscribers = list(subscribers)

    def subscribe(self, subscriber: Subscriber) -> None:
        """Add ``subscriber`` after the others (the composition root does, once per process)."""
        self.subscribers.append(subscriber)

    def entry(
        self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The outbox entry of a commit from ``before`` to ``after``, or ``None`` when no subscriber has
        anything to do.  The match is marked pending first, so the keeper's sweep finds the entry if
        this process dies before :meth:`deliver`."""
        parts = {sub.part: sub.derive(before, after, events) for sub in self.subscribers}
        if not any(parts.values()):
            return None
        self.store.mark_pending(after.id)
        return {
            "version": after.version,
            "seq": after.seq,
            **{name: part for name, part in parts.items() if part is not None},
        }

    def deliver(self, match_id: str, entry: dict[str, Any] | None) -> None:
        """After the commit that appended ``entry``: drain the match's outbox now.  A Redis error here
        costs latency, not the entry: the commit stands and the sweep delivers it."""
        if entry is None:
            return
        try:
            self.drain(match_id)
        except STORAGE_ERRORS as exc:
            log.warning("feed delivery of match %s deferred to the sweep: %s", match_id, exc)

    def drain(self, match_id: str) -> int:
        """Carry the outbox of ``match_id`` on, oldest entry first; the number of notes that reached a
        feed now (each reaches it once, however many drain at once)."""
        delivered = 0
        while True:
            head = self.store.outbox_head(match_id)
            if head is None:
                return delivered
            entry: dict[str, Any] = json.loads(head)
            then = []
            for sub in self.subscribers:
                part = entry.get(sub.part)
                if part is None:
                    continue
                consumed = sub.consume(match_id, entry, part)
                delivered += consumed.delivered
                if consumed.then is not None:
                    then.append(consumed.then)
            self.store.pop_outbox(match_id, head)
            for work in then:  # after the pop (issue 42): never holds the entry back
                work()
