"""Takebacks (issue 47): a player asks to take back their own most recent decisions, the other players
accept or decline, and an accepted request undoes them.

**What may be taken back** is the engine's to say (:func:`engine.takeback.take_back`): the seat's own
latest decisions in force, when since the first of them no other seat decided, nothing hidden became
known to anyone and nothing random was drawn.  The service adds its own refusals: a decision a stand-in
made for the seat (a timeout's bot, the bot of an away seat) is not the player's to take back; one
request may be open per match (reason ``open``); each seat may ask :attr:`Config.takeback_limit
<service.config.Config.takeback_limit>` times a match (``limit``).  Every refusal is 409
``takeback_refused`` naming its ``reason`` (and the ``rule`` that draws or reveals).

**Who accepts.**  Every other seat a player holds (``human``) must accept; a bot (one from the start, or
playing an away or resigned seat) accepts at once, so with no other player the request is accepted in
the commit that makes it.  Any of them may decline, and the requester may withdraw (decline) their own.

**Expiry.**  A request is answered by the pending decision's deadline when the match has a clock (the
clock runs on while the others think about it: when it expires the timeout's bot decides, and that
decision ends the request anyway), else within :attr:`Config.takeback_seconds
<service.config.Config.takeback_seconds>`.  A request also ends (``void``) as soon as any decision is
made after it, the requester's own included: it was about a position that is gone.  Expiry and voiding
are read, not written: the stored request stays ``open`` and every reader (and the next request's
commit, which writes the requests down as they stand) sees it ``expired`` or ``void``.

**Where it lives.**  The requests of a match are a list in its meta's ``life`` (``takebacks``; at most
the limit per seat, so the meta stays small), written by compare-and-set commits like every lifecycle
change: the request, each acceptance and a decline bump the version and append their event
(``takeback_requested``, ``takeback_accepted``, ``takeback_declined``), so streams, long-polls and the
players' feeds (:mod:`service.domain.feeds.feed`) see them.  The undo is a commit of the state like a
move: the state replayed from the seed without the taken-back decisions, a log entry ``{"version",
"seat", "takeback": k, "id", "at", "requested_at", "accepted_at", "clock"}`` (the log keeps the
decisions taken back: a record shows them, :mod:`service.domain.records.building`), the seat's decision
count less ``k``, the clock restarted for the decision pending again, and a ``takeback`` event telling
every streaming client to read the match again.  A move, a timeout and a second request racing with it
meet the compare-and-set: whichever lands first wins, and the other is decided again on the new version
(an accept after the opponent's move is refused ``other_player``; a second request is ``open``).

**Clocks.**  The undo ends the pending decision without charging it (the decision is cancelled), except
that the requester, if it was theirs, is charged the time it took (no increment); the decision pending
again starts afresh from the requester's budget as it is.  Time spent on the taken-back decisions is not
given back.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine.core import Game
from engine.takeback import TakebackRefused, live_decisions, take_back, undoable
from service.config import Config
from service.domain.errors import Conflict, Forbidden, not_found
from service.domain.identity import PLAY, Caller
from service.domain.matches import clocks, seating, stand_ins
from service.domain.matches.commits import CHANGE_ATTEMPTS, Commits
from service.domain.matches.play import check_started
from service.domain.matches.reading import MatchReading
from service.events import TAKEBACK, TAKEBACK_ACCEPTED, TAKEBACK_DECLINED, TAKEBACK_REQUESTED
from service.storage.matches import (
    ACTIVE,
    KEEP,
    OVER_STATUSES,
    MatchMeta,
    Store,
    decision_fields,
    lifecycle_fields,
    progress_fields,
)

#: A request's status: waiting for answers, done (the decisions were taken back), declined (or withdrawn),
#: expired unanswered, void (a decision was made after it, or the match ended).
OPEN, ACCEPTED, DECLINED, EXPIRED, VOID = "open", "accepted", "declined", "expired", "void"
STATUSES = (OPEN, ACCEPTED, DECLINED, EXPIRED, VOID)
#: The service's own refusal reasons, beside the engine's (engine.takeback.REASONS): another request is
#: open; the seat asked as often as a match allows; the request answered is no longer open.
OPEN_REASON, LIMIT, CLOSED = "open", "limit", "closed"
#: The refusal's code (409), whatever the reason.
REFUSED = "takeback_refused"


def refused(reason: str, message: str, rule: str | None = None, **details: Any) -> Conflict:
    """409 ``takeback_refused`` with ``details.reason`` (and ``details.rule`` for a random or revealing
    step)."""
    return Conflict(REFUSED, message, {"reason": reason, "rule": rule, **details})


def live_entries(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The decision entries of an action log still in force, as :func:`engine.takeback.live_decisions`
    reads the log's takeback markers (each decision stands for its own entry here, so the version, time
    and stand-in flag of each come along)."""
    marked = [
        {"seat": e["seat"], "takeback": e["takeback"]}
        if "takeback" in e
        else {"seat": e["seat"], "action": {"n": i}}
        for i, e in enumerate(log)
    ]
    return [log[action["n"]] for _, action in live_decisions(marked)]


