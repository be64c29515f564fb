"""A match's life around its moves: joining open seats, cancelling, resigning, rematches.

Each operation is a compare-and-set commit of the match's meta (no state, no log entry: the action log
holds moves only) through :meth:`service.store.Store.commit`, so it races safely with moves and with
itself: of two clients taking the last open seat one commits and the other, retrying on the new
version, finds the seat taken (409).  Each bumps the version and appends its events, so streams and
long-polls see it.  The bookkeeping of seats is :mod:`service.seating`; clocks are
:mod:`service.clocks` (timeouts are played by the workers: :func:`workers.jobs.time_out`).
"""

from __future__ import annotations

import copy
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from service import auth, clocks, seating
from service.errors import ApiError, invalid, not_found
from service.play import OVER, STARTED, Matches, bearer_or_401, unauthorized
from service.store import (
    ABORTED,
    ACTIVE,
    FINISHED,
    OVER_STATUSES,
    WAITING,
    MatchMeta,
    lifecycle_fields,
    progress_fields,
)

#: Compare-and-set attempts before a lifecycle call gives up (each lost race means the match moved).
ATTEMPTS = 10
JOINED, LEFT, RESIGNED, REMATCH = "seat_joined", "seat_left", "resigned", "rematch"


@dataclass
class Change:
    """What a lifecycle operation decided on one version of the match: the match after it, and its
    events; ``answer`` is anything the caller gets back besides the match (a new token)."""

    after: MatchMeta
    events: list[dict[str, Any]]
    answer: dict[str, Any] = field(default_factory=dict)


def _change(matches: Matches, match_id: str, decide: Callable[[MatchMeta], Change]) -> tuple[Change, Any]:
    """Load, ``decide`` (which raises the operation's refusals) and commit, again on a lost race.
    Returns the committed change and the decoded state."""
    for _ in range(ATTEMPTS):
        meta, state = matches.meta_and_state(match_id)
        change = decide(meta)
        after = replace(change.after, version=meta.version + 1, updated_at=matches.now())
        fields = {
            **lifecycle_fields(after),
            **progress_fields(after.status, after.to_move, after.result, after.updated_at),
        }
        expire = matches.config.retention_seconds if after.status in OVER_STATUSES else 0
        commit = matches.store.commit(meta, None, fields, change.events, None, expire, None)
        if commit.gone:
            raise not_found(f"match {match_id!r}")
        if commit.version is not None:
            change.after = after
            matches.settle(after)
            return change, state
    raise ApiError(409, "busy", "the match changed too often while we tried; try again")


def _start_if_full(matches: Matches, meta: MatchMeta, events: list[dict[str, Any]]) -> MatchMeta:
    """A waiting match whose seats are all taken starts: its clock runs from now, and the first bot
    turn is announced after the commit (:meth:`Matches.settle`)."""
    if seating.open_seats(meta.seats) or meta.status != WAITING:
        return meta
    clock = None
    if meta.clock is not None:
        clock = copy.deepcopy(meta.clock)
        clocks.start_turn(clock, meta.seats, meta.to_move, matches.now())
    events.append({"type": STARTED, "visible_to": "all"})
    return replace(meta, status=ACTIVE if meta.to_move is not None else FINISHED, clock=clock)


def _aborted(meta: MatchMeta, reason: str, events: list[dict[str, Any]]) -> MatchMeta:
    """The match ends without a result; its ``match_over`` event ends streams as a finish does."""
    clock = None if meta.clock is None else {**meta.clock, "turn_started": None, "deadline": None}
    events.append({"type": OVER, "visible_to": "all", "status": ABORTED, "reason": reason, "result": None})
    return replace(meta, status=ABORTED, to_move=None, result=None, clock=clock)


# -- join -------------------------------------------------------------------------------------------


def join(matches: Matches, match_id: str, choice: int | str, name: str, invite: str | None) -> dict[str, Any]:
    """Take an open seat (``choice``: its number or ``"any"``) as ``name``; a private match's seat needs
    its invite code.  Answers the seat's token (the only time it is shown) and the match as that seat
    sees it."""
    token = auth.new_token()

    def decide(meta: MatchMeta) -> Change:
        if meta.status != WAITING:
            raise ApiError(
                409, "not_waiting", f"the match is {meta.status}: no seat to join", {"status": meta.status}
            )
        seat = _pick(meta, choice, invite)
        seats, hashes, life = seating.take(meta.seats, meta.token_hashes, meta.life, seat, name, token)
        events = [{"type": JOINED, "visible_to": "all", "seat": seat, "name": name}]
        after = _start_if_full(matches, replace(meta, seats=seats, token_hashes=hashes, life=life), events)
        return Change(after, events, {"seat": seat})

    change, state = _change(matches, match_id, decide)
    seat = change.answer["seat"]
    return {"seat": seat, "token": token, "match": matches.document(change.after, state, seat)}


