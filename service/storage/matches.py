"""Redis persistence of matches: their keys, the listing indexes, events and the commit.

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
                        players, until it is in their feeds (:mod:`service.storage.accounts`)
``tt:{m:<id>}:idem:<sha256(token, key)>``  a stored move response, with its own TTL
``tt:{m:<id>}:hint:<seat>``  the id of the hint job the seat asked for last (:mod:`service.storage.hints`)
``tt:{m:<id>}:chat``, ``...:chat:players``, ``...:chat:spectators``, ``...:chat:reports``  the match's chat
                        (:mod:`service.storage.chat`): the commit gives them the match's lifetime

Every commit also publishes the new version on the pub/sub channel named like the events stream, so
one subscriber per API process learns of new events without polling (see :mod:`service.live`); the
stream stays the record: a subscriber that missed a message reads the stream from where it was.

Lifetimes: a waiting match's keys expire ``waiting_seconds`` (a day by default) after its creation, so
an abandoned lobby or an unclaimed rematch offer costs Redis nothing after that (a GET is then 404); a
match that starts loses that expiry, and one that is over expires after ``retention_seconds``.

Listing indexes (sorted sets scored by a creation sequence) live outside the hash tag and are written
after the match keys; a listing drops and prunes ids whose match has expired, and creating a waiting
match drops the oldest expired ones of its waiting index (:meth:`Store._drop_expired_waiting`).

A move is one Lua script (``lua/match_commit.lua``): check the version, write state, bump the version,
append the events and the log entry, store the idempotency record, set the retention TTL when the
match is over.
Humans and bots write through the same script, so Redis alone arbitrates concurrent writers.

A process keeps the match as its own last write (its creation or a commit) left it, in its one cache
of matches (:mod:`service.storage.match_cache`, which says when a copy may be used): the next move
there need not load it (:meth:`Store.recent`, issue 30 point 2), as the commit's compare-and-set on
the version and ``updated_at`` lets a move decided on the copy land only on that very version.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.client import PubSub

from service.config import Config
from service.encoding import dumps, loads
from service.storage import client as clients
from service.storage.clocks import ClockStore
from service.storage.lua import script
from service.storage.match_cache import MatchCache

WAITING = "waiting"  #: open seats left to join
ACTIVE = "active"
FINISHED = "finished"
ABORTED = "aborted"  #: cancelled while waiting, or left by every human (see service.domain.matches.lifecycle)
STATUSES = (WAITING, ACTIVE, FINISHED, ABORTED)
#: Statuses after which nothing more happens; the match expires after the retention time.
OVER_STATUSES = frozenset({FINISHED, ABORTED})

_SEQ = "tt:seq"
#: The parts of a match's chat keys (:mod:`service.storage.chat`): every commit that sets or drops the
#: match's time to live does the same to them (``lua/match_commit.lua``), so the chat goes with the match.
CHAT_PARTS = ("chat", "chat:players", "chat:spectators", "chat:reports")
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


def finished_indexes(app: str, tournament: str | None) -> list[str]:
    """The sorted sets of an app's finished matches (and its tournament's), scored by when each
    finished: what record exports read in order (:mod:`service.storage.records`, which prunes them)."""
    return [f"tt:done:{app}", *([f"tt:done:{app}:t:{tournament}"] if tournament else [])]


#: ``expire_seconds`` of :meth:`Store.create` and :meth:`Store.commit` besides a number of seconds: leave
#: the keys' time to live as it is, or drop it (a waiting match that starts is kept until it is over).
KEEP, PERSIST = 0, -1


def notify_channel(match_id: str) -> str:
    """The pub/sub channel a commit publishes the match's new version on (the events stream's name)."""
    return _key(match_id, "events")


def published_events(data: bytes) -> tuple[list[StoredEvent], str | None] | None:
    """The events a commit published (``lua/match_commit.lua``: its version, then an event's JSON a line) and
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
    #: Who may join and what happens when a seat is left (see :mod:`service.domain.matches.lifecycle`); never
    #: shown whole: it holds the creator's and the invites' token hashes.
    life: dict[str, Any] = field(default_factory=dict)
    #: The time control and its state (see :mod:`service.domain.matches.clocks`), or ``None``: no clock.
    clock: dict[str, Any] | None = None
    #: Per seat, the decisions committed for it, and how many of them a stand-in made (a timeout's bot,
    #: the bot of an away or resigned seat): see :mod:`service.domain.matches.stand_ins`.  Empty: none yet.
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


def connect_store(
    config: Config, *, timeout: float | None = None, max_connections: int | None = None
) -> Store:
    """The match store of a :class:`service.config.Config`, over its clients
    (:func:`service.storage.client.connect_clients`)."""
    made = clients.connect_clients(config, timeout=timeout, max_connections=max_connections)
    return Store(made.state, made.queue, wait_replicas=made.wait_replicas, wait_ms=made.wait_ms)


class Store:
    """Match persistence over one Redis connection pool (of one server, or of a Redis Cluster: every
    key of a match shares its hash tag, so every script and multi-key read of a match is one slot).

    ``queue`` is the Redis of RQ (bot turns, hints, worker heartbeats), which does not support Redis
    Cluster: the state Redis itself unless that is a cluster (see :func:`connect_store`).  The clocks'
    indexes are kept beside the matches (:attr:`clocks`): every commit that moves a deadline writes them.
    """

    def __init__(
        self,
        client: redis.Redis,
        queue: redis.Redis | None = None,
        *,
        wait_replicas: int = 0,
        wait_ms: int = clients.WAIT_MS,
    ) -> None:
        self.redis = client
        self.queue = client if queue is None else queue
        #: On a cluster: replicas that must have a match's write before it counts as done (see
        #: :func:`service.storage.client.write_replicated`); 0 acknowledges on the master's word alone.
        self.wait_replicas = wait_replicas
        self.wait_ms = wait_ms
        #: The deadlines and clock warnings the keepers claim (:mod:`service.storage.clocks`).
        self.clocks = ClockStore(client)
        self._commit = script(client, "match_commit")
        self._create = script(client, "match_create")
        #: This process's copies of the matches in play: its own writes (:meth:`recent`), and the live
        #: reader's reads (:class:`service.live.cache.MetaCache`).
        self.cache: MatchCache[MatchMeta] = MatchCache()

    def holding(self) -> contextlib.AbstractContextManager[None]:
        """The block's commands go over one pooled connection, taken once (a move's load and commit;
        see :func:`service.storage.client.holding`)."""
        return clients.holding(self.redis)

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

    def load_many(self, match_ids: list[str]) -> list[Loaded | None]:
        """Each match's meta and encoded state (``None``: gone), in one round trip (a feed page's
        decisions, :mod:`service.domain.feeds.decisions`)."""
        pipe = self.redis.pipeline(transaction=False)
        for mid in match_ids:
            pipe.hgetall(_key(mid, "meta"))
            pipe.get(_key(mid, "state"))
        replies = pipe.execute()
        metas, states = replies[0::2], replies[1::2]
        return [
            Loaded(MatchMeta.from_redis(mid, meta), state, None) if meta else None
            for mid, meta, state in zip(match_ids, metas, states, strict=True)
        ]

    def recent(self, match_id: str, version: int) -> Loaded | None:
        """The match at ``version`` as this process's last write of it left it, if that is the version
        it kept: a move the match's players ask of this process in turn needs no load.  ``None``: load
        it.  The match may have moved on elsewhere since (a commit on this is then refused as stale),
        so what is decided on it without a commit (a refusal) must be decided again on a load."""
        kept = self.cache.write_at(match_id, version)
        if kept is None:
            return None
        return Loaded(MatchMeta.from_fields(match_id, kept.fields), kept.state, None, remembered=True)

    def _remember(self, match_id: str, fields: dict[str, str], state: bytes | None) -> None:
        """Keep the match as a write of this process left it (all of its meta's ``fields``, and
        ``state``) in :attr:`cache`, while it is being played: a change of who holds the seats (no
        state), a match not started or one over is dropped."""
        if state is None or fields["status"] != ACTIVE:
            self.cache.forget_write(match_id)
        else:
            self.cache.keep_write(match_id, int(fields["version"]), fields, state)

    def _write(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a match's write script, waiting for ``wait_replicas`` replicas to have it (see
        :func:`service.storage.client.write_replicated`)."""
        return clients.write_replicated(self.redis, script, keys, args, self.wait_replicas, self.wait_ms)

    def replicas_missing(self) -> str | None:
        """Why match writes cannot be confirmed (see :func:`service.storage.client.replicas_missing`)."""
        return clients.replicas_missing(self.redis, self.wait_replicas)

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
        ``lua/match_commit.lua``): a move (a new state and a log entry), or a change of who holds the seats
        (``state`` and ``log_entry`` ``None``).  Every commit stamps ``updated_at``, so the two name
        one committed version, even of a Redis that lost writes and went on from an earlier one.

        ``expire_seconds``: the match's keys expire after so many seconds, or ``KEEP`` or ``PERSIST``.
        ``idempotency`` is ``(key, record, ttl seconds)``: the record is stored under the key with the
        move, and if the key is already taken nothing is written and the stored record comes back.
        ``outbox``: the entry for the players' feeds (:mod:`service.domain.feeds.feed`), appended to the
        match's outbox with the commit (:meth:`service.domain.outbox.entries.Outbox.drain` delivers it).
        """
        mid = meta.id
        keys = [_key(mid, p) for p in ("meta", "state", "events", "log", "outbox", *CHAT_PARTS)]
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
                self._reindex(meta, fields["status"], expire_seconds)
            return Commit(version=version)
        if reply[0] == 0:
            return Commit(stale=int(reply[1]))
        if reply[0] == 2:
            return Commit(replay=reply[1].decode())
        return Commit(gone=True)

    def _reindex(self, meta: MatchMeta, status: str, keep: int = 0) -> None:
        pipe = self.redis.pipeline(transaction=False)
        for old, new in zip(_indexes(meta, meta.status), _indexes(meta, status), strict=True):
            if old != new:
                pipe.zrem(old, meta.id)
                pipe.zadd(new, {meta.id: meta.seq})
        if status == FINISHED and meta.life.get("app"):  # the exports' indexes (service.storage.records)
            tournament = str(meta.life.get("tournament") or "").partition(":")[2] or None  # "<app>:<id>"
            at = now()
            for index in finished_indexes(meta.life["app"], tournament):
                pipe.zadd(index, {meta.id: at})
                if keep > 0:  # names outlive no match: those past the retention go, the index with the last
                    pipe.zremrangebyscore(index, "-inf", f"({at - keep!r}")
                    pipe.expire(index, keep)
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

    # -- idempotency --------------------------------------------------------------------------------

    @staticmethod
    def idempotency_key(match_id: str, token: str, key: str) -> str:
        """Scoped by the caller's seat token, so one seat's key can never replay another's response."""
        digest = hashlib.sha256(f"{token}\n{key}".encode()).hexdigest()
        return _key(match_id, f"idem:{digest}")

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
