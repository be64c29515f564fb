"""Live events for waiting clients: one reader per API process, fanning each new event out to every
client of that process that waits on its *topic*: a match's events, or a player's feed.

A waiting client (an open NDJSON or SSE stream, or an events long-poll) must cost memory, not a thread
and not a Redis connection: under the gevent serving model (:mod:`service.serving`) it is a greenlet
blocked on its :class:`Subscription`, a few kilobytes.  The process's reader holds one pub/sub
connection, subscribed to the notification channel of every topic that has waiters here: every match
commit publishes its events on its match's channel (``commit.lua``), every feed write its entry on its
player's (:func:`service.accounts_store.feed_channel`).  So the reader hands out what it was sent: a
commit costs each process that follows the match no read at all, only when something may have been
missed (a gap in the versions, a reconnection, a topic just armed) does it read the stream from the
topic's *tip* (one ``XRANGE``, pipelined over every match at once).

The work per committed event is per process and per seat watched, never per waiter:

* each event is decoded and encoded to JSON once per process (:class:`LiveEvent`);
* a stream (NDJSON or SSE) is written by the reader itself once the stream has caught up
  (:meth:`Subscription.go_direct`): the events of a round are filtered, encoded and framed once for
  every stream of the same seat and form, and each stream costs one non-blocking ``send`` of those
  bytes (:class:`Wire`), where waking each stream's greenlet cost about ten times that;
* a match read or handed out less than ``stream_batch_seconds`` ago is held until then, so a match
  played at machine speed costs each waiter a write per batch rather than one per commit, while one
  played at human speed waits for nothing;
* each topic keeps its last :data:`RECENT` events, so a waiter that comes back with the last id it got
  (a long-poll client polling again) catches up from memory, with no read.

The stream stays the record; a notification only says "hand this out, or read again".  A subscription
catches up from the stream itself after its channel is confirmed, and the topic's tip is armed only
then, so nothing written in between is missed; every later (re)confirmation of the channel (the reader
reconnected after a Redis restart, say) makes the reader read from the tip again, so a lost message
costs latency, never an event.  Subscriptions drop what they have seen already (cursors), so reading
twice is harmless.

Waiter caps: the process's (``max_waiters``), and the caller's *quotas*, each a (key, cap) pair the
HTTP layer builds from the credential (:func:`service.http.waiters.waiter_quotas`): by address for
anonymous callers, by app and by player with an app key or a player token, so a backend proxying its
users meets its app's cap, not the one meant for a single address.

Revocation reaches the waiters (issue 42): each subscription is tagged with the credential it was
opened with (:class:`Credential`: the app, the player and the token id of a player token, the key's
fingerprint of an app key; its expiry).  Revocations are announced on one channel every reader listens
to (:class:`service.accounts_store.Revocation`): the reader ends at once every waiter the revocation
covers, in this process; a credential revoked moments before its waiter subscribed is refused there
(the reader remembers the last :data:`REVOKED_MEMORY` seconds of revocations).  A guard greenlet ends
the waiters whose token expired (every :data:`GUARD_SWEEP` seconds), and every
``credential_check_seconds`` reads what each distinct credential of its waiters stands on now, in one
round trip, so an announcement missed (the reader was reconnecting) costs seconds, not an hour.  An
ended long-poll answers 401 ``credential_revoked`` (:class:`CredentialRevoked`, its ``reason``); an
ended stream writes a last line of type ``credential_revoked`` (unless its client owed bytes: it is cut)
and ends.  Nothing the reader had not written before the revocation goes out after it.

The primitives are :mod:`threading`'s: under gevent's monkey-patching they are cooperative, and the
in-process test client (plain threads, no direct writes) works the same.

When a waiting client is answered is decided here too: a long-poll's wait and a stream's batches and
heartbeats (:func:`poll_events`, :func:`stream_events`, :func:`poll_feed`, :func:`stream_feed`), over
what the client's seat may see (:func:`visible_events`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
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
from service.accounts_store import (
    REVOCATIONS,
    AccountStore,
    FeedEntry,
    Revocation,
    feed_channel,
    published_entry,
)
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
    published_events,
)

log = logging.getLogger(__name__)

#: Events read per XRANGE (a longer backlog is read in several rounds).
PAGE = 1000
#: Events read from the stream per JSON response (the client pages on with ``after=last_id``).
EVENTS_PER_PAGE = 1000
#: Seconds the reader waits for a message before it looks at its to-do list again.  A new topic or a
#: newly armed one wakes it at once (:meth:`LiveEvents._nudge`), so this only bounds how late it drops
#: the channels nobody waits on, and a wake-up lost in a reconnection.  (Polling every 10 ms instead
#: cost an idle process about 1% of a core, and every delivery its share.)
TICK = 0.5
#: Seconds between reconnection attempts after the reader lost Redis (doubling up to the cap).
BACKOFF = (0.1, 2.0)
#: What a client is told to wait after 429 (too many waiters).
RETRY_AFTER_SECONDS = 5
#: Events a topic keeps in memory, the last it handed out: a waiter that comes (back) at most this far
#: behind catches up from them, with no read (a long-poll client polls again at once after its answer).
RECENT = 8
#: Bytes a stream may owe its client (the socket took no more) before the client is dropped as one
#: that stopped reading; it reconnects with its last id and loses nothing.
MAX_OWED = 1 << 20
#: Who may see every entry of a topic: a player's feed holds only that player's entries.
ALL = "all"
#: Seconds a topic stays followed after its last waiter left: a long-poll client polling again finds
#: it current (its last events in memory, its channel confirmed), with no subscription to make and no
#: read; a topic nobody comes back to costs the reader its notifications meanwhile.
LINGER = 5.0
#: Longest pause between two sweeps of the direct streams for heartbeats (see :meth:`LiveEvents._beat`):
#: a stream gets its heartbeat between ``heartbeat_seconds - BEAT_SWEEP`` and ``heartbeat_seconds``
#: after its last write.
BEAT_SWEEP = 1.0
#: What :attr:`LiveEvents.counts` counts (the metrics ``tabletop_live_<name>_total``).
COUNTS = (
    "topic_reads",
    "backlog_reads",
    "events_read",
    "encodings",
    "deliveries",
    "metas_spared",
    "revoked_waiters",
)
#: Seconds between two looks of the guard at its waiters' expiry (:meth:`LiveEvents._guard_round`).
GUARD_SWEEP = 1.0
#: Seconds a process remembers the revocations it heard: a waiter whose credential was checked before
#: a revocation and that subscribes after the reader heard it is refused.
REVOKED_MEMORY = 60.0
#: The type of a stream's last line after its credential was revoked or expired, and the code of a
#: long-poll's 401 then.
CREDENTIAL_REVOKED = "credential_revoked"
#: Why a waiter ended, besides a :class:`Revocation`'s reasons: its token expired.
TOKEN_EXPIRED = "token_expired"
#: The reasons, for the documentation: an app revoked, an app key rotated away, a player token
#: revoked, a player token expired.
REVOKED_REASONS = ("app_revoked", "key_rotated", "token_revoked", TOKEN_EXPIRED)
_REASON_TEXT = {
    "app_revoked": "the app was revoked",
    "key_rotated": "this app key was rotated away",
    "token_revoked": "this player token was revoked",
    TOKEN_EXPIRED: "this player token expired",
}

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
class Credential:
    """What a waiter was let in with, so that revoking it ends the waiter: an app key (``player``
    ``None``; ``id`` its key's fingerprint) or a player token (``player`` its key ``<app>:<player>``,
    ``id`` the token's id, ``expires_at`` its expiry).  Seat tokens are not revocable: no tag."""

    app: str
    player: str | None = None
    id: str | None = None
    expires_at: float | None = None

    def revoked_by(self, revocation: Revocation) -> bool:
        """Whether ``revocation`` covers this credential."""
        if revocation.app != self.app:
            return False
        if revocation.key is not None:
            return self.player is None and self.id == revocation.key
        if revocation.player is None:
            return True  # the whole app: its key and its players' tokens
        return self.player == revocation.player and self.id in revocation.tokens

    def standing(self, app: tuple[str, str] | None, token: float | None, clock: float) -> str | None:
        """Why the credential no longer holds, given what its app (status, key fingerprint) and its
        token (expiry) stand on now (:meth:`service.accounts_store.AccountStore.credentials`): a reason
        of :data:`REVOKED_REASONS`, or ``None`` while it holds."""
        if app is None or app[0] != "active":
            return "app_revoked"
        if self.player is None:
            return None if app[1] == self.id else "key_rotated"
        if token is None:
            return "token_revoked"
        return TOKEN_EXPIRED if token <= clock else None


@dataclass(frozen=True)
class LiveEvent:
    """A stored event (or feed entry) with its client form built and encoded once per process: every
    waiter of the topic shares the object."""

    id: str
    event: dict[str, Any]  #: as stored, with ``visible_to`` (a match's; a feed entry has none)
    client: dict[str, Any]  #: :func:`client_event`
    json: bytes  #: ``client``, encoded
    #: The last event of a commit that published who is to move after it: that seat (``""``: nobody).
    to_move: str | None = None

    @classmethod
    def of(cls, stored: StoredEvent | FeedEntry, to_move: str | None = None) -> LiveEvent:
        client = client_event(stored)
        data = stored.event if isinstance(stored, StoredEvent) else stored.entry
        return cls(stored.id, data, client, dumps_bytes(client), to_move)

    @property
    def type(self) -> str:
        return str(self.event["type"])


class Wire:
    """A stream's connection, which the process's reader writes to itself (:meth:`Subscription.go_direct`).

    A stream waiting on its own greenlet costs every delivery a wake-up, a round through the response
    generators and the server's write: about 0.1 ms of CPU per write.  Written by the reader, a batch
    costs one non-blocking ``send`` of bytes encoded once for every stream of the same seat and form.
    ``send`` writes what the socket takes now (0 when it takes nothing; ``OSError`` when the client is
    gone), ``send_all`` blocks until everything is written (the stream's own greenlet only), ``frame``
    puts body bytes in the response's framing (HTTP/1.1 chunks).  What the socket does not take is owed
    (:attr:`owed`) and the stream's greenlet sends it, in order, before anything else goes out.
    """

    def __init__(
        self,
        send: Callable[[bytes], int],
        send_all: Callable[[bytes], None],
        frame: Callable[[bytes], bytes],
    ) -> None:
        self._send = send
        self._send_all = send_all
        self.frame = frame
        self.owed = bytearray()
        self.flushing = False
        self.broken = False
        #: When the last bytes went out (``time.monotonic``): heartbeats are due from it.
        self.written = time.monotonic()

    def offer(self, data: bytes) -> bool:
        """Write ``data`` (framed) now as far as the socket takes it, owing the rest; whether the
        stream's greenlet must wake (bytes owed, or the client gone)."""
        if self.broken:
            return True
        if self.owed or self.flushing:
            self.owed += data
        else:
            try:
                sent = self._send(data)
            except OSError:
                self.broken = True
                return True
            self.written = time.monotonic()
            if sent == len(data):
                return False
            self.owed += memoryview(data)[sent:]
        if len(self.owed) > MAX_OWED:
            self.broken = True
            self.owed.clear()
        return True

    def flush(self) -> None:
        """Send what is owed, blocking (the stream's own greenlet, never the reader's)."""
        self.flushing = True
        try:
            while self.owed and not self.broken:
                data = bytes(self.owed)
                self.owed.clear()
                try:
                    self._send_all(data)
                except OSError:  # gone, or not reading within the send timeout
                    self.broken = True
                self.written = time.monotonic()
        finally:
            self.flushing = False


class Subscription:
    """One waiting client's place in a topic: the events pushed to it, and a signal to wake it; or,
    once :meth:`go_direct`, the connection the reader writes its events to."""

    def __init__(
        self, hub: LiveEvents, topic: Topic, quotas: Quotas, credential: Credential | None = None
    ) -> None:
        self.hub = hub
        self.topic = topic
        self.quotas = tuple(quotas)
        #: What it was let in with (``None``: nothing revocable), and once that was revoked or
        #: expired, why (:data:`REVOKED_REASONS`): the waiter ends (:meth:`revoke`).
        self.credential = credential
        self.revoked: str | None = None
        #: Set by :meth:`go_direct`: where and how the reader writes this stream's events, which of
        #: them it shows (``audience``: the seat, or :data:`ALL`; with ``encode``, the streams that
        #: share one encoding), and which one ends it.
        self.wire: Wire | None = None
        self.audience: int | str | None = None
        self.encode: Callable[[list[LiveEvent] | None], bytes] = _no_encoding
        self.visible: Callable[[LiveEvent], bool] = _everyone
        self.ends: Callable[[LiveEvent], bool] = _never
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
        feed = self.hub._feeds.get(self.topic.channel)
        if feed is not None:
            feed.subscribers.discard(self)
        self.hub._direct.discard(self)
        self._rows.clear()
        wire = self.wire
        if wire is not None and (wire.owed or wire.flushing):
            wire.owed.clear()
            wire.broken = True
        self.hub.count("revoked_waiters", 1)
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
        :meth:`take` goes on from the last of them.  A topic this process follows already answers
        from the events it keeps (:data:`RECENT`) when they reach back to ``after``: no read.
        ``version``: a match's version as read before (no event of a later one can be there yet)."""
        self.began = after
        remembered = self.hub._remembered(self.topic, after)
        if remembered is not None:
            self.cursor = event_key(remembered[-1].id if remembered else after)
            return remembered
        rows: list[StoredEvent | FeedEntry] = []
        cursor = after
        while True:
            page = self.hub._read_after(self.topic, cursor, PAGE)
            self.hub.count("backlog_reads", 1)
            rows += page
            cursor = page[-1].id if page else cursor
            if len(page) < PAGE or (limit is not None and len(rows) >= limit):
                break
        live = [LiveEvent.of(r) for r in rows]
        self.cursor = event_key(cursor)
        tip = cursor
        if not rows and not self.hub._armed(self.topic):
            # Nothing after ``after``: the stream may end before it (an id from a client's future),
            # and the reader must read from where the stream really ends, or miss what comes next.
            # A match's version bounds it (its events are ``<version>-<n>``); a feed's is read.
            if version is not None:
                last = f"{version}-{2**63 - 1}"
            else:
                last = self.hub._last_id(self.topic)
                self.hub.count("backlog_reads", 1)
            tip = min(last, cursor, key=event_key)
        self.hub._arm(self.topic, after if rows else tip, tip, live)
        return live

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
        encode: Callable[[list[LiveEvent] | None], bytes],
        visible: Callable[[LiveEvent], bool],
        ends: Callable[[LiveEvent], bool],
    ) -> None:
        """From now on the reader writes this stream's events to ``wire`` itself; what was pushed
        meanwhile goes out first, in order.  Only once everything the stream's own greenlet had to
        write is written (the response's framing is the server's until then)."""
        with self.hub._lock:
            if self.revoked is not None:  # its stream ends instead
                return
            self.audience, self.encode, self.visible, self.ends = audience, encode, visible, ends
            rows = self.take(0)
            self.wire = wire
            self.hub._direct.add(self)
            if rows:
                encoded = self.hub._encode(self, wire, rows)
                self.hub.count("deliveries", self.hub._write(self, event_key(rows[-1].id), encoded))
        self.hub._ensure_beater()

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
    #: The last events handed out (at most :data:`RECENT`): every event after ``base`` up to the tip.
    recent: deque[LiveEvent] = field(default_factory=deque)
    base: str = ""
    #: ``time.monotonic`` before which the topic is not read again (see :meth:`LiveEvents._read`).
    held_until: float = 0.0
    #: A match's events as its commits published them, in order from the tip on, not handed out yet;
    #: ``stale`` when they may not be all (a gap, a reconnection, a new tip): the stream is read then.
    published: list[tuple[StoredEvent, str | None]] = field(default_factory=list)
    stale: bool = False
    #: Counts what came on the channel (messages, confirmations) and the reader's losses of Redis: a
    #: match read while it stays the same is the match now, as far as this process can know.
    generation: int = 0
    #: A match's meta as read at ``meta_generation`` (see :meth:`LiveEvents.match_meta`), and the read
    #: of it under way, if any.
    meta: MatchMeta | None = None
    meta_generation: int = -1
    meta_read: _MetaRead | None = None


