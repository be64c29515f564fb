"""Live events for waiting clients: one reader per API process, fanning each new event out to every
client of that process that waits on its match.

A waiting client (an open NDJSON or SSE stream, or an events long-poll) must cost memory, not a thread
and not a Redis connection: under the gevent serving model (:mod:`service.serving`) it is a greenlet
blocked on its :class:`Subscription`, a few kilobytes.  The process's reader holds one pub/sub
connection, subscribed to the notification channel of every match that has waiters here; every commit
publishes on that channel (``commit.lua``).  On a notification the reader reads the match's new events
once (one ``XRANGE`` from the feed's *tip*, pipelined over every match notified at once) and hands the
same event objects to each subscription, which filters them for its own seat exactly as every other read
does (:func:`engine.core.event_visible`).  10 000 waiters on a process cost it one pub/sub connection
and one read per commit, whatever their number.

The stream stays the record; a notification only says "read again".  A subscription catches up from the
stream itself after its channel is confirmed, and the feed's tip is armed only then, so nothing committed
in between is missed; every later (re)confirmation of the channel (the reader reconnected after a Redis
restart, say) makes the reader read from the tip again, so a lost message costs latency, never an
event.  Subscriptions drop what they have seen already (cursors), so reading twice is harmless.

The primitives are :mod:`threading`'s: under gevent's monkey-patching they are cooperative, and the
in-process test client (plain threads) works the same.

When a waiting client is answered is decided here too: a long-poll's wait and a stream's batches and
heartbeats (:func:`poll_events`, :func:`stream_events`), over what the client's seat may see
(:func:`visible_events`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import weakref
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import redis

from engine.core import event_visible
from service.config import Config
from service.encoding import dumps_bytes
from service.events import OVER
from service.store import (
    STORAGE_ERRORS,
    MatchMeta,
    Store,
    StoredEvent,
    match_of_channel,
    notify_channel,
    now,
)

log = logging.getLogger(__name__)

#: Events read per XRANGE (a longer backlog is read in several rounds).
PAGE = 1000
#: Events read from the stream per JSON response (the client pages on with ``after=last_id``).
EVENTS_PER_PAGE = 1000
#: Seconds the reader waits for a message before it looks at its to-do list again: the bound on how
#: late it (un)subscribes or reads a newly armed feed, not a Redis poll (nothing is sent meanwhile).
TICK = 0.01
#: Seconds between reconnection attempts after the reader lost Redis (doubling up to the cap).
BACKOFF = (0.1, 2.0)
#: What a client is told to wait after 429 (too many waiters).
RETRY_AFTER_SECONDS = 5


def event_key(event_id: str) -> tuple[int, int]:
    """Stream ids ``<version>-<n>`` in their order."""
    version, n = event_id.split("-")
    return int(version), int(n)


def client_event(stored: StoredEvent) -> dict[str, Any]:
    """An event as clients get it: its stream id, without the audience list."""
    return {"id": stored.id, **{k: v for k, v in stored.event.items() if k != "visible_to"}}


@dataclass(frozen=True)
class LiveEvent:
    """A stored event with its client form built and encoded once per process: every waiter of the
    match shares the object."""

    id: str
    event: dict[str, Any]  #: as stored, with ``visible_to``
    client: dict[str, Any]  #: :func:`client_event`
    json: bytes  #: ``client``, encoded

    @classmethod
    def of(cls, stored: StoredEvent) -> LiveEvent:
        client = client_event(stored)
        return cls(stored.id, stored.event, client, dumps_bytes(client))

    @property
    def type(self) -> str:
        return str(self.event["type"])


class Subscription:
    """One waiting client's place in a feed: the events pushed to it, and a signal to wake it."""

    def __init__(self, hub: LiveEvents, match_id: str, address: str) -> None:
        self.hub = hub
        self.match_id = match_id
        self.address = address
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
        #: The last event taken (see :meth:`backlog`).
        self.cursor = (0, 0)

    def push(self, rows: list[LiveEvent]) -> None:
        self._rows.extend(rows)
        self._signal.set()

    def stir(self) -> None:
        """Wake the waiter to look at its client (called by the connection watcher)."""
        self.peer_stirred = True
        self._signal.set()

    def end(self) -> None:
        """Stop waiting: the server is shutting down (the client reconnects, to another process)."""
        self.ending = True
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

    def backlog(self, after: str) -> list[LiveEvent]:
        """Every event after ``after`` in the stream now; then the reader keeps this feed current, and
        :meth:`take` goes on from the last of them."""
        rows: list[StoredEvent] = []
        cursor = after
        while True:
            page = self.hub.store.events_after(self.match_id, cursor, PAGE)
            rows += page
            cursor = page[-1].id if page else cursor
            if len(page) < PAGE:
                break
        self.cursor = event_key(cursor)
        self.hub._arm(self.match_id, cursor)
        return [LiveEvent.of(r) for r in rows]

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

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self.on_close is not None:
                self.on_close()
            self.hub._unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class _Feed:
    """A match with waiters in this process."""

    subscribers: set[Subscription] = field(default_factory=set)
    #: The id of the last event the reader handed out (None until the first subscriber caught up).
    tip: str | None = None
    confirmed: threading.Event = field(default_factory=threading.Event)


