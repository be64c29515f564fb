"""Redis persistence of matchmaking: seek pools, their pairings, players' seek claims and bot bookings,
and challenges (issue 27).  Beside :mod:`service.store` and :mod:`service.accounts_store`, the only
code that talks to Redis about them; every script here touches one cluster slot.

**A seek pool** is one slot per app, game and player count, hash tag ``{s:<app>:<game>:<n>}``
(players of one app meet only their own app's players, and only seeks of one game and player count
can ever be grouped).  ``P`` below is ``tt:{s:<app>:<game>:<n>}``:

``P:seeks``       hash: seek id -> the seek as posted (JSON, never rewritten)
``P:status``      hash: seek id -> ``open``, ``pairing:<pairing id>``, ``matched:<match id>``,
                  ``expired`` or ``cancelled`` (kept apart from the record so a script sets it
                  without re-encoding the record's numbers)
``P:compat``      hash: open seek id -> what pairing compares, compact JSON (:data:`_PRELUDE`)
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

Pairing is one script on the pool (:meth:`SeekStore.add`, :meth:`SeekStore.fill`): it adds the seek
and, if a compatible group exists, takes the whole group out of the pool and writes its pairing, all
or nothing; so no seek is ever in two groups, however many processes post at once.

``tt:seekpools`` (one global key) is a sorted set of the pools with seeks: pool tag -> last posting,
which the sweep walks; an empty pool leaves it once idle (a posting since re-marks it, see
:meth:`SeekStore.drop_pool`).

**A player's claims** live in the player's slot (hash tag ``{p:<app>:<player>}``, as
:mod:`service.accounts_store` lays it out): ``tt:{p:<key>}:seeks`` (hash: the player's seeks still
counted, id -> when claimed), ``tt:{p:<key>}:bookings`` (sorted set: matches a bot player was booked
into by a bot fill, match id -> when) and ``tt:{p:<key>}:challenges`` (sorted set: the player's
challenges, sent or received, id -> creation time).  A person claims its one open seek there before
the seek enters its pool; a bot player claims a place under its cap (:meth:`SeekStore.claim`).

**A challenge** is one hash ``tt:{c:<app>:<id>}:challenge`` (``doc``: the challenge as created, JSON;
``status``; ``answer:<player>`` per challenged player; ``declined_by``), expiring
:data:`CHALLENGE_KEEP_SECONDS` after the challenge does.  Two global sorted sets list
``<app>:<id>``: ``tt:challenges:expiry`` (open challenges by expiry) and ``tt:challenges:todo``
(challenges whose last change may still owe its effects: notes, the match; by when it changed).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis

from service.store import DROP_IF_UNCHANGED

#: Seconds a closed seek (matched, expired, cancelled) can still be read by its id.
SEEK_KEEP_SECONDS = 24 * 3600
#: Seconds a challenge can still be read after it expired (or closed earlier).
CHALLENGE_KEEP_SECONDS = 24 * 3600
#: Open seeks one pairing looks at, oldest first (bounds the script's time in a pool full of seeks
#: nobody is compatible with).
SCAN_LIMIT = 1000
#: Seconds a bot player's booking counts against its cap without its match being seen in its match
#: index (the index is written when the match's ``invited`` note is fed, moments later).
BOOKING_SECONDS = 120.0

_POOLS = "tt:seekpools"
_CHALLENGE_EXPIRY = "tt:challenges:expiry"
_CHALLENGE_TODO = "tt:challenges:todo"
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

#: Shared by the pairing scripts.  KEYS: the pool's parts in :data:`_POOL_PARTS` order.  A seek's
#: compat record: ``p`` player key, ``t`` terms (hash of options, rated, time control), ``r`` its
#: rating, ``lo``/``hi`` the opponents' rating range (absent: open-ended), ``b`` a bot player's seek,
#: ``ab`` a seek that allows bots to fill its seats, ``at`` when they may come, ``lv`` the built-in
#: level it asks for and ``bp`` whether bot players may come to it (absent in seeks posted before
#: issue 42: any level, bot players welcome).
_PRELUDE = """
local K_SEEKS, K_STATUS, K_COMPAT, K_OPEN, K_EXPIRY = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local K_BOTWAIT, K_PAIRINGS, K_UNFINISHED = KEYS[6], KEYS[7], KEYS[8]

local function fits(a, b)  -- b's rating within a's range
  return (a.lo == nil or b.r >= a.lo) and (a.hi == nil or b.r <= a.hi)
