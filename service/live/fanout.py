"""Handing a topic's new events to its waiters (:class:`Fanout`): encoded once per visibility class,
not once per waiter, and the direct streams' heartbeats.

A waiter on its own greenlet (a long-poll, a stream still catching up) gets the events pushed.  A
stream that caught up is written by the reader itself
(:meth:`service.live.subscription.Subscription.go_direct`): the events of a round are filtered,
encoded and framed once for every stream of the same seat and form, and each stream costs one
non-blocking ``send`` of those bytes (:class:`service.live.wire.Wire`), where waking each stream's
greenlet cost about ten times that.  Everything here runs under the hub's
lock, except the heartbeat greenlet's wait.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from service.live.per_process import PerProcess
from service.live.shaping import LiveEvent
from service.live.subscription import Subscription
from service.live.topics import event_key
from service.live.wire import Wire

log = logging.getLogger(__name__)

#: Longest pause between two sweeps of the direct streams for heartbeats (see :meth:`Fanout.beat`):
#: a stream gets its heartbeat between ``heartbeat_seconds - BEAT_SWEEP`` and ``heartbeat_seconds``
#: after its last write.
BEAT_SWEEP = 1.0

#: A round's encoding of a topic's new events for one seat and form: the bytes, how many events they
#: hold, whether one of them ends the stream.
_Made = tuple[bytes, int, bool]


class Fanout:
    """The streams the reader writes itself, and the greenlet that writes their heartbeats: one timer
    for the process, none per stream.  ``lock`` is the hub's; ``count`` its counters'."""

    def __init__(
        self, lock: threading.Lock, count: Callable[[str, int], None], heartbeat_seconds: float
    ) -> None:
        self._lock = lock
        self._count = count
        self.heartbeat_seconds = heartbeat_seconds
        self.direct: set[Subscription] = set()
        self._beater = PerProcess(self._beat_forever, "live-heartbeats")

    def add(self, sub: Subscription, rows: list[LiveEvent]) -> None:
        """``sub`` is written by the reader from now on, ``rows`` first (under the lock)."""
        assert sub.wire is not None
        self.direct.add(sub)
        if rows:
            encoded = self._encode(sub, sub.wire, rows)
            self._count("deliveries", self._write(sub, event_key(rows[-1].id), encoded))

    def ensure_beater(self) -> None:
        """Start the heartbeat greenlet in this process, at its first direct stream."""
        self._beater.ensure(self._lock)

    def hand_out(self, subscribers: Iterable[Subscription], rows: list[LiveEvent]) -> None:
        """Give a topic's new events to its subscribers: pushed to those that wait on their own
        greenlet, written to the wires of the direct ones, encoded and framed once for all the
        direct subscribers of a seat and form (the per-waiter work is a ``send``)."""
        first, last = event_key(rows[0].id), event_key(rows[-1].id)
        made: dict[tuple[Any, ...], _Made] = {}
        handed = 0
        for sub in subscribers:
            wire = sub.wire
            if wire is None:
                sub.push(rows)
                handed += len(rows)
                continue
            if sub.cursor >= first:  # its backlog had some of them: its own encoding
                fresh = [r for r in rows if event_key(r.id) > sub.cursor]
                if fresh:
                    handed += self._write(sub, last, self._encode(sub, wire, fresh))
                continue
            key = (sub.audience, sub.encode, wire.frame)
            encoded = made.get(key)
            if encoded is None:
                encoded = made[key] = self._encode(sub, wire, rows)
            handed += self._write(sub, last, encoded)
        self._count("deliveries", handed)

    def _encode(self, sub: Subscription, wire: Wire, rows: list[LiveEvent]) -> _Made:
        """``rows`` as ``sub``'s stream writes them: the framed bytes (empty if it sees none of them),
        how many it sees, whether one ends it."""
        shown = [r for r in rows if sub.visible(r)]
        if shown:
            self._count("encodings", 1)
        return wire.frame(sub.encode(shown)) if shown else b"", len(shown), any(sub.ends(r) for r in rows)

    @staticmethod
    def _write(sub: Subscription, last: tuple[int, int], encoded: _Made) -> int:
        """Write events up to ``last`` (encoded) to ``sub``'s wire; the number of events it sees."""
        assert sub.wire is not None
        data, shown, ends = encoded
        sub.cursor = last
        wake = sub.wire.offer(data) if data else False
        if ends:
            sub.ended = wake = True
        if wake:
            sub.wake()
        return shown

    def _beat_forever(self) -> None:
        # Its own greenlet, not the reader's: while Redis is away the reader retries, and the streams
        # it cannot feed still need their heartbeats (a proxy would cut them as idle).
        sweep = min(BEAT_SWEEP, self.heartbeat_seconds / 4)
        while True:
            time.sleep(sweep)
            try:
                self.beat(self.heartbeat_seconds - sweep)
            except Exception:  # a heartbeat lost is no reason to stop the next ones
                log.exception("live events: heartbeat sweep failed")

    def beat(self, quiet: float) -> None:
        """Write a heartbeat to every direct stream that has written nothing for ``quiet`` seconds.

        One sweep a second over the streams replaces a timer per stream: with 10,000 streams, their
        own timers woke a greenlet 667 times a second, about 84 µs of server CPU each, whether the
        streams' matches moved or not (5-6% of a core for a crowd standing still).  A stream whose
        match moves more often than the heartbeat interval never gets one.  The heartbeat's bytes
        are made once per form (encoding and framing)."""
        due = time.monotonic() - quiet
        made: dict[tuple[Any, ...], bytes] = {}
        with self._lock:
            for sub in self.direct:
                wire = sub.wire
                if wire is None or wire.written > due or wire.owed or wire.flushing or wire.broken:
                    continue
                key = (sub.encode, wire.frame)
                data = made.get(key)
                if data is None:
                    data = made[key] = wire.frame(sub.encode(None))
                if wire.offer(data):
                    sub.wake()
