"""Tournaments (issue 31): a round robin or a Swiss event the server runs for an app, with standings
and an export.  The rules (pairing, seats, points, tie-breaks) are those of
:mod:`service.matches.tournament_pairing`; this module stores, schedules and tells.

**Matches.**  A tournament's matches are numbered 1, 2, ... in schedule order (round robin: all of
them at creation; Swiss: a round at a time) and their ids are ``<tournament id>-<number>``, fixed in
advance: creating one is idempotent by id, so a scheduler that runs twice (two processes, or one
again after a crash) makes each match once.  A match is private to the app, its seats the entrants'
(a player as its named human seat, a level as a built-in bot seat), rated if the tournament is; its
meta carries ``life["tournament"] = "<app>:<id>"``.  The commit that ends it puts its outcome in its
outbox (:func:`outcome`, built by :meth:`service.matches.operations.Matches.outbox`), and
:meth:`service.matches.outbox.Outbox.drain` hands it to :meth:`Tournaments.record`, again after any
crash until the entry is popped.

**Scheduling** (:meth:`Tournaments.advance`): create the pending matches, oldest round first, up to
``parallel`` under way (a round robin does not wait for a round to end: bots stay busy), tell the
player entrants (``tournament_match``), then mark them under way; a Swiss round is paired once the one
before is over; a tournament whose matches are all over is finished and its player entrants told
(``tournament_over``).  Every change is a script on the tournament's slot that checks what it
changes from (:mod:`service.tournaments_store`), so two processes advancing at once do each thing
once.  Order matters for crashes: a match is created before it is marked under way, so a process
killed in between leaves a pending match that the next run creates again (a no-op) and marks; a
note is given before its match is marked, and notes are deduplicated by their number.

**The sweep** (:class:`TournamentSweeper`, run by the workers' clock keeper): every
``tournament_sweep_seconds`` it starts the scheduled tournaments due, records matches that ended
without their outcome reaching the record (or vanished: aborted), and runs the scheduler of every
running tournament, so nothing is lost if a process dies between any two steps.

**Notes** go to player entrants through :meth:`service.matches.outbox.Outbox.note` (feed and webhooks),
source ``t:<id>``: ``tournament_match`` numbered by the match's number, ``tournament_over`` last.
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
MAX_NAME = 80
#: Entrants one tournament may have (its matches are bounded apart, ``tournament_max_matches``).
MAX_ENTRANTS = 1000
#: Passes of one :meth:`Tournaments.advance` (each a step: start, create, pair a round, finish).
ADVANCE_STEPS = 8
#: Tournaments one sweep looks at, at most.
SWEEP_LIMIT = 200
#: Tournament ids one listing page reads at most, however few pass its status filter.
LIST_SCAN = 1000
#: Specs kept in memory per process (a spec never changes once written).
SPEC_CACHE = 1024


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


def tournament_not_found(tid: str) -> NotFound:
    return NotFound("tournament_not_found", f"tournament {tid!r} not found")


def outcome(before: MatchMeta | None, after: MatchMeta) -> dict[str, Any] | None:
    """The ``tournament`` part of the outbox entry of a commit that ends a tournament's match
    (``None`` for any other commit): ``{"app", "id", "match_id", "status", "places", "scores"}``,
    places (1 = first, ties shared as the ratings read them) and the engine's scores per seat,
    ``None`` for an aborted match."""
    tag = after.life.get("tournament")
    if not tag or after.status not in OVER_STATUSES:
        return None
    if before is not None and before.status in OVER_STATUSES:
        return None
    app, _, tid = str(tag).rpartition(":")
    places = scores = None
    status = ABORTED
    if after.status == MATCH_FINISHED and after.result:
        places = result_places(after.result)
        scores = after.result.get("scores")
        status = FINISHED
    return {
        "app": app,
        "id": tid,
        "match_id": after.id,
        "status": status,
        "places": places,
        "scores": scores,
    }


def _entrant_seat(entrant: dict[str, Any]) -> dict[str, Any]:
    if entrant.get("player") is not None:
        return {"kind": seating.HUMAN, "player": entrant["player"]}
    seat = {"kind": seating.BOT, "name": entrant["name"], "level": entrant["level"]}
    if entrant.get("think_ms") is not None:  # absent in a tournament made before entrants had it
        seat["think_ms"] = entrant["think_ms"]
    return seat


def _played(stored: Stored) -> Iterator[rules.Played]:
    for n, m in sorted(stored.matches.items()):
        res = stored.results.get(n) if stored.statuses.get(n) == FINISHED else None
        places = tuple(res["places"]) if res is not None else None
        yield rules.Played(tuple(m["entrants"]), places)


def _byes(stored: Stored) -> dict[str, list[int]]:
    raw = stored.doc.get("byes")
    return dict(_json(raw)) if raw else {}


def _json(raw: str | bytes) -> Any:
    return json.loads(raw)


def standings(stored: Stored) -> list[dict[str, Any]]:
    """The standings, ranked, as the API shows them."""
    spec = stored.spec
    byes = [e for out in _byes(stored).values() for e in out]
    lines = rules.standings(len(spec["entrants"]), spec["players"], _played(stored), byes)
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
        }
        for rank, s in enumerate(lines, 1)
    ]


def total_matches(spec: dict[str, Any]) -> int:
    n, p, per = len(spec["entrants"]), int(spec["players"]), int(spec["matches_per_pairing"])
    if spec["format"] == ROUND_ROBIN:
        return rules.round_robin_total(n, p, per)
    return int(spec["rounds"]) * (n // p) * per


def progress(stored: Stored) -> dict[str, Any]:
    spec = stored.spec
    rounds = int(spec["rounds"])
    if spec["format"] == SWISS:
        current = max(int(stored.doc.get("round", "1")), 1)
    else:
        open_rounds = [
            stored.matches[n]["round"] for n, st in stored.statuses.items() if st in (PENDING, ACTIVE)
        ]
        current = min(open_rounds) if open_rounds else rounds
    return {
        "done": int(stored.doc.get("done", "0")),
        "total": total_matches(spec),
        "round": current,
        "rounds": rounds,
    }


def _match_row(stored: Stored, n: int) -> dict[str, Any]:
    m = stored.matches[n]
    status = stored.statuses.get(n, PENDING)
    res = stored.results.get(n) if status == FINISHED else None
    places = res["places"] if res is not None else None
    return {
        "match_id": m["match_id"],
        "round": m["round"],
        "entrants": m["entrants"],
        "status": status,
        "places": places,
        "points": rules.points_of(places) if places is not None else None,
    }


def document(stored: Stored, *, with_matches: bool = True) -> dict[str, Any]:
    """The tournament as the API shows it (``with_matches=False``: the listing's summary)."""
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
        "created_at": spec["created_at"],
        "starts_at": spec["starts_at"],
        "finished_at": float(doc["finished_at"]) if doc.get("finished_at") else None,
        "entrants": spec["entrants"],
        "progress": progress(stored),
        "standings": standings(stored),
    }
    if with_matches:
        out["matches"] = [_match_row(stored, n) for n in sorted(stored.matches)]
    return out