end
local function willing(a, b, now)  -- a person meets a bot player once its bots may come, if they may be
  if b.b and not a.b then return a.ab == true and a.at <= now and a.bp ~= false end  -- bot players
  return true
end
local function agree(a, b)  -- the seeks of one fill ask for one built-in level
  return a.lv == nil or b.lv == nil or a.lv == b.lv
end
local function compatible(a, b, now)
  return a.p ~= b.p and a.t == b.t and fits(a, b) and fits(b, a) and willing(a, b, now)
    and willing(b, a, now)
end
local function bot_ready(a, now)  -- may sit with bots now
  return a.b or (a.ab == true and a.at <= now)
end

-- Group ``first`` with compatible open seeks, oldest first, up to ``need``; with ``fill`` every member
-- must be ready for bots and a short group is taken too (bots fill the rest).  Takes the group out
-- of the pool and writes its pairing; returns the pairing's JSON, or false.
local function group(first, now, need, fill, pid, limit)
  local me = cjson.decode(redis.call('HGET', K_COMPAT, first))
  if fill and not bot_ready(me, now) then return false end
  local members, records = {first}, {me}
  local ids = redis.call('ZRANGE', K_OPEN, 0, limit - 1)
  if #ids > 0 and #members < need then
    local raw = redis.call('HMGET', K_COMPAT, unpack(ids))
    for i, id in ipairs(ids) do
      if #members >= need then break end
      if id ~= first and raw[i] then
        local cand = cjson.decode(raw[i])
        if not fill or bot_ready(cand, now) then
          local ok = true
          for _, m in ipairs(records) do
            if not compatible(m, cand, now) or (fill and not agree(m, cand)) then ok = false break end
          end
          if ok then
            members[#members + 1] = id
            records[#records + 1] = cand
          end
        end
      end
    end
  end
  if #members < need and not fill then return false end
  for _, id in ipairs(members) do
    redis.call('HSET', K_STATUS, id, 'pairing:' .. pid)
    redis.call('HDEL', K_COMPAT, id)
    redis.call('ZREM', K_OPEN, id)
    redis.call('ZREM', K_EXPIRY, id)
    redis.call('ZREM', K_BOTWAIT, id)
  end
  local pairing = cjson.encode({id = pid, seeks = members, fill = need - #members, created_at = now})
  redis.call('HSET', K_PAIRINGS, pid, pairing)
  redis.call('ZADD', K_UNFINISHED, now, pid)
  return pairing
end
"""

#: Post a seek and pair it if it can be.  ARGV: id, record JSON, compat JSON, now, players needed,
#: pairing id (used if a group forms), expires at, bots at ("": never), scan limit.
_ADD = (
    _PRELUDE
    + """
local id, now = ARGV[1], tonumber(ARGV[4])
redis.call('HSET', K_SEEKS, id, ARGV[2])
redis.call('HSET', K_STATUS, id, 'open')
redis.call('HSET', K_COMPAT, id, ARGV[3])
redis.call('ZADD', K_OPEN, now, id)
redis.call('ZADD', K_EXPIRY, ARGV[7], id)
if ARGV[8] ~= '' then redis.call('ZADD', K_BOTWAIT, ARGV[8], id) end
return group(id, now, tonumber(ARGV[5]), false, ARGV[6], tonumber(ARGV[9]))
"""
)

#: Try again to pair an open seek (once its bots came due: ``fill`` = "1", bots fill a short group).
#: ARGV: id, now, players needed, pairing id, scan limit, fill.  A seek no longer open leaves the
#: bot wait.
_REGROUP = (
    _PRELUDE
    + """
local id, now = ARGV[1], tonumber(ARGV[2])
if redis.call('HGET', K_STATUS, id) ~= 'open' then
  redis.call('ZREM', K_BOTWAIT, id)
  return false
end
local fill = ARGV[6] == '1'
local pairing = group(id, now, tonumber(ARGV[3]), fill, ARGV[4], tonumber(ARGV[5]))
if fill and not pairing then redis.call('ZREM', K_BOTWAIT, id) end
return pairing
"""
)

#: Close an open seek (cancelled, or expired).  KEYS: the pool's parts; ARGV: id, status, now, tell
#: ("1": its owner is to be told).  Returns "ok", or the seek's status ("" unknown) if not open.
_CLOSE = """
local id = ARGV[1]
local status = redis.call('HGET', KEYS[2], id)
if status ~= 'open' then return status or '' end
redis.call('HSET', KEYS[2], id, ARGV[2])
redis.call('HDEL', KEYS[3], id)
for i = 4, 6 do redis.call('ZREM', KEYS[i], id) end
redis.call('ZADD', KEYS[10], ARGV[3], id)
if ARGV[4] == '1' then redis.call('ZADD', KEYS[9], ARGV[3], id) end
return 'ok'
"""

#: Close the open seeks expired by ARGV[1] (at most ARGV[2]), each to be told; returns their ids.
_EXPIRE_DUE = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('HSET', KEYS[2], id, 'expired')
  redis.call('HDEL', KEYS[3], id)
  for i = 4, 6 do redis.call('ZREM', KEYS[i], id) end
  redis.call('ZADD', KEYS[10], ARGV[1], id)
  redis.call('ZADD', KEYS[9], ARGV[1], id)
end
return ids
"""

#: A pairing's match is made: its seeks are ``matched:<ARGV[2]>``, the pairing is done.  ARGV:
#: pairing id, match id, now.
_DONE = """
local raw = redis.call('HGET', KEYS[7], ARGV[1])
if not raw then return 0 end
for _, id in ipairs(cjson.decode(raw).seeks) do
  if redis.call('HGET', KEYS[2], id) == 'pairing:' .. ARGV[1] then
    redis.call('HSET', KEYS[2], id, 'matched:' .. ARGV[2])
    redis.call('ZADD', KEYS[10], ARGV[3], id)
  end
end
redis.call('HDEL', KEYS[7], ARGV[1])
redis.call('ZREM', KEYS[8], ARGV[1])
return 1
"""

#: Drop the records of seeks closed before ARGV[1] (at most ARGV[2]).
_FORGET = """
local ids = redis.call('ZRANGEBYSCORE', KEYS[10], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[10], id)
end
return #ids
"""

#: A player's claim.  KEYS: the player's seeks hash, its bookings.  ARGV: mode (``one``: a person's one
#: open seek; ``seek``: a bot player's seek under its cap; ``book``: a bot fill's booking under the
#: cap), id (a seek id, or the booked match id), now, cap, bookings older than this are dropped,
#: count of the over matches that follow, those match ids, then the player's active match ids.
#: Returns "" when claimed (or claimed already); for ``one``, the open seek held; else "full".
_CLAIM = """
local mode, id, now, cap = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
if mode == 'one' then
  local held = redis.call('HKEYS', KEYS[1])
  if #held > 0 and held[1] ~= id then return held[1] end
  redis.call('HSET', KEYS[1], id, now)
  return ''
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[5])
local over = tonumber(ARGV[6])
for i = 7, 6 + over do redis.call('ZREM', KEYS[2], ARGV[i]) end
if redis.call('HEXISTS', KEYS[1], id) == 1 or redis.call('ZSCORE', KEYS[2], id) then return '' end
local load = redis.call('HLEN', KEYS[1]) + redis.call('ZCARD', KEYS[2])
for i = 7 + over, #ARGV do
  if not redis.call('ZSCORE', KEYS[2], ARGV[i]) then load = load + 1 end
end
if load >= cap then return 'full' end
if mode == 'seek' then redis.call('HSET', KEYS[1], id, now) else redis.call('ZADD', KEYS[2], now, id) end
return ''
"""

#: Answer a challenge.  KEYS: its hash.  ARGV: player id, ``accepted``/``declined``, now.  Returns
#: ``gone``; ``closed`` and the status; ``not_invited``; ``answered`` and the answer given before;
#: ``declined``; ``waiting`` (accepted, others still to answer); ``complete`` (every one accepted).
_ANSWER = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'gone'} end
if status ~= 'open' then return {'closed', status} end
if tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[3]) then
  return {'closed', 'expired'}
end
local field = 'answer:' .. ARGV[1]
local current = redis.call('HGET', KEYS[1], field)
if not current then return {'not_invited'} end
if current ~= 'pending' then return {'answered', current} end
redis.call('HSET', KEYS[1], field, ARGV[2])
if ARGV[2] == 'declined' then
  redis.call('HSET', KEYS[1], 'status', 'declined', 'declined_by', ARGV[1])
  return {'declined'}
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 7) == 'answer:' and all[i + 1] ~= 'accepted' then return {'waiting'} end
end
redis.call('HSET', KEYS[1], 'status', 'accepted')
return {'complete'}
"""

#: Close an open challenge (``cancelled`` or ``expired``).  KEYS: its hash; ARGV: status, now.
#: Returns "ok", or the status it has ("" unknown).
_CLOSE_CHALLENGE = """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'open' then return status or '' end
if ARGV[1] == 'cancelled' and tonumber(redis.call('HGET', KEYS[1], 'expires_at')) <= tonumber(ARGV[2])
then return 'expired' end
redis.call('HSET', KEYS[1], 'status', ARGV[1])
return 'ok'
"""


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


def player_slot_key(key: str, part: str) -> str:
    """A key in the slot of the player ``key`` (``<app>:<player>``): the same hash tag as
    :func:`service.accounts_store.player_slot_key` (which this layer may not import)."""
    return f"tt:{{p:{key}}}:{part}"


def challenge_key(app: str, challenge_id: str) -> str:
    return f"tt:{{c:{app}:{challenge_id}}}:challenge"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _scored(rows: Any) -> list[tuple[str, float]]:
    """Sorted-set rows read ``withscores``, as text and numbers."""
    return [(_text(member), float(score)) for member, score in rows]


def _status(raw: bytes | None) -> tuple[str, str | None]:
    """``(status, match id)`` of a stored status (``pairing:<id>`` and ``matched:<id>`` carry it)."""
    if raw is None:
        return "", None
    status, _, match_id = raw.decode().partition(":")
    return status, match_id or None


class SeekStore:
    """Seek pools, players' claims and challenges over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._add = client.register_script(_ADD)
        self._regroup = client.register_script(_REGROUP)
        self._close = client.register_script(_CLOSE)
        self._expire_due = client.register_script(_EXPIRE_DUE)
        self._done = client.register_script(_DONE)
        self._forget = client.register_script(_FORGET)
        self._claim = client.register_script(_CLAIM)
        self._answer = client.register_script(_ANSWER)
        self._close_challenge = client.register_script(_CLOSE_CHALLENGE)
        self._drop_if = client.register_script(DROP_IF_UNCHANGED)

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
        return _scored(
            self.redis.zrangebyscore(pool.key("open"), low, "+inf", start=0, num=limit, withscores=True)
        )

    def close(self, pool: Pool, seek_id: str, status: str, now: float, *, tell: bool) -> str:
        """Close the open seek (``cancelled``, ``expired``): ``"ok"``, or the status it has instead
        (``""``: no such seek)."""
        return _text(
            self._close(keys=pool.all_keys(), args=[seek_id, status, repr(now), "1" if tell else "0"])
        )

    def expire_due(self, pool: Pool, now: float, limit: int) -> list[str]:
        """Close the pool's seeks expired by ``now`` (each then owes its owner a note, :meth:`to_tell`)."""
        return [_text(i) for i in self._expire_due(keys=pool.all_keys(), args=[repr(now), limit])]

    def to_tell(self, pool: Pool, limit: int) -> list[str]:
        return [_text(i) for i in self.redis.zrange(pool.key("tell"), 0, limit - 1)]

    def told(self, pool: Pool, seek_id: str) -> None:
        self.redis.zrem(pool.key("tell"), seek_id)

    def bots_due(self, pool: Pool, now: float, limit: int) -> list[str]:
        """Open seeks whose bots came due by ``now``, longest waiting first."""
        rows = self.redis.zrangebyscore(pool.key("botwait"), "-inf", repr(now), start=0, num=limit)
        return [_text(i) for i in rows]

    def unfinished(self, pool: Pool, before: float, limit: int) -> list[dict[str, Any]]:
        """Pairings taken before ``before`` whose match is not made (or not marked made) yet."""
        ids = [
            _text(i) for i in self.redis.zrangebyscore(pool.key("unfinished"), "-inf", repr(before), 0, limit)
        ]
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
        return [(Pool.from_tag(t), s) for t, s in _scored(self.redis.zrange(_POOLS, 0, -1, withscores=True))]

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
        return _text(self._claim(keys=keys, args=args))

    def claimed(self, key: str) -> dict[str, float]:
        """The player's claimed seeks: id -> when claimed."""
        raw = self.redis.hgetall(player_slot_key(key, "seeks"))
        return {_text(k): float(v) for k, v in raw.items()}

    def release(self, key: str, seek_ids: list[str]) -> None:
        if seek_ids:
            self.redis.hdel(player_slot_key(key, "seeks"), *seek_ids)

    def bookings(self, key: str) -> dict[str, float]:
        return dict(_scored(self.redis.zrange(player_slot_key(key, "bookings"), 0, -1, withscores=True)))

    # -- challenges ---------------------------------------------------------------------------------

    def create_challenge(self, app: str, doc: dict[str, Any], keep_seconds: int) -> None:
        """Write a new challenge (its ``id``, ``expires_at`` and ``challenged`` player ids), open, each
        challenged player's answer pending; listed for expiry."""
        key = challenge_key(app, doc["id"])
        fields: dict[Any, Any] = {
            "doc": json.dumps(doc),
            "status": "open",
            "expires_at": repr(doc["expires_at"]),
        }
        fields.update({f"answer:{p}": "pending" for p in doc["challenged"]})
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(key, mapping=fields)
        pipe.expire(key, keep_seconds)
        pipe.execute()
        self.redis.zadd(_CHALLENGE_EXPIRY, {f"{app}:{doc['id']}": doc["expires_at"]})

    def challenge(self, app: str, challenge_id: str) -> dict[str, Any] | None:
        """The stored challenge: ``doc``, ``status``, ``answers`` (player id -> answer), ``declined_by``."""
        raw = self.redis.hgetall(challenge_key(app, challenge_id))
        if not raw or b"doc" not in raw:
            return None
        h = {_text(k): _text(v) for k, v in raw.items()}
        return {
            "doc": json.loads(h["doc"]),
            "status": h["status"],
            "answers": {k.removeprefix("answer:"): v for k, v in h.items() if k.startswith("answer:")},
            "declined_by": h.get("declined_by"),
        }

    def answer(self, app: str, challenge_id: str, player: str, answer: str, now: float) -> list[str]:
        """Record the player's answer (see :data:`_ANSWER` for the outcomes)."""
        out = self._answer(keys=[challenge_key(app, challenge_id)], args=[player, answer, repr(now)])
        return [_text(x) for x in out]

    def close_challenge(self, app: str, challenge_id: str, status: str, now: float) -> str:
        return _text(self._close_challenge(keys=[challenge_key(app, challenge_id)], args=[status, repr(now)]))

    def challenges_due(self, now: float, limit: int) -> list[tuple[str, str]]:
        """Open challenges expired by ``now``: ``(app, id)``."""
        rows = self.redis.zrangebyscore(_CHALLENGE_EXPIRY, "-inf", repr(now), start=0, num=limit)
        out = []
        for row in rows:
            app, _, cid = _text(row).rpartition(":")
            out.append((app, cid))
        return out

    def app_challenges(self, app: str) -> list[str]:
        """The ids of ``app``'s challenges listed for expiry (the open ones)."""
        prefix = f"{app}:"
        rows = self.redis.zscan_iter(_CHALLENGE_EXPIRY, match=f"{prefix}*", count=1000)
        return [_text(member).removeprefix(prefix) for member, _ in rows]

    def unlist_challenge(self, app: str, challenge_id: str) -> None:
        self.redis.zrem(_CHALLENGE_EXPIRY, f"{app}:{challenge_id}")

    def mark_todo(self, app: str, challenge_id: str, now: float) -> None:
        """Note that the challenge is about to change, before the change: the sweep settles it if this
        process dies before it did (:meth:`settled`)."""
        self.redis.zadd(_CHALLENGE_TODO, {f"{app}:{challenge_id}": now})

    def todo(self, before: float, limit: int) -> list[tuple[str, str, float]]:
        rows = self.redis.zrangebyscore(
            _CHALLENGE_TODO, "-inf", repr(before), start=0, num=limit, withscores=True
        )
        out = []
        for member, score in _scored(rows):
            app, _, cid = member.rpartition(":")
            out.append((app, cid, score))
        return out

    def settled(self, app: str, challenge_id: str, score: float) -> None:
        """Drop the to-do mark unless a later change re-marked it."""
        self._drop_if(keys=[_CHALLENGE_TODO], args=[f"{app}:{challenge_id}", repr(score)])

    def index_challenge(self, key: str, challenge_id: str, created_at: float) -> None:
        self.redis.zadd(player_slot_key(key, "challenges"), {challenge_id: created_at})

    def player_challenges(self, key: str, limit: int) -> list[str]:
        """The player's challenges, newest first."""
        return [_text(i) for i in self.redis.zrevrange(player_slot_key(key, "challenges"), 0, limit - 1)]

    def unindex_challenges(self, key: str, challenge_ids: list[str]) -> None:
        if challenge_ids:
            self.redis.zrem(player_slot_key(key, "challenges"), *challenge_ids)