#: Every hub of this process (one per app), for :func:`end_all_waiters`.
_HUBS: weakref.WeakSet[LiveEvents] = weakref.WeakSet()


def end_all_waiters() -> None:
    """:meth:`LiveEvents.end_all` for every hub of this process (a server process stopping)."""
    for hub in list(_HUBS):
        hub.end_all()


class LiveEvents:
    """The per-process hub: feeds by match, the reader thread (a greenlet under gevent), the caps."""

    def __init__(
        self, store: Store, *, max_waiters: int, max_per_address: int, confirm_timeout: float
    ) -> None:
        self.store = store
        self.max_waiters = max_waiters
        self.max_per_address = max_per_address
        #: How long a new subscription waits for its channel to be confirmed before the request fails.
        self.confirm_timeout = confirm_timeout
        self._feeds: dict[str, _Feed] = {}
        self._by_address: Counter[str] = Counter()
        self._waiters = 0
        self._lock = threading.Lock()
        #: Feeds to read now (armed, or re-confirmed after a reconnect), and channel changes to make.
        self._to_read: set[str] = set()
        self._to_sync = False
        self._reader: threading.Thread | None = None
        self._work = threading.Event()
        self._reader_pid = 0
        #: Told the number of waiters and of feeds after every change (the metrics' gauges).
        self.report: Callable[[int, int], None] = lambda waiters, feeds: None
        _HUBS.add(self)

    # -- what the API uses --------------------------------------------------------------------------

    @property
    def waiters(self) -> int:
        return self._waiters

    @property
    def feeds(self) -> int:
        return len(self._feeds)

    def subscribe(self, match_id: str, address: str) -> Subscription:
        """A subscription to ``match_id``'s new events, once its channel is confirmed; the caller then
        catches up from the stream and calls :meth:`Subscription.arm`.  429 past the caps; a Redis that
        does not confirm in time raises ``redis.TimeoutError`` (the API's 503)."""
        with self._lock:
            if self._waiters >= self.max_waiters:
                raise TooManyWaiters(f"this server holds {self.max_waiters} waiting clients already")
            if self._by_address[address] >= self.max_per_address:
                raise TooManyWaiters(f"{self.max_per_address} waiting clients from your address already")
            sub = Subscription(self, match_id, address)
            self._waiters += 1
            self._by_address[address] += 1
            feed = self._feeds.get(match_id)
            if feed is None:
                feed = self._feeds[match_id] = _Feed()
                self._to_sync = True
                self._work.set()
            feed.subscribers.add(sub)
            self.report(self._waiters, len(self._feeds))
        self._ensure_reader()
        if not feed.confirmed.wait(self.confirm_timeout):
            sub.close()
            raise redis.TimeoutError("the live event channel was not confirmed in time")
        return sub

    def end_all(self) -> None:
        """Send every waiting client of this process away (a stream ends, a long-poll answers), so a
        stopping server process is done with them at once rather than after its grace period."""
        with self._lock:
            subs = [sub for feed in self._feeds.values() for sub in feed.subscribers]
        for sub in subs:
            sub.end()

    # -- subscription bookkeeping -------------------------------------------------------------------

    def _arm(self, match_id: str, last_id: str) -> None:
        with self._lock:
            feed = self._feeds.get(match_id)
            if feed is None:
                return
            if feed.tip is None:
                feed.tip = last_id
            # Read once from the tip: a commit between the catch-up and now was notified while the
            # feed was unarmed, and must not wait for the next commit to be seen.
            self._to_read.add(match_id)

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._waiters -= 1
            self._by_address[sub.address] -= 1
            if not self._by_address[sub.address]:
                del self._by_address[sub.address]
            feed = self._feeds.get(sub.match_id)
            if feed is not None:
                feed.subscribers.discard(sub)
                if not feed.subscribers:
                    del self._feeds[sub.match_id]
                    self._to_sync = True
            self.report(self._waiters, len(self._feeds))

    # -- the reader ---------------------------------------------------------------------------------

    def _ensure_reader(self) -> None:
        """Start the reader in this process (a forked server process inherits none)."""
        if self._reader is not None and self._reader_pid == os.getpid() and self._reader.is_alive():
            return
        with self._lock:
            if self._reader is not None and self._reader_pid == os.getpid() and self._reader.is_alive():
                return
            self._reader_pid = os.getpid()
            self._reader = threading.Thread(target=self._run, name="live-events", daemon=True)
            self._reader.start()

    def _run(self) -> None:
        delay = BACKOFF[0]
        while True:
            pubsub = None
            try:
                pubsub = self.store.subscriber()
                self._serve(pubsub)
            except STORAGE_ERRORS as exc:
                with self._lock:
                    for feed in self._feeds.values():
                        feed.confirmed.clear()
                    self._to_sync = True
                log.warning("live events: redis unavailable (%s); retrying in %.1f s", exc, delay)
                time.sleep(delay)
                delay = min(delay * 2, BACKOFF[1])
            else:
                delay = BACKOFF[0]
            finally:
                if pubsub is not None:
                    pubsub.reset()

    def _serve(self, pubsub: Any) -> None:
        """Subscribe to what has waiters, read what is notified, until the connection fails."""
        subscribed: set[str] = set()  # asked for on this connection
        confirmed: set[str] = set()  # and confirmed by Redis
        while True:
            if not self._feeds and not subscribed:
                self._work.wait()  # idle: sleep until a first subscriber
                self._work.clear()
            if self._to_sync:
                subscribed = self._sync_channels(pubsub, subscribed, confirmed)
            message = pubsub.get_message(timeout=TICK)
            notified: set[str] = set()
            while message is not None:
                self._note(message, notified, confirmed)
                message = pubsub.get_message(timeout=0)
            with self._lock:
                notified |= self._to_read
                self._to_read.clear()
            if notified:
                self._read(notified)

    def _sync_channels(self, pubsub: Any, subscribed: set[str], confirmed: set[str]) -> set[str]:
        with self._lock:
            self._to_sync = False
            wanted = set(self._feeds)
            new, gone = wanted - subscribed, subscribed - wanted
            confirmed -= gone
            for match_id in wanted & confirmed:  # a feed dropped and made again between two syncs
                self._feeds[match_id].confirmed.set()
        if new:
            pubsub.subscribe(*(notify_channel(m) for m in new))
        if gone:
            pubsub.unsubscribe(*(notify_channel(m) for m in gone))
        return wanted

    def _note(self, message: dict[str, Any], notified: set[str], confirmed: set[str]) -> None:
        kind = message["type"]
        if kind not in ("message", "subscribe", "unsubscribe"):
            return
        match_id = match_of_channel(message["channel"])
        if kind == "unsubscribe":
            confirmed.discard(match_id)
            return
        if kind == "subscribe":
            confirmed.add(match_id)
        feed = self._feeds.get(match_id)
        if feed is None:
            return
        if kind == "subscribe":
            feed.confirmed.set()
        if feed.tip is not None:  # also a confirmation after a reconnect: read what may have been missed
            notified.add(match_id)

    def _read(self, match_ids: set[str]) -> None:
        cursors = {m: f.tip for m in match_ids if (f := self._feeds.get(m)) is not None and f.tip is not None}
        if not cursors:
            return
        fresh = self.store.events_after_many(cursors, PAGE)
        with self._lock:
            for match_id, stored in fresh.items():
                feed = self._feeds.get(match_id)
                if feed is None or not stored:
                    continue
                rows = [LiveEvent.of(s) for s in stored]
                feed.tip = rows[-1].id
                for sub in feed.subscribers:
                    sub.push(rows)
                if len(stored) == PAGE:
                    self._to_read.add(match_id)


