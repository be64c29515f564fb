"""Redis persistence of tournaments (issue 31).  Beside :mod:`service.store` and the other stores, the
only code that talks to Redis about them; every script here touches one cluster slot.

**A tournament** is one slot, hash tag ``{t:<app>:<id>}``; ``T`` below is ``tt:{t:<app>:<id>}``:

``T:doc``      hash: ``spec`` (the tournament as created: name, game, players, options, entrants,
               format, rounds, matches per pairing, rated, time control, parallel, creator; JSON,
               never rewritten), ``status`` (``scheduled``, ``running``, ``finished``,
               ``cancelled``), ``created_at``, ``starts_at``, ``finished_at`` (``""`` until over),
               ``rounds`` (the rounds it plays), ``round`` (the rounds paired so far: all of them
               from the start in a round robin), ``total`` (matches scheduled so far), ``done``
               (matches finished or aborted), ``byes`` (Swiss: ``{"<round>": [entrant...]}``, JSON),
               ``stopped`` (JSON: the numbers of the matches a cancel found under way)
``T:m``        hash: match number -> ``{"match_id", "round", "entrants"}`` (JSON, never rewritten)
``T:st``       hash: match number -> ``pending`` (not created, or not yet marked created),
               ``active``, ``finished``, ``aborted``
``T:res``      hash: match number -> ``{"places", "scores"}`` (JSON) of a finished match
``T:pending``  sorted set: pending match numbers, scored by the number (the schedule's order: the
               oldest round first)
``T:active``   sorted set: match numbers under way -> when marked so

A tournament that is over (finished or cancelled) expires, every key at once, after the retention
of finished matches (``TABLETOP_RETENTION_SECONDS``), set by the script that ends it; nothing writes
it after that, so no part of it outlives the rest.

A match moves only forward, ``pending`` -> ``active`` -> ``finished``/``aborted`` (or ``pending`` ->
``finished``/``aborted`` directly: a match may end before the scheduler that created it marks it
``active``), and every move is a script that checks the status it moves from: two processes
scheduling or recording at once change each match once.

Two global keys, each written apart from the tournament's slot (so they may be stale for a moment;
the sweep reads through them and tolerates it): ``tt:tournaments:due`` (sorted set: ``<app>:<id>`` ->
when the sweep should look at it next) and, per app, ``tt:{a:<app>}:tournaments`` (sorted set, every
score 0: the app's tournament ids, which sort by creation time, for keyset listing newest first).
An expired tournament leaves both lazily: the sweep drops a due entry whose record is gone, a listing
an id whose record is gone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis

PENDING, ACTIVE, FINISHED, ABORTED = "pending", "active", "finished", "aborted"
SCHEDULED, RUNNING, CANCELLED = "scheduled", "running", "cancelled"

_DUE = "tt:tournaments:due"
_PARTS = ("doc", "m", "st", "res", "pending", "active")

#: Start a scheduled tournament.  KEYS: the parts.  ARGV: now.  Returns the status after.
_START = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'scheduled' and tonumber(redis.call('HGET', KEYS[1], 'starts_at')) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'status', 'running')
  return 'running'
end
return status or ''
"""

#: Mark created matches under way.  ARGV: now, then match numbers.  Returns how many moved.
_STARTED = """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
local moved = 0
for i = 2, #ARGV do
  local n = ARGV[i]
  if redis.call('HGET', KEYS[3], n) == 'pending' then
    redis.call('HSET', KEYS[3], n, 'active')
    redis.call('ZREM', KEYS[5], n)
    redis.call('ZADD', KEYS[6], ARGV[1], n)
    moved = moved + 1
  end
end
return moved
"""

#: Record a match's end.  ARGV: number, ``finished``/``aborted``, result JSON ("" for aborted).
#: Returns 1 if recorded now, 0 if it was recorded (or cancelled) before, or the tournament is gone
#: (expired: nothing may bring back a part of it without its time to live).
_RECORD = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local n = ARGV[1]
local status = redis.call('HGET', KEYS[3], n)
if status ~= 'pending' and status ~= 'active' then return 0 end
redis.call('HSET', KEYS[3], n, ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[4], n, ARGV[3]) end
redis.call('ZREM', KEYS[5], n)
redis.call('ZREM', KEYS[6], n)
redis.call('HINCRBY', KEYS[1], 'done', 1)
return 1
"""

#: Add a Swiss round once the one before is over.  ARGV: round, byes JSON, then number, match JSON
#: pairs.  Returns 1 if added now, 0 if not (added by another process, or not its time).
_ADD_ROUND = """
local round = tonumber(ARGV[1])
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'round')) ~= round - 1 then return 0 end
if redis.call('ZCARD', KEYS[5]) > 0 or redis.call('ZCARD', KEYS[6]) > 0 then return 0 end
local added = 0
for i = 3, #ARGV, 2 do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  redis.call('HSET', KEYS[3], ARGV[i], 'pending')
  redis.call('ZADD', KEYS[5], tonumber(ARGV[i]), ARGV[i])
  added = added + 1
