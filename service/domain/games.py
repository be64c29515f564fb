"""A request's game, player count and options, checked against the registered games once for every
operation that names them (a match's creation, a seek, a challenge, a tournament, a seek listing).

The checks answer 422 naming the request's field (:func:`service.domain.errors.invalid`): a game named in
a body or a query is a value to correct.  A game named in a path (``/v1/games/<id>``, a leaderboard)
is a resource, and its lookup answers 404 instead (:meth:`service.domain.matches.reading.MatchReading.game`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import Game, InvalidOptions, check_players, resolve_options
from service.domain.errors import invalid


def known_game(games: Mapping[str, Game], game_id: str) -> Game:
    """The game ``game_id`` names, or a 422 on ``game`` listing the known ones."""
    game = games.get(game_id)
    if game is None:
        raise invalid("game", f"unknown game {game_id!r}; known: {sorted(games)}")
    return game


def check_count(game: Game, players: Any, field: str) -> None:
    """Refuse a player count the game does not take, as a 422 on ``field`` (the request's name for it:
    ``players``, or ``seats`` for a match's creation)."""
    try:
        check_players(game, players)
    except InvalidOptions as exc:
        raise invalid(field, exc.message) from None


def checked_options(game: Game, options: dict[str, Any] | None) -> dict[str, Any]:
    """``options`` checked against the game's option schema, defaults filled in (what two requests that
    mean the same options compare equal by), or a 422 on ``options.<name>``."""
    try:
        return resolve_options(game.options, options or {})
    except InvalidOptions as exc:
        raise invalid(f"options.{exc.field}", exc.message) from None


def checked_terms(
    games: Mapping[str, Game], game_id: str, players: Any, options: dict[str, Any] | None, players_field: str
) -> tuple[Game, dict[str, Any]]:
    """The game, checked player count and resolved options of a request (:func:`known_game`,
    :func:`check_count`, :func:`checked_options`, in that order: the first fault is the one answered)."""
    game = known_game(games, game_id)
    check_count(game, players, players_field)
    return game, checked_options(game, options)