class _MetaRead:
    """A read of a match's meta that began at ``generation``: its outcome (the meta, or the error it
    raised) is also that of the polls that came while it was under way."""

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.meta: MatchMeta | None = None
        self.error: Exception | None = None
        self.done = threading.Event()


#: A round's encoding of a topic's new events for one seat and form: the bytes, how many events they
#: hold, whether one of them ends the stream.
_Made = tuple[bytes, int, bool]

#: Every hub of this process (one per app), for :func:`end_all_waiters`.
_HUBS: weakref.WeakSet[LiveEvents] = weakref.WeakSet()


def end_all_waiters() -> None:
    """:meth:`LiveEvents.end_all` for every hub of this process (a server process stopping)."""
    for hub in list(_HUBS):
        hub.end_all()


class _PerProcess:
    """A background thread (a greenlet under gevent) that each process runs once: a forked server
    process inherits the object but not the thread, so it starts its own."""

    def __init__(self, target: Callable[[], None], name: str) -> None:
        self.target, self.name = target, name
        self.thread: threading.Thread | None = None
        self.pid = 0

    def _running(self) -> bool:
        return self.thread is not None and self.pid == os.getpid() and self.thread.is_alive()

    def ensure(self, lock: threading.Lock) -> None:
        if self._running():
            return
        with lock:
            if self._running():
                return
            self.pid = os.getpid()
            self.thread = threading.Thread(target=self.target, name=self.name, daemon=True)
            self.thread.start()


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
        batch_seconds: float = 0.0,
        linger_seconds: float = LINGER,
        heartbeat_seconds: float = 15.0,
        credential_check_seconds: float = 5.0,
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
        self._reader = _PerProcess(self._run, "live-events")
        self._work = threading.Event()
        #: The reader's own channel, for :meth:`_nudge`, and whether it listens to it now.
        self._wake_channel = f"tt:live:wake:{secrets.token_hex(8)}"
        self._connected = False
        #: The streams the reader writes itself (:meth:`Subscription.go_direct`), and the greenlet
        #: that writes their heartbeats (:meth:`_beat`): one timer for the process, none per stream.
        self._direct: set[Subscription] = set()
        self.heartbeat_seconds = heartbeat_seconds
        self._beater = _PerProcess(self._beat_forever, "live-heartbeats")
        #: A match read less than this long ago is read again only then: its waiters get what its
        #: commits wrote meanwhile in one batch (a match played at machine speed costs a read and a
        #: write per waiter per batch, not per commit; one played at human speed waits for nothing).
        self.batch_seconds = batch_seconds
        #: Held matches (channel -> when to read), see :meth:`_read`.
        self._held: dict[str, float] = {}
        #: Topics whose last waiter left (channel -> when), oldest first, followed for ``linger_seconds``.
        self.linger_seconds = linger_seconds
        self._idle: dict[str, float] = {}
        #: Told the number of waiters and of topics after every change (the metrics' gauges).
        self.report: Callable[[int, int], None] = lambda waiters, feeds: None
        #: What the reader did, by name (:data:`COUNTS`), for the metrics and the benchmarks: the work
        #: per committed event grows with the processes and the seats watched, never with the waiters.
        self.counts: Counter[str] = Counter()
        #: Told every count as it grows (the metrics' counters).
        self.counted: Callable[[str, int], None] = lambda name, n: None
        #: The waiters with a credential, by app (what a :class:`Revocation` names first); the
        #: revocations heard in the last :data:`REVOKED_MEMORY` seconds (``time.monotonic``, the
        #: revocation); the guard that ends expired waiters and every ``credential_check_seconds``
        #: reads what their credentials stand on (:meth:`_guard_round`), and when it reads next.
        self._by_app: dict[str, set[Subscription]] = {}
        self._revocations: deque[tuple[float, Revocation]] = deque()
        #: The same, by what they name: the player key of a token revocation, else the app.
        self._recent: dict[str, list[Revocation]] = {}
        self.credential_check_seconds = credential_check_seconds
        self._guard = _PerProcess(self._guard_forever, "live-credentials")
        self._check_at = 0.0
        _HUBS.add(self)

    # -- what the API uses --------------------------------------------------------------------------

    @property
    def waiters(self) -> int:
        return self._waiters

    @property
    def feeds(self) -> int:
        """Topics (matches and players' feeds) with waiters in this process."""
        return len(self._feeds) - len(self._idle)

    def waiting(self, quota_key: str) -> int:
        """Waiters here counted against ``quota_key`` (e.g. ``"app:<app>"``)."""
        with self._lock:
            return self._by_quota[quota_key]

    def subscribe(self, topic: Topic, quotas: Quotas, credential: Credential | None = None) -> Subscription:
        """A subscription to ``topic``'s new events, once its channel is confirmed; the caller then
        catches up from the stream (:meth:`Subscription.backlog`).  ``quotas`` are the (key, cap) pairs
        the waiter counts against.  429 past the process's cap or any of the quotas, naming it; a
        Redis that does not confirm in time raises ``redis.TimeoutError`` (the API's 503).

        ``credential``: what the waiter was let in with; revoking it ends the waiter (see
        :meth:`Subscription.revoke`), and one revoked since it was checked, or expired, is refused
        here (:class:`CredentialRevoked`)."""
        channel = topic.channel
        with self._lock:
            if credential is not None:
                reason = self._refused(credential)
                if reason is not None:
                    raise CredentialRevoked(reason)
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
            sub = Subscription(self, topic, quotas, credential)
            self._waiters += 1
            for key, _cap in sub.quotas:
                self._by_quota[key] += 1
            if credential is not None:
                self._by_app.setdefault(credential.app, set()).add(sub)
            feed = self._feeds.get(channel)
            new = feed is None
            if feed is None:
                feed = self._feeds[channel] = _Feed(topic)
                self._to_sync = True
                self._work.set()
            self._idle.pop(channel, None)  # a lingering topic is current: nothing to subscribe
            feed.subscribers.add(sub)
            self.report(self._waiters, self.feeds)
        self._ensure_reader()
        if credential is not None and self._guard.pid != os.getpid():  # (it never ends by itself)
            self._guard.ensure(self._lock)
        if new:
            self._nudge()
        if not feed.confirmed.wait(self.confirm_timeout):
            sub.close()
            raise redis.TimeoutError("the live event channel was not confirmed in time")
        return sub

    def match_meta(
        self, match_id: str, read: Callable[[], MatchMeta], keep: Callable[[MatchMeta], bool]
    ) -> MatchMeta:
        """The match's meta as this process last read it (``read``) while it followed the match, if
        nothing came on the match's channel since that read began; else read now, and kept if ``keep``.
        A read under way since the channel's last message is joined, not repeated, failure included
        (a poll waits for one read at most: during a Redis stall, one timeout): a commit wakes a
        match's long-polls together, and they poll again together.  No read holds the hub's lock.

        Every write of a match's meta is a commit, which publishes on that channel in the same script
        (``commit.lua``), and a lost connection unconfirms the channel: a copy read once the channel
        was confirmed is the match's until the reader notes the channel's next message, no older
        than the events the reader hands out.  ``keep`` is the caller's to say: a copy must refuse
        nobody the match would let in, and must not outlive keys that expire."""
        channel = Topic.match(match_id).channel
        leading = False
        with self._lock:
            feed = self._feeds.get(channel)
            if feed is None or feed.tip is None or not feed.confirmed.is_set():
                feed = None  # not followed: nothing would tell when a copy goes out of date
            elif feed.meta is not None and feed.meta_generation == feed.generation:
                self.count("metas_spared", 1)
                return feed.meta
            elif feed.meta_read is not None and feed.meta_read.generation == feed.generation:
                under_way = feed.meta_read
            else:
                under_way = feed.meta_read = _MetaRead(feed.generation)
                leading = True
        if feed is None:
            return read()
        if not leading:  # a read began since the channel's last message: its outcome will do
            under_way.done.wait()
            if under_way.error is not None:
                raise under_way.error
            if under_way.meta is None:  # its poll was stopped before it read: read anew
                return read()
            self.count("metas_spared", 1)
            return under_way.meta
        try:
            meta = under_way.meta = read()
        except Exception as exc:
            under_way.error = exc
            raise
        finally:
            kept = under_way.meta is not None and keep(under_way.meta)
            with self._lock:
                if feed.meta_read is under_way:
                    feed.meta_read = None
                if kept and feed.generation == under_way.generation:  # else out of date already
                    feed.meta, feed.meta_generation = under_way.meta, under_way.generation
            under_way.done.set()
        return meta

    def end_all(self) -> None:
        """Send every waiting client of this process away (a stream ends, a long-poll answers), so a
        stopping server process is done with them at once rather than after its grace period."""
        with self._lock:
            subs = [sub for feed in self._feeds.values() for sub in feed.subscribers]
        for sub in subs:
            sub.end()

    def count(self, name: str, n: int) -> None:
        self.counts[name] += n
        self.counted(name, n)

    # -- revocation ---------------------------------------------------------------------------------

    def revoke(self, revocation: Revocation) -> int:
        """End every waiter of this process that ``revocation`` covers (the reader calls this for
        each announcement), and remember it a while for the waiters that come just after; how many
        ended."""
        clock = time.monotonic()
        with self._lock:
            self._revocations.append((clock, revocation))
            self._recent.setdefault(revocation.player or revocation.app, []).append(revocation)
            while self._revocations and self._revocations[0][0] < clock - REVOKED_MEMORY:
                _, old = self._revocations.popleft()
                named = old.player or old.app
                kept = self._recent[named]
                kept.pop(0)  # in the order heard, as the deque's
                if not kept:
                    del self._recent[named]
            tagged = self._by_app.get(revocation.app, ())
            covered = [s for s in tagged if s.credential is not None and s.credential.revoked_by(revocation)]
            covered = [s for s in covered if s.revoked is None]
            for sub in covered:
                sub.revoke(revocation.reason)
        return len(covered)

    def _refused(self, credential: Credential) -> str | None:
        """Why a new waiter with ``credential`` is refused (under the lock): a revocation heard
        lately covers it, or it expired; ``None``: it may wait."""
        if credential.expires_at is not None and credential.expires_at <= time.time():
            return TOKEN_EXPIRED
        for named in (credential.app, credential.player):
            for revocation in self._recent.get(named or "", ()):
                if credential.revoked_by(revocation):
                    return revocation.reason
        return None

    def _guard_forever(self) -> None:
        # Its own greenlet: a reader retrying a lost Redis must not keep an expired token's stream open.
        while True:
            time.sleep(GUARD_SWEEP)
            try:
                self._guard_round()
            except STORAGE_ERRORS as exc:  # read again at the next round
                log.warning("live events: the credentials' check failed (%s)", exc)
            except Exception:
                log.exception("live events: the credentials' check failed")

    def _guard_round(self) -> None:
        """End the waiters whose token expired; every ``credential_check_seconds`` (or at once after
        the reader reconnected) also read what each distinct credential of the waiters stands on
        now, in one round trip, and end those revoked: an announcement missed costs seconds."""
        clock, wall = time.monotonic(), time.time()
        with self._lock:
            tagged = [sub for subs in self._by_app.values() for sub in subs]
            for sub in tagged:
                assert sub.credential is not None
                expires = sub.credential.expires_at
                if expires is not None and expires <= wall:
                    sub.revoke(TOKEN_EXPIRED)
            if clock < self._check_at or not tagged:
                return
            self._check_at = clock + self.credential_check_seconds
            credentials = {sub.credential for sub in tagged if sub.revoked is None}
        apps = sorted({c.app for c in credentials if c is not None})
        tokens = sorted({(c.player, c.id) for c in credentials if c is not None and c.player and c.id})
        found_apps, found_tokens = self.accounts.credentials(apps, tokens)
        wall = time.time()
        with self._lock:
            for sub in tagged:
                credential = sub.credential
                if credential is None or sub.revoked is not None:
                    continue
                token = None if credential.player is None else (credential.player, credential.id or "")
                reason = credential.standing(
                    found_apps.get(credential.app), found_tokens.get(token) if token else None, wall
                )
                if reason is not None:
                    sub.revoke(reason)

    # -- subscription bookkeeping -------------------------------------------------------------------

    def _read_after(self, topic: Topic, after: str, count: int) -> list[StoredEvent] | list[FeedEntry]:
        if topic.kind == MATCH:
            return self.store.events_after(topic.key, after, count)
        return self.accounts.feed_after(topic.key, after, count)

    def _last_id(self, topic: Topic) -> str:
        if topic.kind == MATCH:
            return self.store.last_event_id(topic.key)
        return self.accounts.feed_last_id(topic.key)

    def _armed(self, topic: Topic) -> bool:
        with self._lock:
            feed = self._feeds.get(topic.channel)
            return feed is not None and feed.tip is not None

    def _remembered(self, topic: Topic, after: str) -> list[LiveEvent] | None:
        """The events after ``after`` when this process has every one of them in memory (the topic is
        followed and ``after`` is no older than its :data:`RECENT` events), else ``None``."""
        with self._lock:
            feed = self._feeds.get(topic.channel)
            if feed is None or feed.tip is None:
                return None
            since = event_key(after)
            if since < event_key(feed.base):
                return None
            return [row for row in feed.recent if event_key(row.id) > since]

    def _arm(self, topic: Topic, after: str, last_id: str, rows: list[LiveEvent]) -> None:
        """Make the reader keep ``topic`` current from ``last_id`` on, unless it does already; ``rows``
        (every event after ``after`` up to ``last_id``) are the first it remembers."""
        with self._lock:
            feed = self._feeds.get(topic.channel)
            if feed is None:
                return
            if feed.tip is not None:
                return
            feed.tip, feed.base = last_id, after
            feed.stale = True
            self._remember(feed, rows)
            # Read once from the tip: a write between the catch-up and now was notified while the
            # topic was unarmed, and must not wait for the next write to be seen.
            self._to_read.add(topic.channel)
        self._nudge()

    def _nudge(self) -> None:
        """Wake the reader now (it has a channel to subscribe, or a topic to read): a message on the
        reader's own channel.  Should Redis not take it, the reader looks within :data:`TICK`."""
        if not self._connected:  # it subscribes and reads everything when it (re)connects
            return
        with contextlib.suppress(*STORAGE_ERRORS):
            self.store.redis.publish(self._wake_channel, b"")

    def _unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._direct.discard(sub)
            if sub.credential is not None:
                tagged = self._by_app.get(sub.credential.app)
                if tagged is not None:
                    tagged.discard(sub)
                    if not tagged:
                        del self._by_app[sub.credential.app]
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
                    if self.linger_seconds > 0 and feed.tip is not None:
                        self._idle[channel] = time.monotonic()
                    else:
                        del self._feeds[channel]
                        self._to_sync = True
            self.report(self._waiters, self.feeds)

    def _drop_idle(self) -> None:
        """Stop following the topics nobody came back to within ``linger_seconds`` (the reader)."""
        limit = time.monotonic() - self.linger_seconds
        with self._lock:
            while self._idle:
                channel, since = next(iter(self._idle.items()))
                if since > limit:
                    return
                del self._idle[channel]
                del self._feeds[channel]
                self._to_sync = True

    # -- the reader ---------------------------------------------------------------------------------

    def _ensure_reader(self) -> None:
        self._reader.ensure(self._lock)

    def _ensure_beater(self) -> None:
        """Start the heartbeat greenlet in this process, at its first direct stream."""
        self._beater.ensure(self._lock)

    def _beat_forever(self) -> None:
        # Its own greenlet, not the reader's: while Redis is away the reader retries, and the streams
        # it cannot feed still need their heartbeats (a proxy would cut them as idle).
        sweep = min(BEAT_SWEEP, self.heartbeat_seconds / 4)
        while True:
            time.sleep(sweep)
            try:
                self._beat(self.heartbeat_seconds - sweep)
            except Exception:  # a heartbeat lost is no reason to stop the next ones
                log.exception("live events: heartbeat sweep failed")

    def _beat(self, quiet: float) -> None:
        """Write a heartbeat to every direct stream that has written nothing for ``quiet`` seconds.

        One sweep a second over the streams replaces a timer per stream: with 10,000 streams, their
        own timers woke a greenlet 667 times a second, about 84 µs of server CPU each, whether the
        streams' matches moved or not (5-6% of a core for a crowd standing still).  A stream whose
        match moves more often than the heartbeat interval never gets one.  The heartbeat's bytes
        are made once per form (encoding and framing)."""
        due = time.monotonic() - quiet
        made: dict[tuple[Any, ...], bytes] = {}
        with self._lock:
            for sub in self._direct:
                wire = sub.wire
                if wire is None or wire.written > due or wire.owed or wire.flushing or wire.broken:
                    continue
                key = (sub.encode, wire.frame)
                data = made.get(key)
                if data is None:
                    data = made[key] = wire.frame(sub.encode(None))
                if wire.offer(data):
                    sub._signal.set()

    def _run(self) -> None:
        delay = BACKOFF[0]
        while True:
            pubsub = None
            try:
                pubsub = self.store.subscriber()
                self._serve(pubsub)
            except STORAGE_ERRORS as exc:
                self._connected = False
                with self._lock:
                    for feed in self._feeds.values():
                        feed.confirmed.clear()
                        feed.generation += 1
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
        pubsub.subscribe(self._wake_channel, REVOCATIONS)
        self._connected = True
        while True:
            if not self._feeds and not subscribed:
                self._work.wait()  # idle: sleep until a first subscriber
                self._work.clear()
            if self._idle:
                self._drop_idle()
            if self._to_sync:
                subscribed = self._sync_channels(pubsub, subscribed, confirmed)
            timeout = TICK
            if self._held:  # a held topic is read when its batch is due
                timeout = max(0.0, min(timeout, min(self._held.values()) - time.monotonic()))
            message = pubsub.get_message(timeout=timeout)
            notified: set[str] = set()
            while message is not None:
                self._note(message, notified, confirmed)
                message = pubsub.get_message(timeout=0)
            with self._lock:
                notified |= self._to_read
                self._to_read.clear()
            if self._held:
                clock = time.monotonic()
                for channel in [c for c, until in self._held.items() if until <= clock]:
                    del self._held[channel]
                    notified.add(channel)
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
        if channel == REVOCATIONS:
            if kind == "message":
                revocation = Revocation.decode(message["data"])
                if revocation is not None:
                    self.revoke(revocation)
            elif kind == "subscribe":  # (re)connected: what was announced meanwhile was missed
                self._check_at = 0.0
            return
        if kind == "unsubscribe":
            confirmed.discard(channel)
            return
        if kind == "subscribe":
            confirmed.add(channel)
        feed = self._feeds.get(channel)
        if feed is None:
            return
        with self._lock:
            feed.generation += 1
        if kind == "subscribe":
            feed.confirmed.set()
        player_entry = kind == "message" and feed.topic.kind == PLAYER
        if player_entry and self._deliver_published(feed, message, notified):
            return
        with self._lock:
            if feed.tip is None:
                return
            # A match's commit published its events: kept, and handed out in this round (or when
            # its batch is due) without a read.  Anything else (a confirmation after a reconnect, a
            # gap) reads the stream from the tip, for what may have been missed.
            if kind != "message" or feed.topic.kind != MATCH or not self._keep_published(feed, message):
                feed.stale = True
        notified.add(channel)

    @staticmethod
    def _keep_published(feed: _Feed, message: dict[str, Any]) -> bool:
        """Keep the events a match's commit published when they follow what the topic has (the next
        version), or ignore them when it has them already; whether no read is needed for them."""
        if feed.stale:
            return False
        found = published_events(message["data"])
        if found is None:
            return False
        published, to_move = found
        have = event_key(feed.published[-1][0].id if feed.published else feed.tip or "0-0")[0]
        version = event_key(published[0].id)[0]
        if version <= have:  # read already (a read from the tip came first)
            return True
        if version != have + 1:
            return False
        feed.published += [(event, None) for event in published[:-1]]
        feed.published.append((published[-1], to_move))
        return True

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
                self._hand_out(feed, [LiveEvent.of(published)])
        return True

    def _read(self, channels: set[str]) -> None:
        """Read every notified topic from its tip (the matches in one round trip) and hand the new
        events to its subscribers.  A match handed out less than ``batch_seconds`` ago is held until
        then (:attr:`_held`), so its waiters get the commits of that while in one batch."""
        matches: dict[str, str] = {}  # match id -> tip
        players: dict[str, str] = {}  # player key -> tip
        fresh: dict[str, list[LiveEvent]] = {}
        clock = time.monotonic()
        for channel in channels:
            feed = self._feeds.get(channel)
            if feed is None or feed.tip is None:
                continue
            if feed.held_until > clock:
                self._held[channel] = feed.held_until
                continue
            if feed.topic.kind == MATCH and feed.published and not feed.stale:
                fresh[channel] = [LiveEvent.of(event, to_move) for event, to_move in feed.published]
                feed.published = []
                continue
            feed.published, feed.stale = [], False
            (matches if feed.topic.kind == MATCH else players)[feed.topic.key] = feed.tip
        read: dict[str, list[StoredEvent] | list[FeedEntry]] = {}
        if matches:
            events = self.store.events_after_many(matches, PAGE)
            read.update((Topic.match(m).channel, rows) for m, rows in events.items())
        if players:
            entries = self.accounts.feed_after_many(players, PAGE)
            read.update((Topic.player(key).channel, rows) for key, rows in entries.items())
        self.count("topic_reads", len(read))
        self.count("events_read", sum(len(stored) for stored in read.values()))
        fresh.update((channel, [LiveEvent.of(s) for s in stored]) for channel, stored in read.items())
        clock = time.monotonic()
        with self._lock:
            for channel, rows in fresh.items():
                feed = self._feeds.get(channel)
                if feed is None or not rows:
                    continue
                self._hand_out(feed, rows)
                if feed.topic.kind == MATCH:
                    feed.held_until = clock + self.batch_seconds
                if len(read.get(channel, ())) == PAGE:
                    feed.stale = True
                    self._to_read.add(channel)

    # -- handing events out (under the lock) --------------------------------------------------------

    def _hand_out(self, feed: _Feed, rows: list[LiveEvent]) -> None:
        """Give a topic's new events to its subscribers: pushed to those that wait on their own
        greenlet, written to the wires of the direct ones, encoded and framed once for all the
        direct subscribers of a seat and form (the per-waiter work is a ``send``)."""
        feed.tip = rows[-1].id
        self._remember(feed, rows)
        first, last = event_key(rows[0].id), event_key(rows[-1].id)
        made: dict[tuple[Any, ...], _Made] = {}
        handed = 0
        for sub in feed.subscribers:
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
        self.count("deliveries", handed)

    def _encode(self, sub: Subscription, wire: Wire, rows: list[LiveEvent]) -> _Made:
        """``rows`` as ``sub``'s stream writes them: the framed bytes (empty if it sees none of them),
        how many it sees, whether one ends it."""
        shown = [r for r in rows if sub.visible(r)]
        if shown:
            self.count("encodings", 1)
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
            sub._signal.set()
        return shown

    @staticmethod
    def _remember(feed: _Feed, rows: list[LiveEvent]) -> None:
        feed.recent.extend(rows)
        while len(feed.recent) > RECENT:
            feed.base = feed.recent.popleft().id


