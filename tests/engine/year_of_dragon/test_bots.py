"""The baseline bots of engine/ai over the generic contract: every move they pick is legal, and they play
any player count and option set to the end."""

from __future__ import annotations

import random

import pytest

from engine.ai.simple import greedy_action, random_action
from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.scenario import build


@pytest.mark.parametrize(
    ("players", "options"),
    [(2, {}), (3, {"reveal_played_card": False}), (4, {"large_privilege_cost": 7}), (5, {})],
)
def test_bots_play_to_the_end(players, options):
    """Greedy in seat 0, random elsewhere; each chosen action is in legal_actions (R23-R46 via the
    engine), and the game ends with a total ranking (R53, R55a)."""
    state = GAME.setup(players, options, seed=players)
    rng = random.Random(players)
    while (seat := GAME.to_move(state)) is not None:
        action = (greedy_action if seat == 0 else random_action)(GAME, state, rng)
        assert action in GAME.legal_actions(state)
        GAME.apply(state, action, seat=seat)
    result = GAME.result(state)
    assert sorted(result["ranking"]) == list(range(players))


def test_heuristic_prefers_the_better_state():
    """The greedy heuristic rises one for one with a seat's VP, all else equal, and falls for the others."""
    plain = build({"players": 3, "round": 4})
    richer = build({"players": 3, "round": 4, "seats": [{"vp": 5}, {}, {}]})
    assert GAME.heuristic(richer, 0) == pytest.approx(GAME.heuristic(plain, 0) + 5)
    assert GAME.heuristic(richer, 1) < GAME.heuristic(plain, 1)
