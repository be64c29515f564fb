"""Redis persistence of matches: the only module of the project that talks to Redis.

Key layout (every key of one match carries the hash tag ``{m:<id>}``, so a match lives in one Redis
Cluster slot and the commit script may touch all of it):

``tt:{m:<id>}:meta``    hash: game, seats, token hashes, options, seed, version, status, to_move, the
                        seats' decision counts (``decisions``, ``stand_in``), ...
``tt:{m:<id>}:state``   the engine's encoded state
``tt:{m:<id>}:events``  a Redis Stream; entry ids are ``<version>-<n>`` (the n-th event of the move that
                        produced that version; ``0-1`` is the creation event), so an event id says which
                        move it belongs to and ``after=<id>`` is a cursor that survives reconnects
``tt:{m:<id>}:log``     list of ``{"version", "seat", "action"}``: the full action log, for replays
``tt:{m:<id>}:outbox``  list of ``{"version", "seq", "notes"}``: what commits have to tell the match's
                        players, until it is in their feeds (:mod:`service.accounts_store`)
``tt:{m:<id>}:idem:<sha256(token, key)>``  a stored move response, with its own TTL
``tt:{m:<id>}:hint:<seat>``  the id of the hint job the seat asked for last, with its own TTL
``tt:hints:<address>``  sorted set: the hint jobs a client address has in flight, scored by when they
                        are let go at the latest (the bound ``TABLETOP_MAX_HINTS_PER_ADDRESS``)

Every commit also publishes the new version on the pub/sub channel named like the events stream, so
one subscriber per API process learns of new events without polling (see :mod:`service.live`); the
stream stays the record: a subscriber that missed a message reads the stream from where it was.

Lifetimes: a waiting match's keys expire ``waiting_seconds`` (a day by default) after its creation, so
an abandoned lobby or an unclaimed rematch offer costs Redis nothing after that (a GET is then 404); a
match that starts loses that expiry, and one that is over expires after ``retention_seconds``.

Listing indexes (sorted sets scored by a creation sequence) live outside the hash tag and are written
after the match keys; a listing drops and prunes ids whose match has expired, and creating a waiting
match drops the oldest expired ones of its waiting index (:meth:`Store._drop_expired_waiting`).

A move is one Lua script (``commit.lua``): check the version, write state, bump the version, append the
events and the log entry, store the idempotency record, set the retention TTL when the match is over.
Humans and bots write through the same script, so Redis alone arbitrates concurrent writers.

A process keeps the match as its own last write (its creation or a commit) left it
(:meth:`Store.recent`): a match's meta and state change only by a commit, which bumps the version and
stamps ``updated_at``, so a version that is still the match's, with that stamp, is still what this
process wrote, and the next move there need not load it (issue 30 point 2).  The commit checks both,
so a move decided on what the process kept lands only on that very version of the match.
"""

from __future__ import annotations

import contextlib
import hashlib
import select
import socket
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.resources import files
from typing import Any

import gevent.socket
import redis
from gevent import getcurrent, monkey
from redis._parsers import _HiredisParser
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.client import PubSub
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException
from redis.retry import Retry

from service.config import Config
from service.encoding import dumps, loads

WAITING = "waiting"  #: open seats left to join
ACTIVE = "active"
FINISHED = "finished"
ABORTED = "aborted"  #: cancelled while waiting, or left by every human (see service.matches.lifecycle)
STATUSES = (WAITING, ACTIVE, FINISHED, ABORTED)
#: Statuses after which nothing more happens; the match expires after the retention time.
OVER_STATUSES = frozenset({FINISHED, ABORTED})

#: The operating system's ``poll``, whether or not gevent patched ``select`` (see :class:`QuickCheckParser`).
_os_poll = monkey.get_original("select", "poll")

_SEQ = "tt:seq"
#: Drop KEYS[1]'s member ARGV[1] if its score is still ARGV[2] (nothing re-marked it since it was read):
#: how every store clears a mark in an index others may write meanwhile.
DROP_IF_UNCHANGED = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 1
end
return 0
"""
#: KEYS[1] = ARGV[2] (expiring after ARGV[3] s) if KEYS[1] is ARGV[1] ("" = unset); 1 if set, else 0.
_CLAIM = """
local current = redis.call('GET', KEYS[1]) or ''
if current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
"""
_ALL = "*"


def match_key(match_id: str, part: str) -> str:
    """A key of the match ``match_id`` (every one shares the hash tag ``{m:<id>}``)."""
    return f"tt:{{m:{match_id}}}:{part}"


_key = match_key


def _index(game: str, status: str) -> str:
    return f"tt:idx:{game}:{status}"


def _indexes(meta: MatchMeta, status: str) -> list[str]:
    """The listing indexes ``meta`` belongs in with ``status``: by game and status for a public match;
    a private one only in its own index per status (the sweep and the clocks find it there; no
    listing shows it, whatever the filter)."""
    if meta.life.get("visibility") == "private":
        return [_private_index(s) for s in (_ALL, status)]
    return [_index(game, s) for game in (_ALL, meta.game) for s in (_ALL, status)]


def _private_index(status: str) -> str:
    return f"tt:private:{status}"


#: Create a match's keys unless it exists. KEYS: meta, state, events, outbox; ARGV: state, created
#: event, expire seconds (0: keep), outbox entry ("": none), meta field/value items.  Returns 1 if
#: created, 0 if the id was taken (a rematch created meanwhile).
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('XADD', KEYS[3], '0-1', 'e', ARGV[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
if ARGV[4] ~= '' then redis.call('RPUSH', KEYS[4], ARGV[4]) end
if tonumber(ARGV[3]) > 0 then
  for i = 1, 4 do
    redis.call('EXPIRE', KEYS[i], ARGV[3])
  end
end
return 1
"""