class CredentialRevoked(Exception):
    """A waiter ended (or refused) because its credential was revoked or expired; the HTTP layer
    answers 401 ``credential_revoked``, ``details.reason`` one of :data:`REVOKED_REASONS`."""

    code = CREDENTIAL_REVOKED

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.message = f"{_REASON_TEXT.get(reason, 'the credential was revoked')}: this request ended"
        self.details: dict[str, Any] = {"reason": reason}
        super().__init__(self.message)


def farewell(reason: str, last_id: str) -> LiveEvent:
    """A stream's last line after its credential was revoked (``reason``): its ``id`` is the last
    event's the stream carried, so a client resuming with another credential misses nothing."""
    line = {
        "id": last_id,
        "type": CREDENTIAL_REVOKED,
        "reason": reason,
        "message": _REASON_TEXT.get(reason, "the credential was revoked"),
    }
    return LiveEvent(last_id, line, line, dumps_bytes(line))


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


def _no_encoding(batch: list[LiveEvent] | None) -> bytes:
    raise AssertionError("a subscription written directly has the encoding of its stream")


def _ends_match(row: LiveEvent) -> bool:
    return row.type == OVER  # finished or aborted


def poll_events(
    store: Store,
    config: Config,
    meta: MatchMeta,
    seat: int | None,
    after: str,
    wait: float,
    subscribe: Callable[[], Subscription],
) -> tuple[list[dict[str, Any]], str, str | None]:
    """Long-poll: return as soon as there is an event ``seat`` may see, or after ``wait`` seconds
    (or when the client has gone).

    Only a poll that waits subscribes to live events; it catches up from what the process's reader
    keeps when it can (:meth:`Subscription.backlog`), so a client that polls again at once after its
    answer costs no read of the match's events.  A poll that is live (it waited, or the match moved
    less than ``stream_batch_seconds`` ago) lets the events of the next ``stream_batch_seconds`` join
    the first, as a stream does: a client following a match played at machine speed polls a few times
    a second, not once per move.  A client behind the match gets its page at once.  Also who is to
    move after the last event, when its commit published it (``""``: nobody; ``None``: unknown)."""
    if min(wait, config.max_wait_seconds) <= 0:
        return (*visible_events(store, meta.id, seat, after, EVENTS_PER_PAGE), None)

    def visible(row: LiveEvent) -> bool:
        return event_visible(row.event, seat)

    live = now() - meta.updated_at < config.stream_batch_seconds
    return _poll(config, after, wait, live, subscribe, visible, meta.version)


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
    if min(wait, config.max_wait_seconds) <= 0:
        rows = accounts.feed_after(key, after, EVENTS_PER_PAGE)
        return [client_event(r) for r in rows], rows[-1].id if rows else after
    events, last, _ = _poll(config, after, wait, False, subscribe, _everyone, None)
    return events, last


