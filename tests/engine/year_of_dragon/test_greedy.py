"""Bot strength: greedy (one ply on GAME.heuristic) against random opponents."""

from __future__ import annotations

import random

import pytest

from engine.ai.simple import greedy_action, random_action
from engine.games.year_of_dragon import GAME

GAMES = 200
PLAYERS = 3


def greedy_wins(game_number: int) -> bool:
    """One seeded 3-player game, greedy in seat ``game_number % 3``: does greedy rank first?"""
    state = GAME.setup(PLAYERS, None, seed=game_number)
    rng = random.Random(game_number)
    greedy_seat = game_number % PLAYERS
    while (seat := GAME.to_move(state)) is not None:
        bot = greedy_action if seat == greedy_seat else random_action
        GAME.apply(state, bot(GAME, state, rng))
    return GAME.result(state)["ranking"][0] == greedy_seat


@pytest.mark.slow
def test_greedy_beats_random():
    """Greedy wins at least 70% of 200 seeded 3-player games against two random players."""
    wins = sum(greedy_wins(g) for g in range(GAMES))
    print(f"greedy win rate vs random (year_of_dragon, {PLAYERS} players): {wins / GAMES:.1%} of {GAMES}")
    assert wins >= 0.7 * GAMES