def result_rows(stored: Stored) -> list[dict[str, Any]]:
    """One row per seat of every finished or aborted match, in match order: the export's rows (and
    the CSV's columns: round, match_id, status, seat, entrant, name, place, points, score)."""
    entrants = stored.spec["entrants"]
    rows = []
    for n in sorted(stored.matches):
        status = stored.statuses.get(n)
        if status not in (FINISHED, ABORTED):
            continue
        m = stored.matches[n]
        res = stored.results.get(n) if status == FINISHED else None
        places = res["places"] if res is not None else None
        points = rules.points_of(places) if places is not None else None
        scores = res.get("scores") if res is not None else None
        for seat, entrant in enumerate(m["entrants"]):
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
        may enter its own player only) and, unless it starts later, its first matches at once.  422
        naming the field for what cannot be run."""
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
        if fmt == ROUND_ROBIN:
            first = [
                (n, {"match_id": match_id_of(tid, n), "round": r, "entrants": list(seats)})
                for n, (r, seats) in enumerate(rules.round_robin(len(entrants), players, per), 1)
            ]
            byes: dict[str, list[int]] = {}
        else:
            first, out = self._swiss_round(spec, 1, 1, list(range(len(entrants))), Counter(), Counter())
            byes = {"1": out}
        status = RUNNING if starts_at <= now else SCHEDULED
        fields = {
            "spec": spec,
            "status": status,
            "created_at": now,
            "starts_at": starts_at,
            "finished_at": "",
            "rounds": rounds,
            "round": rounds if fmt == ROUND_ROBIN else 1,
            "total": len(first),
            "done": 0,
            "byes": byes,
        }
        self.store.create(app, tid, fields, first, starts_at)
        if status == RUNNING:
            try:
                self.advance(app, tid)
            except STORAGE_ERRORS as exc:  # created; the sweep starts its matches
                log.warning("tournaments: %s left to the sweep: %s", tid, exc)
        return self._document(app, tid)

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
                if rated and level in seen_levels:
                    raise invalid(
                        "entrants", f"entrant {i}: level {level!r} entered twice in a rated tournament"
                    )
                # Checked as a bot seat's at match creation (the server's cap), and kept resolved, so
                # every match it plays is made with the budget the tournament was accepted with.
                _, think_ms = self.matches.bots.budget(level, e.get("think_ms"), f"entrants.{i}.think_ms")
                seen_levels.add(level)
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
        order: list[int],
        met: Counter[tuple[int, int]],
        byes: Counter[int],
    ) -> tuple[list[tuple[int, dict[str, Any]]], list[int]]:
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
        """Call the tournament off: no new match, the ones under way aborted, the standings as they
        stand.  The app key or the player who created it; 409 ``tournament_over`` once finished or
        cancelled."""
        app = caller_app(caller, PLAY)
        stored = self._stored(app, tid)
        if caller.kind != APP and stored.spec.get("creator") != caller.player_key:
            raise Forbidden("not_creator", "only the app key or the player who created it cancels it")
        ok, found = self.store.cancel(app, tid, self.matches.now(), self.matches.config.retention_seconds)
        if not ok:
            raise Conflict("tournament_over", f"the tournament is {found} already", {"status": found})
        self._settle_over(app, tid)
        return self._document(app, tid)

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

    def advance(self, app: str, tid: str) -> None:
        """Take the tournament as far as it goes now: start it when due, create matches up to
        ``parallel`` under way, pair the next Swiss round when the last is over, finish it when every
        match is over.  Idempotent, and safe with other processes advancing it at once."""
        spec = self._spec(app, tid)
        if spec is None:
            self.store.unschedule(app, tid)
            return
        for _ in range(ADVANCE_STEPS):
            head = self.store.head(app, tid, spec["parallel"])
            if head is None:
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
            if head.pending and free > 0:
                picks = head.pending[:free]
                for n, m in picks:
                    self._start_match(app, spec, n, m)
                self.store.started(app, tid, [n for n, _ in picks], self.matches.now())
                return
            if head.pending_count or head.active:
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
        self, app: str, match_id: str, terms: Terms, seats: list[dict[str, Any]], tag: str
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

    def _pair_next(self, app: str, tid: str) -> None:
        """Pair the next Swiss round from the standings (deterministic: another process pairing it at
        once computes the same round, and the store adds it once)."""
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
        """What follows a tournament's end (again after a crash, until it leaves the due index): the
        matches a cancel found under way aborted, each player entrant told, the sweep no longer
        looking."""
        stored = self.store.load(app, tid)
        if stored is None:
            self.store.unschedule(app, tid)
            return
        status = stored.doc["status"]
        if status == CANCELLED:  # those it found under way, and any a scheduler made as it cancelled
            ids = [m["match_id"] for n, m in stored.matches.items() if stored.statuses.get(n) == ABORTED]
            for meta in self.matches.store.metas(ids):
                if meta is not None and meta.status not in OVER_STATUSES:
                    lifecycle.abort(self.matches, meta.id, CANCEL_REASON)
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
        self.store.unschedule(app, tid)

    # -- results ------------------------------------------------------------------------------------

    def record(self, outcome: dict[str, Any]) -> None:
        """Record a tournament match's end (:func:`outcome`, from the match's outbox), once per match
        however often it is handed over, and schedule what follows at once.  A scheduling failure is
        logged, not raised: the result is in, and the sweep schedules."""
        app, tid = outcome["app"], outcome["id"]
        n = number_of(outcome["match_id"])
        finished = outcome.get("status") == FINISHED and outcome.get("places") is not None
        result = {"places": outcome["places"], "scores": outcome.get("scores")} if finished else None
        if not self.store.record(app, tid, n, FINISHED if finished else ABORTED, result):
            return
        try:
            self.advance(app, tid)
        except Exception:  # the sweep advances it within tournament_sweep_seconds
            log.exception("tournaments: advancing %s after match %s failed; left to the sweep", tid, n)

    def check(self, app: str, tid: str) -> int:
        """Record the matches under way in the record that are over (their outcome did not reach the
        record) or gone (expired: aborted); how many were recorded."""
        head = self.store.head(app, tid, 0)
        if head is None or not head.active:
            return 0
        spec = self._spec(app, tid)
        if spec is None:
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
                    recorded += self.store.record(
                        app, tid, n, FINISHED, {"places": out["places"], "scores": out["scores"]}
                    )
                else:
                    recorded += self.store.record(app, tid, n, ABORTED, None)
        return recorded

    def sweep(self, now: float) -> int:
        """Look at every tournament due: start it, record what ended unrecorded, schedule; the next look
        at a running one ``tournament_sweep_seconds`` later.  How many were looked at."""
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

    def list(
        self, caller: Caller, status: str | None, after: str | None, limit: int
    ) -> tuple[builtins.list[dict[str, Any]], str | None]:
        """The app's tournaments, newest first, after the cursor ``after`` (an id), filtered by
        ``status``: their summaries (no ``matches``) and the next cursor (``None``: no more)."""
        app = caller_app(caller, READ)
        if status is not None and status not in STATUSES:
            raise invalid("status", f"one of {list(STATUSES)}")
        found: builtins.list[dict[str, Any]] = []
        cursor, scanned = after, 0
        while scanned < LIST_SCAN:
            batch = max(limit, 20)
            ids = self.store.app_tournaments(app, cursor, batch)
            gone = []
            for tid in ids:
                cursor, scanned = tid, scanned + 1
                stored = self.store.load(app, tid)
                if stored is None:
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


class TournamentSweeper:
    """The tournaments' sweep (:meth:`Tournaments.sweep`) every ``every`` seconds: what a clock keeper
    runs beside its clocks.  Several keepers may sweep at once: every step is idempotent."""

    def __init__(self, tournaments: Tournaments, every: float) -> None:
        self.tournaments = tournaments
        self.every = every
        self.next_at = 0.0

    @classmethod
    def of(cls, matches: Matches) -> TournamentSweeper:
        return cls(matches.tournaments, float(matches.config.tournament_sweep_seconds))

    def tick(self, now: float) -> bool:
        """Sweep if the last sweep was ``every`` seconds ago or more; whether it swept."""
        if now < self.next_at:
            return False
        self.next_at = now + self.every
        self.tournaments.sweep(now)
        return True