class TooManyWaiters(Exception):
    """A waiter refused at a cap (the process's, or one address's); the HTTP layer answers 429 with
    ``Retry-After``: :data:`RETRY_AFTER_SECONDS`."""

    code = "too_many_waiters"
    retry_after = RETRY_AFTER_SECONDS

    def __init__(self, message: str) -> None:
        self.message = f"{message}; retry after {RETRY_AFTER_SECONDS} s"
        self.details = {"retry_after": RETRY_AFTER_SECONDS}
        super().__init__(self.message)



# -- delivery: what a long-poll answers and a stream writes, and when ---------------------------------


def visible_events(
    store: Store, match_id: str, seat: int | None, after: str, count: int | None = None
) -> tuple[list[dict[str, Any]], str]:
    """Events after ``after`` that ``seat`` may see (of the next ``count`` or all), and the id of the
    last event read, seen or not."""
    rows = store.events_after(match_id, after, count)
    last = rows[-1].id if rows else after
    return [client_event(r) for r in rows if event_visible(r.event, seat)], last


def poll_events(
    store: Store,
    config: Config,
    meta: MatchMeta,
    seat: int | None,
    after: str,
    wait: float,
    subscribe: Callable[[], Subscription],
) -> tuple[list[dict[str, Any]], str]:
    """Long-poll: return as soon as there is an event ``seat`` may see, or after ``wait`` seconds
    (or when the client has gone).

    Only a poll that waits subscribes to live events.  A poll that is live (it waited, or the match
    moved less than ``stream_batch_seconds`` ago) lets the events of the next ``stream_batch_seconds``
    join the first, as a stream does: a client following a match played at machine speed polls a
    few times a second, not once per move.  A client behind the match gets its page at once."""
    events, after = visible_events(store, meta.id, seat, after, EVENTS_PER_PAGE)
    wait = min(wait, config.max_wait_seconds)
    live = now() - meta.updated_at < config.stream_batch_seconds
    if wait <= 0 or (events and not live):
        return events, after
    deadline = time.monotonic() + wait
    with subscribe() as sub:
        rows = sub.backlog(after)
        lingered = False
        while True:
            for row in rows:
                after = row.id
                if event_visible(row.event, seat):
                    events.append(row.client)
            remaining = deadline - time.monotonic()
            if remaining <= 0 or sub.client_gone() or (events and lingered):
                return events, after
            if events:  # the first news since the poll began: a short while for more to join
                lingered = True
                sub.rest(min(remaining, config.stream_batch_seconds))
                remaining = 0
            rows = sub.take(remaining)


