"""Bot strength: greedy (one ply on GAME.heuristic) against 3 random players."""

import pytest

from engine.registry import get_game
from tests.engine.support import greedy_wins

GAMES, PLAYERS = 200, 4


@pytest.mark.slow
def test_greedy_beats_random_in_70_percent_of_games():
    """Greedy wins (ranking[0]) at least 70% of 200 seeded 4-player games; its seat rotates."""
    wins = greedy_wins(get_game("china"), PLAYERS, GAMES)
    print(f"china: greedy wins {wins / GAMES:.1%} ({wins}/{GAMES}) against 3 random players")
    assert wins >= 0.70 * GAMES
