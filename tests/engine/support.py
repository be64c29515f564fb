"""Test helpers shared by every game's tests: refusal checks and the greedy-versus-random tournament."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.ai.simple import greedy_action, random_action
from engine.core import Game, IllegalAction


def assert_refused(game: Game, state: Any, action: Any, rule: str, seat: int | None = None) -> IllegalAction:
    """Assert ``action`` is refused naming ``rule`` and leaves ``state`` unchanged (byte for byte)."""
    before = game.encode(state)
    with pytest.raises(IllegalAction) as info:
        game.apply(state, action, seat)
    assert info.value.rule == rule, info.value
    assert game.encode(state) == before, "a refused action changed the state"
    return info.value


def greedy_wins(game: Game, players: int, games: int) -> int:
    """How many of ``games`` seeded games the greedy bot wins (ranking[0]) against random bots.

    Game ``g`` uses seed ``g`` and puts greedy in seat ``g % players``, so every seat is tried.
    """
    wins = 0
    for g in range(games):
        state = game.setup(players, None, seed=g)
        rng = random.Random(g)
        greedy = g % players
        while (seat := game.to_move(state)) is not None:
            bot = greedy_action if seat == greedy else random_action
            game.apply(state, bot(game, state, rng))
        wins += game.result(state)["ranking"][0] == greedy
    return wins
