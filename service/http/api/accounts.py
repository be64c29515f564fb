"""Apps (the operator's admin API), players and their tokens (an app's), and "me" (a player's)."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.domain.accounts import player_document, require_admin
from service.domain.identity import PLAY, READ
from service.domain.matchmaking.making import app_caller
from service.http.api import Blueprint
from service.http.api.idempotency import idempotent
from service.http.context import current_caller, services
from service.http.schemas.accounts import (
    AppListSchema,
    AppSchema,
    AppWithKeySchema,
    CreateAppSchema,
    MeQuerySchema,
    MintedTokenSchema,
    MintTokenSchema,
    MyMatchesQuerySchema,
    MyMatchesSchema,
    PlayerListQuerySchema,
    PlayerListSchema,
    PlayerSchema,
    PutPlayerSchema,
    ReturnAnswerSchema,
    RevokedSchema,
    TokenListSchema,
)
from service.http.schemas.tournaments import (
    TournamentListQuerySchema,
    TournamentListSchema,
    TournamentSummarySchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

admin = Blueprint(
    "admin", __name__, url_prefix="/v1/admin", description="The operator's: apps (TABLETOP_ADMIN_TOKEN)"
)
players = Blueprint("players", __name__, url_prefix="/v1/players", description="An app's players and tokens")
me = Blueprint("me", __name__, url_prefix="/v1/me", description="A player's own: my matches")

ADMIN_ONLY = (401, "The admin token (TABLETOP_ADMIN_TOKEN) is required.")
APP_ONLY = (401, "The app key is required.")


def _admin() -> None:
    require_admin(current_caller(), bool(services().config.admin_token))


# -- apps -------------------------------------------------------------------------------------------


@admin.route("/apps", methods=["POST"])
@idempotent
@admin.arguments(CreateAppSchema())
@admin.response(201, AppWithKeySchema)
@admin.doc(operationId="createApp", security=REQUIRED_SEAT, responses=errors(ADMIN_ONLY, 404, 422))
def create_app(body: dict[str, Any]) -> Any:
    """Register an integration.  The answer holds its key, the only time it is shown (stored hashed).
    404 ``admin_disabled`` while TABLETOP_ADMIN_TOKEN is unset."""
    _admin()
    return services().accounts.create_app(body["name"], body["limits"]), 201


@admin.route("/apps", methods=["GET"])
@admin.response(200, AppListSchema)
@admin.doc(operationId="listApps", security=REQUIRED_SEAT, responses=errors(ADMIN_ONLY, 404))
def list_apps() -> dict[str, Any]:
    """Every app, active and revoked (never a key)."""
    _admin()
    return {"apps": services().accounts.apps()}


@admin.route("/apps/<app_id>", methods=["GET"])
@admin.response(200, AppSchema)
@admin.doc(operationId="getApp", security=REQUIRED_SEAT, responses=errors(ADMIN_ONLY, 404))
def get_app(app_id: str) -> dict[str, Any]:
    _admin()
    return services().accounts.app(app_id)


@admin.route("/apps/<app_id>/rotate", methods=["POST"])
@admin.response(200, AppWithKeySchema)
@admin.doc(operationId="rotateAppKey", security=REQUIRED_SEAT, responses=errors(ADMIN_ONLY, 404, 422))
def rotate_app_key(app_id: str) -> dict[str, Any]:
    """A new key for the app, shown once; the old key stops working at once."""
    _admin()
    return services().accounts.rotate_key(app_id)


@admin.route("/apps/<app_id>", methods=["DELETE"])
@admin.response(200, AppSchema)
@admin.doc(operationId="revokeApp", security=REQUIRED_SEAT, responses=errors(ADMIN_ONLY, 404))
def revoke_app(app_id: str) -> dict[str, Any]:
    """Revoke the app for good: its key and every token of its players stop working (its matches stay),
    and within 2 s everything of it that lives on stops: every open stream and long-poll of its key
    and its players' tokens ends (a stream's last line is `credential_revoked`, a long-poll answers
    401 `credential_revoked`), its webhook endpoints are disabled (`disabled_reason`: `app_revoked`;
    nothing more is sent), its running and scheduled tournaments are cancelled, its open seeks and
    challenges are closed (`cancelled`).  Revoking it again repeats all of it (a 503 midway: retry)."""
    _admin()
    return services().accounts.revoke_app(app_id)


# -- an app's tournaments (the operator's) -----------------------------------------------------------

APP_OR_TOURNAMENT = (404, "`not_found`: no such app; `tournament_not_found`: no such tournament of the app.")
TOURNAMENT_OVER = (409, "`tournament_over`: finished or cancelled already (`details.status`).")


@admin.route("/apps/<app_id>/tournaments", methods=["GET"])
@admin.arguments(TournamentListQuerySchema(), location="query")
@admin.response(200, TournamentListSchema)
@admin.doc(
    operationId="listAppTournaments", security=REQUIRED_SEAT, responses=errors(ADMIN_ONLY, 404, 422)
)
def list_app_tournaments(query: dict[str, Any], app_id: str) -> dict[str, Any]:
    """The app's tournaments, active app or revoked, newest first, as its own key lists them
    (``GET /v1/tournaments``): filter by `status`, follow `next` (as `after`)."""
    _admin()
    svc = services()
    svc.accounts.app(app_id)  # 404 for no such app
    found, cursor = svc.tournaments.list(
        app_caller(app_id), query.get("status"), query.get("after"), query["limit"]
    )
    return {"tournaments": found, "next": cursor}


@admin.route("/apps/<app_id>/tournaments/<tournament_id>/cancel", methods=["POST"])
@admin.response(200, TournamentSummarySchema)
@admin.doc(
    operationId="cancelAppTournament",
    security=REQUIRED_SEAT,
    responses=errors(ADMIN_ONLY, APP_OR_TOURNAMENT, TOURNAMENT_OVER),
)
def cancel_app_tournament(app_id: str, tournament_id: str) -> dict[str, Any]:
    """Stop one of the app's tournaments, as its own key would (``POST /v1/tournaments/{id}/cancel``):
    `cancelled`, its unfinished matches aborted, no new one made.  Revoking the app cancels them all."""
    _admin()
    svc = services()
    svc.accounts.app(app_id)
    return svc.tournaments.cancel(tournament_id, app_caller(app_id))


# -- players ----------------------------------------------------------------------------------------


@players.route("/<player_id>", methods=["PUT"])
@players.arguments(PutPlayerSchema())
@players.response(200, PlayerSchema)
@players.alt_response(201, schema=PlayerSchema, description="Created")
@players.doc(operationId="putPlayer", security=REQUIRED_SEAT, responses=errors(APP_ONLY, 413, 422))
def put_player(body: dict[str, Any], player_id: str) -> Any:
    """Name a player of the caller's app by the app's own id (idempotent: 201 when created, 200 when
    updated).  Its display name is what seats show."""
    doc, created = services().accounts.put_player(current_caller(), player_id, body["name"], body["bot"])
    return doc, 201 if created else 200


@players.route("", methods=["GET"])
@players.arguments(PlayerListQuerySchema(), location="query")
@players.response(200, PlayerListSchema)
@players.doc(operationId="listPlayers", security=REQUIRED_SEAT, responses=errors(APP_ONLY))
def list_players(query: dict[str, Any]) -> dict[str, Any]:
    """The caller's app's players by id; follow ``next_cursor`` (as ``after``)."""
    found, cursor = services().accounts.players(current_caller(), query.get("after"), query["limit"])
    return {"players": found, "next_cursor": cursor}


@players.route("/<player_id>", methods=["GET"])
@players.response(200, PlayerSchema)
@players.doc(operationId="getPlayer", security=REQUIRED_SEAT, responses=errors(APP_ONLY, 404))
def get_player(player_id: str) -> dict[str, Any]:
    return services().accounts.player(current_caller(), player_id)


@players.route("/<player_id>/tokens", methods=["POST"])
@idempotent
@players.arguments(MintTokenSchema())
@players.response(201, MintedTokenSchema)
@players.doc(operationId="createPlayerToken", security=REQUIRED_SEAT, responses=errors(APP_ONLY, 404, 422))
def create_player_token(body: dict[str, Any], player_id: str) -> Any:
    """A token for the player's client: it acts for the player's seats in every match, within its
    ``scopes``, until ``expires_in`` seconds pass or it is revoked.  Shown only here."""
    doc = services().accounts.mint_token(current_caller(), player_id, body["scopes"], body.get("expires_in"))
    return doc, 201


@players.route("/<player_id>/tokens", methods=["GET"])
@players.response(200, TokenListSchema)
@players.doc(operationId="listPlayerTokens", security=REQUIRED_SEAT, responses=errors(APP_ONLY, 404))
def list_player_tokens(player_id: str) -> dict[str, Any]:
    """The player's live tokens: ids, scopes and expiry (never a token)."""
    return {"tokens": services().accounts.tokens(current_caller(), player_id)}


