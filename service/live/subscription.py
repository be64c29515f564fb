"""One waiting client's place in a topic (:class:`Subscription`): what it waits on, and how it ends.

Under the gevent serving model (:mod:`service.serving`) a waiting client is a greenlet blocked on its
subscription, a few kilobytes: the events the process's reader pushes to it, and a signal to wake it;
or, once it has caught up (:meth:`Subscription.go_direct`), the connection the reader writes its
events to itself.  Subscriptions drop what they have seen already (their cursor), so reading twice is
harmless.  The primitives are :mod:`threading`'s: under gevent's monkey-patching they are
cooperative, and the in-process test client (plain threads, no direct writes) works the same.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

from service.live.caps import Quotas
from service.live.credentials import Credential
from service.live.shaping import LiveEvent, everyone
from service.live.topics import Topic, event_key
from service.live.wire import Wire

#: How a direct stream encodes a batch of its events (``None``: a heartbeat), before its framing.
Encode = Callable[[list[LiveEvent] | None], bytes]


class Hub(Protocol):
    """What a subscription asks of the hub that admitted it (:class:`service.live.hub.LiveEvents`)."""

    def catch_up(
        self, topic: Topic, after: str, limit: int | None, version: int | None
    ) -> tuple[list[LiveEvent], str]: ...

    def go_direct(
        self,
        sub: Subscription,
        wire: Wire,
        audience: int | str | None,
        encode: Encode,
        visible: Callable[[LiveEvent], bool],
        ends: Callable[[LiveEvent], bool],
    ) -> None: ...

    def drop(self, sub: Subscription) -> None: ...

    def unsubscribe(self, sub: Subscription) -> None: ...


def never(row: LiveEvent) -> bool:
    """No event ends the stream (a player's feed outlives every match)."""
    return False


def _no_encoding(batch: list[LiveEvent] | None) -> bytes:
    raise AssertionError("a subscription written directly has the encoding of its stream")


class Subscription:
    """One waiting client's place in a topic: the events pushed to it, and a signal to wake it; or,
    once :meth:`go_direct`, the connection the reader writes its events to."""

    def __init__(self, hub: Hub, topic: Topic, quotas: Quotas, credential: Credential | None = None) -> None:
        self.hub = hub
        self.topic = topic
        self.quotas = tuple(quotas)
        #: What it was let in with (``None``: nothing revocable), and once that was revoked or
        #: expired, why (:data:`service.live.credentials.REVOKED_REASONS`): the waiter ends (:meth:`revoke`).
        self.credential = credential
        self.revoked: str | None = None
        #: Set by :meth:`go_direct`: where and how the reader writes this stream's events, which of
        #: them it shows (``audience``: the seat, or :data:`service.live.topics.ALL`; with ``encode``,
        #: the streams that share one encoding), and which one ends it.
        self.wire: Wire | None = None
        self.audience: int | str | None = None
        self.encode: Encode = _no_encoding
        self.visible: Callable[[LiveEvent], bool] = everyone
        self.ends: Callable[[LiveEvent], bool] = never
        #: Set once an event that ends the stream went out on the wire.
        self.ended = False
        self._rows: deque[LiveEvent] = deque()
        self._signal = threading.Event()
        #: Set (from the event loop) when the client's socket became readable: it may have gone.
        self.peer_stirred = False
        self.ending = False
        #: Tells whether the client's connection is closed (set by the server's connection watcher,
        #: :func:`service.http.admission.watch_client`; without one a vanished client is noticed at a write).
        self.probe: Callable[[], bool] | None = None
        #: Called once when the subscription closes (the watcher's release).
        self.on_close: Callable[[], None] | None = None
        #: A context the waiter waits in (the server's: it gives up the request's place meanwhile).
        self.pause: Callable[[], AbstractContextManager[None]] = contextlib.nullcontext
        self.closed = False
        #: The last event taken (see :meth:`backlog`), and the id the backlog began after.
        self.cursor = (0, 0)
        self.began = "0-0"

    def push(self, rows: list[LiveEvent]) -> None:
        self._rows.extend(rows)
        self._signal.set()

    def wake(self) -> None:
        """Wake the waiter: the reader has news for it (owed bytes, an end)."""
        self._signal.set()

    def stir(self) -> None:
        """Wake the waiter to look at its client (called by the connection watcher)."""
        self.peer_stirred = True
        self._signal.set()

    def end(self) -> None:
        """Stop waiting: the server is shutting down (the client reconnects, to another process)."""
        self.ending = True
        self._signal.set()

    def revoke(self, reason: str) -> None:
        """End the waiter: its credential was revoked or expired (``reason``).  Under the hub's lock,
        so the reader hands it nothing more, and nothing it was handed and did not send yet goes out:
        events pushed and not taken are dropped, and a direct stream that owes its client bytes is
        cut (what it owes may end mid-chunk; its last line could not follow)."""
        if self.revoked is not None or self.closed:
            return
        self.revoked = reason
        self.hub.drop(self)
        self._rows.clear()
        wire = self.wire
        if wire is not None and (wire.owed or wire.flushing):
            wire.owed.clear()
            wire.broken = True
        self._signal.set()

    def client_gone(self) -> bool:
        """Whether to stop waiting: the server is shutting down, or the client closed its connection
        (asked only after its socket stirred)."""
        if self.ending:
            return True
        if not self.peer_stirred or self.probe is None:
            return False
        self.peer_stirred = False
        return self.probe()

    def rest(self, seconds: float) -> None:
        """Let events gather for ``seconds`` (giving up the request's place meanwhile, see :attr:`pause`)."""
        with self.pause():
            time.sleep(seconds)

    def backlog(self, after: str, limit: int | None = None, *, version: int | None = None) -> list[LiveEvent]:
        """Every event after ``after`` in the topic's stream now (the first ``limit`` of them: a
        client that far behind is answered at once); then the reader keeps this topic current, and
        :meth:`take` goes on from the last of them (:meth:`service.live.hub.LiveEvents.catch_up`).
        ``version``: a match's version as read before (no event of a later one can be there yet)."""
        self.began = after
        rows, last = self.hub.catch_up(self.topic, after, limit, version)
        self.cursor = event_key(last)
        return rows

    def take(self, timeout: float) -> list[LiveEvent]:
        """The events after the last one taken (or the backlog), waiting up to ``timeout`` s for one;
        an empty list when the time is up or the client's socket stirred."""
        if not self._rows and timeout > 0:
            with self.pause():
                self._signal.wait(timeout)
        self._signal.clear()
        fresh = []
        while self._rows:
            row = self._rows.popleft()
            key = event_key(row.id)
            if key > self.cursor:  # the reader may hand out what the backlog read already
                self.cursor = key
                fresh.append(row)
        return fresh

    def go_direct(
        self,
        wire: Wire,
        audience: int | str | None,
        encode: Encode,
        visible: Callable[[LiveEvent], bool],
        ends: Callable[[LiveEvent], bool],
    ) -> None:
        """From now on the reader writes this stream's events to ``wire`` itself; what was pushed
        meanwhile goes out first, in order.  Only once everything the stream's own greenlet had to
        write is written (the response's framing is the server's until then)."""
        self.hub.go_direct(self, wire, audience, encode, visible, ends)

    def wait(self, timeout: float) -> None:
        """Sleep until the reader has news for this stream (owed bytes, an end, a gone client), the
        client's socket stirred, or ``timeout`` s passed."""
        if timeout > 0:
            with self.pause():
                self._signal.wait(timeout)
        self._signal.clear()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.on_close is not None:
                self.on_close()
            self.hub.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
