"""Game parameters survive Shimmy's OpenSpiel environment (issue 46), which reloads a game by its short
name on every reset: the short name of a game with non-default parameters is its full game string."""

from __future__ import annotations

import numpy as np
import pyspiel
from shimmy.openspiel_compatibility import OpenSpielCompatibilityV0

from research.openspiel_game import load, short_name


def test_short_name_reloads_the_same_game():
    assert load("china").get_type().short_name == short_name("china")  # defaults: the registered name
    game = load("year_of_dragon", players=4, large_privilege_cost=7, seed=9)
    again = pyspiel.load_game(game.get_type().short_name)
    assert str(again) == str(game)
    assert again.new_initial_state().observation_string(0) == game.new_initial_state().observation_string(0)


def test_shimmy_keeps_players_options_and_seed_across_resets():
    game = load("year_of_dragon", players=4, large_privilege_cost=7, seed=9)
    env = OpenSpielCompatibilityV0(env=game)
    expected = np.asarray(game.new_initial_state().observation_tensor(0))
    rng = np.random.default_rng(0)
    for _ in range(2):  # each reset reloads the game by its short name
        env.reset()
        assert str(env._env) == str(game)
        assert env.possible_agents == [f"player_{i}" for i in range(4)]
        assert np.array_equal(env.observe("player_0"), expected)  # seed 9's deal: the seed survived too
        for _agent in env.agent_iter(30):
            _, _, terminated, truncated, info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))


def test_the_observation_form_survives_a_reload():
    game = load("taj_mahal", players=4, observation="features")
    again = pyspiel.load_game(game.get_type().short_name)
    size = again.observation_tensor_size()
    assert size == game.observation_tensor_size() != load("taj_mahal").observation_tensor_size()
