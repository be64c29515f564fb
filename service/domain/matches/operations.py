"""What the API does with matches, free of HTTP parsing: :class:`Matches`, the one face of the match
operations that the HTTP layer, the workers, the CLI and the organisers (seeks, challenges,
tournaments) call.

The operations live in their parts, each an object with methods, over the same store, games, settings
and clock:

* :class:`~service.domain.matches.reading.MatchReading`: lookups, who the caller is, documents,
  listings, hint jobs, the action log (nothing written);
* :class:`~service.domain.matches.commits.Commits`: what every commit shares (its news, settling the
  clock and bot indexes after it) and changes of the seats;
* :class:`~service.domain.matches.creation.MatchCreation`: new matches;
* :class:`~service.domain.matches.play.MatchPlay`: the seats', bots' and timeouts' moves and hints;
* :class:`~service.domain.matches.lifecycle.Lifecycle`: joining, cancelling, resigning, coming back,
  rematches, aborts;
* :class:`~service.domain.matches.takebacks.Takebacks`: takeback requests, their answers and the undo.

:class:`Matches` puts them together and names each operation once; it builds nothing else: the store,
the accounts, the bot queue and the outbox (``news``) come from the composition root
(:mod:`service.wiring`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, overload

from engine.core import Game
from service.config import Config
from service.domain.accounts import Accounts
from service.domain.identity import READ, Caller
from service.domain.matches.bots import BotQueue
from service.domain.matches.changes import News
from service.domain.matches.commits import Commits
from service.domain.matches.creation import MatchCreation
from service.domain.matches.lifecycle import Lifecycle
from service.domain.matches.play import MatchPlay, Move, Played
from service.domain.matches.reading import MatchReading
from service.domain.matches.takebacks import Takebacks
from service.storage.matches import Commit, Loaded, MatchMeta, Store, now


class Matches:
    """Match operations for one process: the registered games, the store and the settings."""

    def __init__(
        self,
        store: Store,
        games: dict[str, Game],
        config: Config,
        *,
        accounts: Accounts,
        bot_queue: BotQueue,
        news: News,
        clock: Callable[[], float] = now,
        seen: Callable[[int | None], None] | None = None,
    ) -> None:
        """``news``: where commits' outbox entries go (the outbox); ``clock``: the time of commits and
        clocks (epoch seconds; tests of clocks pass their own); ``seen``: told the seat each call
        was found to hold (the HTTP layer's access line)."""
        self.store = store
        self.games = games
        self.config = config
        #: Apps and players: who holds a player's seat, and who a named player is.
        self.accounts = accounts
        self.bots = bot_queue
        self.now = clock
        self.reading = MatchReading(store, games, config, accounts.store, bot_queue, clock, seen)
        self.commits = Commits(store, config, self.reading, news, bot_queue, clock)
        self.creation = MatchCreation(
            store, games, config, accounts, bot_queue, self.reading, self.commits, clock
        )
        self.play = MatchPlay(store, games, config, bot_queue, self.reading, self.commits, clock)
        self.lifecycle = Lifecycle(store, accounts, self.reading, self.commits, self.creation.create, clock)
        self.takebacks = Takebacks(store, games, config, self.reading, self.commits, clock)

    # -- reading (MatchReading) ---------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        return self.reading.game(game_id)

    def meta(self, match_id: str) -> MatchMeta:
        return self.reading.meta(match_id)

    def meta_and_state(self, match_id: str) -> tuple[MatchMeta, Any]:
        return self.reading.meta_and_state(match_id)

    @overload
    def caller(self, meta: MatchMeta, who: Caller, *, required: Literal[True], scope: str = READ) -> int: ...
    @overload
    def caller(self, meta: MatchMeta, who: Caller, *, required: bool, scope: str = READ) -> int | None: ...
    def caller(self, meta: MatchMeta, who: Caller, *, required: bool, scope: str = READ) -> int | None:
        return self.reading.caller(meta, who, required=required, scope=scope)

    def document(
        self, meta: MatchMeta, state: Any, seat: int | None, who: Caller | None = None
    ) -> dict[str, Any]:
        return self.reading.document(meta, state, seat, who)

    def list_matches(
        self, game: str | None, status: str | None, before: int | None, limit: int, who: Caller | None = None
    ) -> tuple[list[dict[str, Any]], int | None]:
        return self.reading.list_matches(game, status, before, limit, who)

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
        return self.reading.my_matches(key, status, my_turn, before, limit, game, away)

    def hint(self, job_id: str, who: Caller) -> dict[str, Any]:
        return self.reading.hint(job_id, who)

    def action_log(self, meta: MatchMeta, seat: int | None) -> dict[str, Any]:
        return self.reading.action_log(meta, seat)

    # -- creating (MatchCreation) -------------------------------------------------------------------

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
        return self.creation.create(
            request,
            caller=caller,
            reserved=reserved,
            match_id=match_id,
            rematch_of=rematch_of,
            app=app,
            tournament=tournament,
        )

    # -- playing (MatchPlay) ------------------------------------------------------------------------

    def legal_actions(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.play.legal_actions(match_id, who)

    def move(self, match_id: str, who: Caller, move: Move) -> dict[str, Any]:
        return self.play.move(match_id, who, move)

    def commit(
        self, loaded: Loaded, seat: int, action: Any, idempotency: tuple[str, str] | None = None
    ) -> tuple[dict[str, Any], Commit]:
        return self.play.commit(loaded, seat, action, idempotency)

    def seat_move(
        self, meta: MatchMeta, state: Any, seat: int, action: Any, idempotency: tuple[str, str] | None = None
    ) -> Played:
        return self.play.seat_move(meta, state, seat, action, idempotency)

    def bot_move(
        self, meta: MatchMeta, state: Any, seat: int, action: Any, *, announce: bool = True
    ) -> Played:
        return self.play.bot_move(meta, state, seat, action, announce=announce)

    def timeout_move(self, meta: MatchMeta, state: Any, seat: int, action: Any) -> Played:
        return self.play.timeout_move(meta, state, seat, action)

    def request_hint(
        self, match_id: str, who: Caller, level: str | None, think_ms: int | None, client: str
    ) -> dict[str, Any]:
        return self.play.request_hint(match_id, who, level, think_ms, client)

    def announce_bot_turn(self, meta: MatchMeta) -> None:
        self.commits.announce_bot_turn(meta)

    # -- the lifecycle (Lifecycle) ------------------------------------------------------------------

    def join(
        self, match_id: str, choice: int | str, name: str | None, invite: str | None, who: Caller
    ) -> dict[str, Any]:
        return self.lifecycle.join(match_id, choice, name, invite, who)

    def cancel(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.lifecycle.cancel(match_id, who)

    def resign(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.lifecycle.resign(match_id, who)

    def return_to_seat(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.lifecycle.return_to_seat(match_id, who)

    def return_everywhere(self, key: str) -> list[dict[str, Any]]:
        return self.lifecycle.return_everywhere(key)

    def rematch(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.lifecycle.rematch(match_id, who)

    def decline_rematch(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.lifecycle.decline(match_id, who)

    def abort(self, match_id: str, reason: str) -> bool:
        return self.lifecycle.abort(match_id, reason)

    # -- takebacks (Takebacks) ----------------------------------------------------------------------

    def takebacks_of(self, match_id: str, who: Caller) -> dict[str, Any]:
        return self.takebacks.listing(match_id, who)

    def request_takeback(self, match_id: str, who: Caller, count: int = 1) -> dict[str, Any]:
        return self.takebacks.request(match_id, who, count)

    def accept_takeback(self, match_id: str, takeback_id: str, who: Caller) -> dict[str, Any]:
        return self.takebacks.accept(match_id, takeback_id, who)

    def decline_takeback(self, match_id: str, takeback_id: str, who: Caller) -> dict[str, Any]:
        return self.takebacks.decline(match_id, takeback_id, who)
