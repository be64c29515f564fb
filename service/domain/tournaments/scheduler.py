"""The tournaments' scheduler (issues 31 and 42): it makes a tournament's matches as they start,
records their ends, pairs the next Swiss round, finishes or settles a tournament, and sweeps what a
dead process left.

**Scheduling** (:meth:`TournamentScheduler.advance`): make the next matches in number order, at most
:data:`START_BATCH` a step, up to ``parallel`` under way (a round robin does not wait for a round to
end: bots stay busy), tell the player entrants (``tournament_match``), then mark them under way and
move the tournament's ``next`` past them; a Swiss round is paired once the one before is over; a
tournament whose matches are all over is finished and its player entrants told (``tournament_over``).
Every change is a script on the tournament's slot that checks what it changes from
(:mod:`service.storage.tournaments`), so two processes advancing at once do each thing once.  Order
matters for crashes: a match is made before it is marked, so a process killed in between leaves
``next`` where it was and the next run makes the match again (a no-op: its id is fixed,
:class:`service.domain.matchmaking.making.MatchMaker`) and marks it; a note is given before its match
is marked, and notes are deduplicated by their number.  A scheduler that finds the tournament
cancelled when it marks aborts the matches it has just made.

**Matches.**  A match is private to the app, its seats the entrants' (a player as its named human
seat, a level as a built-in bot seat), rated if the tournament is; its meta carries
``life["tournament"] = "<app>:<id>"``.  The commit that ends it puts its outcome in its outbox
(:func:`service.domain.tournaments.records.outcome`), and the outbox hands it to
:meth:`~TournamentScheduler.recorded`, again after any crash until the entry is popped, and then to
:meth:`~TournamentScheduler.follow`, which marks the tournament due: the keeper's sweep makes what
comes next, never the request of the player whose move ended the match.

**The sweep** (:meth:`TournamentScheduler.sweep`, run by the workers' keeper, :mod:`workers.keeper`): it looks
at the tournaments due (the due index; a running one every ``tournament_sweep_seconds``, one with work waiting
at once): starts those whose time came, records matches that ended without their outcome reaching the record
(or vanished: aborted), runs the scheduler, and aborts a cancelled tournament's matches under way, a batch at
a time, so nothing is lost if a process dies between any two steps.

**Notes** go to player entrants through the note sink (:meth:`service.domain.outbox.notes.Notes.note`:
feed and webhooks), source ``t:<id>``: ``tournament_match`` numbered by the match's number,
``tournament_over`` last.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from engine.core import Game
from service.config import Config
from service.domain.errors import Conflict, Forbidden, Invalid, NotFound
from service.domain.feeds.feed import TOURNAMENT_MATCH, TOURNAMENT_OVER
from service.domain.feeds.sources import TOURNAMENT_OVER_NOTE, NoteSink, tournament_source
from service.domain.identity import player_key
from service.domain.matches import seating
from service.domain.matchmaking.making import Clock, MakeMatch, Terms
from service.domain.tournaments import pairing as rules
from service.domain.tournaments.records import (
    ROUND_ROBIN,
    byes_of,
    load,
    match_id_of,
    number_of,
    outcome,
    result_of,
)
from service.domain.tournaments.standings import standings
from service.storage.client import STORAGE_ERRORS
from service.storage.matches import OVER_STATUSES, Store
from service.storage.tournaments import ABORTED, CANCELLED, FINISHED, RUNNING, SCHEDULED, TournamentStore

log = logging.getLogger(__name__)

#: Why a match of a cancelled tournament ended (its ``match_over`` event's ``reason``).
CANCEL_REASON = "tournament_cancelled"
#: Passes of one :meth:`TournamentScheduler.advance` (each a step: start, make a batch, pair a round,
#: finish).
ADVANCE_STEPS = 8
#: Matches one step of the scheduler makes at most; more are made by the next look, at once.
START_BATCH = 32
#: Matches of a cancelled tournament one look of the sweep aborts at most; the next look, at once,
#: goes on.
ABORT_BATCH = 64
#: Tournaments one sweep looks at, at most.
SWEEP_LIMIT = 200
#: Specs kept in memory per process (a spec never changes once written).
SPEC_CACHE = 1024
#: Seconds between the sweep's looks at its due index (the full look at a running tournament is every
#: ``tournament_sweep_seconds``; what is due at once, a cancel or a batch to go on with, is seen
#: within this).
DUE_POLL = 0.25


def _entrant_seat(entrant: dict[str, Any]) -> dict[str, Any]:
    if entrant.get("player") is not None:
        return {"kind": seating.HUMAN, "player": entrant["player"]}
    seat = {"kind": seating.BOT, "name": entrant["name"], "level": entrant["level"]}
    if entrant.get("think_ms") is not None:  # absent in a tournament made before entrants had it
        seat["think_ms"] = entrant["think_ms"]
    return seat


class TournamentScheduler:
    """Makes, records and finishes the apps' tournaments' matches; the sweep's steps."""

    def __init__(
        self,
        store: TournamentStore,
        *,
        games: Mapping[str, Game],
        match_store: Store,
        make_match: MakeMatch,
        abort_match: Callable[[str, str], bool],
        note: NoteSink,
        config: Config,
        clock: Clock,
    ) -> None:
        self.store = store
        self.games = games
        #: The matches' metas: which of a tournament's matches are over, or gone.
        self.match_store = match_store
        self.make_match = make_match
        #: Ends a match not over without a result (``(match id, reason)``; whether it did now).
        self.abort_match = abort_match
        self.note = note
        self.config = config
        self.now = clock
        self._specs: dict[tuple[str, str], dict[str, Any]] = {}

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

    def forget_spec(self, app: str, tid: str) -> None:
        """Drop the kept spec of a tournament whose spec was rewritten (a deleted player's entrant,
        :mod:`service.domain.privacy.tournaments`): the next look reads it again."""
        self._specs.pop((app, tid), None)

    def _matches_at(
        self, app: str, spec: dict[str, Any], numbers: list[int]
    ) -> list[tuple[int, dict[str, Any]]]:
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
                if starts_at > self.now():
                    self.store.schedule(app, tid, starts_at)
                    return
                self.store.start(app, tid, self.now())
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
                if self.store.started(app, tid, first, last, self.now()) < 0:
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
            if self.store.finish(app, tid, self.now(), self.config.retention_seconds):
                self._settle_over(app, tid)
                return

    def _start_match(self, app: str, spec: dict[str, Any], n: int, m: dict[str, Any]) -> None:
        """Create match ``n`` (unless it exists) and tell its player entrants; a match that cannot be
        created any more (a player deleted since) is recorded aborted."""
        tid = spec["id"]
        seats = [_entrant_seat(spec["entrants"][e]) for e in m["entrants"]]
        game = self.games[spec["game"]]
        agreed = Terms(game, spec["players"], spec["options"], spec["rated"], spec["time_control"])
        try:
            self.make_match(app, m["match_id"], agreed, seats, f"{app}:{tid}")
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
            self.note(player_key(app, entrant["player"]), tournament_source(tid), n, entry, None)

    def _abort_made(self, tid: str, ids: list[str]) -> int:
        """Abort the matches of ``ids`` that exist and are not over (a cancelled tournament's); how many."""
        aborted = 0
        for meta in self.match_store.metas(ids):
            if meta is not None and meta.status not in OVER_STATUSES:
                aborted += self.abort_match(meta.id, CANCEL_REASON)
        if aborted:
            log.info("tournaments: %s matches of cancelled %s aborted", aborted, tid)
        return aborted

    def _pair_next(self, app: str, tid: str) -> None:
        """Pair the next Swiss round from the standings (deterministic: another process pairing it at
        once computes the same round, and the store adds it once).  Round 1 is the entry order."""
        stored = load(self.store, app, tid)
        spec = stored.spec
        round_ = int(stored.doc["round"]) + 1
        order = [s["entrant"] for s in standings(stored)]
        met = rules.met_pairs(rules.Played(tuple(m["entrants"]), None) for m in stored.matches.values())
        byes_map = byes_of(stored)
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
            self.note(key, tournament_source(tid), TOURNAMENT_OVER_NOTE, entry, None)
        self.store.ended(app, [tid])
        self.store.unschedule(app, tid)

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

    # -- results ------------------------------------------------------------------------------------

    def recorded(self, outcome: dict[str, Any]) -> bool:
        """Record a tournament match's end (:func:`outcome`, from the match's outbox), once per match
        however often it is handed over (never once the tournament is over); whether this call did."""
        n = number_of(outcome["match_id"])
        finished = outcome.get("status") == FINISHED and outcome.get("places") is not None
        result = result_of(outcome) if finished else None
        return self.store.record(outcome["app"], outcome["id"], n, FINISHED if finished else ABORTED, result)

    def follow(self, outcome: dict[str, Any]) -> None:
        """What follows a match's end, in constant work (the outbox calls this after the match's entry
        is popped, inside the request of whoever ended the match, which must not wait for the next
        matches' creation): the tournament finished if that was its last match (:meth:`_finish_if_done`),
        and marked due, so the keeper's sweep makes its next matches, or tells the entrants it is over,
        within :data:`DUE_POLL`.  A failure is logged, not raised: the result is in, and the sweep looks
        at a running tournament every ``tournament_sweep_seconds`` anyway."""
        try:
            self._finish_if_done(outcome["app"], outcome["id"])
            self.store.schedule(outcome["app"], outcome["id"], 0.0)
        except Exception:  # the sweep advances it within tournament_sweep_seconds
            log.exception(
                "tournaments: scheduling %s after %s failed; left to the sweep",
                outcome["id"],
                outcome["match_id"],
            )

    def _finish_if_done(self, app: str, tid: str) -> None:
        """Finish a running tournament whose last match of its last round is over (one read, one
        script), so that its status is final as soon as that match is: a client reading the
        tournament after its last move sees it finished.  What follows the finish (the entrants told,
        :meth:`_settle_over`) is the sweep's."""
        head = self.store.head(app, tid)
        if head is None or head.doc["status"] != RUNNING or head.next <= head.total or head.active:
            return
        if int(head.doc["round"]) < int(head.doc["rounds"]):
            return  # a Swiss round to pair first: the sweep's
        self.store.finish(app, tid, self.now(), self.config.retention_seconds)

    def check(self, app: str, tid: str) -> int:
        """Record the matches under way in the record that are over (their outcome did not reach the
        record) or gone (expired: aborted); how many were recorded."""
        head = self.store.head(app, tid)
        if head is None or not head.active:
            return 0
        ids = [match_id_of(tid, n) for n in head.active]
        recorded = 0
        for n, meta in zip(head.active, self.match_store.metas(ids), strict=True):
            if meta is None:
                recorded += int(self.store.record(app, tid, n, ABORTED, None))
                continue
            if meta.status in OVER_STATUSES:
                out = outcome(None, meta)
                if out is not None and out["status"] == FINISHED:
                    recorded += self.store.record(app, tid, n, FINISHED, result_of(out))
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
                    self.store.schedule(app, tid, now + self.config.tournament_sweep_seconds)
                self.advance(app, tid)
            except STORAGE_ERRORS:
                raise
            except Exception:  # one tournament's failure (a bug) must not stop the others
                log.exception("tournaments: the sweep of %s failed", tid)
        return looked