def _poll(
    config: Config,
    after: str,
    wait: float,
    live: bool,
    subscribe: Callable[[], Subscription],
    visible: Callable[[LiveEvent], bool],
    version: int | None,
) -> tuple[list[dict[str, Any]], str, str | None]:
    """A long-poll that waits (``wait`` > 0): the events after ``after`` at once when there are some
    and the topic is not ``live``, else the first that come within ``wait`` (with what joins them);
    and who is to move after the last of them when its commit said (:attr:`LiveEvent.to_move`)."""
    deadline = time.monotonic() + min(wait, config.max_wait_seconds)
    events: list[dict[str, Any]] = []
    with subscribe() as sub:
        rows = sub.backlog(after, EVENTS_PER_PAGE, version=version)
        if len(rows) > EVENTS_PER_PAGE:  # far behind: a page now, the next poll goes on from it
            rows = rows[:EVENTS_PER_PAGE]
        behind = len(rows) == EVENTS_PER_PAGE
        lingered = not live
        to_move: str | None = None
        while True:
            if sub.revoked is not None:  # what it gathered goes nowhere
                raise CredentialRevoked(sub.revoked)
            for row in rows:
                after, to_move = row.id, row.to_move
                if visible(row):
                    events.append(row.client)
            remaining = deadline - time.monotonic()
            if behind or remaining <= 0 or sub.client_gone() or (events and lingered):
                return events, after, to_move
            if events:  # the first news since the poll began: a short while for more to join
                lingered = True
                sub.rest(min(remaining, config.stream_batch_seconds))
                remaining = 0
            rows = sub.take(remaining)


