"""Tournaments (issues 31 and 42): a round robin or a Swiss event the server runs for an app, with
standings and an export.  The rules (pairing, seats, points, tie-breaks) are those of
:mod:`service.matches.tournament_pairing`; this module stores, schedules and tells.

**Bounded cost** (issue 42).  Creating a tournament does constant work in the request, whatever its
size: it checks the request, counts the tournament against its app's caps (tournaments scheduled or
running, ``tournament_max_running``; their matches not over, ``tournament_max_scheduled_matches``) and
writes one record.  No match is made and nothing is written per match: a round robin's schedule is
derived from its spec (match number -> round and seats,
:func:`~service.matches.tournament_pairing.round_robin_match`), a Swiss round is paired when the one
before is over, and the matches are made by the scheduler as they start.  A cancel is one write too:
the matches under way are aborted afterwards by the sweep, a batch at a time.

**Matches.**  A tournament's matches are numbered 1, 2, ... in schedule order and their ids are
``<tournament id>-<number>``, fixed in advance: creating one is idempotent by id, so a scheduler that
runs twice (two processes, or one again after a crash) makes each match once.  A match is private to
the app, its seats the entrants' (a player as its named human seat, a level as a built-in bot seat),
rated if the tournament is; its meta carries ``life["tournament"] = "<app>:<id>"``.  The commit that
ends it puts its outcome in its outbox (:func:`outcome`, built by
:meth:`service.matches.operations.Matches.outbox`), and :meth:`service.matches.outbox.Outbox.drain`
hands it to :meth:`Tournaments.recorded`, again after any crash until the entry is popped, and then
to :meth:`Tournaments.follow`, which schedules what comes next.

**Scheduling** (:meth:`Tournaments.advance`): make the next matches in number order, at most
:data:`START_BATCH` a step, up to ``parallel`` under way (a round robin does not wait for a round to
end: bots stay busy), tell the player entrants (``tournament_match``), then mark them under way and
move the tournament's ``next`` past them; a Swiss round is paired once the one before is over; a
tournament whose matches are all over is finished and its player entrants told (``tournament_over``).
Every change is a script on the tournament's slot that checks what it changes from
(:mod:`service.tournaments_store`), so two processes advancing at once do each thing once.  Order
matters for crashes: a match is made before it is marked, so a process killed in between leaves
``next`` where it was and the next run makes the match again (a no-op) and marks it; a note is given
before its match is marked, and notes are deduplicated by their number.  A scheduler that finds the
tournament cancelled when it marks aborts the matches it has just made.

**The sweep** (:class:`TournamentSweeper`, run by the workers' clock keeper): it looks at the
tournaments due (the due index; a running one every ``tournament_sweep_seconds``, one with work
waiting at once): starts those whose time came, records matches that ended without their outcome
reaching the record (or vanished: aborted), runs the scheduler, and aborts a cancelled tournament's
matches under way, so nothing is lost if a process dies between any two steps.

**Notes** go to player entrants through :meth:`service.matches.outbox.Outbox.note` (feed and webhooks),
source ``t:<id>``: ``tournament_match`` numbered by the match's number, ``tournament_over`` last.

**Stand-ins** (issue 42 point 6): a finished match's result counts per seat the decisions a stand-in
made (``stand_in``: a timeout's bot, an away or resigned seat's bot) and all of them
(``decisions``); the record keeps both, the standings add them up per entrant (``stand_in``, and
``stand_in_matches``: the matches a stand-in played more than half of), and the matches and the export
show them per seat.
"""

from __future__ import annotations

import builtins
import json
import logging
import secrets
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from engine.ai import LEVELS
from service.matches import lifecycle, seating
from service.matches import tournament_pairing as rules
from service.matches.errors import Conflict, Forbidden, Invalid, NotFound, invalid
from service.matches.feed import TOURNAMENT_MATCH, TOURNAMENT_OVER
from service.matches.identity import APP, PLAY, PLAYER, READ, Caller, player_key
from service.matches.ratings import bot_rater
from service.matches.ratings import places as result_places
from service.matches.seeks import Terms, app_caller, caller_app, match_terms
from service.store import FINISHED as MATCH_FINISHED
from service.store import OVER_STATUSES, STORAGE_ERRORS, MatchMeta
from service.tournaments_store import (
    ABORTED,
    ACTIVE,
    CANCELLED,
    FINISHED,
    PENDING,
    RUNNING,
    SCHEDULED,
    Stored,
    TournamentStore,
)

if TYPE_CHECKING:
    from service.matches.operations import Matches

log = logging.getLogger(__name__)

ROUND_ROBIN, SWISS = "round_robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
STATUSES = (SCHEDULED, RUNNING, FINISHED, CANCELLED)
MATCH_STATUSES = (PENDING, ACTIVE, FINISHED, ABORTED)
#: The number of the ``tournament_over`` note within the source ``t:<id>``: after every match's.
OVER_NOTE = 1_000_000_000
#: Why a match of a cancelled tournament ended (its ``match_over`` event's ``reason``).
CANCEL_REASON = "tournament_cancelled"
#: Why a tournament was cancelled (its ``cancel_reason``): by the app (its key or the player who
#: created it), by the operator (the admin API), or its app revoked (:meth:`Tournaments.cancel_all`).
BY_APP, BY_OPERATOR, APP_REVOKED = "cancelled", "operator", "app_revoked"
CANCEL_REASONS = (BY_APP, BY_OPERATOR, APP_REVOKED)
MAX_NAME = 80
#: Entrants one tournament may have (its matches are bounded apart, ``tournament_max_matches``).
MAX_ENTRANTS = 1000
#: Passes of one :meth:`Tournaments.advance` (each a step: start, make a batch, pair a round, finish).
ADVANCE_STEPS = 8
#: Matches one step of the scheduler makes at most; more are made by the next look, at once.
START_BATCH = 32
#: Matches of a cancelled tournament one look of the sweep aborts at most; the next look, at once,
#: goes on.
ABORT_BATCH = 64
#: Tournaments one sweep looks at, at most.
SWEEP_LIMIT = 200
#: Tournament ids one listing page reads at most, however few pass its status filter.
LIST_SCAN = 1000
#: Specs kept in memory per process (a spec never changes once written).
SPEC_CACHE = 1024
#: Seconds after which a tournament counted against its app's caps but never written (its creator
#: died between the two) stops counting.
ORPHAN_SECONDS = 60.0
#: Seconds between the sweep's looks at its due index (the full look at a running tournament is every
#: ``tournament_sweep_seconds``; what is due at once, a cancel or a batch to go on with, is seen
#: within this).
DUE_POLL = 0.25