def stream_events(
    config: Config, sub: Subscription, seat: int | None, backlog: list[LiveEvent], *, over: bool
) -> Iterator[list[LiveEvent] | None]:
    """Events for a streaming response, in batches (what arrived together), the ``backlog`` first
    (:meth:`Subscription.backlog`); ``None`` items are heartbeats, due whenever nothing was written
    for ``heartbeat_seconds`` (events other seats may see do not count).  Ends after ``match_over``
    (at once when the match was ``over`` already and the backlog is past it), after
    ``stream_max_seconds`` (the client reconnects with the last id), or when the client has gone.

    After a write, events arriving within ``stream_batch_seconds`` wait and go out together: a
    match played at machine speed costs its followers a write per batch, not one per event,
    while a match played at human speed is not delayed at all."""
    beat = config.heartbeat_seconds
    written = time.monotonic()
    deadline = written + config.stream_max_seconds
    rows = backlog
    del backlog  # events go out once: a waiting stream keeps none of them
    while True:
        visible = [r for r in rows if event_visible(r.event, seat)]
        ended = over or any(r.type == OVER for r in rows)  # finished or aborted
        del rows
        if visible:
            yield visible
            written = time.monotonic()
        if ended:
            return
        clock = time.monotonic()
        if clock >= deadline or sub.client_gone():
            return
        if clock - written >= beat:
            yield None
            written = clock
        lull = written + config.stream_batch_seconds - clock
        if visible and lull > 0:
            sub.rest(lull)  # events arriving meanwhile go out in one write
        del visible
        rows = sub.take(min(written + beat, deadline) - time.monotonic())
