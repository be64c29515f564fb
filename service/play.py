"""What the API does with matches, over the engine contract and the store, free of HTTP parsing.

Nothing here knows a game's rules: it calls ``setup``/``to_move``/``legal_actions``/``apply``/``view``/
``result``/``encode``/``decode`` and filters events with :func:`engine.core.event_visible`.  Every
response that shows game state is built from ``game.view(state, seat)`` for the caller's own seat.
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from engine.ai import DEFAULT_THINK_MS
from engine.core import (
    Game,
    IllegalAction,
    InvalidOptions,
    check_players,
    check_shape,
    event_visible,
    resolve_options,
)
from service import auth, bots, clocks, seating
from service.config import Config
from service.errors import ApiError, invalid, not_found
from service.live import LiveEvent, Subscription, client_event
from service.store import (
    ABORTED,
    ACTIVE,
    FINISHED,
    OVER_STATUSES,
    WAITING,
    Commit,
    Loaded,
    MatchMeta,
    Store,
    StoredEvent,
    now,
    progress_fields,
)

#: Service events (not the engine's): the first and the last of every match's stream (``match_over``
#: also ends an aborted match, with its ``status``), and the lifecycle's (see :mod:`service.lifecycle`).
CREATED = "match_created"
OVER = "match_over"
STARTED = "match_started"
TIMEOUT = "timeout"
#: Events read from the stream per JSON response (the client pages on with ``after=last_id``).
EVENTS_PER_PAGE = 1000


def seat_info(meta: MatchMeta) -> list[dict[str, Any]]:
    return [{"seat": i, **s} for i, s in enumerate(meta.seats)]


def summary(meta: MatchMeta) -> dict[str, Any]:
    return {
        "id": meta.id,
        "game": meta.game,
        "status": meta.status,
        "version": meta.version,
        "players": meta.players,
        "seats": seat_info(meta),
        "open_seats": seating.joinable(meta.life, meta.seats),
        "visibility": meta.life.get("visibility", seating.PUBLIC),
        "to_move": meta.to_move,
        "created_at": meta.created_at,
        "updated_at": meta.updated_at,
    }


def status_after(status: str, events: list[dict[str, Any]]) -> str:
    """The match's status after ``events`` (read after a match document of ``status``)."""
    for event in events:
        if event["type"] == OVER:
            status = event.get("status", FINISHED)
        elif event["type"] == STARTED:
            status = ACTIVE
    return status


@dataclass(frozen=True)
class Played:
    """What :meth:`Matches.play` did: the mover's response body (when asked for), the store's outcome,
    and the match after the move (when it was committed)."""

    body: dict[str, Any] | None
    commit: Commit
    meta: MatchMeta | None


@dataclass(frozen=True)
class Move:
    """A move request after HTTP parsing."""

    action: Any
    body_version: int | None
    header_version: int | None
    idempotency_key: str | None


