"""Playing a match: legal actions, a seat's move (token, idempotency, shape, version and clock checks),
a bot's and a timeout's moves, and hint requests.

Nothing here knows a game's rules: it calls ``to_move``/``legal_actions``/``apply``/``view``/``result``/
``encode``/``decode`` and shapes events with :func:`service.live.shaping.commit_events`.  Humans and
bots write through one compare-and-set path (:meth:`MatchPlay._apply_and_commit`), so Redis alone
arbitrates between them.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from engine.core import Game, IllegalAction, check_shape
from service.config import Config
from service.domain.errors import (
    Conflict,
    Forbidden,
    Illegal,
    MatchError,
    Stale,
    VersionRequired,
    invalid,
    not_found,
)
from service.domain.identity import PLAY, Caller
from service.domain.matches import bots, clocks, seating, stand_ins
from service.domain.matches.commits import Commits
from service.domain.matches.reading import MatchReading, decision, job_document
from service.encoding import dumps, loads
from service.events import OVER, TIMEOUT
from service.live.shaping import commit_events
from service.storage.matches import (
    ABORTED,
    ACTIVE,
    FINISHED,
    WAITING,
    Commit,
    Loaded,
    MatchMeta,
    Store,
    decision_fields,
    progress_fields,
)


@dataclass(frozen=True)
class Played:
    """What a move (:meth:`MatchPlay.seat_move`, :meth:`~MatchPlay.bot_move`, :meth:`~MatchPlay.timeout_move`)
    did: the mover's response body (a seat's own move only), the store's outcome, and the match after
    the move (when it was committed)."""

    body: dict[str, Any] | None
    commit: Commit
    meta: MatchMeta | None


class _Reload(Exception):
    """A move decided on a remembered match needs the match as stored (:meth:`MatchPlay.move`)."""


@dataclass(frozen=True)
class Move:
    """A move request after HTTP parsing."""

    action: Any
    body_version: int | None
    header_version: int | None
    idempotency_key: str | None


class MatchPlay:
    """The moves of a match: the seats', the bots' and the timeouts'."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        bot_queue: bots.BotQueue,
        reading: MatchReading,
        commits: Commits,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.games = games
        self.config = config
        self.bots = bot_queue
        self.reading = reading
        self.commits = commits
        #: The time of commits and clocks (epoch seconds); tests of clocks pass their own.
        self.now = clock

    def legal_actions(self, match_id: str, who: Caller) -> dict[str, Any]:
        meta, state = self.reading.meta_and_state(match_id)
        seat = self.reading.caller(meta, who, required=True)
        check_decision(meta, seat)  # an away seat stays away: a GET changes nothing (403 seat_away)
        actions = self.games[meta.game].legal_actions(state)
        return {"game": meta.game, "version": meta.version, "seat": seat, "actions": actions}

    def move(self, match_id: str, who: Caller, move: Move) -> dict[str, Any]:
        """Apply one action for the caller's seat: token, idempotency, shape and version checks, then
        :meth:`commit`.

        A move at the version this process's own last write of the match left is decided on what that
        write left (:meth:`~service.storage.matches.Store.recent`), without a load: the commit's
        compare-and-set lets it land only on that very version.  Anything refused there is decided again on
        the match as stored, so a client meets the same answers, in the same order, as after a load."""
        expected, source = expected_version(move)
        if move.idempotency_key is None:
            remembered = self.store.recent(match_id, expected)
            if remembered is not None:
                # Nothing after a commit (settling the clock and the bots, the feeds) refuses, so a
                # refusal here means nothing was written.
                with contextlib.suppress(MatchError, _Reload):
                    return self._move(remembered, who, move, expected, source, None)
        idempotency = None  # (record key, request fingerprint); the fingerprint costs a JSON dump
        if move.idempotency_key is not None:
            scope = who.token or who.player_key or ""  # one caller's key never replays another's
            idempotency = (
                self.store.idempotency_key(match_id, scope, move.idempotency_key),
                request_fingerprint(move.action, expected),
            )
        loaded = self.store.load(match_id, idempotency_key=None if idempotency is None else idempotency[0])
        if loaded is None:
            raise not_found(f"match {match_id!r}")
        return self._move(loaded, who, move, expected, source, idempotency)

    def _move(
        self,
        loaded: Loaded,
        who: Caller,
        move: Move,
        expected: int,
        source: str,
        idempotency: tuple[str, str] | None,
    ) -> dict[str, Any]:
        """:meth:`move` on the match as loaded (or as remembered)."""
        meta = loaded.meta
        seat = self.reading.caller(meta, who, required=True, scope=PLAY)
        if loaded.idempotency_record is not None and idempotency is not None:
            return replay(loaded.idempotency_record, idempotency[1])
        try:  # a malformed move is refused as such, whatever the version (the spec promises the shape)
            check_shape(self.games[meta.game].actions, move.action)
        except IllegalAction as exc:
            raise illegal(exc, meta.version) from None
        if seating.is_away(meta.seats[seat]):
            if loaded.remembered:  # coming back writes: only on the match as stored
                raise _Reload
            loaded = self._come_back_to_move(loaded, seat)
            if expected == meta.version and loaded.meta.version == meta.version + 1:
                expected = loaded.meta.version  # decided on the state the return left as it was
            meta = loaded.meta
        if expected != meta.version:
            raise stale(meta.version, source)
        check_decision(meta, seat, allow_over=True)
        self.check_in_time(meta)
        body, commit = self.commit(loaded, seat, move.action, idempotency)
        if commit.replay is not None and idempotency is not None:
            return replay(commit.replay, idempotency[1])
        if commit.stale is not None:
            raise stale(commit.stale, source)
        if commit.gone:
            raise not_found(f"match {meta.id!r}")
        return body

    def check_in_time(self, meta: MatchMeta) -> None:
        """409 ``out_of_time`` when the pending decision's deadline has passed by the clock commits are
        timed with, whether or not a clock keeper ran: the decision is the timeout's now, so its job
        is announced at once (one per version, however often this runs).  A move checked just before
        its deadline races the timeout's commit; the compare-and-set on the version lets only one in."""
        clock = meta.clock
        deadline = clock["deadline"] if clock is not None else None
        if clock is None or deadline is None or meta.status != ACTIVE or deadline > self.now():
            return
        self.bots.timeout_due(meta.id, meta.version, clock["on_timeout"], app=meta.life.get("app"))
        at = datetime.fromtimestamp(deadline, UTC).isoformat(timespec="milliseconds")
        raise Conflict(
            "out_of_time",
            f"the deadline of seat {meta.to_move}'s decision passed at {at}; a {clock['on_timeout']} bot "
            "plays it now (the time control's on_timeout)",
            {"deadline": deadline, "seat": meta.to_move, "on_timeout": clock["on_timeout"]},
        )

    def _come_back_to_move(self, loaded: Loaded, seat: int) -> Loaded:
        """The match after an away seat's move request brings its player back
        (:meth:`~service.domain.matches.commits.Commits.reclaim`), with
        the state of that version."""
        meta = self.commits.reclaim(loaded.meta, seat)
        if meta.version == loaded.meta.version + 1:  # only the return happened: same state
            return replace(loaded, meta=meta)
        fresh = self.store.load(meta.id)
        if fresh is None:
            raise not_found(f"match {meta.id!r}")
        return replace(loaded, meta=fresh.meta, state=fresh.state)

    def commit(
        self, loaded: Loaded, seat: int, action: Any, idempotency: tuple[str, str] | None = None
    ) -> tuple[dict[str, Any], Commit]:
        """The one write path of human moves: :meth:`seat_move` on the loaded match, answering the mover.

        Returns the move's response body for ``seat`` and the store's outcome; only a committed outcome
        (``commit.version``) means the body happened.  ``idempotency`` is ``(key, request fingerprint)``.
        Raises :class:`~service.domain.errors.Illegal` naming the rule when the engine refuses the action.
        """
        state = self.games[loaded.meta.game].decode(loaded.encoded_state())
        played = self.seat_move(loaded.meta, state, seat, action, idempotency)
        assert played.body is not None
        return played.body, played.commit

    def seat_move(
        self, meta: MatchMeta, state: Any, seat: int, action: Any, idempotency: tuple[str, str] | None = None
    ) -> Played:
        """A seat's own decision: applied to ``state`` (``meta``'s version, decoded; changed in place),
        committed by compare-and-set against that version, with the mover's answer in ``body``."""
        return self._apply_and_commit(meta, state, seat, action, idempotency=idempotency)

    def bot_move(
        self, meta: MatchMeta, state: Any, seat: int, action: Any, *, announce: bool = True
    ) -> Played:
        """A bot seat's decision (``workers.jobs``): applied to ``state`` (``meta``'s version, decoded;
        changed in place) and committed like a human's, with no answer to build.  ``announce=False``
        when the caller, a bot job chaining the bots' decisions, plays the next bot turn itself."""
        return self._apply_and_commit(meta, state, seat, action, respond=False, announce=announce)

    def timeout_move(self, meta: MatchMeta, state: Any, seat: int, action: Any) -> Played:
        """The decision of a human seat out of time, made by the clock's ``on_timeout`` bot
        (``workers.jobs.time_out``): committed like the seat's own, with a ``timeout`` event, the
        timeout counted, and the seat away after too many."""
        return self._apply_and_commit(meta, state, seat, action, respond=False, timed_out=True)

    def _apply_and_commit(
        self,
        meta: MatchMeta,
        state: Any,
        seat: int,
        action: Any,
        *,
        idempotency: tuple[str, str] | None = None,
        respond: bool = True,
        announce: bool = True,
        timed_out: bool = False,
    ) -> Played:
        """Apply ``action`` for ``seat`` to ``state`` (the decoded state of ``meta``'s version, changed in
        place) and compare-and-set it against that version: humans and bots write through here, so
        Redis alone arbitrates between them.  Then announce a bot turn if one is due (unless the
        caller, a bot job chaining the bots' decisions, plays it itself).

        ``respond``: build the mover's response body (a bot needs none).  ``timed_out``: ``action`` is
        the bot's move for a human seat out of time (:func:`workers.jobs.time_out`).
        """
        game = self.games[meta.game]
        try:
            events = game.apply(state, action, seat=seat)
        except IllegalAction as exc:
            raise illegal(exc, meta.version) from None
        to_move = game.to_move(state)
        result = game.result(state) if to_move is None else None
        status = FINISHED if to_move is None else ACTIVE
        updated = self.now()
        seats, clock = meta.seats, copy.deepcopy(meta.clock)
        if clock is not None:
            seats, before = self._run_clock(meta, clock, seat, to_move, updated, timed_out)
            events[:0] = before
        decisions, stand_in = stand_ins.counted(meta, seat, timed_out=timed_out)
        if result is not None:
            if meta.life.get("resigned"):
                result = {**result, "resigned": list(meta.life["resigned"])}  # who left, in order
            result = stand_ins.in_result(result, decisions, stand_in)
            events.append({"type": OVER, "visible_to": "all", "status": FINISHED, "result": result})
        version = meta.version + 1
        body = None
        if respond:
            body = {
                "game": meta.game,
                "version": version,
                "status": status,
                "to_move": to_move,
                "result": result,
                "view": game.view(state, seat),
                "events": commit_events(version, events, seat),
            }
        fields = {**progress_fields(status, to_move, result, updated), **decision_fields(decisions, stand_in)}
        if clock is not None:
            fields["clock"] = dumps(clock)
            fields["seats"] = dumps(seats)
        after = replace(
            meta,
            version=version,
            status=status,
            to_move=to_move,
            result=result,
            updated_at=updated,
            seats=seats,
            clock=clock,
            decisions=decisions,
            stand_in=stand_in,
        )
        if body is not None:
            # The mover's next decision when it is still theirs (a run of decisions: issue 44), from
            # the state in hand: no read.  Kept with the answer, so a replay answers the same.
            body["next_decision"] = decision(game, after, state, seat)
        record = None
        if idempotency is not None:
            key, fingerprint = idempotency
            record = (
                key,
                dumps({"fingerprint": fingerprint, "body": body}),
                self.config.idempotency_seconds,
            )
        outbox = self.commits.news.entry(meta, after, events)
        clock_after = clocks.public(clock, to_move, updated, self.config.clock_warning_seconds)
        commit = self.store.commit(
            meta,
            game.encode(state),
            fields,
            events,
            # When it was committed and the clock after it: a record's decision (service.domain.records);
            # a stand-in's decision says so (its player may not take it back: domain.matches.takebacks).
            {
                "version": version,
                "seat": seat,
                "action": action,
                "at": updated,
                "clock": clock_after,
                **({"stand_in": True} if stand_ins.made_by_stand_in(meta, seat, timed_out=timed_out) else {}),
            },
            self.config.retention_seconds if status == FINISHED else 0,
            record,
            outbox,
        )
        if commit.version is None:
            return Played(body, commit, None)
        self.commits.settle(after, announce=announce)
        self.commits.news.deliver(after.id, outbox)
        return Played(body, commit, after)

    def _run_clock(
        self,
        meta: MatchMeta,
        clock: dict[str, Any],
        seat: int,
        to_move: int | None,
        at: float,
        timed_out: bool,
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Stop ``seat``'s clock (charging its budget) and start the next human decision's: ``clock``
        changes in place.  Returns the seats (a seat out of time too often is away: a bot plays it
        until its player acts again) and the events that go before the move's own (the timeout)."""
        seats, events = meta.seats, []
        clocks.end_turn(clock, seat, at, timed_out=timed_out)
        if timed_out:
            keeps = clocks.keeps_the_seat(clock, seat) and seats[seat]["kind"] == seating.HUMAN
            events.append(
                {
                    "type": TIMEOUT,
                    "visible_to": "all",
                    "seat": seat,
                    "level": clock["on_timeout"],
                    "bot_keeps_seat": keeps,
                }
            )
            if keeps:
                seats = copy.deepcopy(seats)
                seats[seat] = seating.away_seat(seats[seat]["name"], clock["on_timeout"])
        clocks.start_turn(clock, seats, to_move, at)
        return seats, events

    def request_hint(
        self, match_id: str, who: Caller, level: str | None, think_ms: int | None, client: str
    ) -> dict[str, Any]:
        """Ask a bot of ``level`` what it would play for the caller's pending decision: the hint job
        (see :meth:`bots.BotQueue.request_hint` for one hint per seat and the per-``client`` bound).
        Asking for help is acting: an away seat is its player's again."""
        meta = self.reading.meta(match_id)
        seat = self.reading.caller(meta, who, required=True, scope=PLAY)
        meta = self.commits.reclaim(meta, seat)
        check_decision(meta, seat)
        level, think_ms = self.bots.budget(level, think_ms, "think_ms")
        job_id = self.bots.request_hint(
            match_id, meta.version, seat, level, think_ms, client, app=meta.life.get("app")
        )
        info = self.bots.hint(job_id)
        if info is None:  # finished and expired in between: practically impossible, but say so
            raise not_found(f"job {job_id!r}")
        return job_document(info)


# -- request checks -------------------------------------------------------------------------------


def expected_version(move: Move) -> tuple[int, str]:
    """The version the move is based on, and where it came from (header or body)."""
    if move.header_version is None and move.body_version is None:
        raise VersionRequired(
            "version_required", 'send If-Match: "<version>" or expected_version in the body'
        )
    if None not in (move.header_version, move.body_version) and move.header_version != move.body_version:
        raise invalid("expected_version", "disagrees with the If-Match header")
    if move.header_version is not None:
        return move.header_version, "header"
    return move.body_version, "body"  # type: ignore[return-value]


def illegal(exc: IllegalAction, version: int) -> Illegal:
    """An action the engine refuses, naming the rule (or ``schema``) and the field."""
    return Illegal(exc, version)


def stale(current: int, source: str) -> Stale:
    """A decision on an old version; HTTP answers 412 when the version came in If-Match, else 409."""
    return Stale(current, source)


def check_decision(meta: MatchMeta, seat: int | None, *, allow_over: bool = False) -> None:
    """403 unless ``seat`` holds the pending decision (a finished match is left to the engine when
    ``allow_over``, so the client gets its ``game-over`` rule); 409 while the match waits for players
    or once it was aborted; 403 for a seat a bot plays: ``seat_left`` for good after a resign,
    ``seat_away`` while its player is away (until
    :meth:`~service.domain.matches.commits.Commits.reclaim`)."""
    check_started(meta)
    if seat is not None and seating.is_away(meta.seats[seat]):
        raise Forbidden(
            "seat_away",
            f"seat {seat} timed out too often: a bot plays it until you come back "
            f"(POST /v1/matches/{meta.id}/return) or move",
            {"seat": seat},
        )
    if seat is not None and meta.seats[seat]["kind"] != seating.HUMAN:
        raise Forbidden("seat_left", f"seat {seat} was left and a bot plays it now", {"seat": seat})
    if meta.to_move == seat or (allow_over and meta.to_move is None):
        return
    if meta.to_move is None:
        raise Forbidden("not_your_decision", "the match is over; no decision is pending")
    raise Forbidden(
        "not_your_decision",
        f"seat {meta.to_move} is to decide, not seat {seat}",
        {"to_move": meta.to_move},
    )


def check_started(meta: MatchMeta) -> None:
    """409 unless the match is under way or finished: nobody decides in a waiting or aborted match."""
    if meta.status == WAITING:
        raise Conflict(
            "match_waiting",
            "the match has not started: it waits for its open seats to be taken",
            {"status": meta.status, "open_seats": seating.open_seats(meta.seats)},
        )
    if meta.status == ABORTED:
        raise Conflict("match_aborted", "the match was aborted", {"status": meta.status})


def request_fingerprint(action: Any, expected: int) -> str:
    """What makes two requests under one Idempotency-Key the same request: the action and the version."""
    return hashlib.sha256(
        json.dumps([action, expected], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def replay(record: str, fingerprint: str) -> dict[str, Any]:
    """The stored response of an earlier request with the same Idempotency-Key (same body only)."""
    stored = loads(record)
    if stored["fingerprint"] != fingerprint:
        raise invalid("Idempotency-Key", "this key was used with a different request body")
    body: dict[str, Any] = stored["body"]
    body.setdefault("next_decision", None)  # an answer stored before moves answered with it
    return body