end
redis.call('HSET', KEYS[1], 'round', round, 'byes', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'total', added)
return 1
"""

#: Expire every key of a tournament that is over after the retention (ARGV[2], seconds; 0 keeps it),
#: as a finished match's keys are (``commit.lua``).  Nothing writes a tournament once it is over.
_EXPIRE = """
local keep = tonumber(ARGV[2])
if keep > 0 then
  for i = 1, #KEYS do redis.call('EXPIRE', KEYS[i], keep) end
end
"""

#: Finish a running tournament whose every match is over and whose every round was paired.
#: ARGV: now, retention.  Returns 1 if finished now.
_FINISH = (
    """
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
if redis.call('ZCARD', KEYS[5]) > 0 or redis.call('ZCARD', KEYS[6]) > 0 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'round')) < tonumber(redis.call('HGET', KEYS[1], 'rounds')) then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'finished', 'finished_at', ARGV[1])
"""
    + _EXPIRE
    + """
return 1
"""
)

#: Cancel a scheduled or running tournament: every match not over is aborted in the record.  ARGV:
#: now, retention.  Returns ``{"ok", numbers that were under way...}`` or ``{"over", status}``.
_CANCEL = (
    """
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'scheduled' and status ~= 'running' then return {'over', status or ''} end
local active = redis.call('ZRANGE', KEYS[6], 0, -1)
local pending = redis.call('ZRANGE', KEYS[5], 0, -1)
for _, n in ipairs(active) do redis.call('HSET', KEYS[3], n, 'aborted') end
for _, n in ipairs(pending) do redis.call('HSET', KEYS[3], n, 'aborted') end
redis.call('DEL', KEYS[5], KEYS[6])
redis.call('HINCRBY', KEYS[1], 'done', #active + #pending)
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'finished_at', ARGV[1], 'stopped', cjson.encode(active))
"""
    + _EXPIRE
    + """
