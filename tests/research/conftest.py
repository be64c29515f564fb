"""Shared helpers of the research-adapter tests: option sets and random playouts."""

from __future__ import annotations

import random
from typing import Any

from engine.core import Game
from engine.registry import GAMES

GAME_IDS = sorted(GAMES)


def option_sets(game: Game) -> list[dict[str, Any]]:
    """The default options, and one set with every boolean flipped and every enum at another value, so
    each option is exercised away from its default at least once."""
    flipped: dict[str, Any] = {}
    for name, spec in game.options.get("properties", {}).items():
        if spec.get("type") == "boolean":
            flipped[name] = not spec.get("default", False)
        elif "enum" in spec:
            others = [v for v in spec["enum"] if v != spec.get("default")]
            if others:
                flipped[name] = others[0]
    return [{}, flipped] if flipped else [{}]


def configurations() -> list[tuple[str, int, dict[str, Any]]]:
    """Every game x player count x option set."""
    return [
        (gid, n, opts)
        for gid in GAME_IDS
        for n in range(GAMES[gid].min_players, GAMES[gid].max_players + 1)
        for opts in option_sets(GAMES[gid])
    ]


def random_playout(game: Game, players: int, options: dict[str, Any], seed: int) -> list[Any]:
    """The states of a uniformly random game, start to end (each a clone)."""
    rng = random.Random(seed)
    state = game.setup(players, options, seed=seed)
    states = [game.clone(state)]
    while game.to_move(state) is not None:
        game.apply(state, rng.choice(game.legal_actions(state)))
        states.append(game.clone(state))
    return states