#: ``expire_seconds`` of :meth:`Store.create` and :meth:`Store.commit` besides a number of seconds: leave
#: the keys' time to live as it is, or drop it (a waiting match that starts is kept until it is over).
KEEP, PERSIST = 0, -1

#: Matches a process keeps as its last write left them (:meth:`Store.recent`); the oldest are dropped.  A few
#: kilobytes each (the meta's fields and the encoded state).
RECENT_MATCHES = 1024

#: Milliseconds a replicated write waits for its replicas at most (see :meth:`Store._write`).
WAIT_MS = 1000


def wait_ms(timeout: float | None) -> int:
    """How long ``WAIT`` may block on a client whose commands time out after ``timeout`` seconds: half
    of it (at most :data:`WAIT_MS`), so ``WAIT``'s reply, the count of replicas that confirmed, arrives
    before the client gives up.  A ``WAIT`` as long as the timeout was cut off by it, and a cluster
    without replicas answered every write with a bare timeout that named no cause."""
    return WAIT_MS if timeout is None else min(WAIT_MS, int(timeout * 500))


#: Pending human decisions with a deadline: match id -> deadline (epoch seconds).  One global key, so
#: a claim is one atomic script; outside the match slots (written after the match's own commit, and
#: rebuilt by the sweep from the matches themselves if that write is lost).
_DEADLINES = "tt:deadlines"
#: Clock warnings to give: ``<match id>:<version>`` -> when (the deadline of that version's pending
#: decision minus ``clock_warning_seconds``).  One member per version, so a warning that is handled can be
#: dropped without a race against the commit that sets the next one; claimed like deadlines.
_WARNINGS = "tt:warnings"
#: Claim up to ARGV[2] deadlines due by ARGV[1]: each is pushed ARGV[3] s later (a lease: a claimer
#: that dies leaves them to fire again), and returned.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[3]), id)
end
return due
"""


#: Count ARGV[1] among the hints in flight of KEYS[1] if it holds fewer than ARGV[2] once those past their
#: last moment (score) before ARGV[3] are let go; ARGV[4]: ARGV[1]'s last moment.  The hints in flight
#: with ARGV[1] if counted, else 0.
_TAKE_HINT_PLACE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('EXPIREAT', KEYS[1], math.ceil(tonumber(last[2])))
return held + 1
"""


def _hints_key(address: str) -> str:
    return f"tt:hints:{address}"


def notify_channel(match_id: str) -> str:
    """The pub/sub channel a commit publishes the match's new version on (the events stream's name)."""
    return _key(match_id, "events")


def published_events(data: bytes) -> tuple[list[StoredEvent], str | None] | None:
    """The events a commit published (``commit.lua``: its version, then an event's JSON a line) and
    who is to move after it (``""``: nobody; ``None``: the commit did not say), or ``None`` for a
    message without them."""
    head, _, body = data.partition(b"\n")
    version, _, to_move = head.partition(b" ")
    if not body or not version.isdigit():
        return None
    v = version.decode()
    events = [StoredEvent(f"{v}-{n}", loads(line)) for n, line in enumerate(body.split(b"\n"), 1)]
    return events, to_move.decode() if b" " in head else None


def match_of_channel(channel: bytes) -> str:
    """The match id in a :func:`notify_channel` name."""
    return channel.decode().split("{m:", 1)[1].split("}", 1)[0]


#: What an operator does about :class:`ReplicasMissing`.
REPLICAS_FIX = "set TABLETOP_REDIS_WAIT_REPLICAS=0 or add replicas to every master"


class ReplicasMissing(redis.RedisError):
    """A cluster write that fewer replicas confirmed than ``TABLETOP_REDIS_WAIT_REPLICAS`` asks for: a
    passing lag, or (when it lasts) a cluster with fewer replicas than the setting, which only the
    operator can fix; the message says how."""

    def __init__(self, acked: int, wanted: int, waited_ms: int) -> None:
        super().__init__(
            f"WAIT: {acked} of {wanted} replica(s) acknowledged the write within {waited_ms} ms; "
            f"{REPLICAS_FIX}"
        )


#: What a failing Redis raises: redis-py's errors, and its cluster client's own (a slot without a
#: reachable master while a failover settles) which are not ``RedisError``s.
STORAGE_ERRORS: tuple[type[Exception], ...] = (redis.RedisError, RedisClusterException)


