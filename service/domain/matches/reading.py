"""Reading matches: lookups, who the caller is in a match, the documents and listings they are shown,
hint jobs and the action log.  Nothing here writes a match (a GET must change nothing).

Every response that shows game state is built from ``game.view(state, seat)`` for the caller's own seat
(:meth:`MatchReading.document`); a match's seats name their players to a caller of their app only
(:func:`viewing_app`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, overload

from rq.job import JobStatus

from engine.core import Game
from service import auth
from service.config import Config
from service.domain.accounts import require_scope
from service.domain.errors import Forbidden, Stale, not_found, unauthorized
from service.domain.identity import ADMIN, ANONYMOUS, APP, PLAYER, READ, SEAT, Caller
from service.domain.matches import clocks, seating, stand_ins
from service.domain.matches.bots import DEAD, BotQueue, JobInfo
from service.events import OVER, STARTED, TAKEBACK
from service.live.shaping import visible_events
from service.storage.accounts import AccountStore
from service.storage.matches import ACTIVE, FINISHED, OVER_STATUSES, Loaded, MatchMeta, Store


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


def decision(game: Game, meta: MatchMeta, state: Any, seat: int) -> dict[str, Any] | None:
    """The decision ``seat`` has to make in ``meta`` (``state`` its decoded state), whole: the seat's
    view and its legal actions, as ``GET match`` (as that seat) and ``GET legal-actions`` show them;
    ``None`` unless the seat's player makes the pending decision now (:func:`seating.decides_now`).

    The one builder of a decision (issue 44): a move's ``next_decision``, a feed entry's and a
    webhook's ``decision`` all come from here, so a bot reads the same thing whichever way it came,
    and a seat never sees more than its own view."""
    if not seating.decides_now(meta, seat):
        return None
    return {
        "version": meta.version,
        "seat": seat,
        "view": game.view(state, seat),
        "legal_actions": game.legal_actions(state),
    }


def decision_in(games: dict[str, Game], loaded: Loaded | None, key: str, seat: int) -> dict[str, Any] | None:
    """:func:`decision` of ``seat`` in the match ``loaded`` (``None``: gone), if the player ``key``
    holds that seat (a feed's entries are the player's own: this only makes sure).  The state is
    decoded only for a decision still pending."""
    if loaded is None or seating.player_keys(loaded.meta.life).get(seat) != key:
        return None
    meta = loaded.meta
    if not seating.decides_now(meta, seat):
        return None
    game = games[meta.game]
    return decision(game, meta, game.decode(loaded.encoded_state()), seat)


def status_after(status: str, events: list[dict[str, Any]]) -> str:
    """The match's status after ``events`` (read after a match document of ``status``)."""
    for event in events:
        if event["type"] == OVER:
            status = event.get("status", FINISHED)
        elif event["type"] == STARTED:
            status = ACTIVE
    return status