def stream_events(
    config: Config,
    sub: Subscription,
    seat: int | None,
    backlog: list[LiveEvent],
    *,
    over: bool,
    wire: Wire | None = None,
    encode: Callable[[list[LiveEvent] | None], bytes] | None = None,
) -> Iterator[list[LiveEvent] | None]:
    """Events for a streaming response, in batches (what arrived together), the ``backlog`` first
    (:meth:`Subscription.backlog`); ``None`` items are heartbeats, due whenever nothing was written
    for ``heartbeat_seconds`` (events other seats may see do not count).  Ends after ``match_over``
    (at once when the match was ``over`` already and the backlog is past it), after
    ``stream_max_seconds`` (the client reconnects with the last id), or when the client has gone.

    After a write, events arriving within ``stream_batch_seconds`` wait and go out together: a
    match played at machine speed costs its followers a write per batch, not one per event,
    while a match played at human speed is not delayed at all.

    Given the stream's ``wire`` and its ``encode``, everything after the backlog is written by the
    process's reader (:meth:`Subscription.go_direct`), and this only waits for the end."""

    def visible(row: LiveEvent) -> bool:
        return event_visible(row.event, seat)

    direct = None if wire is None or encode is None else (wire, seat, encode)
    return _stream(config, sub, backlog, visible, _ends_match, over=over, direct=direct)


