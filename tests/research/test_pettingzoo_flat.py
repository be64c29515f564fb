"""The PettingZoo environments' feature and flat ``Box`` observations, under the real SuperSuit wrappers."""

from __future__ import annotations

import numpy as np
import pytest
import supersuit as ss
from gymnasium import spaces
from pettingzoo.test import api_test

from engine.registry import GAMES
from research.actions import codec
from research.features import spec
from research.pettingzoo_env import env
from tests.research.conftest import GAME_IDS


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_flat_feature_observations_keep_the_pettingzoo_api(game_id):
    api_test(env(game_id, 3, observation="features", flat_observation=True), num_cycles=150)


def test_feature_observations_in_the_dict_form():
    e = env("year_of_dragon", 2, observation="features")
    e.reset(seed=3)
    obs = e.observe(e.agent_selection)
    assert set(obs) == {"observation", "action_mask"}
    seat = e.possible_agents.index(e.agent_selection)
    assert np.array_equal(
        obs["observation"], spec("year_of_dragon").encode(GAMES["year_of_dragon"].view(e.state, seat), seat)
    )


def test_flat_masks_travel_in_infos_and_match_the_legal_actions():
    game = GAMES["china"]
    e = env("china", 3, observation="features", flat_observation=True)
    assert e.observation_space("player_0") == spaces.Box(0.0, 1.0, (spec("china").size,), np.float32)
    e.reset(seed=6)
    rng = np.random.default_rng(6)
    for agent in e.agent_iter(300):
        obs, _, terminated, truncated, info = e.last()
        assert obs.shape == (spec("china").size,)
        if terminated or truncated:
            e.step(None)
            continue
        legal = codec(game).encode_all(game.legal_actions(e.state))
        assert np.flatnonzero(info["action_mask"]).tolist() == legal
        others = [a for a in e.agents if a != agent]
        assert not any(e.infos[a]["action_mask"].any() for a in others)
        e.step(int(rng.choice(legal)))


def test_supersuit_observation_wrappers_apply():
    """normalize_obs (needs finite bounds: the features'), dtype and frame_stack, stacked, on the flat
    observations: the shapes, dtype and range are what the wrappers promise, and the newest frame is
    the environment's own observation, rescaled."""
    base = env("confucius", 3, observation="features", flat_observation=True)
    size = spec("confucius").size
    wrapped = ss.frame_stack_v1(
        ss.dtype_v0(ss.normalize_obs_v0(base, env_min=-1.0, env_max=1.0), np.float16), 3
    )
    assert wrapped.observation_space("player_1").shape == (3 * size,)
    wrapped.reset(seed=2)
    for agent in wrapped.agent_iter(120):
        obs, _, terminated, truncated, info = wrapped.last()
        assert obs.dtype == np.float16 and obs.shape == (3 * size,)
        assert obs.min() >= -1.0 and obs.max() <= 1.0
        newest = base.observe(agent) * 2.0 - 1.0
        assert np.allclose(obs[-size:].astype(np.float32), newest, atol=1e-2)
        wrapped.step(None if terminated or truncated else int(np.flatnonzero(info["action_mask"])[0]))
    hashed = env("confucius", 3, flat_observation=True)
    stacked = ss.frame_stack_v1(ss.dtype_v0(hashed, np.float32), 2)  # the hashed Box stacks too
    assert stacked.observation_space("player_0").shape == (
        2 * (hashed.observation_space("player_0").shape[0]),
    )


def test_a_bad_observation_option_is_refused():
    with pytest.raises(ValueError, match="observation"):
        env("china", 3, observation="pixels")