def _pick(meta: MatchMeta, choice: int | str, invite: str | None) -> int:
    """The seat a join takes, or the refusal: 403 for a private match without its seat's invite code,
    409 for a seat that is not open (taken meanwhile, or kept for a rematch's player)."""
    if meta.life.get("visibility") == seating.PRIVATE:
        seat = seating.seat_of_invite(meta.life, invite or "")
        if seat is None:
            raise ApiError(
                403,
                "invite_required",
                "this match is private: join with the invite code of an open seat (each works once)",
            )
        if choice not in ("any", seat):
            raise invalid("seat", f"this invite code is for seat {seat}")
        return seat
    open_now = seating.joinable(meta.life, meta.seats)
    if choice == "any":
        if not open_now:
            raise ApiError(409, "no_open_seat", "every seat is taken or kept for a rematch's player")
        return open_now[0]
    assert isinstance(choice, int)
    if choice >= meta.players:
        raise invalid("seat", f"the match has seats 0 to {meta.players - 1}")
    if choice not in open_now:
        raise ApiError(409, "seat_taken", f"seat {choice} is not open", {"open_seats": open_now})
    return choice


# -- cancel and resign --------------------------------------------------------------------------------


def cancel(matches: Matches, match_id: str, authorization: str | None) -> dict[str, Any]:
    """The creator (with the creator token) calls off a match that has not started."""
    token = bearer_or_401(authorization)
    if token is None:
        raise unauthorized("the creator token is required")

    def decide(meta: MatchMeta) -> Change:
        if not hmac.compare_digest(auth.hash_token(token), meta.life.get("creator", "")):
            raise unauthorized("this is not the creator token of this match", 'Bearer error="invalid_token"')
        if meta.status != WAITING:
            raise ApiError(
                409,
                "not_waiting",
                f"only a waiting match can be cancelled; this one is {meta.status} (resign instead)",
                {"status": meta.status},
            )
        events: list[dict[str, Any]] = []
        return Change(_aborted(meta, "cancelled", events), events)

    change, state = _change(matches, match_id, decide)
    return matches.document(change.after, state, None)


def resign(matches: Matches, match_id: str, authorization: str | None) -> dict[str, Any]:
    """The caller's seat leaves.  Before the start the seat opens again; during play a bot takes it
    (``on_leave``) and the match goes on, or with ``on_leave.then == "abort"`` the match ends
    ``aborted`` when no human is left.  The result will record who resigned."""

    def decide(meta: MatchMeta) -> Change:
        seat = matches.caller(meta, authorization, required=True)
        assert seat is not None
        if meta.status in OVER_STATUSES:
            raise ApiError(409, "match_over", f"the match is {meta.status} already", {"status": meta.status})
        if meta.seats[seat]["kind"] != seating.HUMAN:
            raise ApiError(409, "seat_left", f"seat {seat} was left already", {"seat": seat})
        if meta.status == WAITING:  # leaving before the start: the seat is open again
            seats, life = seating.leave(meta.seats, meta.life, seat, started=False)
            hashes = list(meta.token_hashes)
            hashes[seat] = ""  # the token no longer holds the seat: the next to join gets a new one
            events = [{"type": LEFT, "visible_to": "all", "seat": seat}]
            return Change(replace(meta, seats=seats, life=life, token_hashes=hashes), events, {"seat": None})
        seats, life = seating.leave(meta.seats, meta.life, seat, started=True)
        on_leave = life["on_leave"]
        events = [{"type": RESIGNED, "visible_to": "all", "seat": seat, **on_leave}]
        after = replace(meta, seats=seats, life=life)
        if on_leave["then"] == "abort" and not seating.humans_left(seats):
            return Change(_aborted(after, "abandoned", events), events, {"seat": seat})
        if meta.clock is not None and meta.to_move == seat:  # the bot decides now: no deadline
            clock = copy.deepcopy(meta.clock)
            clocks.end_turn(clock, seat, matches.now(), timed_out=False)
            clocks.start_turn(clock, seats, meta.to_move, matches.now())
            after = replace(after, clock=clock)
        return Change(after, events, {"seat": seat})

    change, state = _change(matches, match_id, decide)
    return matches.document(change.after, state, change.answer["seat"])


