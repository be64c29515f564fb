"""Redis persistence of matchmaking's seeks: seek pools, their pairings, players' seek claims and bot
bookings (issue 27; challenges have :mod:`service.storage.challenges`).  The only code that talks to
Redis about them; every script here touches one cluster slot.

**A seek pool** is one slot per app, game and player count, hash tag ``{s:<app>:<game>:<n>}``
(players of one app meet only their own app's players, and only seeks of one game and player count
can ever be grouped).  ``P`` below is ``tt:{s:<app>:<game>:<n>}``:

``P:seeks``       hash: seek id -> the seek as posted (JSON, never rewritten)
``P:status``      hash: seek id -> ``open``, ``pairing:<pairing id>``, ``matched:<match id>``,
                  ``expired`` or ``cancelled`` (kept apart from the record so a script sets it
                  without re-encoding the record's numbers)
``P:compat``      hash: open seek id -> what pairing compares, compact JSON (``lua/seek_pairing.lua``)
``P:open``        sorted set: open seek ids by posting time (first come, first paired)
``P:expiry``      sorted set: open seek id -> when it expires
``P:botwait``     sorted set: open seek id (a person's, allowing bots) -> when bots may fill its seats
``P:pairings``    hash: pairing id -> ``{"id", "seeks", "fill", "created_at"}``: a group taken out of
                  the pool whose match is not made yet (the match id is the pairing id)
``P:unfinished``  sorted set: pairing id -> when it was taken (the sweep finishes those a dead
                  process left)
``P:tell``        sorted set: expired seek id -> when (its ``seek_expired`` note is still to give)
``P:closed``      sorted set: closed seek id -> when (records are dropped :data:`SEEK_KEEP_SECONDS`
                  later)

Pairing is one script on the pool (:meth:`SeekStore.add`, :meth:`SeekStore.regroup`): it adds the seek
and, if a compatible group exists, takes the whole group out of the pool and writes its pairing, all
or nothing; so no seek is ever in two groups, however many processes post at once.

``tt:seekpools`` (one global key) is a sorted set of the pools with seeks: pool tag -> last posting,
which the sweep walks; an empty pool leaves it once idle (a posting since re-marks it, see
:meth:`SeekStore.drop_pool`).

**A player's claims** live in the player's slot (hash tag ``{p:<app>:<player>}``, as
:mod:`service.storage.accounts` lays it out): ``tt:{p:<key>}:seeks`` (hash: the player's seeks still
counted, id -> when claimed), ``tt:{p:<key>}:bookings`` (sorted set: matches a bot player was booked
into by a bot fill, match id -> when).  A person claims its one open seek there before
the seek enters its pool; a bot player claims a place under its cap (:meth:`SeekStore.claim`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from service.storage.accounts import player_slot_key
from service.storage.lua import script
from service.storage.replies import decoded, scored

#: Seconds a closed seek (matched, expired, cancelled) can still be read by its id.
SEEK_KEEP_SECONDS = 24 * 3600
#: Open seeks one pairing looks at, oldest first (bounds the script's time in a pool full of seeks
#: nobody is compatible with).
SCAN_LIMIT = 1000
#: Seconds a bot player's booking counts against its cap without its match being seen in its match
#: index (the index is written when the match's ``invited`` note is fed, moments later).
BOOKING_SECONDS = 120.0

_POOLS = "tt:seekpools"
_POOL_PARTS = (
    "seeks",
    "status",
    "compat",
    "open",
    "expiry",
    "botwait",
    "pairings",
    "unfinished",
    "tell",
    "closed",
)


@dataclass(frozen=True)
class Pool:
    """A seek pool: the app, the game and the player count its seeks are for."""

    app: str
    game: str
    players: int

    @property
    def tag(self) -> str:
        return f"{self.app}:{self.game}:{self.players}"

    @classmethod
    def from_tag(cls, tag: str) -> Pool:
        app, game, players = tag.rsplit(":", 2)
        return cls(app, game, int(players))

    def key(self, part: str) -> str:
        return f"tt:{{s:{self.tag}}}:{part}"

    def all_keys(self) -> list[str]:
        return [self.key(part) for part in _POOL_PARTS]


@dataclass(frozen=True)
class SeekState:
    """A seek as stored: the record it was posted with, and its status (and match, once matched)."""

    record: dict[str, Any]
    status: str
    match_id: str | None


def _status(raw: bytes | None) -> tuple[str, str | None]:
    """``(status, match id)`` of a stored status (``pairing:<id>`` and ``matched:<id>`` carry it)."""
    if raw is None:
        return "", None
    status, _, match_id = raw.decode().partition(":")
    return status, match_id or None


class SeekStore:
    """Seek pools and players' claims over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._add = script(client, "seek_pairing", "seek_add")
        self._regroup = script(client, "seek_pairing", "seek_regroup")
        self._close = script(client, "seek_close")
        self._expire_due = script(client, "seek_expire_due")
        self._done = script(client, "seek_done")
        self._forget = script(client, "seek_forget")
        self._claim = script(client, "seek_claim")
        self._drop_if = script(client, "drop_if_unchanged")

    # -- seeks in their pool ------------------------------------------------------------------------

    def add(
        self,
        pool: Pool,
        record: dict[str, Any],
        compat: dict[str, Any],
        now: float,
        pairing_id: str,
        bots_at: float | None,
    ) -> dict[str, Any] | None:
        """Post the seek ``record`` (its ``id`` and ``expires_at``) to ``pool`` and pair it if a
        compatible group exists: the pairing (``{"id", "seeks", "fill", "created_at"}``, its first seek
        the one posted), or ``None`` while it waits."""
        args: list[Any] = [
            record["id"],
            json.dumps(record),
            json.dumps(compat),
            repr(now),
            pool.players,
            pairing_id,
            repr(record["expires_at"]),
            "" if bots_at is None else repr(bots_at),
            SCAN_LIMIT,
        ]
        pairing = self._add(keys=pool.all_keys(), args=args)
        self.redis.zadd(_POOLS, {pool.tag: now})  # after the seek: see drop_pool
        return json.loads(pairing) if pairing else None

    def regroup(
        self, pool: Pool, seek_id: str, now: float, pairing_id: str, *, fill: bool
    ) -> dict[str, Any] | None:
        """Pair the open seek ``seek_id`` again (``fill``: its bots came due; a short group is taken and
        bots fill it): the pairing, or ``None``."""
        args: list[Any] = [seek_id, repr(now), pool.players, pairing_id, SCAN_LIMIT, "1" if fill else "0"]
        pairing = self._regroup(keys=pool.all_keys(), args=args)
        return json.loads(pairing) if pairing else None

    def seek(self, pool: Pool, seek_id: str) -> SeekState | None:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hget(pool.key("seeks"), seek_id)
        pipe.hget(pool.key("status"), seek_id)
        raw, status = pipe.execute()
        if raw is None:
            return None
        state, match_id = _status(status)
        return SeekState(json.loads(raw), state, match_id)

    def seeks(self, pool: Pool, seek_ids: list[str]) -> list[SeekState | None]:
        if not seek_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        pipe.hmget(pool.key("seeks"), seek_ids)
        pipe.hmget(pool.key("status"), seek_ids)
        raws, statuses = pipe.execute()
        out: list[SeekState | None] = []
        for raw, status in zip(raws, statuses, strict=True):
            if raw is None:
                out.append(None)
                continue
            state, match_id = _status(status)
            out.append(SeekState(json.loads(raw), state, match_id))
        return out

    def open_seeks(self, pool: Pool, after: float | None, limit: int) -> list[tuple[str, float]]:
        """The pool's open seek ids posted after ``after`` (oldest first), with their posting time."""
        low = "-inf" if after is None else f"({after!r}"
        return scored(
            self.redis.zrangebyscore(pool.key("open"), low, "+inf", start=0, num=limit, withscores=True)
        )

    def close(self, pool: Pool, seek_id: str, status: str, now: float, *, tell: bool) -> str:
        """Close the open seek (``cancelled``, ``expired``): ``"ok"``, or the status it has instead
        (``""``: no such seek)."""
        return decoded(
            self._close(keys=pool.all_keys(), args=[seek_id, status, repr(now), "1" if tell else "0"])
        )

    def expire_due(self, pool: Pool, now: float, limit: int) -> list[str]:
        """Close the pool's seeks expired by ``now`` (each then owes its owner a note, :meth:`to_tell`)."""
        return [decoded(i) for i in self._expire_due(keys=pool.all_keys(), args=[repr(now), limit])]

    def to_tell(self, pool: Pool, limit: int) -> list[str]:
        return [decoded(i) for i in self.redis.zrange(pool.key("tell"), 0, limit - 1)]

    def told(self, pool: Pool, seek_id: str) -> None:
        self.redis.zrem(pool.key("tell"), seek_id)

    def bots_due(self, pool: Pool, now: float, limit: int) -> list[str]:
        """Open seeks whose bots came due by ``now``, longest waiting first."""
        rows = self.redis.zrangebyscore(pool.key("botwait"), "-inf", repr(now), start=0, num=limit)
        return [decoded(i) for i in rows]

    def unfinished(self, pool: Pool, before: float, limit: int) -> list[dict[str, Any]]:
        """Pairings taken before ``before`` whose match is not made (or not marked made) yet."""
        rows = self.redis.zrangebyscore(pool.key("unfinished"), "-inf", repr(before), 0, limit)
        ids = [decoded(i) for i in rows]
        if not ids:
            return []
        raws = self.redis.hmget(pool.key("pairings"), ids)
        return [json.loads(raw) for raw in raws if raw is not None]

    def done(self, pool: Pool, pairing_id: str, match_id: str, now: float) -> bool:
        """Mark the pairing's match made: its seeks become ``matched``."""
        return bool(self._done(keys=pool.all_keys(), args=[pairing_id, match_id, repr(now)]))

    def forget(self, pool: Pool, before: float, limit: int) -> int:
        """Drop the records of seeks closed before ``before``."""
        return int(self._forget(keys=pool.all_keys(), args=[repr(before), limit]))

    def pools(self) -> list[tuple[Pool, float]]:
        """Every pool with seeks (or lately with some), and when a seek was last posted there."""
        return [(Pool.from_tag(t), s) for t, s in scored(self.redis.zrange(_POOLS, 0, -1, withscores=True))]

    def app_pools(self, app: str) -> list[Pool]:
        """The pools of ``app`` with seeks (or lately with some)."""
        return [pool for pool, _ in self.pools() if pool.app == app]

    def drop_pool(self, pool: Pool, score: float) -> bool:
        """Forget the pool in the pools' index if it holds nothing (no seek record, pairing or note
        to give) and nothing was posted there since ``score`` (read before this look): a posting
        re-marks its pool after its seek is in, so a drop that raced it either sees the seek or is
        undone by the re-mark."""
        if self._pool_busy(pool):
            return False
        return bool(self._drop_if(keys=[_POOLS], args=[pool.tag, repr(score)]))

    def _pool_busy(self, pool: Pool) -> bool:
        pipe = self.redis.pipeline(transaction=False)
        pipe.hlen(pool.key("status"))
        pipe.zcard(pool.key("unfinished"))
        pipe.zcard(pool.key("tell"))
        return any(int(n) for n in pipe.execute())

    # -- a player's claims ---------------------------------------------------------------------------

    def claim(
        self,
        key: str,
        mode: str,
        item: str,
        now: float,
        cap: int = 0,
        active: list[str] | None = None,
        over: list[str] | None = None,
    ) -> str:
        """Claim for the player ``key``: ``one`` (a person's only open seek ``item``: ``""``, or the
        seek id it holds already), ``seek`` (a bot player's seek) or ``book`` (a bot player booked into
        the match ``item``) while its load (seeks claimed, bookings, ``active`` matches) is under
        ``cap``: ``""``, or ``"full"``.  ``over``: matches of the player now over (their bookings go)."""
        over = over or []
        args: list[Any] = [mode, item, repr(now), cap, repr(now - BOOKING_SECONDS), len(over), *over]
        args += active or []
        keys = [player_slot_key(key, "seeks"), player_slot_key(key, "bookings")]
        return decoded(self._claim(keys=keys, args=args))

    def claimed(self, key: str) -> dict[str, float]:
        """The player's claimed seeks: id -> when claimed."""
        raw = self.redis.hgetall(player_slot_key(key, "seeks"))
        return {decoded(k): float(v) for k, v in raw.items()}

    def release(self, key: str, seek_ids: list[str]) -> None:
        if seek_ids:
            self.redis.hdel(player_slot_key(key, "seeks"), *seek_ids)

    def bookings(self, key: str) -> dict[str, float]:
        return dict(scored(self.redis.zrange(player_slot_key(key, "bookings"), 0, -1, withscores=True)))

    # -- a player's deletion (issue 48) ----------------------------------------------------------------

    def records(self, pool: Pool) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every (seek id, seek as posted) of the pool, a few at a time (``HSCAN``: never blocking Redis)."""
        for seek_id, raw in self.redis.hscan_iter(pool.key("seeks"), count=500):
            yield decoded(seek_id), json.loads(raw)

    def drop_seek(self, pool: Pool, seek_id: str) -> None:
        """Take a closed seek out of its pool at once (one slot: the pool's): its record, status,
        compatibility and every index that may still list it."""
        pipe = self.redis.pipeline(transaction=True)
        pipe.hdel(pool.key("seeks"), seek_id)
        pipe.hdel(pool.key("status"), seek_id)
        pipe.hdel(pool.key("compat"), seek_id)
        for part in ("open", "expiry", "botwait", "tell", "closed"):
            pipe.zrem(pool.key(part), seek_id)
        pipe.execute()

    def drop_claims(self, key: str) -> None:
        """Drop the player's seek claims and bot bookings (both in the player's slot; a cluster's client
        splits a ``DEL`` by slot anyway)."""
        self.redis.delete(player_slot_key(key, "seeks"), player_slot_key(key, "bookings"))
