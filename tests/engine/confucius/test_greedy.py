"""The greedy bot (one-ply search on GAME.heuristic) against random opponents (issue 7)."""

from __future__ import annotations

import random

import pytest

from engine.ai.simple import greedy_action, random_action
from engine.registry import get_game

GAMES, PLAYERS, TARGET = 200, 4, 0.70


@pytest.mark.slow
def test_greedy_beats_random_in_70_percent_of_games():
    """Greedy (seat = game number % 4) finishes first (ranking[0], R110-R112) in at least 70% of 200
    seeded 4-player games against three random players."""
    game = get_game("confucius")
    wins = 0
    for number in range(GAMES):
        state = game.setup(PLAYERS, None, seed=number)
        rng = random.Random(number)
        greedy = number % PLAYERS
        while (seat := game.to_move(state)) is not None:
            bot = greedy_action if seat == greedy else random_action
            game.apply(state, bot(game, state, rng))
        wins += game.result(state)["ranking"][0] == greedy
    rate = wins / GAMES
    print(f"greedy win rate against random: {rate:.1%} ({wins}/{GAMES})")
    assert rate >= TARGET