def stream_feed(
    config: Config,
    sub: Subscription,
    backlog: list[LiveEvent],
    *,
    wire: Wire | None = None,
    encode: Callable[[list[LiveEvent] | None], bytes] | None = None,
) -> Iterator[list[LiveEvent] | None]:
    """:func:`stream_events` for a player's feed: every entry, heartbeats meanwhile; a feed outlives
    every match, so it ends only after ``stream_max_seconds`` or when the client has gone."""
    direct = None if wire is None or encode is None else (wire, ALL, encode)
    return _stream(config, sub, backlog, _everyone, _never, over=False, direct=direct)


def _stream(
    config: Config,
    sub: Subscription,
    backlog: list[LiveEvent],
    visible: Callable[[LiveEvent], bool],
    ends: Callable[[LiveEvent], bool],
    *,
    over: bool,
    direct: tuple[Wire, int | str | None, Callable[[list[LiveEvent] | None], bytes]] | None,
) -> Iterator[list[LiveEvent] | None]:
    beat = config.heartbeat_seconds
    written = time.monotonic()
    deadline = written + config.stream_max_seconds
    rows = backlog
    sent = sub.began  # the last event id the stream carried, seen or not
    del backlog  # events go out once: a waiting stream keeps none of them
    while True:
        reason = sub.revoked
        if reason is not None:  # its credential was revoked or expired: a last line, the end
            yield [farewell(reason, sent)]
            return
        if rows:
            sent = rows[-1].id
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
        if direct is not None:
            wire, audience, encode = direct
            sub.go_direct(wire, audience, encode, visible, ends)
            _written_by_the_reader(sub, wire, deadline)
            if sub.revoked is not None and not wire.broken:  # the reader writes nothing more
                yield [farewell(sub.revoked, "{}-{}".format(*sub.cursor))]
            return
        if clock - written >= beat:
            yield None
            written = clock
        lull = written + config.stream_batch_seconds - clock
        if shown and lull > 0:
            sub.rest(lull)  # events arriving meanwhile go out in one write
        del shown
        rows = sub.take(min(written + beat, deadline) - time.monotonic())


def _written_by_the_reader(sub: Subscription, wire: Wire, deadline: float) -> None:
    """A direct stream's own greenlet: sends what the socket did not take at once, and returns when
    the stream ends (its last event went out, the client has gone, its time is up).  It sleeps
    until then: the reader writes the events and the process's heartbeat sweep the heartbeats
    (:meth:`LiveEvents._beat`)."""
    while True:
        if sub.revoked is not None:
            return
        if wire.owed and not wire.broken:
            wire.flush()
            continue
        if wire.broken or sub.ended:
            return
        clock = time.monotonic()
        if clock >= deadline or sub.client_gone():
            return
        sub.wait(deadline - clock)
