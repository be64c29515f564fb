"""The per-process hub (:class:`LiveEvents`): the topics with waiters here, the reader that keeps them
current, and what each topic remembers.

The reader holds one pub/sub connection, subscribed to the channel of every topic with waiters here
(a commit publishes its events on its match's, ``match_commit.lua``; a feed write its entry on its
player's, :func:`service.storage.accounts.feed_channel`), and hands out what it was sent; only when
something may have been missed (a gap in the versions, a reconnection, a topic just armed) does it
read the stream from the topic's *tip*, pipelined over every match.  A match read less than
``batch_seconds`` ago is held until then; each topic keeps its last events for the waiters that come
back (:class:`service.live.followed.Followed`).  The stream stays the record: a topic is armed only
once its channel is confirmed, and every (re)confirmation reads from the tip again, so a lost message
costs latency, never an event.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import threading
import time
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Any

import redis

from service.live.cache import MetaCache
from service.live.caps import Quotas, WaiterCounts
from service.live.credentials import Credential, CredentialRevoked
from service.live.fanout import Fanout
from service.live.followed import Followed
from service.live.guard import Guard
from service.live.per_process import PerProcess
from service.live.shaping import LiveEvent
from service.live.subscription import Encode, Subscription
from service.live.topics import MATCH, PLAYER, Topic, event_key
from service.live.wire import Wire
from service.storage.accounts import REVOCATIONS, AccountStore, FeedEntry, Revocation, published_entry
from service.storage.client import STORAGE_ERRORS
from service.storage.matches import Store, StoredEvent, published_events

log = logging.getLogger(__name__)

#: Events read per XRANGE (a longer backlog is read in several rounds).
PAGE = 1000
#: Seconds the reader waits for a message before it looks at its to-do list again.  A new topic or a
#: newly armed one wakes it at once (:meth:`LiveEvents._nudge`), so this only bounds how late it drops
#: the channels nobody waits on, and a wake-up lost in a reconnection.  (Polling every 10 ms instead
#: cost an idle process about 1% of a core, and every delivery its share.)
TICK = 0.5
#: Seconds between reconnection attempts after the reader lost Redis (doubling up to the cap).
BACKOFF = (0.1, 2.0)
#: Seconds a topic stays followed after its last waiter left: a long-poll client polling again finds
#: it current (its last events in memory, its channel confirmed), with no subscription to make and no
#: read; a topic nobody comes back to costs the reader its notifications meanwhile.
LINGER = 5.0
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
        batch_seconds: float = 0.0,
        linger_seconds: float = LINGER,
        heartbeat_seconds: float = 15.0,
        credential_check_seconds: float = 5.0,
    ) -> None:
        self.store = store
        self.accounts = accounts if accounts is not None else AccountStore(store.redis)
        #: How long a new subscription waits for its channel to be confirmed before the request fails.
        self.confirm_timeout = confirm_timeout
        #: Topics with waiters, by channel name.
        self._feeds: dict[str, Followed] = {}
        self._lock = threading.Lock()
        #: The waiters, in all and by quota key, against the caps.
        self.caps = WaiterCounts(max_waiters)
        #: Topics (channels) to read now (armed, or re-confirmed after a reconnect), and channel changes
        #: to make.
        self._to_read: set[str] = set()
        self._to_sync = False
        self._reader = PerProcess(self._run, "live-events")
        self._work = threading.Event()
        #: The reader's own channel, for :meth:`_nudge`, and whether it listens to it now.
        self._wake_channel = f"tt:live:wake:{secrets.token_hex(8)}"
        self._connected = False
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
        #: The streams the reader writes itself and their heartbeats.
        self.fanout = Fanout(self._lock, self.count, heartbeat_seconds)
        #: The waiters with a credential, and the revocations that end them.
        self.guard = Guard(self.accounts, self._lock, credential_check_seconds)
        #: The followed matches' metas as last read (the spectators' long-polls).
        self.metas = MetaCache(self._lock, self._current, self.count, store.cache)
        _HUBS.add(self)

    # -- what the API uses --------------------------------------------------------------------------

    @property
    def waiters(self) -> int:
        return self.caps.total

    @property
    def feeds(self) -> int:
        """Topics (matches and players' feeds) with waiters in this process."""
        return len(self._feeds) - len(self._idle)

    def waiting(self, quota_key: str) -> int:
        """Waiters here counted against ``quota_key`` (e.g. ``"app:<app>"``)."""
        with self._lock:
            return self.caps.waiting(quota_key)

    def subscribe(self, topic: Topic, quotas: Quotas, credential: Credential | None = None) -> Subscription:
        """A subscription to ``topic``'s new events, once its channel is confirmed; the caller then
        catches up from the stream (:meth:`Subscription.backlog`).  ``quotas`` are the (key, cap) pairs
        the waiter counts against.  429 past the process's cap or any of the quotas, naming it
        (:class:`service.live.caps.TooManyWaiters`); a Redis that does not confirm in time raises
        ``redis.TimeoutError`` (the API's 503).

        ``credential``: what the waiter was let in with; revoking it ends the waiter (see
        :meth:`Subscription.revoke`), and one revoked since it was checked, or expired, is refused
        here (:class:`CredentialRevoked`)."""
        channel = topic.channel
        quotas = tuple(quotas)
        with self._lock:
            if credential is not None:
                reason = self.guard.refused(credential)
                if reason is not None:
                    raise CredentialRevoked(reason)
            self.caps.admit(quotas)
            sub = Subscription(self, topic, quotas, credential)
            if credential is not None:
                self.guard.tag(sub)
            feed = self._feeds.get(channel)
            new = feed is None
            if feed is None:
                feed = self._feeds[channel] = Followed(topic)
                self._to_sync = True
                self._work.set()
            self._idle.pop(channel, None)  # a lingering topic is current: nothing to subscribe
            feed.subscribers.add(sub)
            self.report(self.caps.total, self.feeds)
        self._reader.ensure(self._lock)
        if credential is not None:
            self.guard.ensure()
        if new:
            self._nudge()
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

    def count(self, name: str, n: int) -> None:
        self.counts[name] += n
        self.counted(name, n)

    # -- what a subscription asks of its hub (service.live.subscription.Hub) ------------------------

    def catch_up(
        self, topic: Topic, after: str, limit: int | None, version: int | None
    ) -> tuple[list[LiveEvent], str]:
        """Every event after ``after`` in ``topic``'s stream now (the first ``limit`` of them), and the
        id of the last one read (``after`` if none); then the reader keeps the topic current.  A topic
        this process follows already answers from the events it keeps
        (:data:`service.live.followed.RECENT`) when they reach back to ``after``: no read.
        ``version``: a match's version as read before."""
        remembered = self._remembered(topic, after)
        if remembered is not None:
            return remembered, remembered[-1].id if remembered else after
        rows: list[StoredEvent | FeedEntry] = []
        cursor = after
        while True:
            page = self._read_after(topic, cursor, PAGE)
            self.count("backlog_reads", 1)
            rows += page
            cursor = page[-1].id if page else cursor
            if len(page) < PAGE or (limit is not None and len(rows) >= limit):
                break
        live = [LiveEvent.of(r) for r in rows]
        tip = cursor
        if not rows and not self._armed(topic):
            # Nothing after ``after``: the stream may end before it (an id from a client's future),
            # and the reader must read from where the stream really ends, or miss what comes next.
            # A match's version bounds it (its events are ``<version>-<n>``); a feed's is read.
            if version is not None:
                last = f"{version}-{2**63 - 1}"
            else:
                last = self._last_id(topic)
                self.count("backlog_reads", 1)
            tip = min(last, cursor, key=event_key)
        self._arm(topic, after if rows else tip, tip, live)
        return live, cursor

    def go_direct(
        self,
        sub: Subscription,
        wire: Wire,
        audience: int | str | None,
        encode: Encode,
        visible: Callable[[LiveEvent], bool],
        ends: Callable[[LiveEvent], bool],
    ) -> None:
        """:meth:`Subscription.go_direct`: ``sub``'s events go to ``wire``, written by the reader."""
        with self._lock:
            if sub.revoked is not None:  # its stream ends instead
                return
            sub.audience, sub.encode, sub.visible, sub.ends = audience, encode, visible, ends
            rows = sub.take(0)
            sub.wire = wire
            self.fanout.add(sub, rows)
        self.fanout.ensure_beater()

    def drop(self, sub: Subscription) -> None:
        """Hand ``sub`` nothing more: its credential was revoked (under the lock)."""
        feed = self._feeds.get(sub.topic.channel)
        if feed is not None:
            feed.subscribers.discard(sub)
        self.fanout.direct.discard(sub)
        self.count("revoked_waiters", 1)

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self.fanout.direct.discard(sub)
            self.guard.untag(sub)
            self.caps.release(sub.quotas)
            channel = sub.topic.channel
            feed = self._feeds.get(channel)
            if feed is not None:
                feed.subscribers.discard(sub)
                if not feed.subscribers:
                    if self.linger_seconds > 0 and feed.tip is not None:
                        self._idle[channel] = time.monotonic()
                    else:
                        self._forget(channel)
            self.report(self.caps.total, self.feeds)

    # -- topics -------------------------------------------------------------------------------------

    def _current(self, channel: str) -> bool:
        """Whether the topic is followed, caught up and its channel confirmed (under the lock): then
        nothing that comes on it goes unnoted (:class:`service.live.cache.MetaCache`)."""
        feed = self._feeds.get(channel)
        return feed is not None and feed.tip is not None and feed.confirmed.is_set()

    def _forget(self, channel: str) -> None:
        """Stop following a topic (under the lock)."""
        del self._feeds[channel]
        self.metas.forget(channel)
        self._to_sync = True

    # -- the reader's memory of each topic -----------------------------------------------------------

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
        """The events after ``after`` when this process has every one of them in memory."""
        with self._lock:
            feed = self._feeds.get(topic.channel)
            return None if feed is None else feed.remembered(after)

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
            feed.remember(rows)
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

    def _drop_idle(self) -> None:
        """Stop following the topics nobody came back to within ``linger_seconds`` (the reader)."""
        limit = time.monotonic() - self.linger_seconds
        with self._lock:
            while self._idle:
                channel, since = next(iter(self._idle.items()))
                if since > limit:
                    return
                del self._idle[channel]
                self._forget(channel)

    # -- the reader ---------------------------------------------------------------------------------

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
                    self.metas.stir_all()
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
                    self.guard.revoke(revocation)
            elif kind == "subscribe":  # (re)connected: what was announced meanwhile was missed
                self.guard.recheck()
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
            self.metas.stir(channel)
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
    def _keep_published(feed: Followed, message: dict[str, Any]) -> bool:
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

    def _deliver_published(self, feed: Followed, message: dict[str, Any], notified: set[str]) -> bool:
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

    def _hand_out(self, feed: Followed, rows: list[LiveEvent]) -> None:
        """Give a topic's new events to its subscribers (:meth:`service.live.fanout.Fanout.hand_out`)
        and remember them."""
        feed.tip = rows[-1].id
        feed.remember(rows)
        self.fanout.hand_out(feed.subscribers, rows)