def taken_back_numbers(log: list[dict[str, Any]]) -> dict[int, list[int]]:
    """For each takeback entry of ``log`` (by its index), the numbers of the decisions it took back: the
    last ``k`` in force then, as :func:`engine.takeback.live_decisions` reads a log (decisions numbered
    from 1 in the order they were made, as a record numbers them)."""
    live: list[int] = []
    out: dict[int, list[int]] = {}
    made = 0
    for i, entry in enumerate(log):
        if "takeback" in entry:
            first = len(live) - int(entry["takeback"])
            out[i], live[first:] = live[first:], []
        else:
            made += 1
            live.append(made)
    return out


def total_decisions(meta: MatchMeta) -> int:
    """Every decision committed and in force in the match: any move changes it (a request is about the
    position it was made on)."""
    return sum(meta.decisions)


def standing(request: dict[str, Any], meta: MatchMeta, now: float) -> str:
    """A request's status as it stands now: an ``open`` one is ``void`` once a decision was made after
    it or the match is no longer under way, ``expired`` once its time is up."""
    if request["status"] != OPEN:
        return str(request["status"])
    if meta.status != ACTIVE or total_decisions(meta) != request["decided"]:
        return VOID
    if now >= request["expires_at"]:
        return EXPIRED
    return OPEN


def answering(meta: MatchMeta, seat: int) -> list[int]:
    """The seats whose players must accept ``seat``'s request: every other seat a player holds now (a
    bot, also one playing an away or resigned seat, accepts at once)."""
    return [s for s, held in enumerate(meta.seats) if s != seat and held["kind"] == seating.HUMAN]


def document(request: dict[str, Any], meta: MatchMeta, now: float) -> dict[str, Any]:
    """A request as the API shows it, with its status as it stands now and who is still to answer."""
    status = standing(request, meta, now)
    waiting = [s for s in answering(meta, request["seat"]) if s not in request["accepted"]]
    return {
        "id": request["id"],
        "seat": request["seat"],
        "count": request["count"],
        "versions": list(request["versions"]),
        "status": status,
        "requested_at": request["requested_at"],
        "expires_at": request["expires_at"],
        "accepted_by": list(request["accepted"]),
        "waiting_for": waiting if status == OPEN else [],
        "declined_by": request.get("declined_by"),
        "answered_at": request.get("answered_at"),
    }


@dataclass
class _Plan:
    """What one takeback operation decided on one version: the match after it and its events; for the
    undo also the new state and the log entry."""

    after: MatchMeta
    events: list[dict[str, Any]]
    request: dict[str, Any]
    state: bytes | None = None
    log_entry: dict[str, Any] | None = None