class Matches:
    """Match operations for one app: the registered games, the store and the settings."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        bot_queue: bots.BotQueue | None = None,
        clock: Callable[[], float] = now,
    ) -> None:
        self.store = store
        self.games = games
        self.config = config
        #: The time of commits and clocks (epoch seconds); tests of clocks pass their own.
        self.now = clock
        self.bots = bot_queue or bots.BotQueue(
            store.queue,
            stall_seconds=config.bot_stall_seconds,
            slice_seconds=config.bot_slice_seconds,
            max_think_ms=config.max_think_ms,
        )

    # -- lookups ------------------------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        game = self.games.get(game_id)
        if game is None:
            raise not_found(f"game {game_id!r}")
        return game

    def meta(self, match_id: str) -> MatchMeta:
        loaded = self.store.load(match_id, state=False)
        if loaded is None:
            raise not_found(f"match {match_id!r}")
        return loaded.meta

    def meta_and_state(self, match_id: str) -> tuple[MatchMeta, Any]:
        loaded = self.store.load(match_id)
        if loaded is None:
            raise not_found(f"match {match_id!r}")
        return loaded.meta, self.games[loaded.meta.game].decode(loaded.state)

    @staticmethod
    def caller(meta: MatchMeta, authorization: str | None, *, required: bool) -> int | None:
        """The seat whose bearer token the caller holds; ``None`` for a spectator (no token, allowed
        unless ``required``).  401 for a malformed or foreign token."""
        token = bearer_or_401(authorization)
        if token is None:
            if required:
                raise unauthorized("a seat token is required")
            return None
        seat = auth.seat_of_token(token, meta.token_hashes)
        if seat is None:
            raise unauthorized("this token holds no seat of this match", 'Bearer error="invalid_token"')
        return seat

    # -- documents ----------------------------------------------------------------------------------

    def document(self, meta: MatchMeta, state: Any, seat: int | None) -> dict[str, Any]:
        """The match as ``seat`` (None: a spectator) may see it."""
        return {
            **summary(meta),
            "your_seat": seat,
            "options": meta.options,
            "result": meta.result,
            "view": self.games[meta.game].view(state, seat),
            "clock": clocks.public(meta.clock, meta.to_move, self.now()),
            "resigned": meta.life.get("resigned", []),
            "rematch": meta.life.get("rematch"),
        }

    # -- create -------------------------------------------------------------------------------------

    def create(
        self, request: dict[str, Any], *, reserved: dict[str, str] | None = None, match_id: str | None = None
    ) -> dict[str, Any]:
        """Set up a match.  The returned document carries each human seat's token, the creator's token
        and a private match's invite codes: the only time they are shown.  Open seats make the match
        ``waiting`` (no bot moves, no clock runs) until the last is taken (:mod:`service.lifecycle`).

        ``reserved`` and ``match_id`` are a rematch's: open seat -> token hash of the only player who may
        take it, and the id the finished match links to already (409 if that match exists meanwhile).
        """
        game = self.games.get(request["game"])
        if game is None:
            raise invalid("game", f"unknown game {request['game']!r}; known: {sorted(self.games)}")
        seats = request["seats"]
        try:
            check_players(game, len(seats))
            options = resolve_options(game.options, request["options"])
        except InvalidOptions as exc:
            raise invalid(
                "seats" if exc.field == "players" else f"options.{exc.field}", exc.message
            ) from None
        if "seed" in request and not self.config.allow_seed:
            raise invalid("seed", "this server does not accept client seeds (TABLETOP_ALLOW_SEED)")
        seed = request.get("seed", secrets.randbits(63))
        try:
            state = game.setup(len(seats), options, seed=seed)
        except InvalidOptions as exc:
            raise invalid(f"options.{exc.field}", exc.message) from None
        visibility = seating.PRIVATE if reserved else request.get("visibility", seating.PUBLIC)
        creator_token = auth.new_token()
        life = seating.new_life(visibility, creator_token, request.get("on_leave"))
        life["reserved"] = dict(reserved or {})
        tokens: list[dict[str, Any]] = []
        invites: list[dict[str, Any]] = []
        stored_seats: list[dict[str, Any]] = []
        hashes: list[str] = []
        for i, seat in enumerate(seats):
            if seat["kind"] == seating.BOT:
                level = seat.get("level", bots.DEFAULT_LEVEL)
                think_ms = seat.get("think_ms", DEFAULT_THINK_MS[level])
                refused = self.bots.check_think_ms(think_ms)
                if refused is not None:
                    raise invalid(f"seats.{i}.think_ms", refused)
                stored_seats.append(
                    {"name": seat["name"], "kind": "bot", "level": level, "think_ms": think_ms}
                )
                hashes.append("")
            elif seat["kind"] == seating.OPEN:
                stored_seats.append({"name": "", "kind": seating.OPEN})
                hashes.append("")
                if visibility == seating.PRIVATE and str(i) not in life["reserved"]:
                    code = auth.new_token()
                    invites.append({"seat": i, "code": code})
                    life["invites"][str(i)] = auth.hash_token(code)
            else:
                token = auth.new_token()
                tokens.append({"seat": i, "token": token})
                stored_seats.append({"name": seat["name"], "kind": "human"})
                hashes.append(auth.hash_token(token))
        to_move = game.to_move(state)
        created = self.now()
        waiting = bool(seating.open_seats(stored_seats))
        clock = None
        if request.get("time_control"):
            clock = clocks.new_clock(request["time_control"], stored_seats)
            if not waiting:
                clocks.start_turn(clock, stored_seats, to_move, created)
        meta = MatchMeta(
            id=match_id or secrets.token_hex(8),
            game=game.id,
            players=len(seats),
            seats=stored_seats,
            token_hashes=hashes,
            options=options,
            seed=seed,
            version=0,
            status=WAITING if waiting else ACTIVE if to_move is not None else FINISHED,
            to_move=to_move,
            result=game.result(state) if to_move is None else None,
            created_at=created,
            updated_at=created,
            seq=self.store.next_seq(),
            life=life,
            clock=clock,
        )
        event = {
            "type": CREATED,
            "visible_to": "all",
            "game": game.id,
            "seats": seat_info(meta),
            "options": options,
        }
        if not self.store.create(meta, game.encode(state), event):
            raise ApiError(409, "match_exists", f"match {meta.id!r} was created meanwhile")
        self.settle(meta)
        return {
            **self.document(meta, state, None),
            "tokens": tokens,
            "creator_token": creator_token,
            "invites": invites,
        }

    # -- play ---------------------------------------------------------------------------------------

    def legal_actions(self, match_id: str, authorization: str | None) -> dict[str, Any]:
        meta, state = self.meta_and_state(match_id)
        seat = self.caller(meta, authorization, required=True)
        check_decision(meta, seat)
        actions = self.games[meta.game].legal_actions(state)
        return {"game": meta.game, "version": meta.version, "seat": seat, "actions": actions}

    def move(self, match_id: str, authorization: str | None, move: Move) -> dict[str, Any]:
        """Apply one action for the caller's seat: token, idempotency, shape and version checks, then
        :meth:`commit`."""
        expected, source = expected_version(move)
        idempotency = None  # (record key, request fingerprint); the fingerprint costs a JSON dump
        if move.idempotency_key is not None:
            token = bearer_or_401(authorization) or ""
            idempotency = (
                self.store.idempotency_key(match_id, token, move.idempotency_key),
                request_fingerprint(move.action, expected),
            )
        loaded = self.store.load(match_id, idempotency_key=None if idempotency is None else idempotency[0])
        if loaded is None:
            raise not_found(f"match {match_id!r}")
        meta = loaded.meta
        seat = self.caller(meta, authorization, required=True)
        if loaded.idempotency_record is not None and idempotency is not None:
            return replay(loaded.idempotency_record, idempotency[1])
        try:  # a malformed move is refused as such, whatever the version (the spec promises the shape)
            check_shape(self.games[meta.game].actions, move.action)
        except IllegalAction as exc:
            raise illegal(exc, meta.version) from None
        if expected != meta.version:
            raise stale(meta.version, source)
        check_decision(meta, seat, allow_over=True)
        body, commit = self.commit(loaded, seat, move.action, idempotency)
        if commit.replay is not None and idempotency is not None:
            return replay(commit.replay, idempotency[1])
        if commit.stale is not None:
            raise stale(commit.stale, source)
        if commit.gone:
            raise not_found(f"match {match_id!r}")
        return body

    def commit(
        self, loaded: Loaded, seat: int, action: Any, idempotency: tuple[str, str] | None = None
    ) -> tuple[dict[str, Any], Commit]:
        """The one write path of human moves: :meth:`play` on the loaded match, answering the mover.

        Returns the move's response body for ``seat`` and the store's outcome; only a committed outcome
        (``commit.version``) means the body happened.  ``idempotency`` is ``(key, request fingerprint)``.
        Raises a 422 :class:`ApiError` naming the rule when the engine refuses the action.
        """
        state = self.games[loaded.meta.game].decode(loaded.state)
        played = self.play(loaded.meta, state, seat, action, idempotency=idempotency)
        assert played.body is not None
        return played.body, played.commit

    def play(
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
        if result is not None:
            if meta.life.get("resigned"):
                result = {**result, "resigned": list(meta.life["resigned"])}  # who left, in order
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
                "events": [
                    client_event(StoredEvent(f"{version}-{n}", ev))
                    for n, ev in enumerate(events, 1)
                    if event_visible(ev, seat)
                ],
            }
        record = None
        if idempotency is not None:
            key, fingerprint = idempotency
            record = (
                key,
                json.dumps({"fingerprint": fingerprint, "body": body}),
                self.config.idempotency_seconds,
            )
        fields = progress_fields(status, to_move, result, updated)
        if clock is not None:
            fields["clock"] = json.dumps(clock)
            fields["seats"] = json.dumps(seats)
        commit = self.store.commit(
            meta,
            game.encode(state),
            fields,
            events,
            {"version": version, "seat": seat, "action": action},
            self.config.retention_seconds if status == FINISHED else 0,
            record,
        )
        if commit.version is None:
            return Played(body, commit, None)
        after = replace(
            meta,
            version=version,
            status=status,
            to_move=to_move,
            result=result,
            updated_at=updated,
            seats=seats,
            clock=clock,
        )
        self.settle(after, announce=announce)
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
        changes in place.  Returns the seats (a bot keeps a seat out of time too often) and the
        events that go before the move's own (the timeout)."""
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
                seats[seat] = seating.bot_seat(seats[seat]["name"], clock["on_timeout"])
        clocks.start_turn(clock, seats, to_move, at)
        return seats, events

    def settle(self, meta: MatchMeta, *, announce: bool = True) -> None:
        """After a commit: the pending decision's deadline in the clock index, and the bot turn on the
        queue if a bot is to decide (unless the caller, a bot job chaining decisions, plays it)."""
        if meta.clock is not None:
            self.store.set_deadline(meta.id, meta.clock["deadline"] if meta.status == ACTIVE else None)
        if announce and meta.status == ACTIVE:
            self.announce_bot_turn(meta)

    def announce_bot_turn(self, meta: MatchMeta) -> None:
        """Enqueue the bot turn pending at ``meta``'s version, if a bot is to decide."""
        if meta.to_move is not None and bots.is_bot(meta.seats[meta.to_move]):
            self.bots.turn_pending(meta.id, meta.version, meta.seats[meta.to_move])

    # -- events and log -----------------------------------------------------------------------------

    def visible_events(
        self, match_id: str, seat: int | None, after: str, count: int | None = None
    ) -> tuple[list[dict[str, Any]], str]:
        """Events after ``after`` that ``seat`` may see (of the next ``count`` or all), and the id of the
        last event read, seen or not."""
        rows = self.store.events_after(match_id, after, count)
        last = rows[-1].id if rows else after
        return [client_event(r) for r in rows if event_visible(r.event, seat)], last

    def poll_events(
        self,
        meta: MatchMeta,
        seat: int | None,
        after: str,
        wait: float,
        subscribe: Callable[[], Subscription],
    ) -> tuple[list[dict[str, Any]], str]:
        """Long-poll: return as soon as there is an event ``seat`` may see, or after ``wait`` seconds
        (or when the client has gone).

        Only a poll that waits subscribes to live events.  A poll that is live (it waited, or the match
        moved less than ``stream_batch_seconds`` ago) lets the events of the next ``stream_batch_seconds``
        join the first, as a stream does: a client following a match played at machine speed polls a
        few times a second, not once per move.  A client behind the match gets its page at once."""
        match_id = meta.id
        events, after = self.visible_events(match_id, seat, after, EVENTS_PER_PAGE)
        wait = min(wait, self.config.max_wait_seconds)
        live = now() - meta.updated_at < self.config.stream_batch_seconds
        if wait <= 0 or (events and not live):
            return events, after
        deadline = time.monotonic() + wait
        with subscribe() as sub:
            rows = sub.backlog(after)
            lingered = False
            while True:
                for row in rows:
                    after = row.id
                    if event_visible(row.event, seat):
                        events.append(row.client)
                remaining = deadline - time.monotonic()
                if remaining <= 0 or sub.client_gone() or (events and lingered):
                    return events, after
                if events:  # the first news since the poll began: a short while for more to join
                    lingered = True
                    sub.rest(min(remaining, self.config.stream_batch_seconds))
                    remaining = 0
                rows = sub.take(remaining)

    def stream_events(
        self, sub: Subscription, seat: int | None, backlog: list[LiveEvent], *, over: bool
    ) -> Iterator[list[LiveEvent] | None]:
        """Events for a streaming response, in batches (what arrived together), the ``backlog`` first
        (:meth:`Subscription.backlog`); ``None`` items are heartbeats, due whenever nothing was written
        for ``heartbeat_seconds`` (events other seats may see do not count).  Ends after ``match_over``
        (at once when the match was ``over`` already and the backlog is past it), after
        ``stream_max_seconds`` (the client reconnects with the last id), or when the client has gone.

        After a write, events arriving within ``stream_batch_seconds`` wait and go out together: a
        match played at machine speed costs its followers a write per batch, not one per event,
        while a match played at human speed is not delayed at all."""
        beat = self.config.heartbeat_seconds
        written = time.monotonic()
        deadline = written + self.config.stream_max_seconds
        rows = backlog
        del backlog  # events go out once: a waiting stream keeps none of them
        while True:
            visible = [r for r in rows if event_visible(r.event, seat)]
            ended = over or any(r.type == OVER for r in rows)  # finished or aborted
            del rows
            if visible:
                yield visible
                written = time.monotonic()
            if ended:
                return
            clock = time.monotonic()
            if clock >= deadline or sub.client_gone():
                return
            if clock - written >= beat:
                yield None
                written = clock
            lull = written + self.config.stream_batch_seconds - clock
            if visible and lull > 0:
                sub.rest(lull)  # events arriving meanwhile go out in one write
            del visible
            rows = sub.take(min(written + beat, deadline) - time.monotonic())

    def action_log(self, meta: MatchMeta, seat: int | None) -> dict[str, Any]:
        """The full log and seed once over; before that, only the action events ``seat`` may see."""
        doc = {"game": meta.game, "players": meta.players, "options": meta.options}
        if meta.status in OVER_STATUSES:
            return {**doc, "complete": True, "seed": meta.seed, "entries": self.store.action_log(meta.id)}
        events, _ = self.visible_events(meta.id, seat, "0-0")
        entries = [
            {"version": int(ev["id"].split("-")[0]), "seat": ev["seat"], "action": ev["action"]}
            for ev in events
            if ev["type"] == "action"
        ]
        return {**doc, "complete": False, "seed": None, "entries": entries}


