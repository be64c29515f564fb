"""Redis persistence of tournaments (issues 31 and 42).  Beside :mod:`service.storage.matches` and the other
stores, the only code that talks to Redis about them; every script here touches one cluster slot.

**A tournament** is one slot, hash tag ``{t:<app>:<id>}``; ``T`` below is ``tt:{t:<app>:<id>}``:

``T:doc``      hash: ``spec`` (the tournament as created: name, game, players, options, entrants,
               format, rounds, matches per pairing, rated, time control, parallel, creator; JSON,
               never rewritten), ``status`` (``scheduled``, ``running``, ``finished``,
               ``cancelled``), ``created_at``, ``starts_at``, ``finished_at`` (``""`` until over),
               ``reason`` (why it was cancelled, ``""`` otherwise), ``rounds`` (the rounds it
               plays), ``round`` (the rounds paired so far: all of them from the start in a round
               robin, 0 in a Swiss until the scheduler pairs round 1), ``total`` (matches scheduled so
               far: all of a round robin's from the start), ``planned`` (the matches it will have
               in all: a Swiss's every round), ``next`` (the lowest match number not
               made yet: every match below it was made, or recorded), ``done`` (matches finished or
               aborted), ``byes`` (Swiss: ``{"<round>": [entrant...]}``, JSON)
``T:m``        hash (Swiss only): match number -> ``{"match_id", "round", "entrants"}`` (JSON, never
               rewritten), written when the scheduler pairs its round.  A round robin's matches are
               not stored: each is derived from the spec
               (:func:`service.domain.tournaments.pairing.round_robin_match`).
``T:st``       hash: match number -> ``active``, ``finished``, ``aborted``; a number without a status is
               ``pending`` (not made yet, or made and not yet marked)
``T:res``      hash: match number -> ``{"places", "scores", "stand_in"?, "decisions"?}`` (JSON) of a
               finished match
``T:active``   sorted set: match numbers under way -> when marked so

So creating a tournament writes its ``T:doc`` and nothing per match (issue 42): the record grows as its
matches start and end, and a cancel is one write whatever the tournament's size.

A tournament that is over (finished or cancelled) expires, every key at once, after the retention
of finished matches (``TABLETOP_RETENTION_SECONDS``), set by the script that ends it; nothing but the
cancelled tournament's clean-up (:meth:`TournamentStore.settled`, which only removes) writes it after
that, so no part of it outlives the rest.

A match moves only forward, ``pending`` -> ``active`` -> ``finished``/``aborted`` (or ``pending`` ->
``finished``/``aborted`` directly: a match may end before the scheduler that created it marks it
``active``), and every move is a script that checks the status it moves from and that the tournament
is running: two processes scheduling or recording at once change each match once, and nothing is
recorded once it is over (a cancel freezes the standings).

Global keys, each written apart from the tournament's slot (so they may be stale for a moment; the
sweep reads through them and tolerates it): ``tt:tournaments:due`` (sorted set: ``<app>:<id>`` -> when
the sweep should look at it next).  Per app, in the app's slot (hash tag ``{a:<app>}``):
``tt:{a:<app>}:tournaments`` (sorted set, every score 0: the app's tournament ids, which sort by
creation time, for keyset listing newest first) and ``tt:{a:<app>}:live`` (hash: the id of each of its
tournaments scheduled or running -> its matches not over yet, as last counted: what the per-app caps
count, :meth:`TournamentStore.reserve`).  An expired tournament leaves them lazily: the sweep drops a
due entry whose record is gone, a listing an id whose record is gone, a count of the live ones an id
whose tournament is over or gone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis

from service.storage.lua import script
from service.storage.replies import decoded

PENDING, ACTIVE, FINISHED, ABORTED = "pending", "active", "finished", "aborted"
SCHEDULED, RUNNING, CANCELLED = "scheduled", "running", "cancelled"

_DUE = "tt:tournaments:due"
_PARTS = ("doc", "m", "st", "res", "active")
_DOC, _M, _ST, _RES, _ACTIVE = range(len(_PARTS))


def tournament_key(app: str, tid: str, part: str) -> str:
    return f"tt:{{t:{app}:{tid}}}:{part}"


def app_index_key(app: str) -> str:
    """The app's tournaments, in the app's slot (the hash tag of
    :func:`service.storage.accounts.app_key`, which this layer may not import)."""
    return f"tt:{{a:{app}}}:tournaments"


def app_live_key(app: str) -> str:
    """The app's tournaments scheduled or running, each with its matches not over (the caps' count)."""
    return f"tt:{{a:{app}}}:live"


@dataclass(frozen=True)
class Head:
    """What the scheduler reads: the tournament's fields (``doc`` without the spec decoded) and the
    numbers of the matches under way."""

    doc: dict[str, str]
    active: list[int]

    @property
    def next(self) -> int:
        return int(self.doc.get("next", "1"))

    @property
    def total(self) -> int:
        return int(self.doc.get("total", "0"))


@dataclass(frozen=True)
class Stored:
    """A whole tournament as stored: its fields, its spec, the matches stored (a Swiss's; a round
    robin's are derived), the status of every match made, the results, and those under way."""

    doc: dict[str, str]
    spec: dict[str, Any]
    matches: dict[int, dict[str, Any]]
    statuses: dict[int, str]
    results: dict[int, dict[str, Any]]
    active: list[int]


@dataclass(frozen=True)
class Reserved:
    """A reservation's answer: ``ok``, or the cap (``tournaments``, ``matches``) it would pass and how
    much of it is in use."""

    ok: bool
    cap: str = ""
    in_use: int = 0


class TournamentStore:
    """Tournament records, the due index and the apps' indexes over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._start = script(client, "tournament_start")
        self._started = script(client, "tournament_started")
        self._record = script(client, "tournament_record")
        self._add_round = script(client, "tournament_add_round")
        self._finish = script(client, "tournament_expire", "tournament_finish")
        self._cancel = script(client, "tournament_expire", "tournament_cancel")
        self._settled = script(client, "tournament_settled")
        self._reserve = script(client, "tournament_reserve")
        self._recount = script(client, "tournament_recount")

    @staticmethod
    def keys(app: str, tid: str) -> list[str]:
        return [tournament_key(app, tid, part) for part in _PARTS]

    # -- the per-app caps ---------------------------------------------------------------------------

    def reserve(self, app: str, tid: str, matches: int, max_live: int, max_matches: int) -> Reserved:
        """Count a new tournament of ``matches`` matches against the app's caps (0: none), atomically,
        before it is written (:meth:`create`): two creations at once cannot both take the last place.
        A crash before :meth:`create` leaves an id whose record never comes: :meth:`live` readers drop
        it once it is old (see :meth:`service.domain.tournaments.tournaments.Tournaments.usage`)."""
        keys = [app_live_key(app)]
        out = [decoded(x) for x in self._reserve(keys=keys, args=[tid, matches, max_live, max_matches])]
        if out[0] == "ok":
            return Reserved(True)
        return Reserved(False, out[0], int(out[1]))

    def live(self, app: str) -> dict[str, int]:
        """The app's tournaments counted as live, each with its matches not over, as last counted."""
        return {decoded(k): int(v) for k, v in self.redis.hgetall(app_live_key(app)).items()}

    def recount(self, app: str, counts: dict[str, int]) -> None:
        """Set the matches not over of the app's live tournaments (those still counted as live)."""
        if counts:
            args: list[Any] = []
            for tid, n in counts.items():
                args += [tid, n]
            self._recount(keys=[app_live_key(app)], args=args)

    def ended(self, app: str, tids: list[str]) -> None:
        """The tournaments are over (or gone): they count no more against the app's caps."""
        if tids:
            self.redis.hdel(app_live_key(app), *tids)

    def counts(self, app: str, tids: list[str]) -> dict[str, tuple[str, int] | None]:
        """Each tournament's status and matches not over (of all it plans: ``planned``), ``None`` for
        one gone, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for tid in tids:
            pipe.hmget(tournament_key(app, tid, "doc"), ["status", "planned", "total", "done"])
        out: dict[str, tuple[str, int] | None] = {}
        for tid, (status, planned, total, done) in zip(tids, pipe.execute(), strict=True):
            if status is None:
                out[tid] = None
                continue
            out[tid] = (decoded(status), max(int(planned or 0), int(total or 0)) - int(done or 0))
        return out

    # -- one tournament -----------------------------------------------------------------------------

    def create(self, app: str, tid: str, fields: dict[str, Any], look_at: float) -> None:
        """Write a new tournament (``fields``: its doc hash, ``spec`` already JSON): one hash, whatever
        its size; then list it in the app's index and ask the sweep to look at it at ``look_at`` (apart:
        a crash between leaves a tournament nobody lists or schedules yet, never a listed one that does
        not exist; it still counts as live for its app, whose revocation cancels it)."""
        self.redis.hset(
            tournament_key(app, tid, "doc"), mapping={name: _field(v) for name, v in fields.items()}
        )
        self.redis.zadd(app_index_key(app), {tid: 0})
        self.schedule(app, tid, look_at)

    def head(self, app: str, tid: str) -> Head | None:
        """The fields and the matches under way, read at once."""
        k = self.keys(app, tid)
        pipe = self.redis.pipeline(transaction=True)
        pipe.hgetall(k[_DOC])
        pipe.zrange(k[_ACTIVE], 0, -1)
        raw, active = pipe.execute()
        if not raw:
            return None
        doc = {decoded(a): decoded(b) for a, b in raw.items() if decoded(a) != "spec"}
        return Head(doc, [int(decoded(n)) for n in active])

    def load(self, app: str, tid: str) -> Stored | None:
        """The whole tournament, read in one transaction (a consistent picture)."""
        k = self.keys(app, tid)
        pipe = self.redis.pipeline(transaction=True)
        for key in k[:_ACTIVE]:
            pipe.hgetall(key)
        pipe.zrange(k[_ACTIVE], 0, -1)
        raw, ms, st, res, active = pipe.execute()
        if not raw:
            return None
        doc = {decoded(a): decoded(b) for a, b in raw.items()}
        return Stored(
            doc,
            json.loads(doc["spec"]),
            {int(decoded(n)): json.loads(v) for n, v in ms.items()},
            {int(decoded(n)): decoded(v) for n, v in st.items()},
            {int(decoded(n)): json.loads(v) for n, v in res.items()},
            [int(decoded(n)) for n in active],
        )

    def matches(self, app: str, tid: str, numbers: list[int]) -> dict[int, dict[str, Any]]:
        """The stored matches (a Swiss's) of these numbers."""
        if not numbers:
            return {}
        raws = self.redis.hmget(tournament_key(app, tid, "m"), [str(n) for n in numbers])
        return {n: json.loads(r) for n, r in zip(numbers, raws, strict=True) if r is not None}

    def status(self, app: str, tid: str) -> str | None:
        raw = self.redis.hget(tournament_key(app, tid, "doc"), "status")
        return None if raw is None else decoded(raw)

    def statuses(self, app: str, tids: list[str]) -> list[str | None]:
        """The status of each tournament (``None``: gone), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for tid in tids:
            pipe.hget(tournament_key(app, tid, "doc"), "status")
        return [None if s is None else decoded(s) for s in pipe.execute()]

    def spec(self, app: str, tid: str) -> dict[str, Any] | None:
        """The tournament as created (never rewritten: a process may keep it)."""
        raw = self.redis.hget(tournament_key(app, tid, "doc"), "spec")
        return None if raw is None else dict(json.loads(raw))

    def rewrite_spec(self, app: str, tid: str, spec: dict[str, Any]) -> None:
        """Replace the tournament's spec: only a player's deletion does (issue 48: its entrant becomes
        a bot named by the placeholder); the caller tells the schedulers that may keep the old one."""
        self.redis.hset(tournament_key(app, tid, "doc"), "spec", json.dumps(spec))

    def start(self, app: str, tid: str, now: float) -> str:
        return decoded(self._start(keys=self.keys(app, tid), args=[repr(now)]))

    def started(self, app: str, tid: str, first: int, last: int, now: float) -> int:
        """Mark matches ``first`` .. ``last`` made and under way: how many were marked now, 0 if
        another process did it first, -1 if the tournament is not running (cancelled meanwhile)."""
        if last < first:
            return 0
        return int(self._started(keys=self.keys(app, tid), args=[repr(now), first, last]))

    def record(self, app: str, tid: str, number: int, status: str, result: dict[str, Any] | None) -> bool:
        """Record match ``number`` ``finished`` (with its ``result``: places, scores...) or ``aborted``;
        whether this call recorded it (once per match, however often it is asked; never once the
        tournament is over)."""
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

    def cancel(self, app: str, tid: str, now: float, keep: int, reason: str) -> tuple[bool, str]:
        """Cancel in constant time: ``(True, "")``, or ``(False, status)`` for a tournament over
        already (``""``: none).  Its keys expire after ``keep`` seconds (0: never)."""
        args: list[str | int] = [repr(now), int(keep), reason]
        out = [decoded(x) for x in self._cancel(keys=self.keys(app, tid), args=args)]
        if out[0] != "ok":
            return False, out[1]
        return True, ""

    def active(self, app: str, tid: str, limit: int) -> list[int]:
        """The first ``limit`` numbers still listed under way."""
        rows = self.redis.zrange(tournament_key(app, tid, "active"), 0, max(limit, 1) - 1)
        return [int(decoded(n)) for n in rows]

    def settled(self, app: str, tid: str, numbers: list[int]) -> None:
        """The sweep aborted these matches of a cancelled tournament: no longer listed under way."""
        if numbers:
            self._settled(keys=self.keys(app, tid), args=numbers)

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
            app, _, tid = decoded(row).rpartition(":")
            out.append((app, tid))
        return out

    def app_tournaments(self, app: str, before: str | None, limit: int) -> list[str]:
        """The app's tournament ids, newest first, after the cursor ``before`` (an id)."""
        high = "+" if before is None else f"({before}"
        rows = self.redis.zrevrangebylex(app_index_key(app), high, "-", start=0, num=limit)
        return [decoded(r) for r in rows]

    def unlist(self, app: str, tids: list[str]) -> None:
        if tids:
            self.redis.zrem(app_index_key(app), *tids)


def _field(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return value
    return json.dumps(value)
