"""The components built from the games alone, registered before the blueprints register theirs: the
security scheme, each game's (:mod:`service.http.spec.games`), the service's events, and the unions
across games:

``Action`` (anyOf the games' unions: what a move sends), ``GameView`` (oneOf by ``game``: move
results carry a view, whose ``game`` tells which), ``GameResult``, ``Event`` and the stream's lines
(:mod:`service.http.spec.stream`).
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from engine.core import Game
from service.http.spec.events import register_service_events
from service.http.spec.games import register_game
from service.http.spec.refs import one_of, pascal, ref
from service.http.spec.security import register_scheme
from service.http.spec.stream import register_stream_lines


def register_components(spec: APISpec, games: dict[str, Game]) -> None:
    """Components built from the games alone (before the blueprints register theirs)."""
    register_scheme(spec)
    for gid in sorted(games):
        register_game(spec, gid, games[gid])
    register_service_events(spec)
    spec.components.schema("Action", component=_across(games, "Action", "An action of the match's game."))
    views = {gid: f"{pascal(gid)}View" for gid in sorted(games)}
    spec.components.schema(
        "GameView", component=one_of(views, "game", "The game state as the caller may see it.")
    )
    spec.components.schema(
        "GameResult",
        component=_across(games, "Result", "Scores, ranking and tie-break of a finished match."),
    )
    spec.components.schema("Event", component=_across(games, "Event", "An event of a match."))
    register_stream_lines(spec)


def _across(games: dict[str, Game], suffix: str, description: str) -> dict[str, Any]:
    """anyOf every game's ``<G><suffix>``: the part of a document any game may fill."""
    return {"description": description, "anyOf": [ref(f"{pascal(gid)}{suffix}") for gid in sorted(games)]}