def connect_store(
    config: Config, *, timeout: float | None = None, max_connections: int | None = None
) -> Store:
    """The store of a :class:`service.config.Config`: its state Redis (a cluster with
    ``redis_cluster``) and its queue Redis (``queue_redis_url``, else the state Redis)."""
    state = connect(
        config.redis_url, timeout=timeout, max_connections=max_connections, cluster=config.redis_cluster
    )
    wait = config.redis_wait_replicas if config.redis_cluster else 0
    if not config.queue_redis_url or config.queue_redis_url == config.redis_url:
        return Store(state, wait_replicas=wait, wait_ms=wait_ms(timeout))
    queue = connect(config.queue_redis_url, timeout=timeout, max_connections=max_connections)
    return Store(state, queue, wait_replicas=wait, wait_ms=wait_ms(timeout))


def connect(
    url: str, *, timeout: float | None = None, max_connections: int | None = None, cluster: bool = False
) -> redis.Redis:
    """A client for the API and the workers: every command fails after ``timeout`` seconds (connect or
    reply), and a command whose connection dropped is retried once on a new one; a timeout is not
    retried, so a hung Redis costs a caller one timeout, not several.  With ``max_connections`` the
    pool blocks (up to ``timeout``) rather than opening more (per node, on a cluster).

    ``cluster``: ``url`` names any node of a Redis Cluster; the client finds the others and follows
    the slots as they move.  While a failover settles it retries a few times with a short backoff
    (up to about a second), then the caller gets the error (the API's 503).
    """
    options: dict[str, Any] = {"socket_timeout": timeout, "socket_connect_timeout": timeout}
    if cluster:
        options["retry"] = Retry(ExponentialBackoff(cap=0.5, base=0.05), 4)
        if max_connections is not None:
            options.update(
                connection_pool_class=redis.BlockingConnectionPool, max_connections=max_connections
            )
        return RedisCluster.from_url(url, **options)  # type: ignore[return-value]  # the same commands
    options["retry"] = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
    options["retry_on_error"] = [redis.ConnectionError]
    options["parser_class"] = QuickCheckParser  # a cluster's nodes take redis-py's own
    if max_connections is None:
        return redis.Redis.from_url(url, **options)
    pool = HoldingPool.from_url(url, max_connections=max_connections, timeout=timeout, **options)
    return redis.Redis(connection_pool=pool)


class QuickCheckParser(_HiredisParser):
    """redis-py's hiredis parser with a cheaper readiness check (is anything unread on the
    connection, did the server close it) and no debug line per published message.

    The pool checks each connection it hands out, and the live reader's subscription asks before
    every message it reads.  Under gevent redis-py's check goes through gevent's ``poll`` (a poller,
    an event-loop watcher and a timer per call, even for a check that never waits), twice for a
    readable socket (readable, then closed): about 4% of a server process's CPU serving moves and
    long-polls (issue 30).  Here the kernel's ``poll`` answers a check that need not wait; a wait
    with nothing to read yet is one event-loop watcher on the socket; a readable socket holds data or
    the server's close, which a one-byte peek tells apart (end of file), as redis-py does.  With the
    debug line gone, the reader's CPU to wake for one message falls by about a third
    (``bench/reader_wake.py``).  TLS keeps redis-py's own check: bytes may wait above the socket."""

    def can_read(self, timeout: float | None = 0) -> bool:
        sock, reader = self._sock, self._reader
        if sock is None or not reader or hasattr(sock, "pending"):
            return bool(super().can_read(timeout))  # gone (redis-py raises), or TLS
        if reader.has_data():
            return True
        if not _readable(sock, 0) and (timeout == 0 or not _readable(sock, timeout)):
            return False
        try:
            closed = sock.recv(1, socket.MSG_PEEK) == b""
        except BlockingIOError:  # taken meanwhile: the reply is read as it comes, as redis-py does
            closed = False
        except OSError:
            closed = True
        if closed:
            raise redis.ConnectionError("Connection closed by server.")
        return True

    def handle_pubsub_push_response(self, response: Any) -> Any:
        # redis-py's formats every message into a debug line, logged or not (about a tenth of the
        # reader's CPU per message); the message itself goes on as redis-py hands it on.
        return response


def _readable(sock: Any, timeout: float | None) -> bool:
    """Whether ``sock`` is readable (data, or closed) within ``timeout`` seconds (``None``: however
    long).  Asked now, the kernel answers; a wait under gevent is one event-loop watcher on the socket
    (gevent's ``poll`` also builds a poller and a result set per call), elsewhere the kernel's poll."""
    if timeout != 0 and monkey.is_module_patched("socket"):
        try:
            gevent.socket.wait_read(sock.fileno(), timeout)
        except TimeoutError:
            return False
        except OSError:  # closed under the wait: readable, and the caller's peek tells it closed
            pass
        return True
    poller = _os_poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(None if timeout is None else timeout * 1000))


