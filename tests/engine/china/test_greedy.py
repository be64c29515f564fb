"""Greedy (one ply on GAME.heuristic) against three random bots in 4-player games."""

from __future__ import annotations

import random

import pytest

from engine.ai.simple import greedy_action, random_action

from .helpers import GAME

GAMES = 200
PLAYERS = 4


def greedy_wins(game_number: int) -> bool:
    """One seeded game; the greedy seat rotates with the game number."""
    greedy = game_number % PLAYERS
    state = GAME.setup(PLAYERS, None, seed=game_number)
    rng = random.Random(game_number)
    while (seat := GAME.to_move(state)) is not None:
        bot = greedy_action if seat == greedy else random_action
        GAME.apply(state, bot(GAME, state, rng))
    return GAME.result(state)["ranking"][0] == greedy


@pytest.mark.slow
def test_greedy_beats_random():
    """Greedy wins (ranking[0]) at least 70% of 200 seeded 4-player games against random opponents."""
    wins = sum(greedy_wins(g) for g in range(GAMES))
    print(f"china greedy win rate vs 3 random: {wins / GAMES:.1%} ({wins}/{GAMES})")
    assert wins >= 0.7 * GAMES