local out = {'ok'}
for _, n in ipairs(active) do out[#out + 1] = n end
for _, n in ipairs(pending) do out[#out + 1] = n end
return out
"""
)


def tournament_key(app: str, tid: str, part: str) -> str:
    return f"tt:{{t:{app}:{tid}}}:{part}"


def app_index_key(app: str) -> str:
    """The app's tournaments, in the app's slot (the hash tag of
    :func:`service.accounts_store.app_key`, which this layer may not import)."""
    return f"tt:{{a:{app}}}:tournaments"


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True)
class Head:
    """What the scheduler reads: the tournament's fields (``doc`` without the spec decoded), the
    first pending matches (number, match JSON) and the count under way."""

    doc: dict[str, str]
    pending: list[tuple[int, dict[str, Any]]]
    pending_count: int
    active: list[int]


@dataclass(frozen=True)
class Stored:
    """A whole tournament as stored: its fields, its spec, and every match with status and result."""

    doc: dict[str, str]
    spec: dict[str, Any]
    matches: dict[int, dict[str, Any]]
    statuses: dict[int, str]
    results: dict[int, dict[str, Any]]


class TournamentStore:
    """Tournament records, the due index and the apps' indexes over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._start = client.register_script(_START)
        self._started = client.register_script(_STARTED)
        self._record = client.register_script(_RECORD)
        self._add_round = client.register_script(_ADD_ROUND)
        self._finish = client.register_script(_FINISH)
        self._cancel = client.register_script(_CANCEL)

    @staticmethod
    def keys(app: str, tid: str) -> list[str]:
        return [tournament_key(app, tid, part) for part in _PARTS]

    def create(
        self,
        app: str,
        tid: str,
        fields: dict[str, Any],
        matches: list[tuple[int, dict[str, Any]]],
        look_at: float,
    ) -> None:
        """Write a new tournament (``fields``: its doc hash, ``spec`` already JSON) with its first
        ``matches``, all pending, in one transaction on its slot; then list it in the app's index
        and the due index (apart: a crash between leaves a tournament nobody lists yet, never a
        listed one that does not exist)."""
        k = self.keys(app, tid)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hset(k[0], mapping={name: _field(v) for name, v in fields.items()})
        if matches:
            pipe.hset(k[1], mapping={str(n): json.dumps(m) for n, m in matches})
            pipe.hset(k[2], mapping={str(n): PENDING for n, _ in matches})
            pipe.zadd(k[4], {str(n): n for n, _ in matches})
        pipe.execute()
        self.redis.zadd(app_index_key(app), {tid: 0})
        self.schedule(app, tid, look_at)

    def head(self, app: str, tid: str, limit: int) -> Head | None:
        """The fields, the first ``limit`` pending matches and the matches under way, read at once."""
        k = self.keys(app, tid)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hgetall(k[0])
        pipe.zrange(k[4], 0, max(limit, 1) - 1)
        pipe.zcard(k[4])
        pipe.zrange(k[5], 0, -1)
        raw, pending, count, active = pipe.execute()
        if not raw:
            return None
        doc = {_text(a): _text(b) for a, b in raw.items()}
        numbers = [int(_text(n)) for n in pending][: max(limit, 0)]
        pend: list[tuple[int, dict[str, Any]]] = []
        if numbers:
            raws = self.redis.hmget(k[1], [str(n) for n in numbers])
            pend = [(n, json.loads(r)) for n, r in zip(numbers, raws, strict=True) if r is not None]
        return Head(doc, pend, int(count), [int(_text(n)) for n in active])

    def load(self, app: str, tid: str) -> Stored | None:
        """The whole tournament, read in one transaction (a consistent picture)."""
        k = self.keys(app, tid)
        pipe = self.redis.pipeline(transaction=True)
        for key in k[:4]:
            pipe.hgetall(key)
        raw, ms, st, res = pipe.execute()
        if not raw:
            return None
        doc = {_text(a): _text(b) for a, b in raw.items()}
        return Stored(
            doc,
            json.loads(doc["spec"]),
            {int(_text(n)): json.loads(v) for n, v in ms.items()},
            {int(_text(n)): _text(v) for n, v in st.items()},
            {int(_text(n)): json.loads(v) for n, v in res.items()},
        )

    def status(self, app: str, tid: str) -> str | None:
        raw = self.redis.hget(tournament_key(app, tid, "doc"), "status")
        return None if raw is None else _text(raw)

    def spec(self, app: str, tid: str) -> dict[str, Any] | None:
        """The tournament as created (never rewritten: a process may keep it)."""
        raw = self.redis.hget(tournament_key(app, tid, "doc"), "spec")
        return None if raw is None else dict(json.loads(raw))

    def start(self, app: str, tid: str, now: float) -> str:
        return _text(self._start(keys=self.keys(app, tid), args=[repr(now)]))

    def started(self, app: str, tid: str, numbers: list[int], now: float) -> int:
        if not numbers:
            return 0
        return int(self._started(keys=self.keys(app, tid), args=[repr(now), *numbers]))

    def record(self, app: str, tid: str, number: int, status: str, result: dict[str, Any] | None) -> bool:
        """Record match ``number`` ``finished`` (with its ``result``: places, scores) or ``aborted``;
        whether this call recorded it (once per match, however often it is asked)."""
        args: list[Any] = [number, status, "" if result is None else json.dumps(result)]
        return bool(self._record(keys=self.keys(app, tid), args=args))

    def add_round(
        self, app: str, tid: str, round_: int, byes: dict[str, list[int]], matches: list[tuple[int, Any]]
    ) -> bool:
        args: list[Any] = [round_, json.dumps(byes)]
        for n, m in matches:
            args += [n, json.dumps(m)]
        return bool(self._add_round(keys=self.keys(app, tid), args=args))

    def finish(self, app: str, tid: str, now: float, keep: int) -> bool:
        """Finish it if every match is over; its keys then expire after ``keep`` seconds (0: never)."""
        return bool(self._finish(keys=self.keys(app, tid), args=[repr(now), int(keep)]))

    def cancel(self, app: str, tid: str, now: float, keep: int) -> tuple[bool, list[int] | str]:
        """Cancel: ``(True, numbers of the matches that were under way)``, or ``(False, status)``
        for a tournament over already (``""``: none).  Its keys expire after ``keep`` seconds (0:
        never)."""
        args: list[str | int] = [repr(now), int(keep)]
        out = [_text(x) for x in self._cancel(keys=self.keys(app, tid), args=args)]
        if out[0] != "ok":
            return False, out[1]
        return True, [int(n) for n in out[1:]]

    # -- the global indexes -------------------------------------------------------------------------

    def schedule(self, app: str, tid: str, at: float) -> None:
        """Ask the sweep to look at the tournament at ``at``."""
        self.redis.zadd(_DUE, {f"{app}:{tid}": at})

    def unschedule(self, app: str, tid: str) -> None:
        self.redis.zrem(_DUE, f"{app}:{tid}")

    def due(self, now: float, limit: int) -> list[tuple[str, str]]:
        """Tournaments to look at by ``now``, ``(app, id)``, longest due first."""
        rows = self.redis.zrangebyscore(_DUE, "-inf", repr(now), start=0, num=limit)
        out = []
        for row in rows:
            app, _, tid = _text(row).rpartition(":")
            out.append((app, tid))
        return out

    def app_tournaments(self, app: str, before: str | None, limit: int) -> list[str]:
        """The app's tournament ids, newest first, after the cursor ``before`` (an id)."""
        high = "+" if before is None else f"({before}"
        rows = self.redis.zrevrangebylex(app_index_key(app), high, "-", start=0, num=limit)
        return [_text(r) for r in rows]

    def unlist(self, app: str, tids: list[str]) -> None:
        if tids:
            self.redis.zrem(app_index_key(app), *tids)


def _field(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return value
    return json.dumps(value)