class HoldingPool(redis.BlockingConnectionPool):
    """redis-py's blocking pool, where a block of code (:meth:`Store.holding`) may keep the one
    connection its commands take until it ends, instead of taking one from the pool per command.

    Taking a connection is not free: besides the pool's own bookkeeping, redis-py polls the socket
    to make sure nothing unread is left on it (:class:`QuickCheckParser`); a move's load and commit
    took a connection each (issue 30 point 2).  Within a block nothing else
    uses the connection between its commands, so the check on taking it is made once.  Holding is
    per greenlet (a thread is a greenlet too, its main one), whether or not gevent patched the
    standard library, so concurrent requests never share a connection; a block holds at most one, as
    a request used at most one at a time before, so the pool's bound is unchanged.  A command that
    fails disconnects the connection as ever (redis-py's error handling), and the next command of
    the block reconnects it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: greenlet -> the connection its block holds (an empty list until its first command)
        self._held: dict[Any, list[Any]] = {}

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        held = self._held.get(getcurrent()) if self._held else None
        if held is None:
            return super().get_connection()
        if not held:
            held.append(super().get_connection())
        return held[0]

    def release(self, connection: Any) -> None:
        held = self._held.get(getcurrent()) if self._held else None
        if held and held[0] is connection:
            return  # given back when the block ends
        super().release(connection)

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        me = getcurrent()
        if me in self._held:  # nested: the outer block holds it
            yield
            return
        held: list[Any] = []
        self._held[me] = held
        try:
            yield
        finally:
            del self._held[me]
            if held:
                super().release(held[0])


@dataclass
class MatchMeta:
    """Everything about a match but its state: small, read on every request."""

    id: str
    game: str
    players: int
    seats: list[dict[str, Any]]
    token_hashes: list[str]
    options: dict[str, Any]
    seed: int
    version: int
    status: str
    to_move: int | None
    result: dict[str, Any] | None
    created_at: float
    updated_at: float
    seq: int
    #: Who may join and what happens when a seat is left (see :mod:`service.matches.lifecycle`); never shown
    #: whole: it holds the creator's and the invites' token hashes.
    life: dict[str, Any] = field(default_factory=dict)
    #: The time control and its state (see :mod:`service.matches.clocks`), or ``None``: no clock.
    clock: dict[str, Any] | None = None
    #: Per seat, the decisions committed for it, and how many of them a stand-in made (a timeout's bot,
    #: the bot of an away or resigned seat): see :mod:`service.matches.stand_ins`.  Empty: none yet.
    decisions: list[int] = field(default_factory=list)
    stand_in: list[int] = field(default_factory=list)

    def to_redis(self) -> dict[str, str]:
        return {
            "game": self.game,
            "players": str(self.players),
            "seats": dumps(self.seats),
            "tokens": dumps(self.token_hashes),
            "options": dumps(self.options),
            "seed": str(self.seed),
            "version": str(self.version),
            "seq": str(self.seq),
            "created_at": repr(self.created_at),
            **progress_fields(self.status, self.to_move, self.result, self.updated_at),
            **lifecycle_fields(self),
            **decision_fields(self.decisions, self.stand_in),
        }

    @classmethod
    def from_redis(cls, match_id: str, raw: dict[bytes, bytes]) -> MatchMeta:
        return cls.from_fields(match_id, {k.decode(): v.decode() for k, v in raw.items()})

    @classmethod
    def from_fields(cls, match_id: str, h: dict[str, str]) -> MatchMeta:
        """The meta from its hash's fields, decoded (a load's, or a commit's: :meth:`Store.recent`)."""
        return cls(
            id=match_id,
            game=h["game"],
            players=int(h["players"]),
            seats=loads(h["seats"]),
            token_hashes=loads(h["tokens"]),
            options=loads(h["options"]),
            seed=int(h["seed"]),
            version=int(h["version"]),
            status=h["status"],
            to_move=int(h["to_move"]) if h["to_move"] else None,
            result=loads(h["result"]) if h["result"] else None,
            created_at=float(h["created_at"]),
            updated_at=float(h["updated_at"]),
            seq=int(h["seq"]),
            life=loads(h.get("life") or "{}"),
            clock=loads(h["clock"]) if h.get("clock") else None,
            decisions=loads(h["decisions"]) if h.get("decisions") else [],
            stand_in=loads(h["stand_in"]) if h.get("stand_in") else [],
        )


def progress_fields(
    status: str, to_move: int | None, result: dict[str, Any] | None, updated_at: float
) -> dict[str, str]:
    """The meta fields a move changes (besides the version, which the commit script bumps)."""
    return {
        "status": status,
        "to_move": "" if to_move is None else str(to_move),
        "result": "" if result is None else dumps(result),
        "updated_at": repr(updated_at),
    }


def decision_fields(decisions: list[int], stand_in: list[int]) -> dict[str, str]:
    """The meta fields that count each seat's decisions and its stand-in's (every move changes them)."""
    return {"decisions": dumps(decisions), "stand_in": dumps(stand_in)}


def lifecycle_fields(meta: MatchMeta) -> dict[str, str]:
    """The meta fields that joining, leaving and clocks change (besides the progress fields)."""
    return {
        "seats": dumps(meta.seats),
        "tokens": dumps(meta.token_hashes),
        "life": dumps(meta.life),
        "clock": "" if meta.clock is None else dumps(meta.clock),
    }


@dataclass(frozen=True)
class Commit:
    """Outcome of :meth:`Store.commit`: exactly one of the four cases is set."""

    version: int | None = None  #: committed; the new version
    stale: int | None = None  #: refused; the current version
    replay: str | None = None  #: the idempotency key was used already; its stored record
    gone: bool = False  #: the match no longer exists


