"""Bot strength: greedy (one ply on GAME.heuristic) against 2 random players."""

import pytest

from engine.registry import get_game
from tests.engine.support import greedy_wins

GAMES, PLAYERS = 200, 3


@pytest.mark.slow
def test_greedy_beats_random_in_70_percent_of_games():
    """Greedy wins (ranking[0]) at least 70% of 200 seeded 3-player games; its seat rotates."""
    wins = greedy_wins(get_game("year_of_dragon"), PLAYERS, GAMES)
    print(f"year_of_dragon: greedy wins {wins / GAMES:.1%} ({wins}/{GAMES}) against 2 random players")
    assert wins >= 0.70 * GAMES
