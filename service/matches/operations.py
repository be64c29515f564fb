"""What the API does with matches, over the engine contract and the store, free of HTTP parsing.

Nothing here knows a game's rules: it calls ``setup``/``to_move``/``legal_actions``/``apply``/``view``/
``result``/``encode``/``decode`` and filters events with :func:`engine.core.event_visible`.  Every
response that shows game state is built from ``game.view(state, seat)`` for the caller's own seat.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal, overload

from rq.job import JobStatus

from engine.core import (
    Game,
    IllegalAction,
    InvalidOptions,
    check_players,
    check_shape,
    event_visible,
    resolve_options,
)
from service import auth
from service.accounts_store import AccountStore
from service.config import Config
from service.encoding import dumps, loads
from service.events import CREATED, OVER, RETURNED, STARTED, TIMEOUT
from service.live import client_event, visible_events
from service.matches import (
    bots,
    clocks,
    feed,
    feed_sweep,
    lifecycle,
    ratings,
    seating,
    stand_ins,
    tournaments,
)
from service.matches.accounts import Accounts, require_scope
from service.matches.challenges import Challenges
from service.matches.changes import Change
from service.matches.errors import (
    Conflict,
    Forbidden,
    Illegal,
    MatchError,
    NotFound,
    Stale,
    Unauthorized,
    VersionRequired,
    invalid,
    not_found,
    unauthorized,
)
from service.matches.identity import ADMIN, ANONYMOUS, APP, PLAY, PLAYER, READ, SEAT, Caller, player_key
from service.matches.outbox import Outbox
from service.matches.ratings import Ratings
from service.matches.seeks import Seeks
from service.matches.webhooks import Webhooks
from service.ratings_store import RatingStore
from service.seeks_store import SeekStore
from service.store import (
    ABORTED,
    ACTIVE,
    FINISHED,
    KEEP,
    OVER_STATUSES,
    PERSIST,
    STORAGE_ERRORS,
    WAITING,
    Commit,
    Loaded,
    MatchMeta,
    Store,
    StoredEvent,
    decision_fields,
    lifecycle_fields,
    now,
    progress_fields,
)
from service.webhooks_store import WebhookStore

log = logging.getLogger(__name__)


def seat_info(meta: MatchMeta) -> list[dict[str, Any]]:
    return [{"seat": i, **s} for i, s in enumerate(meta.seats)]


def viewing_app(who: Caller | None) -> str | None:
    """The app whose own player ids the caller may see on seats: its app key's, or its player token's
    app.  Nobody else sees them (anonymous callers, seat tokens, passes, the admin token): an id is
    the app's name for its user, not the match's (issue 42)."""
    if who is not None and who.kind in (APP, PLAYER):
        return who.app
    return None


def with_players(seats: list[dict[str, Any]], meta: MatchMeta, viewer: str | None) -> list[dict[str, Any]]:
    """``seats`` as shown to a caller of the app ``viewer``: a seat one of its players holds (or is
    kept for, or held and resigned) also names its ``player`` by the app's own id; to anyone else
    (``None``, another app) as they are (:func:`viewing_app`)."""
    if viewer is not None:
        for seat, key in seating.player_keys(meta.life).items():
            app, _, player = key.partition(":")
            if app == viewer:
                seats[seat]["player"] = player
    return seats


def summary(meta: MatchMeta, viewer: str | None = None) -> dict[str, Any]:
    """A match as listings show it (to a caller of the app ``viewer``: :func:`with_players`); a
    finished match's ``result`` too, so a results export is one paginated read (issue 27 point 2)."""
    return {
        "id": meta.id,
        "game": meta.game,
        "status": meta.status,
        "version": meta.version,
        "players": meta.players,
        "seats": with_players(stand_ins.seats(meta), meta, viewer),  # with decision counts (42.6)
        "open_seats": seating.joinable(meta.life, meta.seats),
        "visibility": meta.life.get("visibility", seating.PUBLIC),
        "rated": bool(meta.life.get("rated")),
        "to_move": meta.to_move,
        "result": meta.result,
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
    """What a move (:meth:`Matches.seat_move`, :meth:`~Matches.bot_move`, :meth:`~Matches.timeout_move`)
    did: the mover's response body (a seat's own move only), the store's outcome, and the match after
    the move (when it was committed)."""

    body: dict[str, Any] | None
    commit: Commit
    meta: MatchMeta | None


#: Compare-and-set attempts before a change of who holds the seats gives up (each lost race means the
#: match moved).
CHANGE_ATTEMPTS = 10


class _Reload(Exception):
    """A move decided on a remembered match needs the match as stored (:meth:`Matches.move`)."""


class _Unchanged(Exception):
    """A change found nothing to do on the current version (it commits nothing: every commit writes
    an event)."""

    def __init__(self, meta: MatchMeta) -> None:
        super().__init__(meta.id)
        self.meta = meta


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
        accounts: Accounts | None = None,
    ) -> None:
        self.store = store
        #: Apps, players and their feeds: who holds a player's seat, and where commits' notes go.
        self.accounts = accounts or Accounts(AccountStore(store.redis), config)
        self.webhooks = Webhooks(WebhookStore(store.redis), config)
        self.ratings = Ratings(RatingStore(store.redis), config)
        #: Carries the commits' outbox entries to feeds, webhooks and ratings.
        self.outboxes = Outbox(self.accounts.store, self.webhooks, self.ratings)
        self.games = games
        self.config = config
        #: The time of commits and clocks (epoch seconds); tests of clocks pass their own.
        self.now = clock
        self.bots = bot_queue or bots.BotQueue(
            store,
            stall_seconds=config.bot_stall_seconds,
            slice_seconds=config.bot_slice_seconds,
            max_think_ms=config.max_think_ms,
            max_hints_per_address=config.max_hints_per_address,
        )
        #: Tournaments (issue 31): their matches' ends reach them through the outbox.
        self.tournaments = tournaments.Tournaments(self)
        self.outboxes.tournaments = self.tournaments
        # What an app's revocation reaches besides its credentials (issue 42): built here, as they are.
        matchmaking = SeekStore(store.redis)
        self.accounts.app_revoked += [
            self.webhooks.disable_app,
            self.tournaments.cancel_all,
            Seeks(self, matchmaking).close_app,
            Challenges(self, matchmaking).close_app,
        ]

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
        return loaded.meta, self.games[loaded.meta.game].decode(loaded.encoded_state())

    @overload
    @staticmethod
    def caller(meta: MatchMeta, who: Caller, *, required: Literal[True], scope: str = READ) -> int: ...
    @overload
    @staticmethod
    def caller(meta: MatchMeta, who: Caller, *, required: bool, scope: str = READ) -> int | None: ...
    @staticmethod
    def caller(meta: MatchMeta, who: Caller, *, required: bool, scope: str = READ) -> int | None:
        """The seat the caller holds: by its seat token, or by its player (a player token, within its
        ``scope``); ``None`` for a spectator, allowed unless ``required``.  401 for a token that is
        neither a seat's here nor a pass (:func:`seating.holds_pass`: the creator's token, an invite
        code, a rematch seat's old token, which read as spectators; so does the player a seat is kept
        for); 403 ``no_seat`` for a player or app that holds none.  The token of an away seat
        still names it (see :meth:`reclaim`), and so does a resigned seat's (it reads, never decides).

        A private match is only for its players, its app and its tokens' holders: anyone else is told
        it does not exist (404), as for a match id never made."""
        seat: int | None = None
        passed = False
        if who.kind == SEAT:
            assert who.token is not None
            seat = auth.seat_of_token(who.token, meta.token_hashes)
            passed = seat is None and seating.holds_pass(meta.life, who.token)
            if seat is None and not passed:
                raise unauthorized("this token holds no seat of this match", 'Bearer error="invalid_token"')
        elif who.kind == PLAYER:
            seat = seating.seat_of_player(meta.life, who.player_key)
            # A player a seat is kept for (told so by ``invited``) reads the match before joining it.
            kept = seating.player_mark(who.player_key or "") in meta.life.get("reserved", {}).values()
            passed = seat is None and kept
        if seat is None and not passed and not seating.readable(meta.life, who):
            raise not_found(f"match {meta.id!r}")
        if seat is not None:
            require_scope(who, scope)
            return seat
        if not required:
            return None
        if who.kind in (ANONYMOUS, ADMIN):
            raise unauthorized("a seat token or a player token is required")
        if who.kind == SEAT:  # a pass reads; it decides nothing
            raise unauthorized("this token holds no seat of this match", 'Bearer error="invalid_token"')
        raise Forbidden(
            "no_seat",
            "this credential holds no seat of this match (an app key acts through its players' tokens)",
        )

    # -- changes of who holds the seats ----------------------------------------------------------------

    def change(self, match_id: str, decide: Callable[[MatchMeta], Change]) -> tuple[Change, Any]:
        """Load, ``decide`` (which raises the operation's refusals) and commit the seats, life and clock
        it chose, again on a lost race (:mod:`service.matches.lifecycle`'s operations and :meth:`reclaim`).
        Returns the committed change and the decoded state.

        A match leaving ``waiting`` for play loses the expiry of a waiting match; one over gets the
        retention time."""
        for _ in range(CHANGE_ATTEMPTS):
            meta, state = self.meta_and_state(match_id)
            change = decide(meta)
            after = replace(change.after, version=meta.version + 1, updated_at=self.now())
            fields = {
                **lifecycle_fields(after),
                **progress_fields(after.status, after.to_move, after.result, after.updated_at),
            }
            expire = KEEP
            if after.status in OVER_STATUSES:
                expire = self.config.retention_seconds
            elif after.status != WAITING:
                expire = PERSIST
            outbox = self.outbox(meta, after, change.events)
            commit = self.store.commit(meta, None, fields, change.events, None, expire, None, outbox)
            if commit.gone:
                raise not_found(f"match {match_id!r}")
            if commit.version is not None:
                change.after = after
                self.settle(after)
                self.deliver(after.id, outbox)
                return change, state
        raise Conflict("busy", "the match changed too often while we tried; try again")

    def reclaim(self, meta: MatchMeta, seat: int | None) -> MatchMeta:
        """The match after ``seat``'s player acts: an away seat (played by a bot after too many
        timeouts) is the player's again (:meth:`come_back`).  Acting is a POST of the seat's player:
        coming back (:func:`service.matches.lifecycle.return_to_seat`), a move or a hint request.  No
        read is (a GET must change nothing: a page left open, a prefetch or a retry sends it), and a
        finished match's away player asks for the rematch as they are."""
        if seat is None or not seating.is_away(meta.seats[seat]):
            return meta

        def decide(current: MatchMeta) -> Change:
            if not seating.is_away(current.seats[seat]):
                raise _Unchanged(current)  # came back meanwhile (another call of the same player)
            return self.come_back(current, seat)

        try:
            change, _ = self.change(meta.id, decide)
        except _Unchanged as unchanged:
            return unchanged.meta
        return change.after

    def come_back(self, meta: MatchMeta, seat: int) -> Change:
        """The change that gives away ``seat`` back to its player, with a ``seat_returned`` event; if it
        is the seat's decision its clock starts now (the bot's pending turn finds the version moved on
        and stands down)."""
        seats = seating.come_back(meta.seats, seat)
        clock = meta.clock
        if clock is not None and meta.status == ACTIVE and meta.to_move == seat:
            clock = copy.deepcopy(clock)
            clocks.start_turn(clock, seats, seat, self.now())
        events = [{"type": RETURNED, "visible_to": "all", "seat": seat}]
        return Change(replace(meta, seats=seats, clock=clock), events, {"seat": seat})

    # -- the players' feeds -------------------------------------------------------------------------

    def outbox(
        self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        """The outbox entry of a commit from ``before`` to ``after`` (:mod:`service.matches.feed`), or
        ``None`` when no player is told anything and nothing is rated.  A commit that finishes a rated
        match carries its outcome (``"rating"``, :func:`service.matches.ratings.outcome`), even with no
        note (an all-bot ladder match).  The match is marked pending first, so the workers' sweep finds
        the entry if this process dies before :meth:`deliver`."""
        notes = feed.notes(before, after, events)
        rating = ratings.outcome(before, after, self.accounts.store.player)
        tournament = tournaments.outcome(before, after) if "tournament" in after.life else None
        if not notes and rating is None and tournament is None:
            return None
        self.accounts.store.mark_pending(after.id)
        entry: dict[str, Any] = {"version": after.version, "seq": after.seq, "notes": notes}
        if rating is not None:
            entry["rating"] = rating
        if tournament is not None:  # a tournament's match ended: its result goes to the tournament
            entry["tournament"] = tournament
        return entry

    def deliver(self, match_id: str, outbox: dict[str, Any] | None) -> None:
        """Move the match's outbox into its players' feeds now, after its commit.  A Redis error here
        costs latency, not the entry: the commit stands and the sweep delivers it."""
        if outbox is None:
            return
        try:
            self.outboxes.drain(match_id)
        except STORAGE_ERRORS as exc:
            log.warning("feed delivery of match %s deferred to the sweep: %s", match_id, exc)

    # -- documents ----------------------------------------------------------------------------------

    def document(
        self, meta: MatchMeta, state: Any, seat: int | None, who: Caller | None = None
    ) -> dict[str, Any]:
        """The match as ``seat`` (None: a spectator) may see it, asked by ``who`` (its seats name
        their players to a caller of their app only: :func:`viewing_app`)."""
        return {
            **summary(meta, viewing_app(who)),
            "your_seat": seat,
            "options": meta.options,
            "result": meta.result,
            "view": self.games[meta.game].view(state, seat),
            "clock": clocks.public(meta.clock, meta.to_move, self.now(), self.config.clock_warning_seconds),
            "resigned": meta.life.get("resigned", []),
            "rematch": meta.life.get("rematch"),
            "rematch_of": meta.life.get("rematch_of"),
        }

    # -- create -------------------------------------------------------------------------------------

    def create(
        self,
        request: dict[str, Any],
        *,
        caller: Caller | None = None,
        reserved: dict[str, str] | None = None,
        match_id: str | None = None,
        rematch_of: str | None = None,
        app: str | None = None,
        tournament: str | None = None,
    ) -> dict[str, Any]:
        """Set up a match.  The returned document carries each human seat's token, an anonymous
        creator's token (``None`` for an app key or a player token, which cancel with themselves) and
        a private match's invite codes: the only time they are shown.  Open seats make the match
        ``waiting`` (no bot moves, no clock runs) until the last is taken (:mod:`service.matches.lifecycle`).

        ``reserved``, ``match_id`` and ``rematch_of`` are a rematch's: open seat -> token hash of the only
        player who may take it, the id the finished match links to already (409 if that match exists
        meanwhile), and the finished match's id.

        A seat may name a player of the caller's app (``"player": <id>``): a human seat is then that
        player's (its player tokens act for it; it has no seat token), an open seat is kept for that
        player to join.  Each player named is told so in their feed (``invited``).  A match created
        with an app key or a player token belongs to that app (``app``: a rematch's) and is private
        unless the request says otherwise.

        A waiting match expires (every key) ``waiting_seconds`` after its creation unless it starts.
        ``tournament`` (``<app>:<id>``) marks a tournament's match: its end is reported to it.
        """
        caller = caller or Caller()
        if rematch_of is None:  # a rematch belongs to the finished match's app, whoever asked
            app = self._creating_app(caller)
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
        default = seating.PRIVATE if app is not None else seating.PUBLIC
        visibility = seating.PRIVATE if reserved else request.get("visibility") or default
        # Only an anonymous creator gets a token to cancel with: an app key or a player token is known
        # by itself (``app``, ``creator_player``: lifecycle.cancel), and a rematch's has nobody to go to.
        anonymous = caller.kind not in (APP, PLAYER) and rematch_of is None
        creator_token = auth.new_token() if anonymous else None
        life = seating.new_life(visibility, creator_token, request.get("on_leave"))
        if caller.kind == PLAYER and rematch_of is None:
            life["creator_player"] = caller.player_key
        life["reserved"] = dict(reserved or {})
        life["players"] = {}
        if app is not None:
            life["app"] = app
        if rematch_of is not None:
            life["rematch_of"] = rematch_of
        if tournament is not None:
            life["tournament"] = tournament
        named = self._named_players(caller, seats)
        tokens: list[dict[str, Any]] = []
        invites: list[dict[str, Any]] = []
        stored_seats: list[dict[str, Any]] = []
        hashes: list[str] = []
        for i, seat in enumerate(seats):
            if seat["kind"] == seating.BOT:
                level, think_ms = self.bots.budget(
                    seat.get("level"), seat.get("think_ms"), f"seats.{i}.think_ms"
                )
                stored_seats.append(
                    {"name": seat["name"], "kind": "bot", "level": level, "think_ms": think_ms}
                )
                hashes.append("")
            elif seat["kind"] == seating.OPEN:
                stored_seats.append({"name": "", "kind": seating.OPEN})
                hashes.append("")
                if i in named:  # kept for that player, who joins with a player token
                    life["reserved"][str(i)] = seating.player_mark(named[i][0])
                elif visibility == seating.PRIVATE and str(i) not in life["reserved"]:
                    code = auth.new_token()
                    invites.append({"seat": i, "code": code})
                    life["invites"][str(i)] = auth.hash_token(code)
            elif i in named:
                key, name = named[i]
                stored_seats.append({"name": seat.get("name") or name, "kind": "human"})
                hashes.append("")
                life["players"][str(i)] = key
            else:
                token = auth.new_token()
                tokens.append({"seat": i, "token": token})
                stored_seats.append({"name": seat["name"], "kind": "human"})
                hashes.append(auth.hash_token(token))
        if request.get("rated"):  # issue 27 point 1: only named players and built-in bots are rated
            ratings.check_rated(app, stored_seats, life)
            life["rated"] = True
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
            result=stand_ins.at_start(game.result(state), len(seats)) if to_move is None else None,
            created_at=created,
            updated_at=created,
            seq=self.store.next_seq(),
            life=life,
            clock=clock,
            decisions=[0] * len(seats),
            stand_in=[0] * len(seats),
        )
        event = {
            "type": CREATED,
            "visible_to": "all",
            "game": game.id,
            "seats": seat_info(meta),
            "options": options,
        }
        expire = self.config.waiting_seconds if waiting else KEEP
        outbox = self.outbox(None, meta, [])
        if not self.store.create(meta, game.encode(state), event, expire, outbox):
            raise Conflict("match_exists", f"match {meta.id!r} was created meanwhile")
        self.settle(meta)
        self.deliver(meta.id, outbox)
        return {
            **self.document(meta, state, None, caller),
            "tokens": tokens,
            "creator_token": creator_token,
            "invites": invites,
        }

    def _creating_app(self, caller: Caller) -> str | None:
        """The app a new match belongs to: the caller's (a player token needs ``play``).  Without an
        app key or a player token a match is created only where anonymous play is on."""
        if caller.kind in (APP, PLAYER):
            require_scope(caller, PLAY)
            return caller.app
        if not self.config.anonymous:
            raise Unauthorized(
                "this server does not create matches anonymously (TABLETOP_ANONYMOUS=false): "
                "use an app key or a player token"
            )
        return None

    def _named_players(self, caller: Caller, seats: list[dict[str, Any]]) -> dict[int, tuple[str, str]]:
        """Seat -> (player key, display name) of the seats that name a player.  An app key names any
        of its players, a player token only itself; a player is named once."""
        named: dict[int, tuple[str, str]] = {}
        for i, seat in enumerate(seats):
            player_id = seat.get("player")
            if player_id is None:
                continue
            if caller.kind not in (APP, PLAYER) or caller.app is None:
                raise invalid(f"seats.{i}.player", "naming a player needs an app key or a player token")
            if caller.kind == PLAYER and player_id != caller.player:
                raise invalid(f"seats.{i}.player", "a player token names only its own player")
            try:
                player = self.accounts.stored_player(caller.app, player_id)
            except NotFound:
                raise invalid(f"seats.{i}.player", f"no player {player_id!r} in this app") from None
            key = player_key(caller.app, player_id)
            if any(k == key for k, _ in named.values()):
                raise invalid(f"seats.{i}.player", f"player {player_id!r} is named twice")
            named[i] = (key, player.name)
        return named

    # -- play ---------------------------------------------------------------------------------------

    def legal_actions(self, match_id: str, who: Caller) -> dict[str, Any]:
        meta, state = self.meta_and_state(match_id)
        seat = self.caller(meta, who, required=True)
        check_decision(meta, seat)  # an away seat stays away: a GET changes nothing (403 seat_away)
        actions = self.games[meta.game].legal_actions(state)
        return {"game": meta.game, "version": meta.version, "seat": seat, "actions": actions}

    def move(self, match_id: str, who: Caller, move: Move) -> dict[str, Any]:
        """Apply one action for the caller's seat: token, idempotency, shape and version checks, then
        :meth:`commit`.

        A move at the version this process's own last write of the match left is decided on what that
        write left (:meth:`~service.store.Store.recent`), without a load: the commit's compare-and-set
        lets it land only on that very version.  Anything refused there is decided again on the match as
        stored, so a client meets the same answers, in the same order, as after a load."""
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
        seat = self.caller(meta, who, required=True, scope=PLAY)
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
        """The match after an away seat's move request brings its player back (:meth:`reclaim`), with
        the state of that version."""
        meta = self.reclaim(loaded.meta, seat)
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
        Raises :class:`~service.matches.errors.Illegal` naming the rule when the engine refuses the action.
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
                dumps({"fingerprint": fingerprint, "body": body}),
                self.config.idempotency_seconds,
            )
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
        outbox = self.outbox(meta, after, events)
        commit = self.store.commit(
            meta,
            game.encode(state),
            fields,
            events,
            {"version": version, "seat": seat, "action": action},
            self.config.retention_seconds if status == FINISHED else 0,
            record,
            outbox,
        )
        if commit.version is None:
            return Played(body, commit, None)
        self.settle(after, announce=announce)
        self.deliver(after.id, outbox)
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

    def settle(self, meta: MatchMeta, *, announce: bool = True) -> None:
        """After a commit: the pending decision's deadline in the clock index, and the bot turn on the
        queue if a bot is to decide (unless the caller, a bot job chaining decisions, plays it)."""
        if meta.clock is not None:
            self.store.set_deadline(meta.id, meta.clock["deadline"] if meta.status == ACTIVE else None)
            feed_sweep.index_warning(self.store, meta, self.config.clock_warning_seconds)
        if announce and meta.status == ACTIVE:
            self.announce_bot_turn(meta)

    def announce_bot_turn(self, meta: MatchMeta) -> None:
        """Enqueue the bot turn pending at ``meta``'s version, if a bot is to decide."""
        if meta.to_move is not None and bots.is_bot(meta.seats[meta.to_move]):
            self.bots.turn_pending(meta.id, meta.version, meta.seats[meta.to_move], app=meta.life.get("app"))

    # -- the lifecycle (service.matches.lifecycle holds how each is done) ------------------------------

    def join(
        self, match_id: str, choice: int | str, name: str | None, invite: str | None, who: Caller
    ) -> dict[str, Any]:
        """Take an open seat (``choice``: a seat number or ``"any"``); the answer holds its token (a
        player joins with its player token, and its seat gets none)."""
        return lifecycle.join(self, match_id, choice, name, invite, who)

    def cancel(self, match_id: str, who: Caller) -> dict[str, Any]:
        """Call off a waiting match, with the creator's token (or the key of the match's app)."""
        return lifecycle.cancel(self, match_id, who)

    def resign(self, match_id: str, who: Caller) -> dict[str, Any]:
        """Give the caller's seat up for good (before the start: open it again)."""
        return lifecycle.resign(self, match_id, who)

    def return_to_seat(self, match_id: str, who: Caller) -> dict[str, Any]:
        """Take the caller's away seat back from the bot that played it after its timeouts."""
        return lifecycle.return_to_seat(self, match_id, who)

    def rematch(self, match_id: str, who: Caller) -> dict[str, Any]:
        """Offer, or take a seat in, the rematch of a finished match."""
        return lifecycle.rematch(self, match_id, who)

    def decline_rematch(self, match_id: str, who: Caller) -> dict[str, Any]:
        """Say no to a finished match's rematch offer (withdraw it, for its offerer)."""
        return lifecycle.decline(self, match_id, who)

    # -- listing and hints --------------------------------------------------------------------------

    def list_matches(
        self, game: str | None, status: str | None, before: int | None, limit: int, who: Caller | None = None
    ) -> tuple[list[dict[str, Any]], int | None]:
        """Public matches newest first, filtered by game and status, ``limit`` of them from before
        the cursor ``before``; their summaries (as ``who`` may see them: :func:`viewing_app`) and the
        cursor of the next page (``None``: no more)."""
        metas, cursor = self.store.list_matches(game, status, before, limit)
        viewer = viewing_app(who)
        return [summary(m, viewer) for m in metas], cursor

    def my_matches(
        self,
        key: str,
        status: str | None,
        my_turn: bool | None,
        before: int | None,
        limit: int,
        game: str | None = None,
    ) -> tuple[list[dict[str, Any]], int | None]:
        """The player ``key``'s matches, newest first (by creation), filtered by ``status``, ``game``
        and ``my_turn``, ``limit`` of them from before the cursor ``before``; and the next cursor
        (``None``: no more).  Matches past their retention are gone, and leave the index here.

        A filtered page reads on through the index until it is full, but reads at most
        :data:`MY_MATCHES_SCAN` matches: a page may then be short, with a cursor to go on from."""
        found: list[dict[str, Any]] = []
        cursor, scanned, batch = before, 0, max(limit, 50)
        while scanned < MY_MATCHES_SCAN:
            rows = self.accounts.store.player_matches(key, cursor, batch)
            metas = self.store.metas([mid for mid, _ in rows])
            gone = []
            for (mid, seq), meta in zip(rows, metas, strict=True):
                cursor, scanned = seq, scanned + 1
                if meta is None:
                    gone.append(mid)
                    continue
                mine = my_summary(meta, key)
                if mine is None:
                    continue
                wanted = (status is None or meta.status == status) and game in (None, meta.game)
                if wanted and my_turn in (None, mine["my_turn"]):
                    found.append(mine)
                    if len(found) == limit:
                        break
            self.accounts.store.forget_matches(key, gone)
            if len(found) == limit:
                return found, cursor
            if len(rows) < batch:
                return found, None
        return found, cursor

    def request_hint(
        self, match_id: str, who: Caller, level: str | None, think_ms: int | None, client: str
    ) -> dict[str, Any]:
        """Ask a bot of ``level`` what it would play for the caller's pending decision: the hint job
        (see :meth:`bots.BotQueue.request_hint` for one hint per seat and the per-``client`` bound).
        Asking for help is acting: an away seat is its player's again."""
        meta = self.meta(match_id)
        seat = self.caller(meta, who, required=True, scope=PLAY)
        meta = self.reclaim(meta, seat)
        check_decision(meta, seat)
        level, think_ms = self.bots.budget(level, think_ms, "think_ms")
        job_id = self.bots.request_hint(
            match_id, meta.version, seat, level, think_ms, client, app=meta.life.get("app")
        )
        info = self.bots.hint(job_id)
        if info is None:  # finished and expired in between: practically impossible, but say so
            raise not_found(f"job {job_id!r}")
        return job_document(info)

    def hint(self, job_id: str, who: Caller) -> dict[str, Any]:
        """A hint job of the caller's seat, ``status`` ``finished`` (with the ``action``), ``failed``
        (with an ``error``: ask again) or still running.  One refusal for a job that does not exist
        and one that is another seat's (the token is checked first), so nothing here tells whether,
        when or how another seat asked for help; a finished hint for a version the match has left is
        stale."""
        if who.kind not in (SEAT, PLAYER):
            raise unauthorized("a seat token or a player token is required")
        info = self.bots.hint(job_id)
        loaded = self.store.load(info.meta["match_id"], state=False) if info is not None else None
        unknown = not_found(f"job {job_id!r}")
        if info is None or loaded is None:
            raise unknown
        if who.kind == SEAT:
            seat = auth.seat_of_token(who.token or "", loaded.meta.token_hashes)
        else:
            seat = seating.seat_of_player(loaded.meta.life, who.player_key)
        if seat != info.meta["seat"]:
            raise unknown
        doc = job_document(info)
        if JobStatus(info.status) in bots.DEAD:
            return {**doc, "status": "failed", "error": "the bot could not compute a hint; ask again"}
        if info.status == "finished" and doc["action"] is None:
            raise stale(loaded.meta.version, "body")
        return doc

    # -- events and log -----------------------------------------------------------------------------

    def action_log(self, meta: MatchMeta, seat: int | None) -> dict[str, Any]:
        """The full log and seed once over; before that, only the action events ``seat`` may see."""
        doc = {"game": meta.game, "players": meta.players, "options": meta.options}
        if meta.status in OVER_STATUSES:
            return {**doc, "complete": True, "seed": meta.seed, "entries": self.store.action_log(meta.id)}
        events, _ = visible_events(self.store, meta.id, seat, "0-0")
        entries = [
            {"version": int(ev["id"].split("-")[0]), "seat": ev["seat"], "action": ev["action"]}
            for ev in events
            if ev["type"] == "action"
        ]
        return {**doc, "complete": False, "seed": None, "entries": entries}


