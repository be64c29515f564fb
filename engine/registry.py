"""Game id -> game object.  A game listed here is playable over HTTP and by every bot."""

from __future__ import annotations

from importlib import import_module

from engine.core import Game

# Module of each registered game; each module exposes ``GAME``.
_MODULES: dict[str, str] = {
    "taj_mahal": "engine.games.taj_mahal",
    "china": "engine.games.china",
    "year_of_dragon": "engine.games.year_of_dragon",
    "confucius": "engine.games.confucius",
}

GAMES: dict[str, Game] = {gid: import_module(mod).GAME for gid, mod in _MODULES.items()}


def get_game(game_id: str) -> Game:
    """The game registered as ``game_id``; ``KeyError`` names the known ids otherwise."""
    try:
        return GAMES[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r}; known: {sorted(GAMES)}") from None