class MatchReading:
    """The read side of the matches: what a caller may see of a match, and who it is there."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        players: AccountStore,
        bots: BotQueue,
        clock: Callable[[], float],
        seen: Callable[[int | None], None] | None = None,
    ) -> None:
        self.store = store
        self.games = games
        self.config = config
        #: The players' match indexes ("my matches").
        self.players = players
        self.bots = bots
        self.now = clock
        #: Told the seat :meth:`caller` found for each call (the HTTP layer's access line).
        self.seen: Callable[[int | None], None] = seen or _ignore

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
    def caller(self, meta: MatchMeta, who: Caller, *, required: Literal[True], scope: str = READ) -> int: ...
    @overload
    def caller(self, meta: MatchMeta, who: Caller, *, required: bool, scope: str = READ) -> int | None: ...
    def caller(self, meta: MatchMeta, who: Caller, *, required: bool, scope: str = READ) -> int | None:
        """The seat the caller holds: by its seat token, or by its player (a player token, within its
        ``scope``); ``None`` for a spectator, allowed unless ``required``.  401 for a token that is
        neither a seat's here nor a pass (:func:`seating.holds_pass`: the creator's token, an invite
        code, a rematch seat's old token, which read as spectators; so does the player a seat is kept
        for); 403 ``no_seat`` for a player or app that holds none.  The token of an away seat
        still names it (see :meth:`~service.domain.matches.commits.Commits.reclaim`), and so does a
        resigned seat's (it reads, never decides).

        A private match is only for its players, its app and its tokens' holders: anyone else is told
        it does not exist (404), as for a match id never made.  The seat found is told to ``seen`` (the
        HTTP layer's access line notes it)."""
        seat = self._seat_of(meta, who, required=required, scope=scope)
        self.seen(seat)
        return seat

    def _seat_of(self, meta: MatchMeta, who: Caller, *, required: bool, scope: str) -> int | None:
        """:meth:`caller`, without telling ``seen``."""
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

    def decision_of(self, loaded: Loaded | None, key: str, seat: int) -> dict[str, Any] | None:
        return decision_in(self.games, loaded, key, seat)

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
        away: bool | None = None,
    ) -> tuple[list[dict[str, Any]], int | None]:
        """The player ``key``'s matches, newest first (by creation), filtered by ``status``, ``game``,
        ``my_turn`` and ``away`` (the player's seat is away), ``limit`` of them from before the cursor
        ``before``; and the next cursor (``None``: no more).  Matches past their retention are gone,
        and leave the index here.

        A filtered page reads on through the index until it is full, but reads at most
        :data:`MY_MATCHES_SCAN` matches: a page may then be short, with a cursor to go on from."""
        found: list[dict[str, Any]] = []
        cursor, scanned, batch = before, 0, max(limit, 50)
        while scanned < MY_MATCHES_SCAN:
            rows = self.players.player_matches(key, cursor, batch)
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
                wanted = wanted and my_turn in (None, mine["my_turn"]) and away in (None, mine["away"])
                if wanted:
                    found.append(mine)
                    if len(found) == limit:
                        break
            self.players.forget_matches(key, gone)
            if len(found) == limit:
                return found, cursor
            if len(rows) < batch:
                return found, None
        return found, cursor

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
        if JobStatus(info.status) in DEAD:
            return {**doc, "status": "failed", "error": "the bot could not compute a hint; ask again"}
        if info.status == "finished" and doc["action"] is None:
            raise Stale(loaded.meta.version, "body")
        return doc

    def action_log(self, meta: MatchMeta, seat: int | None) -> dict[str, Any]:
        """The full log and seed once over; before that, only the action events ``seat`` may see, and the
        takebacks (``takeback``: how many decisions, the engine's forced steps after them not counted)."""
        doc = {"game": meta.game, "players": meta.players, "options": meta.options}
        if meta.status in OVER_STATUSES:
            return {**doc, "complete": True, "seed": meta.seed, "entries": self.store.action_log(meta.id)}
        events, _ = visible_events(self.store, meta.id, seat, "0-0")
        entries = [
            {"version": int(ev["id"].split("-")[0]), "seat": ev["seat"], "action": ev["action"]}
            if ev["type"] == "action"
            else {"version": int(ev["id"].split("-")[0]), "seat": ev["seat"], "takeback": ev["count"]}
            for ev in events
            if ev["type"] in ("action", TAKEBACK)  # a takeback undoes the last decisions in force
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
    return {
        **summary(meta, key.partition(":")[0]),  # the player's own app reads this: seats name players
        "seat": seat,
        "invited": str(seat) in meta.life.get("reserved", {}),
        "my_turn": seating.decides_now(meta, seat),
        "away": seating.is_away(meta.seats[seat]),
        "deadline": clocks.pending_deadline(meta),
        "result": meta.result,
        "rematch": meta.life.get("rematch"),
        "rematch_of": meta.life.get("rematch_of"),
    }


def job_document(info: JobInfo) -> dict[str, Any]:
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


def _ignore(seat: int | None) -> None:
    """No one to tell which seat a call found."""
