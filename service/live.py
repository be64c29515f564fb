"""Live events for waiting clients: one reader per API process, fanning each new event out to every
client of that process that waits on its *topic*: a match's events, or a player's feed.

A waiting client (an open NDJSON or SSE stream, or an events long-poll) must cost memory, not a thread
and not a Redis connection: under the gevent serving model (:mod:`service.serving`) it is a greenlet
blocked on its :class:`Subscription`, a few kilobytes.  The process's reader holds one pub/sub
connection, subscribed to the notification channel of every topic that has waiters here: every match
commit publishes on its match's channel (``commit.lua``), every feed write on its player's
(:func:`service.accounts_store.feed_channel`).  On a notification the reader reads the topic's new
entries once (one ``XRANGE`` from the topic's *tip*, pipelined over every match notified at once) and
hands the same objects to each subscription; a match's subscription filters them for its own seat
exactly as every other read does (:func:`engine.core.event_visible`), a player's feed holds only that
player's entries.  10 000 waiters on a process cost it one pub/sub connection and one read per commit,
whatever their number.

The stream stays the record; a notification only says "read again".  A subscription catches up from the
stream itself after its channel is confirmed, and the topic's tip is armed only then, so nothing written
in between is missed; every later (re)confirmation of the channel (the reader reconnected after a Redis
restart, say) makes the reader read from the tip again, so a lost message costs latency, never an
event.  Subscriptions drop what they have seen already (cursors), so reading twice is harmless.

Waiter caps: the process's (``max_waiters``), and the caller's *quotas*, each a (key, cap) pair the
HTTP layer builds from the credential (:func:`service.http.waiters.waiter_quotas`): by address for
anonymous callers, by app and by player with an app key or a player token, so a backend proxying its
users meets its app's cap, not the one meant for a single address.

The primitives are :mod:`threading`'s: under gevent's monkey-patching they are cooperative, and the
in-process test client (plain threads) works the same.

When a waiting client is answered is decided here too: a long-poll's wait and a stream's batches and
heartbeats (:func:`poll_events`, :func:`stream_events`, :func:`poll_feed`, :func:`stream_feed`), over
what the client's seat may see (:func:`visible_events`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import weakref
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import redis

from engine.core import event_visible
from service.accounts_store import AccountStore, FeedEntry, feed_channel, published_entry
from service.config import Config
from service.encoding import dumps_bytes
from service.events import OVER
from service.store import (
    STORAGE_ERRORS,
    MatchMeta,
    Store,
    StoredEvent,
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

#: The kinds of :class:`Topic`.
MATCH, PLAYER = "match", "player"
#: The quota key prefixes (:func:`service.http.waiters.waiter_quotas`), and the cap each one is, as a
#: 429 names it.
QUOTA_NAMES = {
    "addr": "max_waiters_per_address",
    "app": "max_waiters_per_app",
    "player": "max_waiters_per_player",
}
_QUOTA_WHAT = {"addr": "your address", "app": "your app", "player": "this player"}

#: A waiter's quotas: (key, cap) pairs, e.g. ``[("app:a1", 5000), ("player:a1:ann", 20)]``.
Quotas = Sequence[tuple[str, int]]


def event_key(event_id: str) -> tuple[int, int]:
    """Stream ids ``<version>-<n>`` (or a feed's ``<ms>-<n>``) in their order."""
    version, n = event_id.split("-")
    return int(version), int(n)


def client_event(stored: StoredEvent | FeedEntry) -> dict[str, Any]:
    """An event (or a feed entry) as clients get it: its stream id, without the audience list."""
    data = stored.event if isinstance(stored, StoredEvent) else stored.entry
    return {"id": stored.id, **{k: v for k, v in data.items() if k != "visible_to"}}


@dataclass(frozen=True)
class Topic:
    """What a subscription follows: a match's events (``key`` the match id) or a player's feed (``key``
    the player key ``<app>:<player>``).  Its :attr:`channel` is the name its writes publish on."""

    kind: str
    key: str

    @classmethod
    def match(cls, match_id: str) -> Topic:
        return cls(MATCH, match_id)

    @classmethod
    def player(cls, key: str) -> Topic:
        return cls(PLAYER, key)

    @property
    def channel(self) -> str:
        return notify_channel(self.key) if self.kind == MATCH else feed_channel(self.key)


@dataclass(frozen=True)
class LiveEvent:
    """A stored event (or feed entry) with its client form built and encoded once per process: every
    waiter of the topic shares the object."""

    id: str
    event: dict[str, Any]  #: as stored, with ``visible_to`` (a match's; a feed entry has none)
    client: dict[str, Any]  #: :func:`client_event`
    json: bytes  #: ``client``, encoded

    @classmethod
    def of(cls, stored: StoredEvent | FeedEntry) -> LiveEvent:
        client = client_event(stored)
        data = stored.event if isinstance(stored, StoredEvent) else stored.entry
        return cls(stored.id, data, client, dumps_bytes(client))

    @property
    def type(self) -> str:
        return str(self.event["type"])


class Subscription:
    """One waiting client's place in a topic: the events pushed to it, and a signal to wake it."""

    def __init__(self, hub: LiveEvents, topic: Topic, quotas: Quotas) -> None:
        self.hub = hub
        self.topic = topic
        self.quotas = tuple(quotas)
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
        """Every event after ``after`` in the topic's stream now; then the reader keeps this topic
        current, and :meth:`take` goes on from the last of them."""
        rows: list[StoredEvent | FeedEntry] = []
        cursor = after
        while True:
            page = self.hub._read_after(self.topic, cursor, PAGE)
            rows += page
            cursor = page[-1].id if page else cursor
            if len(page) < PAGE:
                break
        self.cursor = event_key(cursor)
        self.hub._arm(self.topic, cursor)
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
    """A topic with waiters in this process."""

    topic: Topic
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
    """The per-process hub: topics by channel, the reader thread (a greenlet under gevent), the caps.

    ``accounts`` reads the players' feeds (by default over the match store's own Redis client, where
    they live)."""

    def __init__(
        self,
        store: Store,
        *,
        max_waiters: int,
        confirm_timeout: float,
        accounts: AccountStore | None = None,
    ) -> None:
        self.store = store
        self.accounts = accounts if accounts is not None else AccountStore(store.redis)
        self.max_waiters = max_waiters
        #: The cap of :meth:`subscribe`'s plain-address form.
        #: How long a new subscription waits for its channel to be confirmed before the request fails.
        self.confirm_timeout = confirm_timeout
        #: Topics with waiters, by channel name.
        self._feeds: dict[str, _Feed] = {}
        self._by_quota: Counter[str] = Counter()
        self._waiters = 0
        self._lock = threading.Lock()
        #: Topics (channels) to read now (armed, or re-confirmed after a reconnect), and channel changes
        #: to make.
        self._to_read: set[str] = set()
        self._to_sync = False
        self._reader: threading.Thread | None = None
        self._work = threading.Event()
        self._reader_pid = 0
        #: Told the number of waiters and of topics after every change (the metrics' gauges).
        self.report: Callable[[int, int], None] = lambda waiters, feeds: None
        _HUBS.add(self)

    # -- what the API uses --------------------------------------------------------------------------

    @property
    def waiters(self) -> int:
        return self._waiters

    @property
    def feeds(self) -> int:
        """Topics (matches and players' feeds) with waiters in this process."""
        return len(self._feeds)

    def waiting(self, quota_key: str) -> int:
        """Waiters here counted against ``quota_key`` (e.g. ``"app:<app>"``)."""
        with self._lock:
            return self._by_quota[quota_key]

    def subscribe(self, topic: Topic, quotas: Quotas) -> Subscription:
        """A subscription to ``topic``'s new events, once its channel is confirmed; the caller then
        catches up from the stream (:meth:`Subscription.backlog`).  ``quotas`` are the (key, cap) pairs
        the waiter counts against.  429 past the process's cap or any of the quotas, naming it; a
        Redis that does not confirm in time raises ``redis.TimeoutError`` (the API's 503)."""
        channel = topic.channel
        with self._lock:
            if self._waiters >= self.max_waiters:
                raise TooManyWaiters(
                    f"this server holds {self.max_waiters} waiting clients already",
                    "max_waiters",
                    self.max_waiters,
                )
            for key, cap in quotas:
                if self._by_quota[key] >= cap:
                    kind = key.partition(":")[0]
                    what = _QUOTA_WHAT.get(kind, key)
                    raise TooManyWaiters(
                        f"{cap} waiting clients of {what} already", QUOTA_NAMES.get(kind, kind), cap
                    )
            sub = Subscription(self, topic, quotas)
            self._waiters += 1
            for key, _cap in sub.quotas:
                self._by_quota[key] += 1
            feed = self._feeds.get(channel)
            if feed is None:
                feed = self._feeds[channel] = _Feed(topic)
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

    def _read_after(self, topic: Topic, after: str, count: int) -> list[StoredEvent] | list[FeedEntry]:
        if topic.kind == MATCH:
            return self.store.events_after(topic.key, after, count)
        return self.accounts.feed_after(topic.key, after, count)

    def _arm(self, topic: Topic, last_id: str) -> None:
        with self._lock:
            feed = self._feeds.get(topic.channel)
            if feed is None:
                return
            if feed.tip is None:
                feed.tip = last_id
            # Read once from the tip: a write between the catch-up and now was notified while the
            # topic was unarmed, and must not wait for the next write to be seen.
            self._to_read.add(topic.channel)

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._waiters -= 1
            for key, _cap in sub.quotas:
                self._by_quota[key] -= 1
                if not self._by_quota[key]:
                    del self._by_quota[key]
            channel = sub.topic.channel
            feed = self._feeds.get(channel)
            if feed is not None:
                feed.subscribers.discard(sub)
                if not feed.subscribers:
                    del self._feeds[channel]
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
        subscribed: set[str] = set()  # channels asked for on this connection
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
            for channel in wanted & confirmed:  # a topic dropped and made again between two syncs
                self._feeds[channel].confirmed.set()
        if new:
            pubsub.subscribe(*new)
        if gone:
            pubsub.unsubscribe(*gone)
        return wanted

    def _note(self, message: dict[str, Any], notified: set[str], confirmed: set[str]) -> None:
        kind = message["type"]
        if kind not in ("message", "subscribe", "unsubscribe"):
            return
        channel = message["channel"].decode()
        if kind == "unsubscribe":
            confirmed.discard(channel)
            return
        if kind == "subscribe":
            confirmed.add(channel)
        feed = self._feeds.get(channel)
        if feed is None:
            return
        if kind == "subscribe":
            feed.confirmed.set()
        if (
            kind == "message"
            and feed.topic.kind == PLAYER
            and self._deliver_published(feed, message, notified)
        ):
            return
        if feed.tip is not None:  # also a confirmation after a reconnect: read what may have been missed
            notified.add(channel)

    def _deliver_published(self, feed: _Feed, message: dict[str, Any], notified: set[str]) -> bool:
        """Hand a feed entry to its subscribers straight from the message that published it (a feed
        write publishes the whole entry): no read, where a match's notification costs one.

        Only when nothing is owed before it: the topic is caught up (armed, no read from its tip
        pending or noted in this round), so the entries before this one have all been handed out,
        and messages come in the order of the writes (each write and its publish are one script).
        Otherwise the topic is read from its tip, as a match's is.  Whether it was handled."""
        channel = feed.topic.channel
        if channel in notified:
            return False
        published = published_entry(message["data"])
        with self._lock:
            if published is None or feed.tip is None or channel in self._to_read:
                return False
            if event_key(published.id) > event_key(feed.tip):
                row = LiveEvent.of(published)
                feed.tip = row.id
                for sub in feed.subscribers:
                    sub.push([row])
        return True

    def _read(self, channels: set[str]) -> None:
        """Read every notified topic from its tip (the matches in one round trip) and hand the new
        events to its subscribers."""
        matches: dict[str, str] = {}  # match id -> tip
        players: dict[str, str] = {}  # player key -> tip
        for channel in channels:
            feed = self._feeds.get(channel)
            if feed is None or feed.tip is None:
                continue
            (matches if feed.topic.kind == MATCH else players)[feed.topic.key] = feed.tip
        fresh: dict[str, list[StoredEvent] | list[FeedEntry]] = {}
        if matches:
            read = self.store.events_after_many(matches, PAGE)
            fresh.update((Topic.match(m).channel, rows) for m, rows in read.items())
        if players:
            feeds = self.accounts.feed_after_many(players, PAGE)
            fresh.update((Topic.player(key).channel, rows) for key, rows in feeds.items())
        with self._lock:
            for channel, stored in fresh.items():
                feed = self._feeds.get(channel)
                if feed is None or not stored:
                    continue
                rows = [LiveEvent.of(s) for s in stored]
                feed.tip = rows[-1].id
                for sub in feed.subscribers:
                    sub.push(rows)
                if len(stored) == PAGE:
                    self._to_read.add(channel)


class TooManyWaiters(Exception):
    """A waiter refused at a cap (the process's, or one of the caller's quotas: its address, app or
    player); the HTTP layer answers 429 with ``Retry-After``: :data:`RETRY_AFTER_SECONDS`, and the
    details name the cap (``limit``, e.g. ``max_waiters_per_player``) and its value."""

    code = "too_many_waiters"
    retry_after = RETRY_AFTER_SECONDS

    def __init__(self, message: str, limit: str = "max_waiters", cap: int | None = None) -> None:
        self.message = f"{message} ({limit}); retry after {RETRY_AFTER_SECONDS} s"
        self.details: dict[str, Any] = {"retry_after": RETRY_AFTER_SECONDS, "limit": limit}
        if cap is not None:
            self.details["cap"] = cap
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


def _everyone(row: LiveEvent) -> bool:
    """A player's feed holds only that player's entries: every one is visible to its waiters."""
    return True


def _never(row: LiveEvent) -> bool:
    return False


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
    live = now() - meta.updated_at < config.stream_batch_seconds
    return _poll(config, events, after, wait, live, subscribe, lambda row: event_visible(row.event, seat))


def poll_feed(
    accounts: AccountStore,
    config: Config,
    key: str,
    after: str,
    wait: float,
    subscribe: Callable[[], Subscription],
) -> tuple[list[dict[str, Any]], str]:
    """:func:`poll_events` for the feed of the player ``key``: its entries after ``after`` at once, or
    the first that comes within ``wait`` seconds (with what joins it within ``stream_batch_seconds``)."""
    rows = accounts.feed_after(key, after, EVENTS_PER_PAGE)
    after = rows[-1].id if rows else after
    return _poll(config, [client_event(r) for r in rows], after, wait, False, subscribe, _everyone)


def _poll(
    config: Config,
    events: list[dict[str, Any]],
    after: str,
    wait: float,
    live: bool,
    subscribe: Callable[[], Subscription],
    visible: Callable[[LiveEvent], bool],
) -> tuple[list[dict[str, Any]], str]:
    """A long-poll's wait, after its first read (``events`` up to ``after``)."""
    wait = min(wait, config.max_wait_seconds)
    if wait <= 0 or (events and not live):
        return events, after
    deadline = time.monotonic() + wait
    with subscribe() as sub:
        rows = sub.backlog(after)
        lingered = False
        while True:
            for row in rows:
                after = row.id
                if visible(row):
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

    def ends(row: LiveEvent) -> bool:
        return row.type == OVER  # finished or aborted

    return _stream(config, sub, backlog, lambda row: event_visible(row.event, seat), ends, over=over)


def stream_feed(
    config: Config, sub: Subscription, backlog: list[LiveEvent]
) -> Iterator[list[LiveEvent] | None]:
    """:func:`stream_events` for a player's feed: every entry, heartbeats meanwhile; a feed outlives
    every match, so it ends only after ``stream_max_seconds`` or when the client has gone."""
    return _stream(config, sub, backlog, _everyone, _never, over=False)


def _stream(
    config: Config,
    sub: Subscription,
    backlog: list[LiveEvent],
    visible: Callable[[LiveEvent], bool],
    ends: Callable[[LiveEvent], bool],
    *,
    over: bool,
) -> Iterator[list[LiveEvent] | None]:
    beat = config.heartbeat_seconds
    written = time.monotonic()
    deadline = written + config.stream_max_seconds
    rows = backlog
    del backlog  # events go out once: a waiting stream keeps none of them
    while True:
        shown = [r for r in rows if visible(r)]
        ended = over or any(ends(r) for r in rows)
        del rows
        if shown:
            yield shown
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
        if shown and lull > 0:
            sub.rest(lull)  # events arriving meanwhile go out in one write
        del shown
        rows = sub.take(min(written + beat, deadline) - time.monotonic())