#: Matches one "my matches" page reads at most, however few pass its filters.
MY_MATCHES_SCAN = 1000


def my_summary(meta: MatchMeta, key: str) -> dict[str, Any] | None:
    """A match as its player ``key`` lists it: where it stands, the player's seat, whether the pending
    decision is theirs and its deadline, the result once over, and the rematch links (``rematch``:
    the offer made after it; ``rematch_of``: the match it is the rematch of, where the offer is
    declined); ``None`` if the player has no seat there (any more: a seat left before the start)."""
    seat = next((s for s, k in seating.player_keys(meta.life).items() if k == key), None)
    if seat is None:
        return None
    turn = feed.entry(feed.YOUR_TURN, meta, seat)
    return {
        **summary(meta, key.partition(":")[0]),  # the player's own app reads this: seats name players
        "seat": seat,
        "invited": str(seat) in meta.life.get("reserved", {}),
        "my_turn": turn["my_turn"],
        "deadline": turn["deadline"],
        "result": meta.result,
        "rematch": meta.life.get("rematch"),
        "rematch_of": meta.life.get("rematch_of"),
    }


def job_document(info: bots.JobInfo) -> dict[str, Any]:
    """A hint job as the API shows it: the question (match, version, seat, level) and the answer."""
    meta = info.meta
    action = info.result["action"] if info.result else None
    return {
        "id": info.id,
        "status": info.status,
        "match_id": meta["match_id"],
        "version": meta["version"],
        "seat": meta["seat"],
        "level": meta["level"],
        "action": action,
    }


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
    ``seat_away`` while its player is away (until :meth:`Matches.reclaim`)."""
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
    return body
