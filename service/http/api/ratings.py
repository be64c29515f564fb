"""Ratings and leaderboards (issue 27 points 1 and 2): an app's boards per game, a player's ratings.

Both read with the app's key or any of its players' tokens (``read``): a player sees where everyone
of its app stands, as on a public ladder; nothing of another app."""

from __future__ import annotations

from typing import Any

from service.domain.ratings import reader_app
from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.schemas.ratings import LeaderboardQuerySchema, LeaderboardSchema, PlayerRatingsSchema
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "ratings",
    __name__,
    url_prefix="/v1",
    description="Ratings and leaderboards",
)

CREDENTIAL = (401, "An app key or one of its players' tokens is required.")


@blp.route("/games/<game_id>/leaderboard", methods=["GET"])
@blp.arguments(LeaderboardQuerySchema(), location="query")
@blp.response(200, LeaderboardSchema)
@blp.doc(operationId="getLeaderboard", security=REQUIRED_SEAT, responses=errors(CREDENTIAL, 403, 404, 422))
def get_leaderboard(query: dict[str, Any], game_id: str) -> dict[str, Any]:
    """The caller's app's leaderboard of a game, best first by ordinal (`mu - 3 sigma`), equal
    ordinals sharing a rank; `pool` `people` (default) or `bots` (the app's bot players and the four
    built-in levels, there from the start).  Follow `next_cursor` for the next page: a page never
    skips or repeats a player while ratings change."""
    svc = services()
    app = reader_app(current_caller())
    svc.matches.game(game_id)
    limit = query.get("limit", svc.config.page_size)
    rows, cursor = svc.ratings.leaderboard(app, game_id, query["pool"], query.get("cursor"), limit)
    return {"game": game_id, "pool": query["pool"], "players": rows, "next_cursor": cursor}


@blp.route("/players/<player_id>/ratings", methods=["GET"])
@blp.response(200, PlayerRatingsSchema)
@blp.doc(operationId="getPlayerRatings", security=REQUIRED_SEAT, responses=errors(CREDENTIAL, 403, 404))
def get_player_ratings(player_id: str) -> dict[str, Any]:
    """A player's ratings in each game it was rated in (mu, sigma, ordinal, matches, rank on its
    pool's board) with its recent rated matches: when, its place, its ordinal before and after.
    `builtin:<level>` names a built-in bot level, `builtin:<level>@<think_ms>` one at another think
    budget."""
    svc = services()
    app = reader_app(current_caller())
    return svc.ratings.player_ratings(
        app, player_id, sorted(svc.matches.games), svc.accounts.store.player
    )