@dataclass(frozen=True)
class Loaded:
    meta: MatchMeta
    state: bytes | None
    idempotency_record: str | None
    #: What this process's last write of the match left (:meth:`Store.recent`), not read from Redis:
    #: the match may have moved on since, so only its commit (which checks) tells.
    remembered: bool = False

    def encoded_state(self) -> bytes:
        """The stored state, which only a load with ``state=True`` (the default) reads."""
        if self.state is None:
            raise ValueError(f"match {self.meta.id} was loaded without its state")
        return self.state


@dataclass(frozen=True)
class StoredEvent:
    id: str
    event: dict[str, Any]


class Store:
    """Match persistence over one Redis connection pool (of one server, or of a Redis Cluster: every
    key of a match shares its hash tag, so every script and multi-key read of a match is one slot).

    ``queue`` is the Redis of RQ (bot turns, hints, worker heartbeats), which does not support Redis
    Cluster: the state Redis itself unless that is a cluster (see :func:`connect_all`).
    """

    def __init__(
        self,
        client: redis.Redis,
        queue: redis.Redis | None = None,
        *,
        wait_replicas: int = 0,
        wait_ms: int = WAIT_MS,
    ) -> None:
        self.redis = client
        self.queue = client if queue is None else queue
        #: On a cluster: replicas that must have a match's write before it counts as done (see
        #: :meth:`_write`); 0 acknowledges on the master's word alone.
        self.wait_replicas = wait_replicas
        self.wait_ms = wait_ms
        self._commit = client.register_script(files("service").joinpath("commit.lua").read_text())
        self._claim = client.register_script(_CLAIM)
        self._claim_due = client.register_script(_CLAIM_DUE)
        self._take_hint_place = client.register_script(_TAKE_HINT_PLACE)
        self._create = client.register_script(_CREATE)
        #: match id -> (version, the meta's fields, the encoded state) as this process's last write of
        #: it left them (:meth:`recent`); oldest first.
        self._recent: OrderedDict[str, tuple[int, dict[str, str], bytes]] = OrderedDict()

    @contextlib.contextmanager
    def holding(self) -> Iterator[None]:
        """The block's commands go over one pooled connection, taken once (:class:`HoldingPool`; a move's
        load and commit); elsewhere (a cluster, a client without that pool) a block like any other."""
        pool = getattr(self.redis, "connection_pool", None)
        if not isinstance(pool, HoldingPool):
            yield
            return
        with pool.holding():
            yield

    # -- health -------------------------------------------------------------------------------------

    def ping(self) -> bool:
        return bool(self.redis.ping())

    # -- matches ------------------------------------------------------------------------------------

    def next_seq(self) -> int:
        return int(self.redis.incr(_SEQ))

    def create(
        self,
        meta: MatchMeta,
        state: bytes,
        created_event: dict[str, Any],
        expire_seconds: int = KEEP,
        outbox: dict[str, Any] | None = None,
    ) -> bool:
        """Write a new match (its keys atomically, expiring after ``expire_seconds`` unless ``KEEP``,
        then the listing indexes); ``False`` if a match with its id exists (a rematch created by
        another caller at the same time).  ``outbox``: the entry for the players' feeds (see
        :meth:`commit`)."""
        mid = meta.id
        fields = meta.to_redis()
        items = [x for pair in fields.items() for x in pair]
        keys = [_key(mid, p) for p in ("meta", "state", "events", "outbox")]
        box = dumps(outbox) if outbox is not None else ""
        args = [state, dumps(created_event), expire_seconds, box, *items]
        if not self._write(self._create, keys, args):
            return False
        self._remember(mid, fields, state)  # its first move may come here too
        pipe = self.redis.pipeline(transaction=False)  # global keys: on a cluster, each its own slot
        for index in _indexes(meta, meta.status):
            pipe.zadd(index, {mid: meta.seq})
        pipe.execute()
        if meta.status == WAITING:
            self._drop_expired_waiting(meta)
        return True

    def _drop_expired_waiting(self, meta: MatchMeta) -> None:
        """Drop the ids of expired waiting matches like ``meta`` (same game and visibility) from their
        indexes.  Waiting matches expire in the order they were created (one time to live from
        creation), so the oldest ids of a waiting index are the ones to look at, and each creation
        drops up to two: the indexes stay as small as the waiting matches alive, also the private
        ones that no listing ever prunes."""
        indexes = _indexes(meta, WAITING)  # the last is the game's (or the private) waiting index
        oldest = [mid for mid in self.redis.zrange(indexes[-1], 0, 1) if mid.decode() != meta.id]
        if not oldest:
            return
        pipe = self.redis.pipeline(transaction=False)
        for mid in oldest:
            pipe.exists(_key(mid.decode(), "meta"))
        gone = [mid for mid, alive in zip(oldest, pipe.execute(), strict=True) if not alive]
        if gone:
            for index in indexes:
                pipe.zrem(index, *gone)
            pipe.execute()

    def load(self, match_id: str, *, state: bool = True, idempotency_key: str | None = None) -> Loaded | None:
        """The match's meta, and optionally its encoded state and an idempotency record, in one round
        trip; ``None`` if the match does not exist (or has expired)."""
        if not state and idempotency_key is None:  # the meta alone (a long-poll's): no pipeline
            fields = self.redis.hgetall(_key(match_id, "meta"))
            return Loaded(MatchMeta.from_redis(match_id, fields), None, None) if fields else None
        pipe = self.redis.pipeline(transaction=False)
        pipe.hgetall(_key(match_id, "meta"))
        if state:
            pipe.get(_key(match_id, "state"))
        if idempotency_key is not None:
            pipe.get(idempotency_key)
        replies = pipe.execute()
        if not replies[0]:
            return None
        meta = MatchMeta.from_redis(match_id, replies[0])
        encoded = replies[1] if state else None
        record = replies[-1].decode() if idempotency_key is not None and replies[-1] is not None else None
        return Loaded(meta, encoded, record)

    def recent(self, match_id: str, version: int) -> Loaded | None:
        """The match at ``version`` as this process's last write of it left it, if that is the version
        it kept: a move the match's players ask of this process in turn needs no load.  ``None``: load
        it.  The match may have moved on elsewhere since (a commit on this is then refused as stale),
        so what is decided on it without a commit (a refusal) must be decided again on a load."""
        kept = self._recent.get(match_id)
        if kept is None or kept[0] != version:
            return None
        return Loaded(MatchMeta.from_fields(match_id, kept[1]), kept[2], None, remembered=True)

    def _remember(self, match_id: str, fields: dict[str, str], state: bytes | None) -> None:
        """Keep the match as a write of this process left it (all of its meta's ``fields``, and
        ``state``), while it is being played: a change of who holds the seats (no state), a match
        not started or one over is dropped."""
        self._recent.pop(match_id, None)
        if state is None or fields["status"] != ACTIVE:
            return
        while len(self._recent) >= RECENT_MATCHES:
            self._recent.popitem(last=False)  # each call is atomic: safe beside other threads
        self._recent[match_id] = (int(fields["version"]), fields, state)

    def _write(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a match's write script; on a cluster with ``wait_replicas``, then ``WAIT`` on the same
        connection until that many replicas have it.  Replication is asynchronous: a master killed
        between its reply and its replica's copy would lose an acknowledged move when the replica
        takes over; after ``WAIT`` it cannot.  A write the replicas did not confirm in time raises
        (the API's 503: the move may or may not stand, the client reloads), never reports success.

        The script and ``WAIT`` go to the slot's master over one connection of its own (``WAIT``
        counts that connection's writes); a master that moved or died refreshes the slot map and the
        caller retries."""
        if not self.wait_replicas:
            return script(keys=keys, args=args)
        cluster: RedisCluster = self.redis  # type: ignore[assignment]
        node = cluster.get_redis_connection(cluster.get_node_from_key(keys[0]))
        pipe = node.pipeline(transaction=False)
        script(keys=keys, args=args, client=pipe)
        pipe.execute_command("WAIT", self.wait_replicas, self.wait_ms)
        try:
            reply, acked = pipe.execute()
        except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError):
            cluster.nodes_manager.initialize()  # a failover moved the slot: the next call finds it
            raise
        if int(acked) < self.wait_replicas:
            raise ReplicasMissing(int(acked), self.wait_replicas, self.wait_ms)
        return reply

    def replicas_missing(self) -> str | None:
        """Why match writes cannot be confirmed (a master with fewer connected replicas than
        ``wait_replicas``), or ``None``: ``/readyz`` tells the operator rather than every write failing
        with a bare 503."""
        if not self.wait_replicas:
            return None
        cluster: RedisCluster = self.redis  # type: ignore[assignment]
        fewest = min(
            int(cluster.get_redis_connection(node).info("replication").get("connected_slaves", 0))
            for node in cluster.get_primaries()
        )
        if fewest >= self.wait_replicas:
            return None
        return f"a master has {fewest} of the {self.wait_replicas} replica(s) writes wait for; {REPLICAS_FIX}"

    def metas(self, match_ids: list[str]) -> list[MatchMeta | None]:
        """The meta of each match (``None``: expired), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for mid in match_ids:
            pipe.hgetall(_key(mid, "meta"))
        return [
            MatchMeta.from_redis(mid, raw) if raw else None
            for mid, raw in zip(match_ids, pipe.execute(), strict=True)
        ]

    def exists(self, match_id: str) -> bool:
        return bool(self.redis.exists(_key(match_id, "meta")))

    def active_count(self) -> int:
        return int(self.redis.zcard(_index(_ALL, ACTIVE))) + int(self.redis.zcard(_private_index(ACTIVE)))

    def commit(
        self,
        meta: MatchMeta,
        state: bytes | None,
        fields: dict[str, str],
        events: list[dict[str, Any]],
        log_entry: dict[str, Any] | None,
        expire_seconds: int,
        idempotency: tuple[str, str, int] | None,
        outbox: dict[str, Any] | None = None,
    ) -> Commit:
        """Compare-and-set one change against ``meta.version`` and ``meta.updated_at`` (see
        ``commit.lua``): a move (a new state and a log entry), or a change of who holds the seats
        (``state`` and ``log_entry`` ``None``).  Every commit stamps ``updated_at``, so the two name
        one committed version, even of a Redis that lost writes and went on from an earlier one.

        ``expire_seconds``: the match's keys expire after so many seconds, or ``KEEP`` or ``PERSIST``.
        ``idempotency`` is ``(key, record, ttl seconds)``: the record is stored under the key with the
        move, and if the key is already taken nothing is written and the stored record comes back.
        ``outbox``: the entry for the players' feeds (:mod:`service.matches.feed`), appended to the
        match's outbox with the commit (:meth:`service.accounts_store.AccountStore.drain` delivers it).
        """
        mid = meta.id
        keys = [_key(mid, p) for p in ("meta", "state", "events", "log", "outbox")]
        record, ttl = "", 0
        if idempotency is not None:
            key, record, ttl = idempotency
            keys.append(key)
        items = [x for pair in fields.items() for x in pair]
        args: list[Any] = [
            meta.version,
            repr(meta.updated_at),
            state if state is not None else "",
            dumps(log_entry) if log_entry is not None else "",
            expire_seconds,
            record,
            ttl,
            dumps(outbox) if outbox is not None else "",
            len(items),
            *items,
            *(dumps(ev) for ev in events),
        ]
        reply = self._write(self._commit, keys, args)
        if reply[0] == 1:
            version = int(reply[1])
            self._remember(mid, {**meta.to_redis(), **fields, "version": str(version)}, state)
            if fields.get("status", meta.status) != meta.status:
                self._reindex(meta, fields["status"])
            return Commit(version=version)
        if reply[0] == 0:
            return Commit(stale=int(reply[1]))
        if reply[0] == 2:
            return Commit(replay=reply[1].decode())
        return Commit(gone=True)

    def _reindex(self, meta: MatchMeta, status: str) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for old, new in zip(_indexes(meta, meta.status), _indexes(meta, status), strict=True):
            if old != new:
                pipe.zrem(old, meta.id)
                pipe.zadd(new, {meta.id: meta.seq})
        pipe.execute()

    def list_matches(
        self, game: str | None, status: str | None, before: int | None, limit: int, *, private: bool = False
    ) -> tuple[list[MatchMeta], int | None]:
        """Matches newest first, created before sequence number ``before``; and the next cursor.
        Public matches by game and status, or (``private``, for the sweep) private ones by status."""
        index = _private_index(status or _ALL) if private else _index(game or _ALL, status or _ALL)
        top = f"({before}" if before is not None else "+inf"
        rows = self.redis.zrevrangebyscore(index, top, "-inf", start=0, num=limit + 1, withscores=True)
        more = len(rows) > limit
        rows = rows[:limit]
        pipe = self.redis.pipeline(transaction=False)
        for mid, _ in rows:
            pipe.hgetall(_key(mid.decode(), "meta"))
        metas, expired = [], []
        for (mid, _), raw in zip(rows, pipe.execute(), strict=True):
            if raw:
                metas.append(MatchMeta.from_redis(mid.decode(), raw))
            else:
                expired.append(mid)
        if expired:
            self._prune(expired)
        cursor = int(rows[-1][1]) if more and rows else None
        return metas, cursor

    def _prune(self, match_ids: list[bytes]) -> None:
        """Drop ids of expired matches from every index (found lazily, when a listing meets them)."""
        index_keys = [
            *self.redis.scan_iter(match="tt:idx:*", count=100),
            *self.redis.scan_iter(match="tt:private:*", count=100),
        ]
        pipe = self.redis.pipeline(transaction=False)
        for index in index_keys:
            pipe.zrem(index, *match_ids)
        pipe.execute()

    # -- clocks -------------------------------------------------------------------------------------

    def set_deadline(self, match_id: str, deadline: float | None, *, only_missing: bool = False) -> None:
        """Record the pending decision's deadline of a match (``None``: no deadline pending);
        ``only_missing`` leaves an entry that is there (claimed, or set by a later commit) alone."""
        if deadline is None:
            self.redis.zrem(_DEADLINES, match_id)
        else:
            self.redis.zadd(_DEADLINES, {match_id: deadline}, nx=only_missing)

    def claim_due(self, by: float, limit: int, lease_seconds: float) -> list[str]:
        """Matches whose deadline is due ``by``, at most ``limit``, each claimed for ``lease_seconds``
        (no other claimer gets it meanwhile; unless its deadline is set again, it is due again after)."""
        return [mid.decode() for mid in self._claim_due(keys=[_DEADLINES], args=[by, limit, lease_seconds])]

    def deadline_count(self) -> int:
        return int(self.redis.zcard(_DEADLINES))

    def set_warning(self, match_id: str, version: int, at: float | None) -> None:
        """After the commit of ``version``: the clock warning of its pending decision is due ``at``
        (``None``: no warning), and the previous version's, if not given yet, is void."""
        pipe = self.redis.pipeline(transaction=False)
        if version > 0:
            pipe.zrem(_WARNINGS, f"{match_id}:{version - 1}")
        if at is not None:
            pipe.zadd(_WARNINGS, {f"{match_id}:{version}": at})
        pipe.execute()

    def claim_warnings(self, by: float, limit: int, lease_seconds: float) -> list[tuple[str, int]]:
        """Clock warnings due ``by`` as ``(match id, version)``, claimed like :meth:`claim_due`."""
        claimed = self._claim_due(keys=[_WARNINGS], args=[by, limit, lease_seconds])
        return [(mid, int(version)) for mid, _, version in (m.decode().rpartition(":") for m in claimed)]

    def drop_warning(self, match_id: str, version: int) -> None:
        """The clock warning of ``version`` is given (or void)."""
        self.redis.zrem(_WARNINGS, f"{match_id}:{version}")

    # -- idempotency --------------------------------------------------------------------------------

    @staticmethod
    def idempotency_key(match_id: str, token: str, key: str) -> str:
        """Scoped by the caller's seat token, so one seat's key can never replay another's response."""
        digest = hashlib.sha256(f"{token}\n{key}".encode()).hexdigest()
        return _key(match_id, f"idem:{digest}")

    # -- hints --------------------------------------------------------------------------------------

    def current_hint(self, match_id: str, seat: int) -> str | None:
        """The id of the hint job ``seat`` asked for last (while it is kept)."""
        raw = self.redis.get(_key(match_id, f"hint:{seat}"))
        return raw.decode() if raw is not None else None

    def claim_hint(self, match_id: str, seat: int, expected: str | None, job_id: str, ttl: int) -> bool:
        """Make ``job_id`` the seat's current hint if the current one is still ``expected`` (compare and
        set: of two requests at once, one wins and the other learns the winner's job)."""
        return bool(self._claim(keys=[_key(match_id, f"hint:{seat}")], args=[expected or "", job_id, ttl]))

    def hints_in_flight(self, address: str) -> list[str]:
        """The hint jobs counted against ``address`` (some may be over: the caller checks the jobs)."""
        return [job_id.decode() for job_id in self.redis.zrange(_hints_key(address), 0, -1)]

    def take_hint_place(self, address: str, job_id: str, limit: int, until: float) -> int:
        """Count ``job_id`` against ``address`` until ``until`` at the latest, unless ``address`` has
        ``limit`` hints in flight already (atomic: two requests at once cannot both take the last
        place).  The hints ``address`` has in flight with ``job_id``, or 0 if it was not counted."""
        args = [job_id, limit, now(), until]
        return int(self._take_hint_place(keys=[_hints_key(address)], args=args))

    def drop_hints(self, address: str, job_ids: list[str]) -> None:
        """Stop counting ``job_ids`` (over, or never enqueued) against ``address``."""
        if job_ids:
            self.redis.zrem(_hints_key(address), *job_ids)

    # -- RQ's keys on the queue Redis, where RQ's API has no read of its own ------------------------------

    def in_rq_list(self, key: str, job_id: str) -> bool:
        """Whether RQ's list ``key`` (a queue, or a queue's hand-over list) holds ``job_id``."""
        return self.queue.lpos(key, job_id) is not None

    def last_heartbeats(self, worker_keys: list[str]) -> list[str | None]:
        """The last heartbeat RQ recorded in each worker registration of ``worker_keys`` (``None``: the
        registration is gone), in one round trip."""
        pipe = self.queue.pipeline(transaction=False)
        for key in worker_keys:
            pipe.hget(key, "last_heartbeat")
        return [None if beat is None else beat.decode() for beat in pipe.execute()]

    # -- events and log -----------------------------------------------------------------------------

    def events_after(self, match_id: str, after: str, count: int | None = None) -> list[StoredEvent]:
        """Events with an id greater than ``after`` (``"0-0"`` for all), oldest first, at most ``count``."""
        rows = self.redis.xrange(_key(match_id, "events"), min=f"({after}", max="+", count=count)
        return [StoredEvent(eid.decode(), loads(data[b"e"])) for eid, data in rows]

    def last_event_id(self, match_id: str) -> str:
        """The id of the match's newest event (``"0-0"`` for none)."""
        rows = self.redis.xrevrange(_key(match_id, "events"), count=1)
        return str(rows[0][0].decode()) if rows else "0-0"

    def events_after_many(self, cursors: dict[str, str], count: int) -> dict[str, list[StoredEvent]]:
        """:meth:`events_after` for several matches in one round trip: ``{match id: after}`` in."""
        pipe = self.redis.pipeline(transaction=False)
        for match_id, after in cursors.items():
            pipe.xrange(_key(match_id, "events"), min=f"({after}", max="+", count=count)
        return {
            match_id: [StoredEvent(eid.decode(), loads(data[b"e"])) for eid, data in rows]
            for match_id, rows in zip(cursors, pipe.execute(), strict=True)
        }

    def subscriber(self) -> PubSub:
        """A pub/sub connection for :func:`notify_channel` messages (its own connection of the pool)."""
        pubsub: PubSub = self.redis.pubsub(ignore_subscribe_messages=False)
        return pubsub

    def action_log(self, match_id: str) -> list[dict[str, Any]]:
        return [loads(row) for row in self.redis.lrange(_key(match_id, "log"), 0, -1)]


def now() -> float:
    return round(time.time(), 3)