def source(tid: str) -> str:
    """The notes' source of a tournament (feeds number notes within their source)."""
    return f"t:{tid}"


def match_id_of(tid: str, number: int) -> str:
    return f"{tid}-{number}"


def number_of(match_id: str) -> int:
    return int(match_id.rpartition("-")[2])


def new_id(now: float) -> str:
    """A tournament id that sorts by creation time (the app's listing pages by it): ``t``, the
    creation millisecond in 12 hex digits, 8 random hex digits."""
    return f"t{int(now * 1000):012x}{secrets.token_hex(4)}"


def created_at_of(tid: str) -> float | None:
    """When the tournament ``tid`` was made, read from its id (``None``: not an id of ours)."""
    try:
        return int(tid[1:13], 16) / 1000 if len(tid) == 21 and tid[0] == "t" else None
    except ValueError:
        return None


def tournament_not_found(tid: str) -> NotFound:
    return NotFound("tournament_not_found", f"tournament {tid!r} not found")


def _per_seat(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(x, int) for x in value):
        return list(value)
    return None


def outcome(before: MatchMeta | None, after: MatchMeta) -> dict[str, Any] | None:
    """The ``tournament`` part of the outbox entry of a commit that ends a tournament's match
    (``None`` for any other commit): ``{"app", "id", "match_id", "status", "places", "scores",
    "stand_in", "decisions"}``, places (1 = first, ties shared as the ratings read them), the engine's
    scores and the result's decision counts per seat (stand-in's and all; ``None`` when the result has
    none), ``None`` for an aborted match."""
    tag = after.life.get("tournament")
    if not tag or after.status not in OVER_STATUSES:
        return None
    if before is not None and before.status in OVER_STATUSES:
        return None
    app, _, tid = str(tag).rpartition(":")
    places = scores = stand_in = decisions = None
    status = ABORTED
    if after.status == MATCH_FINISHED and after.result:
        places = result_places(after.result)
        scores = after.result.get("scores")
        stand_in = _per_seat(after.result.get("stand_in"))
        decisions = _per_seat(after.result.get("decisions"))
        status = FINISHED
    return {
        "app": app,
        "id": tid,
        "match_id": after.id,
        "status": status,
        "places": places,
        "scores": scores,
        "stand_in": stand_in,
        "decisions": decisions,
    }


def _result_of(out: dict[str, Any]) -> dict[str, Any]:
    """What the record keeps of a finished match's outcome."""
    result = {"places": out["places"], "scores": out.get("scores")}
    for name in ("stand_in", "decisions"):
        if out.get(name) is not None:
            result[name] = out[name]
    return result


def mostly_stand_in(stand_in: int, decisions: int) -> bool:
    """Whether a seat's play was mostly a stand-in's: more than half of its decisions."""
    return decisions > 0 and 2 * stand_in > decisions


def _entrant_seat(entrant: dict[str, Any]) -> dict[str, Any]:
    if entrant.get("player") is not None:
        return {"kind": seating.HUMAN, "player": entrant["player"]}
    seat = {"kind": seating.BOT, "name": entrant["name"], "level": entrant["level"]}
    if entrant.get("think_ms") is not None:  # absent in a tournament made before entrants had it
        seat["think_ms"] = entrant["think_ms"]
    return seat


def _json(raw: str | bytes) -> Any:
    return json.loads(raw)


