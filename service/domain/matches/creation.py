"""Creating a match: the request checked against the game, its seats stored (tokens hashed, players
named, invites made), its clock and first decision set, and the creation committed with its news."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from engine.ai import LEVELS
from engine.core import Game, InvalidOptions
from service import auth
from service.config import Config
from service.domain.accounts import Accounts, require_scope
from service.domain.errors import Conflict, NotFound, Unauthorized, invalid
from service.domain.games import checked_terms
from service.domain.identity import APP, PLAY, PLAYER, Caller, player_key
from service.domain.matches import bots, clocks, seating, stand_ins
from service.domain.matches.commits import Commits
from service.domain.matches.reading import MatchReading, seat_info
from service.domain.ratings import bot_rater
from service.events import CREATED
from service.storage.matches import ACTIVE, FINISHED, KEEP, WAITING, MatchMeta, Store


class MatchCreation:
    """Sets up new matches (a request's, a rematch's, a seek's, a challenge's or a tournament's)."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        accounts: Accounts,
        bot_queue: bots.BotQueue,
        reading: MatchReading,
        commits: Commits,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.games = games
        self.config = config
        #: Who the players named on seats are.
        self.accounts = accounts
        self.bots = bot_queue
        self.reading = reading
        self.commits = commits
        self.now = clock

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
        ``waiting`` (no bot moves, no clock runs) until the last is taken
        (:meth:`service.domain.matches.lifecycle.Lifecycle.join`).

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
        seats = request["seats"]
        game, options = checked_terms(self.games, request["game"], len(seats), request["options"], "seats")
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
        # by itself (``app``, ``creator_player``: Lifecycle.cancel), and a rematch's has nobody to go to.
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
            check_rated(app, stored_seats, life)
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
        outbox = self.commits.news.entry(None, meta, [])
        if not self.store.create(meta, game.encode(state), event, expire, outbox):
            raise Conflict("match_exists", f"match {meta.id!r} was created meanwhile")
        self.commits.settle(meta)
        self.commits.news.deliver(meta.id, outbox)
        return {
            **self.reading.document(meta, state, None, caller),
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


def check_rated(app: str | None, seats: list[dict[str, Any]], life: dict[str, Any]) -> None:
    """Refuse ``rated: true`` for a match that could not be rated: one without an app (ratings are
    an app's), one with a seat that is no app player and no built-in bot (an anonymous human, an open
    seat anyone may take, a seat kept for an anonymous rematch player), one with a built-in bot in two
    seats (422 on the second seat's ``level``: a rater holding two seats plays itself, and its result
    would rate nobody), one whose players' leaving could abort it, or one with fewer than two raters."""
    if app is None:
        raise invalid("rated", "a rated match is created with an app key or a player token")
    kept = life.get("reserved", {})
    raters = []
    for i, seat in enumerate(seats):
        if str(i) in life.get("players", {}):
            raters.append(life["players"][str(i)])
        elif seat["kind"] == seating.OPEN and str(kept.get(str(i), "")).startswith(seating.player_mark("")):
            raters.append(kept[str(i)].removeprefix(seating.player_mark("")))
        elif seat["kind"] == seating.BOT and seat.get("level") in LEVELS:
            rater = bot_rater(seat["level"], seat.get("think_ms"))
            if rater in raters:
                raise invalid(
                    f"seats.{i}.level",
                    f"{rater} holds seat {raters.index(rater)} already: in a rated match a built-in level "
                    "(at one think_ms) plays one seat, so that the result rates it",
                )
            raters.append(rater)
        else:
            raise invalid(
                "rated",
                f"seat {i} is neither a player of the app nor a built-in bot: only matches between "
                "named players and built-in bots are rated (an anonymous seat has nobody to rate)",
            )
    if life.get("on_leave", {}).get("then") == "abort":
        raise invalid(
            "rated",
            'a rated match goes on when a player leaves (on_leave.then "bot"): the player who left is '
            "rated with the seat's place",
        )
    if len(set(raters)) < 2:
        raise invalid("rated", "a rated match needs at least two different players or bot levels")
