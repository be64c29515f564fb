"""What the hub keeps of each topic with waiters in this process (:class:`Followed`): its waiters, the
tip the reader reached, the last events it handed out, and what the topic's commits published since."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from service.live.shaping import LiveEvent
from service.live.subscription import Subscription
from service.live.topics import Topic, event_key
from service.storage.matches import StoredEvent

#: Events a topic keeps in memory, the last it handed out: a waiter that comes (back) at most this far
#: behind catches up from them, with no read (a long-poll client polls again at once after its answer).
RECENT = 8


@dataclass
class Followed:
    """A topic with waiters in this process (all of it under the hub's lock)."""

    topic: Topic
    subscribers: set[Subscription] = field(default_factory=set)
    #: The id of the last event the reader handed out (None until the first subscriber caught up).
    tip: str | None = None
    confirmed: threading.Event = field(default_factory=threading.Event)
    #: The last events handed out (at most :data:`RECENT`): every event after ``base`` up to the tip.
    recent: deque[LiveEvent] = field(default_factory=deque)
    base: str = ""
    #: ``time.monotonic`` before which the topic is not read again
    #: (:meth:`service.live.hub.LiveEvents._read`).
    held_until: float = 0.0
    #: A match's events as its commits published them, in order from the tip on, not handed out yet;
    #: ``stale`` when they may not be all (a gap, a reconnection, a new tip): the stream is read then.
    published: list[tuple[StoredEvent, str | None]] = field(default_factory=list)
    stale: bool = False

    def remember(self, rows: list[LiveEvent]) -> None:
        """Keep ``rows``, the next events handed out, among the last :data:`RECENT`."""
        self.recent.extend(rows)
        while len(self.recent) > RECENT:
            self.base = self.recent.popleft().id

    def remembered(self, after: str) -> list[LiveEvent] | None:
        """The events after ``after`` when every one of them is in memory (the topic is caught up and
        ``after`` is no older than its last :data:`RECENT` events), else ``None``."""
        if self.tip is None:
            return None
        since = event_key(after)
        if since < event_key(self.base):
            return None
        return [row for row in self.recent if event_key(row.id) > since]