def total_matches(spec: dict[str, Any]) -> int:
    n, p, per = len(spec["entrants"]), int(spec["players"]), int(spec["matches_per_pairing"])
    if spec["format"] == ROUND_ROBIN:
        return rules.round_robin_total(n, p, per)
    return int(spec["rounds"]) * (n // p) * per


def schedule(stored: Stored) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every match known so far, in number order, ``(number, {"match_id", "round", "entrants"})``: a
    round robin's derived from its spec (all of them), a Swiss's as its rounds were paired."""
    spec = stored.spec
    if spec["format"] != ROUND_ROBIN:
        yield from sorted(stored.matches.items())
        return
    tid = spec["id"]
    made = rules.round_robin(len(spec["entrants"]), spec["players"], spec["matches_per_pairing"])
    for n, (round_, seats) in enumerate(made, 1):
        yield n, {"match_id": match_id_of(tid, n), "round": round_, "entrants": list(seats)}


def match_status(stored: Stored, n: int) -> str:
    """Match ``n``'s status in the record: ``pending`` until made and marked; in a cancelled tournament
    every match not finished is ``aborted`` (those under way are aborted by the sweep)."""
    status = stored.statuses.get(n, PENDING)
    if stored.doc["status"] == CANCELLED and status not in (FINISHED, ABORTED):
        return ABORTED
    return status


def _byes(stored: Stored) -> dict[str, list[int]]:
    raw = stored.doc.get("byes")
    return dict(_json(raw)) if raw else {}


def _finished(stored: Stored) -> Iterator[tuple[int, dict[str, Any], dict[str, Any]]]:
    """Every finished match, in number order: ``(number, match, result)``."""
    if not stored.results:
        return
    for n, m in schedule(stored):
        res = stored.results.get(n)
        if res is not None and stored.statuses.get(n) == FINISHED:
            yield n, m, res


def standings(stored: Stored) -> list[dict[str, Any]]:
    """The standings, ranked, as the API shows them, with each entrant's stand-in counts."""
    spec = stored.spec
    byes = [e for out in _byes(stored).values() for e in out]
    finished = list(_finished(stored))
    played = (rules.Played(tuple(m["entrants"]), tuple(res["places"])) for _, m, res in finished)
    lines = rules.standings(len(spec["entrants"]), spec["players"], played, byes)
    stand_in: Counter[int] = Counter()
    mostly: Counter[int] = Counter()
    for _, m, res in finished:
        subs, made = res.get("stand_in"), res.get("decisions")
        if subs is None or made is None:
            continue
        for seat, entrant in enumerate(m["entrants"]):
            if seat < len(subs) and seat < len(made):
                stand_in[entrant] += subs[seat]
                mostly[entrant] += mostly_stand_in(subs[seat], made[seat])
    return [
        {
            "rank": rank,
            "entrant": s.entrant,
            "name": spec["entrants"][s.entrant]["name"],
            "points": s.points,
            "played": s.played,
            "wins": s.wins,
            "buchholz": s.buchholz,
            "seats": s.seats,
            "stand_in": stand_in[s.entrant],
            "stand_in_matches": mostly[s.entrant],
        }
        for rank, s in enumerate(lines, 1)
    ]


def progress(stored: Stored) -> dict[str, Any]:
    spec, doc = stored.spec, stored.doc
    rounds = int(spec["rounds"])
    if spec["format"] == SWISS:
        current = max(int(doc.get("round", "1")), 1)
    else:
        total, next_ = int(doc["total"]), int(doc.get("next", "1"))
        open_numbers = [n for n in stored.active if stored.statuses.get(n) == ACTIVE]
        if next_ <= total:
            open_numbers.append(next_)
        groups = max(total // max(int(spec["matches_per_pairing"]), 1), 1)
        current = (
            (min(open_numbers) - 1) // groups + 1 if open_numbers and doc["status"] != CANCELLED else rounds
        )
        current = min(current, rounds)
    return {
        "done": int(doc.get("done", "0")),
        "total": total_matches(spec),
        "round": current,
        "rounds": rounds,
    }


def _counts(res: dict[str, Any] | None, seat: int) -> tuple[int | None, int | None]:
    if res is None or res.get("stand_in") is None or res.get("decisions") is None:
        return None, None
    subs, made = res["stand_in"], res["decisions"]
    return (subs[seat] if seat < len(subs) else None, made[seat] if seat < len(made) else None)


def _match_row(stored: Stored, n: int, m: dict[str, Any]) -> dict[str, Any]:
    status = match_status(stored, n)
    res = stored.results.get(n) if status == FINISHED else None
    places = res["places"] if res is not None else None
    return {
        "match_id": m["match_id"],
        "round": m["round"],
        "entrants": m["entrants"],
        "status": status,
        "places": places,
        "points": rules.points_of(places) if places is not None else None,
        "stand_in": res.get("stand_in") if res is not None else None,
        "decisions": res.get("decisions") if res is not None else None,
    }


def document(stored: Stored, *, with_matches: bool = True) -> dict[str, Any]:
    """The tournament as the API shows it (``with_matches=False``: the summary: listings, creation)."""
    spec, doc = stored.spec, stored.doc
    out: dict[str, Any] = {
        "id": spec["id"],
        "name": spec["name"],
        "game": spec["game"],
        "players": spec["players"],
        "options": spec["options"],
        "format": spec["format"],
        "rounds": spec["rounds"],
        "matches_per_pairing": spec["matches_per_pairing"],
        "rated": spec["rated"],
        "time_control": spec["time_control"],
        "parallel": spec["parallel"],
        "status": doc["status"],
        "cancel_reason": doc.get("reason") or None,
        "created_at": spec["created_at"],
        "starts_at": spec["starts_at"],
        "finished_at": float(doc["finished_at"]) if doc.get("finished_at") else None,
        "entrants": spec["entrants"],
        "progress": progress(stored),
        "standings": standings(stored),
    }
    if with_matches:
        out["matches"] = [_match_row(stored, n, m) for n, m in schedule(stored)]
    return out


def result_rows(stored: Stored) -> list[dict[str, Any]]:
    """One row per seat of every finished or aborted match, in match order: the export's rows (and
    the CSV's columns: round, match_id, status, seat, entrant, name, place, points, score, then
    stand_in and decisions)."""
    entrants = stored.spec["entrants"]
    rows = []
    for n, m in schedule(stored):
        status = match_status(stored, n)
        if status not in (FINISHED, ABORTED):
            continue
        res = stored.results.get(n) if status == FINISHED else None
        places = res["places"] if res is not None else None
        points = rules.points_of(places) if places is not None else None
        scores = res.get("scores") if res is not None else None
        for seat, entrant in enumerate(m["entrants"]):
            subs, made = _counts(res, seat)
            rows.append(
                {
                    "round": m["round"],
                    "match_id": m["match_id"],
                    "status": status,
                    "seat": seat,
                    "entrant": entrant,
                    "name": entrants[entrant]["name"],
                    "place": places[seat] if places is not None else None,
                    "points": points[seat] if points is not None else None,
                    "score": scores[seat] if scores is not None and seat < len(scores) else None,
                    "stand_in": subs,
                    "decisions": made,
                }
            )
    return rows


class Tournaments:
    """Tournaments of the apps: created, scheduled, recorded, read and cancelled."""

    def __init__(self, matches: Matches, store: TournamentStore | None = None) -> None:
        self.matches = matches
        self.store = store or TournamentStore(matches.store.redis)
        self._specs: dict[tuple[str, str], dict[str, Any]] = {}

    # -- creating -----------------------------------------------------------------------------------

    def create(self, request: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """Create a tournament of the caller's app (an app key, or a player token with ``play``, which
        may enter its own player only): its summary (no ``matches``: the scheduler makes them, from
        ``starts_at`` on).  422 naming the field for what cannot be run; 409 ``too_many_tournaments``
        or ``too_many_scheduled_matches`` past the app's caps."""
        app = caller_app(caller, PLAY)
        config = self.matches.config
        players = request.get("players")
        if not isinstance(players, int):
            raise invalid("players", "the number of players per match is required")
        agreed = match_terms(self.matches, request, players, "players")
        name = request.get("name") or f"{agreed.game.title} tournament"
        if len(name) > MAX_NAME:
            raise invalid("name", f"at most {MAX_NAME} characters")
        fmt = request.get("format", ROUND_ROBIN)
        if fmt not in FORMATS:
            raise invalid("format", f"one of {list(FORMATS)}")
        entrants = self._entrants(app, caller, request.get("entrants") or [], agreed.rated)
        if len(entrants) < players:
            raise invalid("entrants", f"{len(entrants)} entrants cannot fill a {players}-player match")
        per = request.get("matches_per_pairing")
        if per is None:
            per = players if fmt == ROUND_ROBIN else 1
        if not isinstance(per, int) or per < 1:
            raise invalid("matches_per_pairing", "at least 1")
        if fmt == SWISS:
            rounds = request.get("rounds")
            if not isinstance(rounds, int) or rounds < 1:
                raise invalid("rounds", "a Swiss tournament needs its number of rounds (at least 1)")
        else:
            rounds = request.get("rounds")
            if rounds is not None and rounds != per:  # silently playing other rounds than asked misleads
                raise invalid(
                    "rounds",
                    f"a round robin plays matches_per_pairing rounds ({per} here: the r-th meeting of "
                    "every group is round r); set matches_per_pairing instead",
                )
            rounds = per
        parallel = request.get("parallel", config.tournament_parallel)
        if not isinstance(parallel, int) or parallel < 1:
            raise invalid("parallel", "at least 1")
        now = self.matches.now()
        starts_at = request.get("starts_at")
        starts_at = now if starts_at is None or starts_at <= now else float(starts_at)
        tid = new_id(now)
        spec: dict[str, Any] = {
            "id": tid,
            "app": app,
            "name": name,
            "game": agreed.game.id,
            "players": players,
            "options": agreed.options,
            "format": fmt,
            "rounds": rounds,
            "matches_per_pairing": per,
            "rated": agreed.rated,
            "time_control": agreed.time_control,
            "parallel": parallel,
            "entrants": entrants,
            "creator": caller.player_key if caller.kind == PLAYER else None,
            "created_at": now,
            "starts_at": starts_at,
        }
        total = total_matches(spec)
        if total > config.tournament_max_matches:
            raise invalid(
                "rounds" if fmt == SWISS else "entrants",
                f"{total} matches, above this server's {config.tournament_max_matches} "
                "(TABLETOP_TOURNAMENT_MAX_MATCHES)",
            )
        self._reserve(app, tid, total)
        status = RUNNING if starts_at <= now else SCHEDULED
        fields = {
            "spec": spec,
            "status": status,
            "created_at": now,
            "starts_at": starts_at,
            "finished_at": "",
            "reason": "",
            "rounds": rounds,
            # A round robin's every round is known from the start; a Swiss pairs round 1 when it starts.
            "round": rounds if fmt == ROUND_ROBIN else 0,
            "total": total if fmt == ROUND_ROBIN else 0,
            "planned": total,
            "next": 1,
            "done": 0,
            "byes": {},
        }
        # The scheduler (the keeper's sweep) starts it at ``starts_at``: at once for one running now.
        self.store.create(app, tid, fields, starts_at)
        doc = {k: v if isinstance(v, str) else json.dumps(v) for k, v in fields.items() if k != "spec"}
        doc.update(created_at=repr(now), starts_at=repr(starts_at))
        return document(Stored(doc, spec, {}, {}, {}, []), with_matches=False)

    def _reserve(self, app: str, tid: str, total: int) -> None:
        """Count a new tournament of ``total`` matches against its app's caps, or refuse it (409 naming
        the cap, its setting and what is in use)."""
        config = self.matches.config
        cap_live, cap_matches = config.tournament_max_running, config.tournament_max_scheduled_matches
        if cap_matches and total > cap_matches:
            raise self._over_cap("matches", 0, total)
        self.usage(app)  # a fresh count: the ones over since stop counting
        reserved = self.store.reserve(app, tid, total, cap_live, cap_matches)
        if not reserved.ok:
            raise self._over_cap(reserved.cap, reserved.in_use, total)

    def _over_cap(self, cap: str, in_use: int, total: int) -> Conflict:
        config = self.matches.config
        if cap == "tournaments":
            limit = config.tournament_max_running
            return Conflict(
                "too_many_tournaments",
                f"the app has {in_use} tournaments scheduled or running, its most "
                f"(TABLETOP_TOURNAMENT_MAX_RUNNING = {limit}); cancel one or wait for one to end",
                {"limit": limit, "in_use": in_use, "setting": "TABLETOP_TOURNAMENT_MAX_RUNNING"},
            )
        limit = config.tournament_max_scheduled_matches
        return Conflict(
            "too_many_scheduled_matches",
            f"{total} more matches would pass the app's {limit} matches scheduled and not over "
            f"(TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES; {in_use} in use)",
            {
                "limit": limit,
                "in_use": in_use,
                "requested": total,
                "setting": "TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES",
            },
        )

    def usage(self, app: str) -> dict[str, int]:
        """What the app uses of its caps: ``tournaments`` (scheduled or running) and ``matches`` (their
        matches not over), counted afresh (the ones over or gone are dropped from the count; one
        counted but never written stops counting after :data:`ORPHAN_SECONDS`)."""
        live = self.store.live(app)
        if not live:
            return {"tournaments": 0, "matches": 0}
        now = self.matches.now()
        ended, counts = [], {}
        for tid, found in self.store.counts(app, list(live)).items():
            if found is None:
                made = created_at_of(tid)
                if made is None or now - made > ORPHAN_SECONDS:
                    ended.append(tid)
                continue
            status, remaining = found
            if status in (SCHEDULED, RUNNING):
                counts[tid] = max(remaining, 0)
            else:
                ended.append(tid)
        self.store.ended(app, ended)
        self.store.recount(app, counts)
        left = {tid: counts.get(tid, n) for tid, n in live.items() if tid not in ended}
        return {"tournaments": len(left), "matches": sum(left.values())}

    def limits(self) -> dict[str, int]:
        """The per-app caps in effect (0: none)."""
        config = self.matches.config
        return {
            "max_tournaments": config.tournament_max_running,
            "max_scheduled_matches": config.tournament_max_scheduled_matches,
            "max_matches_per_tournament": config.tournament_max_matches,
        }

    def _entrants(
        self, app: str, caller: Caller, given: list[dict[str, Any]], rated: bool
    ) -> list[dict[str, Any]]:
        if len(given) > MAX_ENTRANTS:
            raise invalid("entrants", f"at most {MAX_ENTRANTS}")
        out: list[dict[str, Any]] = []
        seen_players: set[str] = set()
        seen_levels: set[str] = set()
        names: set[str] = set()
        for i, e in enumerate(given):
            pid, level = e.get("player"), e.get("level")
            if (pid is None) == (level is None):
                raise invalid("entrants", f"entrant {i}: give a player or a level")
            if pid is not None and e.get("think_ms") is not None:
                raise invalid(f"entrants.{i}.think_ms", "only a level entrant has a thinking budget")
            if pid is not None:
                if caller.kind == PLAYER and pid != caller.player:
                    raise invalid("entrants", f"entrant {i}: a player token enters only its own player")
                if pid in seen_players:
                    raise invalid("entrants", f"entrant {i}: player {pid!r} is entered twice")
                try:
                    player = self.matches.accounts.stored_player(app, pid)
                except NotFound:
                    raise invalid("entrants", f"entrant {i}: no player {pid!r} in this app") from None
                seen_players.add(pid)
                entry = {"entrant": i, "name": e.get("name") or player.name, "player": pid}
            else:
                if level not in LEVELS:
                    raise invalid("entrants", f"entrant {i}: level one of {list(LEVELS)}")
                # Checked as a bot seat's at match creation (the server's cap), and kept resolved, so
                # every match it plays is made with the budget the tournament was accepted with.
                _, think_ms = self.matches.bots.budget(level, e.get("think_ms"), f"entrants.{i}.think_ms")
                rater = bot_rater(level, think_ms)  # who its matches rate: a level at one think_ms
                if rated and rater in seen_levels:
                    raise invalid("entrants", f"entrant {i}: {rater} entered twice in a rated tournament")
                seen_levels.add(rater)
                entry = {
                    "entrant": i,
                    "name": e.get("name") or f"{level.title()} bot",
                    "level": level,
                    "think_ms": think_ms,
                }
            if entry["name"] in names:
                raise invalid(
                    "entrants", f"entrant {i}: the name {entry['name']!r} is taken; names are distinct"
                )
            if len(entry["name"]) > MAX_NAME:
                raise invalid("entrants", f"entrant {i}: a name has at most {MAX_NAME} characters")
            names.add(entry["name"])
            out.append(entry)
        return out

    @staticmethod
    def _swiss_round(
        spec: dict[str, Any],
        round_: int,
        first_number: int,
        order: builtins.list[int],
        met: Counter[tuple[int, int]],
        byes: Counter[int],
    ) -> tuple[builtins.list[tuple[int, dict[str, Any]]], builtins.list[int]]:
        """A Swiss round's matches (numbered from ``first_number``) and who sits it out."""
        groups, out = rules.swiss_round(order, spec["players"], met, byes)
        matches = []
        n = first_number
        for group in groups:
            for m in range(spec["matches_per_pairing"]):
                seats = rules.seated(group, m + round_ - 1)
                made = {"match_id": match_id_of(spec["id"], n), "round": round_, "entrants": list(seats)}
                matches.append((n, made))
                n += 1
        return matches, out

    # -- reading ------------------------------------------------------------------------------------

    def _stored(self, app: str, tid: str) -> Stored:
        stored = self.store.load(app, tid) if tid.isalnum() else None
        if stored is None:
            raise tournament_not_found(tid)
        return stored

    def _document(self, app: str, tid: str) -> dict[str, Any]:
        return document(self._stored(app, tid))

    def get(self, tid: str, caller: Caller) -> dict[str, Any]:
        """A tournament of the caller's app (an app key, or any of its players' tokens)."""
        return self._document(caller_app(caller, READ), tid)

    def get_app(self, app: str, tid: str) -> dict[str, Any]:
        """A tournament of ``app``, for the operator (the admin API)."""
        return self._document(app, tid)

    def results(self, tid: str, caller: Caller) -> dict[str, Any]:
        """Every finished or aborted match's seats in one read, with the standings."""
        stored = self._stored(caller_app(caller, READ), tid)
        return {
            "tournament": tid,
            "status": stored.doc["status"],
            "results": result_rows(stored),
            "standings": standings(stored),
        }

    # -- cancelling ---------------------------------------------------------------------------------

    def cancel(self, tid: str, caller: Caller) -> dict[str, Any]:
        """Call the tournament off: no new match, the ones under way aborted (by the sweep, at once),
        the standings as they stand; its summary (no ``matches``).  The app key or the player who
        created it; 409 ``tournament_over`` once finished or cancelled.  Constant work, whatever its
        size."""
        app = caller_app(caller, PLAY)
        stored = self._stored(app, tid)
        if caller.kind != APP and stored.spec.get("creator") != caller.player_key:
            raise Forbidden("not_creator", "only the app key or the player who created it cancels it")
        return self._cancel(app, tid, BY_APP)

    def cancel_as_operator(self, app: str, tid: str) -> dict[str, Any]:
        """Cancel a tournament of ``app`` for the operator (the admin API): as :meth:`cancel`, its
        ``cancel_reason`` ``operator``.  404 ``tournament_not_found``, 409 ``tournament_over``."""
        if not tid.isalnum() or self.store.status(app, tid) is None:
            raise tournament_not_found(tid)
        return self._cancel(app, tid, BY_OPERATOR)

    def cancel_all(self, app: str, reason: str = APP_REVOKED) -> int:
        """Cancel every scheduled and running tournament of ``app`` (its app revoked): constant work per
        tournament, the matches under way aborted by the sweep within moments.  How many were
        cancelled now."""
        candidates = set(self.store.live(app))
        cursor: str | None = None
        while True:  # the listing too: one listed but never counted (a crash between) is caught
            page = self.store.app_tournaments(app, cursor, LIST_SCAN)
            candidates.update(page)
            if len(page) < LIST_SCAN:
                break
            cursor = page[-1]
        tids = sorted(candidates)
        cancelled = 0
        over = []
        for tid, status in zip(tids, self.store.statuses(app, tids), strict=True):
            if status is not None:  # none: gone, or being created (the next count drops it if old)
                over.append(tid)
            if status not in (SCHEDULED, RUNNING):
                continue
            ok, _ = self.store.cancel(
                app, tid, self.matches.now(), self.matches.config.retention_seconds, reason
            )
            if ok:
                cancelled += 1
                self.store.schedule(app, tid, 0.0)  # the sweep aborts its matches under way at once
        self.store.ended(app, over)
        return cancelled

    def _cancel(self, app: str, tid: str, reason: str) -> dict[str, Any]:
        ok, found = self.store.cancel(
            app, tid, self.matches.now(), self.matches.config.retention_seconds, reason
        )
        if not ok:
            raise Conflict("tournament_over", f"the tournament is {found} already", {"status": found})
        self.store.ended(app, [tid])
        self.store.schedule(app, tid, 0.0)  # the sweep aborts the matches under way at once
        return document(self._stored(app, tid), with_matches=False)  # its summary: constant work too

    # -- scheduling ---------------------------------------------------------------------------------

    def _spec(self, app: str, tid: str) -> dict[str, Any] | None:
        key = (app, tid)
        spec = self._specs.get(key)
        if spec is None:
            spec = self.store.spec(app, tid)
            if spec is None:
                return None
            if len(self._specs) >= SPEC_CACHE:
                self._specs.clear()
            self._specs[key] = spec
        return spec

    def _matches_at(
        self, app: str, spec: dict[str, Any], numbers: builtins.list[int]
    ) -> builtins.list[tuple[int, dict[str, Any]]]:
        """Matches ``numbers``: a round robin's derived, a Swiss's read."""
        tid = spec["id"]
        if spec["format"] == ROUND_ROBIN:
            out = []
            for n in numbers:
                round_, seats = rules.round_robin_match(len(spec["entrants"]), spec["players"], n)
                out.append((n, {"match_id": match_id_of(tid, n), "round": round_, "entrants": list(seats)}))
            return out
        return sorted(self.store.matches(app, tid, numbers).items())

    def advance(self, app: str, tid: str) -> None:
        """Take the tournament as far as it goes now: start it when due, make the next matches up to
        ``parallel`` under way (:data:`START_BATCH` at most; more at the sweep's next look, at once),
        pair the next Swiss round when the last is over, finish it when every match is over; for one
        over, what follows its end (:meth:`_settle_over`).  Idempotent, and safe with other processes
        advancing it at once."""
        spec = self._spec(app, tid)
        if spec is None:
            self.store.unschedule(app, tid)
            return
        for _ in range(ADVANCE_STEPS):
            head = self.store.head(app, tid)
            if head is None:
                self.store.unschedule(app, tid)
                return
            status = head.doc["status"]
            if status == SCHEDULED:
                starts_at = float(head.doc["starts_at"])
                if starts_at > self.matches.now():
                    self.store.schedule(app, tid, starts_at)
                    return
                self.store.start(app, tid, self.matches.now())
                continue
            if status != RUNNING:
                self._settle_over(app, tid)
                return
            free = spec["parallel"] - len(head.active)
            first = head.next
            if first <= head.total and free > 0:
                last = min(head.total, first + min(free, START_BATCH) - 1)
                made = self._matches_at(app, spec, list(range(first, last + 1)))
                for n, m in made:
                    self._start_match(app, spec, n, m)
                if self.store.started(app, tid, first, last, self.matches.now()) < 0:
                    self._abort_made(tid, [m["match_id"] for _, m in made])  # cancelled meanwhile
                    return
                if last < head.total and free > last - first + 1:
                    self.store.schedule(app, tid, 0.0)  # more to make now: the sweep goes on at once
                return
            if first <= head.total or head.active:
                return
            if int(head.doc["round"]) < int(head.doc["rounds"]):
                self._pair_next(app, tid)
                continue
            if self.store.finish(app, tid, self.matches.now(), self.matches.config.retention_seconds):
                self._settle_over(app, tid)
                return

    def _start_match(self, app: str, spec: dict[str, Any], n: int, m: dict[str, Any]) -> None:
        """Create match ``n`` (unless it exists) and tell its player entrants; a match that cannot be
        created any more (a player deleted since) is recorded aborted."""
        tid = spec["id"]
        seats = [_entrant_seat(spec["entrants"][e]) for e in m["entrants"]]
        game = self.matches.games[spec["game"]]
        agreed = Terms(game, spec["players"], spec["options"], spec["rated"], spec["time_control"])
        try:
            self._create_match(app, m["match_id"], agreed, seats, f"{app}:{tid}")
        except (Invalid, NotFound, Forbidden, Conflict) as exc:
            log.warning("tournaments: match %s of %s cannot be made (%s): aborted", n, tid, exc.message)
            self.store.record(app, tid, n, ABORTED, None)
            return
        for e in m["entrants"]:
            entrant = spec["entrants"][e]
            if entrant.get("player") is None:
                continue
            entry = {
                "type": TOURNAMENT_MATCH,
                "match_id": m["match_id"],
                "game": spec["game"],
                "tournament_id": tid,
                "tournament_name": spec["name"],
                "round": m["round"],
            }
            self.matches.outboxes.note(player_key(app, entrant["player"]), source(tid), n, entry, None)

    def _create_match(
        self, app: str, match_id: str, terms: Terms, seats: builtins.list[dict[str, Any]], tag: str
    ) -> None:
        """:func:`service.matches.seeks.create_match`, with the tournament's tag in the match's life."""
        request: dict[str, Any] = {
            "game": terms.game.id,
            "seats": seats,
            "options": terms.options,
            "rated": terms.rated,
            "visibility": seating.PRIVATE,
        }
        if terms.time_control is not None:
            request["time_control"] = terms.time_control
        if self.matches.store.exists(match_id):
            return
        try:
            self.matches.create(request, caller=app_caller(app), match_id=match_id, tournament=tag)
        except Conflict as exc:
            if exc.code != "match_exists":
                raise

    def _abort_made(self, tid: str, ids: builtins.list[str]) -> int:
        """Abort the matches of ``ids`` that exist and are not over (a cancelled tournament's); how many."""
        aborted = 0
        for meta in self.matches.store.metas(ids):
            if meta is not None and meta.status not in OVER_STATUSES:
                aborted += lifecycle.abort(self.matches, meta.id, CANCEL_REASON)
        if aborted:
            log.info("tournaments: %s matches of cancelled %s aborted", aborted, tid)
        return aborted

    def _pair_next(self, app: str, tid: str) -> None:
        """Pair the next Swiss round from the standings (deterministic: another process pairing it at
        once computes the same round, and the store adds it once).  Round 1 is the entry order."""
        stored = self._stored(app, tid)
        spec = stored.spec
        round_ = int(stored.doc["round"]) + 1
        order = [s["entrant"] for s in standings(stored)]
        met = rules.met_pairs(rules.Played(tuple(m["entrants"]), None) for m in stored.matches.values())
        byes_map = _byes(stored)
        byes = Counter(e for out in byes_map.values() for e in out)
        first = int(stored.doc["total"]) + 1
        matches, out = self._swiss_round(spec, round_, first, order, met, byes)
        self.store.add_round(app, tid, round_, {**byes_map, str(round_): out}, matches)

    def _settle_over(self, app: str, tid: str) -> None:
        """What follows a tournament's end (again after a crash, until it leaves the due index): a
        cancelled one's matches under way aborted (:data:`ABORT_BATCH` a look; the next look goes on
        at once), with any a scheduler made as it was cancelled; then each player entrant told, the
        app's caps no longer counting it, and the sweep no longer looking."""
        stored = self.store.load(app, tid)
        if stored is None:
            self.store.unschedule(app, tid)
            self.store.ended(app, [tid])
            return
        status = stored.doc["status"]
        if status == CANCELLED:
            numbers = self.store.active(app, tid, ABORT_BATCH)
            after = int(stored.doc.get("next", "1"))
            total = int(stored.doc.get("total", "0"))
            racing = list(range(after, min(after + START_BATCH, total + 1)))  # made as it was cancelled
            self._abort_made(tid, [match_id_of(tid, n) for n in numbers + racing])
            self.store.settled(app, tid, numbers)
            if len(numbers) == ABORT_BATCH:
                self.store.schedule(app, tid, 0.0)  # more: the next look goes on at once
                return
        spec = stored.spec
        for line in standings(stored):
            entrant = spec["entrants"][line["entrant"]]
            if entrant.get("player") is None:
                continue
            entry = {
                "type": TOURNAMENT_OVER,
                "match_id": None,  # as every feed entry, the match it is about: none
                "game": spec["game"],
                "tournament_id": tid,
                "tournament_name": spec["name"],
                "status": status,
                "rank": line["rank"],
                "points": line["points"],
            }
            key = player_key(app, entrant["player"])
            self.matches.outboxes.note(key, source(tid), OVER_NOTE, entry, None)
        self.store.ended(app, [tid])
        self.store.unschedule(app, tid)

    # -- results ------------------------------------------------------------------------------------

    def recorded(self, outcome: dict[str, Any]) -> bool:
        """Record a tournament match's end (:func:`outcome`, from the match's outbox), once per match
        however often it is handed over (never once the tournament is over); whether this call did."""
        n = number_of(outcome["match_id"])
        finished = outcome.get("status") == FINISHED and outcome.get("places") is not None
        result = _result_of(outcome) if finished else None
        return self.store.record(outcome["app"], outcome["id"], n, FINISHED if finished else ABORTED, result)

    def follow(self, outcome: dict[str, Any]) -> None:
        """Schedule what follows a match's end (after its outbox entry is popped: never nested in the
        commit's drain).  A failure is logged, not raised: the result is in, and the sweep schedules."""
        try:
            self.advance(outcome["app"], outcome["id"])
        except Exception:  # the sweep advances it within tournament_sweep_seconds
            log.exception(
                "tournaments: advancing %s after %s failed; left to the sweep",
                outcome["id"],
                outcome["match_id"],
            )

    def record(self, outcome: dict[str, Any]) -> None:
        """:meth:`recorded`, then :meth:`follow` if it was recorded now."""
        if self.recorded(outcome):
            self.follow(outcome)

    def check(self, app: str, tid: str) -> int:
        """Record the matches under way in the record that are over (their outcome did not reach the
        record) or gone (expired: aborted); how many were recorded."""
        head = self.store.head(app, tid)
        if head is None or not head.active:
            return 0
        ids = [match_id_of(tid, n) for n in head.active]
        recorded = 0
        for n, meta in zip(head.active, self.matches.store.metas(ids), strict=True):
            if meta is None:
                recorded += int(self.store.record(app, tid, n, ABORTED, None))
                continue
            if meta.status in OVER_STATUSES:
                out = outcome(None, meta)
                if out is not None and out["status"] == FINISHED:
                    recorded += self.store.record(app, tid, n, FINISHED, _result_of(out))
                else:
                    recorded += self.store.record(app, tid, n, ABORTED, None)
        return recorded

    def sweep(self, now: float) -> int:
        """Look at every tournament due: start it, record what ended unrecorded, schedule, abort a
        cancelled one's matches; the next look at a running one ``tournament_sweep_seconds`` later.
        How many were looked at."""
        looked = 0
        for app, tid in self.store.due(now, SWEEP_LIMIT):
            looked += 1
            try:
                status = self.store.status(app, tid)
                if status is None:
                    self.store.unschedule(app, tid)
                    continue
                if status == RUNNING:
                    self.check(app, tid)
                    self.store.schedule(app, tid, now + self.matches.config.tournament_sweep_seconds)
                self.advance(app, tid)
            except STORAGE_ERRORS:
                raise
            except Exception:  # one tournament's failure (a bug) must not stop the others
                log.exception("tournaments: the sweep of %s failed", tid)
        return looked

    # -- listing (last: its name is the builtin's within the class) ---------------------------------

    def list_app(
        self, app: str, status: str | None, after: str | None, limit: int
    ) -> tuple[builtins.list[dict[str, Any]], str | None]:
        """The tournaments of ``app``, newest first, after the cursor ``after`` (an id), filtered by
        ``status``: their summaries (no ``matches``) and the next cursor (``None``: no more).  What the
        app's own listing and the operator's (the admin API) show."""
        if status is not None and status not in STATUSES:
            raise invalid("status", f"one of {builtins.list(STATUSES)}")
        found: builtins.list[dict[str, Any]] = []
        cursor, scanned = after, 0
        while scanned < LIST_SCAN:
            batch = max(limit, 20)
            ids = self.store.app_tournaments(app, cursor, batch)
            gone = []
            for tid in ids:
                cursor, scanned = tid, scanned + 1
                stored = self.store.load(app, tid)
                if stored is None:  # expired (it is listed only once written)
                    gone.append(tid)
                    continue
                if status is None or stored.doc["status"] == status:
                    found.append(document(stored, with_matches=False))
                    if len(found) == limit:
                        break
            self.store.unlist(app, gone)
            if len(found) == limit:
                more = bool(self.store.app_tournaments(app, cursor, 1))
                return found, cursor if more else None
            if len(ids) < batch:
                return found, None
        return found, cursor

    def list(
        self, caller: Caller, status: str | None, after: str | None, limit: int
    ) -> tuple[builtins.list[dict[str, Any]], str | None]:
        """The caller's app's tournaments (:meth:`list_app`)."""
        return self.list_app(caller_app(caller, READ), status, after, limit)


class TournamentSweeper:
    """The tournaments' sweep (:meth:`Tournaments.sweep`): what a clock keeper runs beside its clocks.
    It reads the due index every :data:`DUE_POLL` seconds at most (one cheap read: what is due at
    once, a start, a cancel's aborts or a batch to go on with, is seen within it), and each running
    tournament comes due every ``every`` seconds.  Several keepers may sweep at once: every step is
    idempotent."""

    def __init__(self, tournaments: Tournaments, every: float, poll: float = DUE_POLL) -> None:
        self.tournaments = tournaments
        self.every = every
        self.poll = min(poll, every)
        self.next_at = 0.0

    @classmethod
    def of(cls, matches: Matches) -> TournamentSweeper:
        return cls(matches.tournaments, float(matches.config.tournament_sweep_seconds))

    def tick(self, now: float) -> bool:
        """Sweep if the last sweep was :attr:`poll` seconds ago or more; whether it swept."""
        if now < self.next_at:
            return False
        self.next_at = now + self.poll
        self.tournaments.sweep(now)
        return True