# -- request checks -------------------------------------------------------------------------------


def etag(version: int) -> str:
    """The ETag of a match: its version, as a strong validator (``"12"``)."""
    return f'"{version}"'


def unauthorized(message: str, challenge: str = "Bearer") -> ApiError:
    return ApiError(401, "unauthorized", message, headers={"WWW-Authenticate": challenge})


def bearer_or_401(authorization: str | None) -> str | None:
    try:
        return auth.bearer_token(authorization)
    except ValueError as exc:
        raise unauthorized(str(exc)) from None


def expected_version(move: Move) -> tuple[int, str]:
    """The version the move is based on, and where it came from (header or body)."""
    if move.header_version is None and move.body_version is None:
        raise ApiError(428, "version_required", 'send If-Match: "<version>" or expected_version in the body')
    if None not in (move.header_version, move.body_version) and move.header_version != move.body_version:
        raise invalid("expected_version", "disagrees with the If-Match header")
    if move.header_version is not None:
        return move.header_version, "header"
    return move.body_version, "body"  # type: ignore[return-value]


def illegal(exc: IllegalAction, version: int) -> ApiError:
    """422 for an action the engine refuses, naming the rule (or ``schema``) and the field."""
    return ApiError(
        422, "illegal_action", exc.message, {"field": exc.field, "version": version}, rule=exc.rule
    )


