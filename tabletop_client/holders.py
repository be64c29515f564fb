"""The clients that hold one credential: :class:`PlayerClient` (a player token) and :class:`AppClient`
(an app key).

They add no operation of their own (a player's two loops aside, :meth:`PlayerClient.wait_turns` and
:meth:`PlayerClient.find_match`): each method calls :class:`~tabletop_client.Client`'s operation of the
same name with the held credential, and :class:`Holder` has those both clients call alike.  The methods
are written out rather than generated so that each keeps its own typed signature (an app names the
player it acts for, a player is itself) and its place in the reference; their docstrings say only what
holding the credential changes.  tests/clients/test_python_client_surface.py keeps each one Client's
call: its parameters less the credential, its defaults, the very request it sends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal, overload

from tabletop_client.client import Client
from tabletop_client.transport import Doc


class Holder:
    """The calls a player token and an app key make alike: matches they create, matchmaking's shared
    reads, the leaderboard and tournaments (see :meth:`Client.create_tournament` and after)."""

    def __init__(self, base_url: str, credential: str, timeout: float = 60.0) -> None:
        self.api = Client(base_url, timeout)
        self.credential = credential

    def close(self) -> None:
        self.api.close()

    # -- matches --------------------------------------------------------------------------------------

    def create_match(
        self, game: str, seats: list[Doc], options: Doc | None = None, seed: int | None = None, **more: Any
    ) -> Doc:
        """See :meth:`Client.create_match`: an app's seats may name its players (``{"player": "ann"}``),
        a player's (scope ``play``) only the player itself."""
        return self.api.create_match(game, seats, options, seed, self.credential, **more)

    def match(self, match_id: str) -> Doc:
        """The match as the player's seat sees it; an app reads any of its matches (a private one too)
        as a spectator sees it."""
        return self.api.match(match_id, self.credential)

    def cancel(self, match_id: str) -> Doc:
        """Call off a waiting match this credential created (it is the creator's credential)."""
        return self.api.cancel(match_id, self.credential)

    # -- matchmaking: see :meth:`Client.create_seek` and the calls after it -------------------------------

    def seeks(
        self, game: str, players: int | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.seeks(self.credential, game, players, cursor, limit)

    def seek(self, seek_id: str) -> Doc:
        return self.api.seek(self.credential, seek_id)

    def cancel_seek(self, seek_id: str) -> Doc:
        return self.api.cancel_seek(self.credential, seek_id)

    def challenge(self, challenge_id: str) -> Doc:
        return self.api.challenge(self.credential, challenge_id)

    def cancel_challenge(self, challenge_id: str) -> Doc:
        return self.api.cancel_challenge(self.credential, challenge_id)

    def leaderboard(
        self, game: str, pool: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Doc:
        """The app's leaderboard of ``game``: see :meth:`Client.leaderboard`."""
        return self.api.leaderboard(self.credential, game, pool, cursor, limit)

    # -- tournaments ----------------------------------------------------------------------------------

    def create_tournament(
        self, game: str, players: int, entrants: list[Doc], format: str = "round_robin", **more: Any
    ) -> Doc:
        return self.api.create_tournament(self.credential, game, players, entrants, format, **more)

    def tournament(self, tournament_id: str) -> Doc:
        return self.api.tournament(self.credential, tournament_id)

    def tournaments(
        self, status: str | None = None, after: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.tournaments(self.credential, status, after, limit)

    @overload
    def tournament_results(self, tournament_id: str, format: Literal["json"] = "json") -> Doc: ...

    @overload
    def tournament_results(self, tournament_id: str, format: Literal["csv"]) -> str: ...

    def tournament_results(self, tournament_id: str, format: Literal["json", "csv"] = "json") -> Doc | str:
        return self.api.tournament_results(self.credential, tournament_id, format)

    def cancel_tournament(self, tournament_id: str) -> Doc:
        return self.api.cancel_tournament(self.credential, tournament_id)

    def wait_tournament(
        self,
        tournament_id: str,
        timeout: float = 24 * 3600.0,
        progress: Callable[[Doc], None] | None = None,
        interval: float = 1.0,
    ) -> Doc:
        return self.api.wait_tournament(self.credential, tournament_id, timeout, progress, interval)


class PlayerClient(Holder):
    """A player's client, holding its player token: every match call acts for the player's seat in
    that match (no seat token to keep), plus its matches and its feed.

    ``wait_turns`` is the loop a player's client runs: one feed connection for all its matches."""

    def __init__(self, base_url: str, token: str, timeout: float = 60.0) -> None:
        super().__init__(base_url, token, timeout)
        self.token = token

    # -- its own: see :meth:`Client.me` and the calls after it ------------------------------------------

    def me(self) -> Doc:
        return self.api.me(self.token)

    def my_matches(
        self,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        game: str | None = None,
        away: bool | None = None,
    ) -> Doc:
        return self.api.my_matches(self.token, status, my_turn, cursor, limit, game=game, away=away)

    def results(self, game: str | None = None) -> Iterator[Doc]:
        return self.api.results(self.token, game)

    def feed(self, after: str = "0-0", wait: float = 0, include: str | None = None) -> Doc:
        return self.api.feed(self.token, after, wait, include=include)

    def feed_stream(
        self, after: str = "0-0", include: str | None = None, heartbeats: bool = False
    ) -> Iterator[Doc]:
        return self.api.feed_stream(self.token, after, include=include, heartbeats=heartbeats)

    def return_seats(self) -> Doc:
        return self.api.return_seats(self.token)

    def wait_turns(self, after: str = "0-0", wait: float = 25.0) -> Iterator[Doc]:
        """Long-poll the feed for ever, yielding each ``your_turn`` entry (a decision of yours is
        pending in its ``match_id`` at its ``version``); the caller stops when it has had enough."""
        while True:
            page = self.feed(after, wait)
            after = page["last_id"]
            yield from (entry for entry in page["events"] if entry["type"] == "your_turn")

    # -- matchmaking and ratings (scope ``play`` to seek and challenge) -------------------------------

    def create_seek(
        self,
        game: str,
        players: int,
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        rating_range: Doc | None = None,
        bots: Doc | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """Look for a match: see :meth:`Client.create_seek`; then :meth:`wait_seek`."""
        return self.api.create_seek(
            self.token, game, players, options, rated, time_control, rating_range, bots, expires_in
        )

    def wait_seek(self, seek_id: str, timeout: float = 600.0, after: str = "0-0") -> Doc:
        """The seek once matched (``match_id``), expired or cancelled: see :meth:`Client.wait_seek`."""
        return self.api.wait_seek(self.token, seek_id, timeout, after)

    def find_match(self, game: str, players: int, timeout: float = 600.0, **terms: Any) -> Doc:
        """Post a seek (``terms``: see :meth:`create_seek`) and wait until it is paired: the seek,
        ``matched`` with its ``match_id``; a seek that expired or was cancelled meanwhile is answered
        as it ended (``status`` says which)."""
        seek = self.create_seek(game, players, **terms)
        return seek if seek["status"] == "matched" else self.wait_seek(seek["id"], timeout)

    def create_challenge(
        self,
        game: str,
        players: list[str],
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        order: str | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """Challenge the app's ``players``: see :meth:`Client.create_challenge`."""
        return self.api.create_challenge(
            self.token, game, players, options, rated, time_control, order, expires_in
        )

    def challenges(self, status: str | None = None, limit: int | None = None) -> list[Doc]:
        return self.api.challenges(self.token, status, limit)

    def accept_challenge(self, challenge_id: str) -> Doc:
        return self.api.accept_challenge(self.token, challenge_id)

    def decline_challenge(self, challenge_id: str) -> Doc:
        return self.api.decline_challenge(self.token, challenge_id)

    def wait_challenge(self, challenge_id: str, timeout: float = 600.0, after: str = "0-0") -> Doc:
        """The challenge once settled (``accepted``, with ``match_id``...): see
        :meth:`Client.wait_challenge`."""
        return self.api.wait_challenge(self.token, challenge_id, timeout, after)

    def ratings(self, player_id: str | None = None) -> Doc:
        """The ratings of ``player_id`` (of the app's, or ``builtin:<level>``), by default the
        player's own: see :meth:`Client.player_ratings`."""
        return self.api.player_ratings(self.token, player_id if player_id is not None else self.me()["id"])

    # -- playing its seats: see :meth:`Client.join` and the calls after it ------------------------------

    def join(self, match_id: str, seat: int | Literal["any"] = "any", invite: str | None = None) -> Doc:
        """Take an open seat (one kept for the player, or any open one): it is the player's."""
        return self.api.join(match_id, None, seat, invite, self.token)

    def legal_actions(self, match_id: str) -> Doc:
        return self.api.legal_actions(match_id, self.token)

    def move(self, match_id: str, action: Doc, version: int, idempotency_key: str | None = None) -> Doc:
        return self.api.move(match_id, self.token, action, version, idempotency_key)

    def log(self, match_id: str) -> Doc:
        return self.api.log(match_id, self.token)

    def events(self, match_id: str, after: str = "0-0", wait: float = 0) -> Doc:
        return self.api.events(match_id, self.token, after, wait)

    def stream(self, match_id: str, after: str = "0-0") -> Iterator[Doc]:
        return self.api.stream(match_id, self.token, after)

    def wait_finished(self, match_id: str, timeout: float = 600.0) -> Doc:
        return self.api.wait_finished(match_id, timeout, self.token)

    def resign(self, match_id: str) -> Doc:
        return self.api.resign(match_id, self.token)

    def return_to_seat(self, match_id: str) -> Doc:
        return self.api.return_to_seat(match_id, self.token)

    def rematch(self, match_id: str) -> Doc:
        return self.api.rematch(match_id, self.token)

    def decline_rematch(self, match_id: str) -> Doc:
        return self.api.decline_rematch(match_id, self.token)

    def hint(self, match_id: str, level: str | None = None, think_ms: int | None = None) -> Doc:
        return self.api.hint(match_id, self.token, level, think_ms)


class AppClient(Holder):
    """An integration's server-side client, holding its app key: it names the app's players, mints and
    revokes their tokens, creates matches seating them, and reads any of its players' matches and feed
    (``player=``).  Keep the key on a server; hand each player's client only its player token."""

    def __init__(self, base_url: str, key: str, timeout: float = 60.0) -> None:
        super().__init__(base_url, key, timeout)
        self.key = key

    # -- its players and their tokens: see :meth:`Client.put_player` and the calls after it ------------

    def put_player(self, player_id: str, name: str, bot: bool = False) -> Doc:
        return self.api.put_player(self.key, player_id, name, bot)

    def player(self, player_id: str) -> Doc:
        return self.api.player(self.key, player_id)

    def players(self, after: str | None = None, limit: int | None = None) -> Doc:
        return self.api.players(self.key, after, limit)

    def mint_token(
        self, player_id: str, scopes: list[str] | None = None, expires_in: int | None = None
    ) -> Doc:
        return self.api.mint_token(self.key, player_id, scopes, expires_in)

    def tokens(self, player_id: str) -> list[Doc]:
        return self.api.player_tokens(self.key, player_id)

    def revoke_token(self, player_id: str, token_id: str) -> None:
        self.api.revoke_token(self.key, player_id, token_id)

    def revoke_tokens(self, player_id: str) -> int:
        return self.api.revoke_tokens(self.key, player_id)

    # -- a player's own, named by ``player``: see :meth:`Client.my_matches` and after -------------------

    def my_matches(
        self,
        player: str,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        game: str | None = None,
        away: bool | None = None,
    ) -> Doc:
        return self.api.my_matches(self.key, status, my_turn, cursor, limit, player, game, away)

    def results(self, player: str, game: str | None = None) -> Iterator[Doc]:
        return self.api.results(self.key, game, player)

    def feed(self, player: str, after: str = "0-0", wait: float = 0, include: str | None = None) -> Doc:
        return self.api.feed(self.key, after, wait, player, include)

    def return_seats(self, player: str) -> Doc:
        return self.api.return_seats(self.key, player)

    # -- matchmaking for a player, and the app's ratings: see :meth:`Client.create_seek` and after -----

    def create_seek(
        self,
        player: str,
        game: str,
        players: int,
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        rating_range: Doc | None = None,
        bots: Doc | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """A seek for ``player`` (a bot player's server posts its bots' seeks this way, several at
        once up to ``TABLETOP_BOT_MAX_MATCHES``)."""
        return self.api.create_seek(
            self.key, game, players, options, rated, time_control, rating_range, bots, expires_in, player
        )

    def wait_seek(self, player: str, seek_id: str, timeout: float = 600.0, after: str = "0-0") -> Doc:
        """Wait on ``player``'s feed until its seek is settled (see :meth:`Client.wait_seek`)."""
        return self.api.wait_seek(self.key, seek_id, timeout, after, player)

    def create_challenge(
        self,
        player: str,
        game: str,
        players: list[str],
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        order: str | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """``player`` challenges ``players`` (see :meth:`Client.create_challenge`)."""
        return self.api.create_challenge(
            self.key, game, players, options, rated, time_control, order, expires_in, player
        )

    def challenges(self, player: str, status: str | None = None, limit: int | None = None) -> list[Doc]:
        return self.api.challenges(self.key, status, limit, player)

    def accept_challenge(self, challenge_id: str, player: str) -> Doc:
        return self.api.accept_challenge(self.key, challenge_id, player)

    def decline_challenge(self, challenge_id: str, player: str) -> Doc:
        return self.api.decline_challenge(self.key, challenge_id, player)

    def wait_challenge(
        self, player: str, challenge_id: str, timeout: float = 600.0, after: str = "0-0"
    ) -> Doc:
        return self.api.wait_challenge(self.key, challenge_id, timeout, after, player)

    def ratings(self, player_id: str) -> Doc:
        """``player_id``'s ratings (or ``builtin:<level>``'s): see :meth:`Client.player_ratings`."""
        return self.api.player_ratings(self.key, player_id)

    # -- webhooks: see :meth:`Client.create_webhook` and the calls after it ----------------------------

    def create_webhook(
        self,
        url: str,
        types: list[str] | None = None,
        description: str | None = None,
        include_decision: bool | None = None,
    ) -> Doc:
        return self.api.create_webhook(self.key, url, types, description, include_decision)

    def webhooks(self) -> list[Doc]:
        return self.api.webhooks(self.key)

    def webhook(self, endpoint_id: str) -> Doc:
        return self.api.webhook(self.key, endpoint_id)

    def update_webhook(self, endpoint_id: str, **changes: Any) -> Doc:
        return self.api.update_webhook(self.key, endpoint_id, **changes)

    def delete_webhook(self, endpoint_id: str) -> None:
        self.api.delete_webhook(self.key, endpoint_id)

    def rotate_webhook_secret(self, endpoint_id: str) -> Doc:
        return self.api.rotate_webhook_secret(self.key, endpoint_id)

    def ping_webhook(self, endpoint_id: str) -> Doc:
        return self.api.ping_webhook(self.key, endpoint_id)

    def webhook_deliveries(
        self, endpoint_id: str, status: str | None = None, before: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.webhook_deliveries(self.key, endpoint_id, status, before, limit)

    def webhook_delivery(self, endpoint_id: str, message_id: str) -> Doc:
        return self.api.webhook_delivery(self.key, endpoint_id, message_id)

    def redeliver_webhook(self, endpoint_id: str, message_id: str) -> Doc:
        return self.api.redeliver_webhook(self.key, endpoint_id, message_id)
