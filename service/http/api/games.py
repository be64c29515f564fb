"""The game catalogue: what can be played, with which options and actions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Response, url_for

from engine.core import Game
from service.http.api import Blueprint
from service.http.context import services
from service.http.errors import not_found
from service.http.schemas.games import GameListSchema, GameSchema
from service.http.spec.responses import errors

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="Registered games")


def _summary(game: Game) -> dict[str, Any]:
    return {
        "id": game.id,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "rules_url": url_for("games.rules", game_id=game.id),
    }


@blp.route("")
@blp.response(200, GameListSchema)
@blp.doc(operationId="listGames")
def list_games() -> dict[str, Any]:
    """Every registered game."""
    games = services().matches.games
    return {"games": [_summary(games[gid]) for gid in sorted(games)]}


@blp.route("/<game_id>")
@blp.response(200, GameSchema)
@blp.doc(operationId="getGame", responses=errors(404))
def get_game(game_id: str) -> dict[str, Any]:
    """Player counts, options with defaults, the JSON schema of every action type, the board as data
    (for clients to draw), and what in the game's component data is reconstructed."""
    game = services().matches.game(game_id)
    # A game registered without data_notes claims nothing reconstructed.
    notes = getattr(game, "data_notes", ())
    return {
        **_summary(game),
        "options": game.options,
        "actions": game.actions,
        "board": game.board,
        "data_notes": list(notes),
    }


@blp.route("/<game_id>/rules")
@blp.response(200, content_type="text/markdown", description="The game's RULES.md")
@blp.doc(
    operationId="getGameRules",
    responses={200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}, **errors(404)},
)
def rules(game_id: str) -> Response:
    """The complete rules the engine implements (rule ids in errors refer to them)."""
    path = Path(services().matches.game(game_id).rules_file)
    if not path.is_file():
        raise not_found(f"rules of {game_id!r}")
    return Response(path.read_text(encoding="utf-8"), mimetype="text/markdown")