class Takebacks:
    """Requests to take decisions back, their answers, and the undo: each a compare-and-set commit."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        reading: MatchReading,
        commits: Commits,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.games = games
        self.config = config
        self.reading = reading
        self.commits = commits
        self.now = clock

    # -- reading ----------------------------------------------------------------------------------------

    def listing(self, match_id: str, who: Caller) -> dict[str, Any]:
        """The match's requests (newest last) with the open one apart, for anyone who may read the
        match; for a seat also how many requests it has left and how many of its latest decisions it
        could take back now (``undoable``: what a client offers; the request may still be refused if
        the position moves on first)."""
        meta = self.reading.meta(match_id)
        seat = self.reading.caller(meta, who, required=False)
        now = self.now()
        requests = [document(r, meta, now) for r in meta.life.get("takebacks", [])]
        open_one = next((r for r in requests if r["status"] == OPEN), None)
        left = undo = None
        if seat is not None:
            left = max(0, self.config.takeback_limit - sum(1 for r in requests if r["seat"] == seat))
            undo = self._undoable(meta, seat)
        return {
            "version": meta.version,
            "open": open_one,
            "takebacks": requests,
            "limit": self.config.takeback_limit,
            "left": left,
            "undoable": undo,
        }

    def _undoable(self, meta: MatchMeta, seat: int) -> int:
        """How many of its latest decisions ``seat`` could take back now (0 while the match is not under
        way, or the latest decisions in force are a stand-in's)."""
        if meta.status != ACTIVE or meta.seats[seat]["kind"] != seating.HUMAN:
            return 0
        live = live_entries(self.store.action_log(meta.id))
        own = 0
        for entry in reversed(live):
            if entry["seat"] != seat or entry.get("stand_in"):
                break
            own += 1
        if own == 0:
            return 0
        decisions = [(int(e["seat"]), e["action"]) for e in live]
        game = self.games[meta.game]
        return min(own, undoable(game, meta.players, meta.options, meta.seed, decisions, seat))

    # -- requesting and answering -----------------------------------------------------------------------

    def request(self, match_id: str, who: Caller, count: int = 1) -> dict[str, Any]:
        """The caller's seat asks to take back its last ``count`` decisions.  Refused (409
        ``takeback_refused``) as the module says; accepted at once when no other player is to answer."""
        seat = self._acting_seat(match_id, who)

        def decide(meta: MatchMeta, log: list[dict[str, Any]], now: float) -> _Plan:
            self._check_can_act(meta, seat)
            requests = [dict(r) for r in meta.life.get("takebacks", [])]
            for r in requests:  # written down as they stand: an expired or void one is closed for good
                r["status"] = standing(r, meta, now)
            if any(r["status"] == OPEN for r in requests):
                raise refused(OPEN_REASON, "another takeback request of this match is open; answer it first")
            asked = sum(1 for r in requests if r["seat"] == seat)
            limit = self.config.takeback_limit
            if asked >= limit:
                raise refused(
                    LIMIT, f"seat {seat} asked for {asked} takebacks in this match: the limit is {limit}"
                )
            live, state = self._check(meta, log, seat, count)
            deadline = clocks.pending_deadline(meta)
            request: dict[str, Any] = {
                "id": str(len(requests) + 1),
                "seat": seat,
                "count": count,
                "versions": [int(e["version"]) for e in live[-count:]],
                "status": OPEN,
                "requested_at": now,
                "expires_at": deadline if deadline is not None else now + self.config.takeback_seconds,
                "decided": total_decisions(meta),
                "accepted": [s for s in range(meta.players) if s != seat and s not in answering(meta, seat)],
            }
            requests.append(request)
            event = {
                "type": TAKEBACK_REQUESTED,
                "visible_to": "all",
                "id": request["id"],
                "seat": seat,
                "count": count,
                "versions": request["versions"],
                "expires_at": request["expires_at"],
            }
            if not answering(meta, seat):  # nobody to ask: the bots accept at once
                return self._undo(meta, state, request, requests, now, [event])
            after = replace(meta, life={**meta.life, "takebacks": requests})
            return _Plan(after, [event], request)

        return self._commit(match_id, decide)

    def accept(self, match_id: str, takeback_id: str, who: Caller) -> dict[str, Any]:
        """The caller's seat accepts an open request of another seat; the last acceptance undoes the
        decisions (refused ``other_player`` if one was made since: the request is void)."""
        seat = self._acting_seat(match_id, who)

        def decide(meta: MatchMeta, log: list[dict[str, Any]], now: float) -> _Plan:
            requests, request = self._answerable(meta, takeback_id, seat, now)
            request["accepted"] = sorted({*request["accepted"], seat})
            event = {"type": TAKEBACK_ACCEPTED, "visible_to": "all", "id": request["id"], "seat": seat}
            if all(s in request["accepted"] for s in answering(meta, request["seat"])):
                _, state = self._check(meta, log, request["seat"], request["count"])
                return self._undo(meta, state, request, requests, now, [event])
            after = replace(meta, life={**meta.life, "takebacks": requests})
            return _Plan(after, [event], request)

        return self._commit(match_id, decide)

    def decline(self, match_id: str, takeback_id: str, who: Caller) -> dict[str, Any]:
        """The caller's seat declines an open request (the requester withdraws it)."""
        seat = self._acting_seat(match_id, who)

        def decide(meta: MatchMeta, log: list[dict[str, Any]], now: float) -> _Plan:
            requests, request = self._answerable(meta, takeback_id, seat, now, own=True)
            request.update(status=DECLINED, declined_by=seat, answered_at=now)
            event = {
                "type": TAKEBACK_DECLINED,
                "visible_to": "all",
                "id": request["id"],
                "seat": seat,
                "requested_by": request["seat"],
            }
            after = replace(meta, life={**meta.life, "takebacks": requests})
            return _Plan(after, [event], request)

        return self._commit(match_id, decide)

    # -- the checks ---------------------------------------------------------------------------------------

    def _acting_seat(self, match_id: str, who: Caller) -> int:
        """The caller's seat (scope ``play``); asking or answering is acting, so an away seat is its
        player's again first (:meth:`~service.domain.matches.commits.Commits.reclaim`)."""
        meta = self.reading.meta(match_id)
        seat = self.reading.caller(meta, who, required=True, scope=PLAY)
        self.commits.reclaim(meta, seat)
        return seat

    @staticmethod
    def _check_can_act(meta: MatchMeta, seat: int) -> None:
        """409 unless the match is under way (``over`` once it is over); 403 for a seat its player left."""
        check_started(meta)
        if meta.status in OVER_STATUSES:
            raise refused("over", f"the match is {meta.status}: its result stands")
        if meta.seats[seat]["kind"] != seating.HUMAN:
            raise Forbidden("seat_left", f"seat {seat} is played by a bot now", {"seat": seat})

    def _check(
        self, meta: MatchMeta, log: list[dict[str, Any]], seat: int, count: int
    ) -> tuple[list[dict[str, Any]], Any]:
        """The decision entries in force and the state once the last ``count`` of them are taken back,
        when the engine and the service agree that ``seat`` may (else 409 ``takeback_refused``)."""
        live = live_entries(log)
        tail = live[-count:] if 0 < count <= len(live) else []
        if all(int(e["seat"]) == seat for e in tail):  # else the engine names the other seat
            made = next((e for e in tail if e.get("stand_in")), None)
            if made is not None:
                raise refused(
                    "nothing",
                    f"the decision of version {made['version']} was made for seat {seat} by a stand-in "
                    "(a timeout's or an away seat's bot), not by its player",
                )
        return live, self._engine_state(meta, live, seat, count)

    def _engine_state(self, meta: MatchMeta, live: list[dict[str, Any]], seat: int, count: int) -> Any:
        """:func:`engine.takeback.take_back` on the decisions in force, its refusal as ours."""
        decisions = [(int(e["seat"]), e["action"]) for e in live]
        try:
            game = self.games[meta.game]
            return take_back(game, meta.players, meta.options, meta.seed, decisions, seat, count)
        except TakebackRefused as exc:
            raise refused(exc.reason, exc.message, exc.rule) from None

    def _answerable(
        self, meta: MatchMeta, takeback_id: str, seat: int, now: float, *, own: bool = False
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The match's requests (copies, as they stand) and the open one ``takeback_id`` that ``seat``
        may answer: 404 for no such request, 409 ``takeback_refused`` ``closed`` (or ``other_player``
        for one a decision made void) for one no longer open, 403 for the requester accepting its own
        (``own``: a decline, which withdraws it)."""
        self._check_can_act(meta, seat)
        requests = [dict(r) for r in meta.life.get("takebacks", [])]
        request = next((r for r in requests if r["id"] == takeback_id), None)
        if request is None:
            raise not_found(f"takeback {takeback_id!r}")
        status = standing(request, meta, now)
        if status == VOID:
            raise refused(
                "other_player", "a decision was made since the request: it is void", status=status
            )
        if status != OPEN:
            raise refused(CLOSED, f"the request is {status}", status=status)
        if request["seat"] == seat and not own:
            raise Forbidden("own_takeback", "the other players answer your request (decline withdraws it)")
        if request["seat"] != seat and seat in request["accepted"]:
            raise Conflict("already_answered", f"seat {seat} accepted this request already", {"seat": seat})
        return requests, request

    # -- the undo and the commit --------------------------------------------------------------------------

    def _undo(
        self,
        meta: MatchMeta,
        state: Any,
        request: dict[str, Any],
        requests: list[dict[str, Any]],
        now: float,
        events: list[dict[str, Any]],
    ) -> _Plan:
        """The commit that takes the request's decisions back: ``state`` (the engine's replay without
        them), the counts, the clock, the log's takeback entry and the ``takeback`` event."""
        seat, count = request["seat"], request["count"]
        game = self.games[meta.game]
        to_move = game.to_move(state)
        request.update(status=ACCEPTED, answered_at=now)
        clock = copy.deepcopy(meta.clock)
        if clock is not None:
            restart(clock, meta.seats, meta.to_move, seat, to_move, now)
        decisions = stand_ins.padded(meta.decisions, meta.players)
        decisions[seat] -= count
        after = replace(
            meta,
            status=ACTIVE,
            to_move=to_move,
            result=None,
            clock=clock,
            decisions=decisions,
            stand_in=stand_ins.padded(meta.stand_in, meta.players),
            life={**meta.life, "takebacks": requests},
        )
        events = [
            *events,
            {
                "type": TAKEBACK,
                "visible_to": "all",
                "id": request["id"],
                "seat": seat,
                "count": count,
                "versions": list(request["versions"]),
                "to_move": to_move,
            },
        ]
        entry = {
            "seat": seat,
            "takeback": count,
            "id": request["id"],
            "at": now,
            "requested_at": request["requested_at"],
            "accepted_at": now,
            "clock": clocks.public(clock, to_move, now, self.config.clock_warning_seconds),
        }
        return _Plan(after, events, request, game.encode(state), entry)

    def _commit(
        self, match_id: str, decide: Callable[[MatchMeta, list[dict[str, Any]], float], _Plan]
    ) -> dict[str, Any]:
        """Load the match and its log, ``decide`` (which raises the refusals) and compare-and-set what it
        decided against that version, again on a lost race (a move, a timeout or another answer landed
        first: the next round decides on what they left).  Answers the request as it stands after."""
        for _ in range(CHANGE_ATTEMPTS):
            meta = self.reading.meta(match_id)
            log = self.store.action_log(match_id)
            now = self.now()
            plan = decide(meta, log, now)
            after = replace(plan.after, version=meta.version + 1, updated_at=now)
            fields = {
                **lifecycle_fields(after),
                **progress_fields(after.status, after.to_move, after.result, now),
                **decision_fields(after.decisions, after.stand_in),
            }
            entry = None if plan.log_entry is None else {"version": after.version, **plan.log_entry}
            outbox = self.commits.news.entry(meta, after, plan.events)
            commit = self.store.commit(meta, plan.state, fields, plan.events, entry, KEEP, None, outbox)
            if commit.gone:
                raise not_found(f"match {match_id!r}")
            if commit.version is not None:
                self.commits.settle(after)
                self.commits.news.deliver(after.id, outbox)
                return {**document(plan.request, after, now), "match_version": after.version}
        raise Conflict("busy", "the match changed too often while we tried; try again")


def restart(
    clock: dict[str, Any],
    seats: list[dict[str, Any]],
    pending: int | None,
    seat: int,
    to_move: int | None,
    now: float,
) -> None:
    """The clock after ``seat`` takes decisions back (changed in place): the decision pending until now
    (``pending``'s) ends uncharged, unless it was the requester's own (its budget is charged the time it
    took, without the increment), and the decision pending again (``to_move``'s) starts now."""
    started, remaining = clock["turn_started"], clock["remaining"]
    if pending == seat and started is not None and remaining[seat] is not None:
        remaining[seat] = max(0.0, remaining[seat] - max(0.0, now - started))
    clocks.start_turn(clock, seats, to_move, now)