def stale(current: int, source: str) -> ApiError:
    """412 when the version came in If-Match (HTTP precondition), 409 when it came in the body."""
    return ApiError(
        412 if source == "header" else 409,
        "stale_version",
        f"the match is at version {current}; reload and decide again",
        {"current_version": current},
        headers={"ETag": etag(current)},
    )


def check_decision(meta: MatchMeta, seat: int | None, *, allow_over: bool = False) -> None:
    """403 unless ``seat`` holds the pending decision (a finished match is left to the engine when
    ``allow_over``, so the client gets its ``game-over`` rule); 409 while the match waits for players
    or once it was aborted; 403 for a seat a bot took over (resigned, or out of time too often)."""
    check_started(meta)
    if seat is not None and meta.seats[seat]["kind"] != seating.HUMAN:
        raise ApiError(403, "seat_left", f"seat {seat} was left and a bot plays it now", {"seat": seat})
    if meta.to_move == seat or (allow_over and meta.to_move is None):
        return
    if meta.to_move is None:
        raise ApiError(403, "not_your_decision", "the match is over; no decision is pending")
    raise ApiError(
        403,
        "not_your_decision",
        f"seat {meta.to_move} is to decide, not seat {seat}",
        {"to_move": meta.to_move},
    )


def check_started(meta: MatchMeta) -> None:
    """409 unless the match is under way or finished: nobody decides in a waiting or aborted match."""
    if meta.status == WAITING:
        raise ApiError(
            409,
            "match_waiting",
            "the match has not started: it waits for its open seats to be taken",
            {"status": meta.status, "open_seats": seating.open_seats(meta.seats)},
        )
    if meta.status == ABORTED:
        raise ApiError(409, "match_aborted", "the match was aborted", {"status": meta.status})


def request_fingerprint(action: Any, expected: int) -> str:
    """What makes two requests under one Idempotency-Key the same request: the action and the version."""
    return hashlib.sha256(
        json.dumps([action, expected], sort_keys=True, separators=(",", ":")).encode()
    ).hexdigest()


def replay(record: str, fingerprint: str) -> dict[str, Any]:
    """The stored response of an earlier request with the same Idempotency-Key (same body only)."""
    stored = json.loads(record)
    if stored["fingerprint"] != fingerprint:
        raise invalid("Idempotency-Key", "this key was used with a different request body")
    return stored["body"]