@players.route("/<player_id>/tokens/<token_id>", methods=["DELETE"])
@players.response(204)
@players.doc(operationId="revokePlayerToken", security=REQUIRED_SEAT, responses=errors(APP_ONLY, 404))
def revoke_player_token(player_id: str, token_id: str) -> Response:
    """The token stops working at once."""
    services().accounts.revoke_token(current_caller(), player_id, token_id)
    return Response(status=204)


@players.route("/<player_id>/tokens", methods=["DELETE"])
@players.response(200, RevokedSchema)
@players.doc(operationId="revokePlayerTokens", security=REQUIRED_SEAT, responses=errors(APP_ONLY, 404))
def revoke_player_tokens(player_id: str) -> dict[str, Any]:
    """Every token of the player stops working (a lost phone, a logout everywhere)."""
    return {"revoked": services().accounts.revoke_tokens(current_caller(), player_id)}


# -- me ---------------------------------------------------------------------------------------------


@me.route("", methods=["GET"])
@me.arguments(MeQuerySchema(), location="query")
@me.response(200, PlayerSchema)
@me.doc(operationId="getMe", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def get_me(query: dict[str, Any]) -> dict[str, Any]:
    """The player a player token speaks for (or the one an app key names with ``player``)."""
    svc = services()
    key = svc.accounts.me(current_caller(), READ, query.get("player"))
    app, _, player = key.partition(":")
    return player_document(svc.accounts.stored_player(app, player))


@me.route("/matches", methods=["GET"])
@me.arguments(MyMatchesQuerySchema(), location="query")
@me.response(200, MyMatchesSchema)
@me.doc(operationId="listMyMatches", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def list_my_matches(query: dict[str, Any]) -> dict[str, Any]:
    """The player's matches, newest first: each one's status, the player's seat, who is to move,
    ``my_turn``, the deadline, the version and the last change, and the result once over (finished
    matches are listed until their retention ends).  Filter by ``game``, ``status``, ``my_turn`` and
    ``away`` (``?game=china&status=finished`` exports a player's results; ``?away=true`` lists the seats
    a bot plays while you are away); follow ``next_cursor``.  A filtered
    page may hold fewer than ``limit`` matches and still have a cursor.

    A player token lists its own player's matches; an app key names a player with ``player``."""
    svc = services()
    key = svc.accounts.me(current_caller(), READ, query.get("player"))
    limit = query.get("limit", svc.config.page_size)
    before = int(query["cursor"]) if "cursor" in query else None
    found, cursor = svc.matches.my_matches(
        key, query.get("status"), query.get("my_turn"), before, limit, query.get("game"), query.get("away")
    )
    return {"matches": found, "next_cursor": None if cursor is None else str(cursor)}


@me.route("/return", methods=["POST"])
@me.arguments(MeQuerySchema(), location="query")
@me.response(200, ReturnAnswerSchema)
@me.doc(operationId="returnEverywhere", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def return_everywhere(query: dict[str, Any]) -> dict[str, Any]:
    """Come back to every seat of yours that is away (a bot played it after too many timeouts), in
    every active match at once: what `POST /v1/matches/{id}/return` does for one.  Each seat returned
    is listed with the match's version after the return (everyone's match stream gets a
    `seat_returned` event, and the clock of a decision of yours runs from now); none away is an
    empty list.  A bot restarting after an outage calls this once, then reads its pending
    decisions (`GET /v1/me/matches?my_turn=true`).

    A player token (scope `play`) returns its own player; an app key names the player with
    `player`."""
    svc = services()
    key = svc.accounts.me(current_caller(), PLAY, query.get("player"))
    return {"returned": svc.matches.return_everywhere(key)}