# -- rematch ----------------------------------------------------------------------------------------


def rematch(matches: Matches, match_id: str, authorization: str | None) -> dict[str, Any]:
    """A seat of a finished match asks to play again: the first call creates the rematch (same game,
    options, bots and time control; a new seed; every seat moved one place, so another player
    starts) and links the finished match to it; each human seat's player takes their seat in it by
    calling this (their new token is answered once).  The rematch starts when all have called."""
    meta = matches.meta(match_id)
    seat = matches.caller(meta, authorization, required=True)
    assert seat is not None
    if meta.status != FINISHED:
        raise ApiError(409, "not_finished", f"only a finished match has a rematch; this one is {meta.status}")
    if meta.seats[seat]["kind"] != seating.HUMAN:
        raise ApiError(403, "seat_left", f"seat {seat} was left; only its players ask for a rematch")
    new_id = meta.life.get("rematch")
    if new_id is None:
        new_id = _link(matches, meta)
    if not matches.store.exists(new_id):
        _create_rematch(matches, meta, new_id)
    mine = auth.hash_token(bearer_or_401(authorization) or "")

    def decide(new: MatchMeta) -> Change:
        reserved = {int(s): h for s, h in new.life.get("reserved", {}).items()}
        place = next((s for s, h in reserved.items() if hmac.compare_digest(h, mine)), None)
        if place is None:
            raise ApiError(
                409,
                "rematch_joined",
                "this seat has taken its place in the rematch already",
                {"match_id": new_id},
            )
        name = meta.seats[seat]["name"]
        token = auth.new_token()
        seats, hashes, life = seating.take(new.seats, new.token_hashes, new.life, place, name, token)
        events = [{"type": JOINED, "visible_to": "all", "seat": place, "name": name}]
        after = _start_if_full(matches, replace(new, seats=seats, token_hashes=hashes, life=life), events)
        return Change(after, events, {"seat": place, "token": token})

    change, _ = _change(matches, new_id, decide)
    return {"match_id": new_id, **change.answer, "status": change.after.status}


class _Linked(Exception):
    """The finished match links to a rematch already (another seat's call linked it meanwhile)."""

    def __init__(self, match_id: str) -> None:
        super().__init__(match_id)
        self.match_id = match_id


def _link(matches: Matches, meta: MatchMeta) -> str:
    """Link the finished match to a new id (compare-and-set: of two seats asking at once, one links
    and the other finds the link, committing nothing)."""
    proposed = secrets.token_hex(8)

    def decide(current: MatchMeta) -> Change:
        if current.life.get("rematch"):
            raise _Linked(current.life["rematch"])
        events = [{"type": REMATCH, "visible_to": "all", "match_id": proposed}]
        return Change(replace(current, life={**current.life, "rematch": proposed}), events)

    try:
        _change(matches, meta.id, decide)
    except _Linked as linked:
        return linked.match_id
    return proposed


def _create_rematch(matches: Matches, meta: MatchMeta, new_id: str) -> None:
    n = meta.players
    seats, reserved = [], {}
    for new_seat in range(n):
        old = (new_seat + 1) % n  # old seat 1 sits first now
        seat = meta.seats[old]
        if seat["kind"] == seating.HUMAN:
            seats.append({"kind": seating.OPEN})
            reserved[str(new_seat)] = meta.token_hashes[old]
        else:
            seats.append({k: seat[k] for k in ("name", "kind", "level", "think_ms") if k in seat})
    request: dict[str, Any] = {
        "game": meta.game,
        "seats": seats,
        "options": meta.options,
        "on_leave": meta.life.get("on_leave"),
    }
    if meta.clock is not None:
        request["time_control"] = clocks.control(meta.clock)
    try:
        matches.create(request, reserved=reserved, match_id=new_id)
    except ApiError as exc:
        if exc.code != "match_exists":  # created by another seat's call at the same moment: fine
            raise
