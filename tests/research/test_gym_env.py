"""The Gymnasium single-agent environments (research.gym_env): Gymnasium's own checker, the masks, the
opponents, seeding, illegal actions and the vectorised form."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from engine.registry import GAMES
from research.actions import codec
from research.features import spec
from research.gym_env import ENV_IDS, TabletopGymEnv
from research.observation import tensor_size
from tests.research.conftest import GAME_IDS


def _play(env, rng, limit=400):
    """Random legal play from a reset until the episode ends (or ``limit`` steps); the rewards."""
    obs, info = env.reset(seed=int(rng.integers(1 << 30)))
    rewards = []
    for _ in range(limit):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            break
    return obs, rewards, info


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_gymnasium_check_env_passes(game_id):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make(ENV_IDS[game_id], opponents=["easy", "random"]).unwrapped)
        check_env(gym.make(ENV_IDS[game_id], observation="hashed").unwrapped)
    # The hashed tensor is unbounded (raw counts), which the checker only remarks on.
    assert all("infinity" in str(w.message) for w in caught), [str(w.message) for w in caught]


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_mask_is_the_learners_legal_actions_and_the_game_ends_with_its_rank_return(game_id):
    game = GAMES[game_id]
    env = TabletopGymEnv(game_id, players=3, seat=1, opponents=["easy", "random"])
    assert env.observation_space.shape == (spec(game_id).size,)
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(11)
    steps = 0
    while True:
        assert game.to_move(env.state) == 1  # the learner only ever sees its own decisions
        legal = codec(game).encode_all(game.legal_actions(env.state))
        assert np.flatnonzero(info["action_mask"]).tolist() == legal
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        assert np.array_equal(obs, spec(game_id).encode(game.view(env.state, 1), 1))
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        steps += 1
        if terminated:
            break
        assert reward == 0.0 and not truncated
    ranking = info["result"]["ranking"]
    assert reward == 1.0 - ranking.index(1)  # 3 players: first +1, second 0, last -1
    assert not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    assert steps > 5


def test_a_callable_opponent_sees_its_own_seat_and_mask():
    calls = []

    def first_legal(observation, info):
        calls.append((observation.shape, int(info["action_mask"].sum()), len(info["legal_actions"])))
        return int(info["legal_actions"][0])

    env = TabletopGymEnv("year_of_dragon", players=2, opponents=first_legal, observation="hashed")
    _play(env, np.random.default_rng(2))
    assert calls
    size = tensor_size(GAMES["year_of_dragon"])
    assert all(shape == (size,) and masked == legal > 0 for shape, masked, legal in calls)


def test_a_seed_reproduces_the_deal_the_seat_and_the_opponents():
    def trajectory(env, seed):
        obs, info = env.reset(seed=seed)
        seen = [env.seat, obs.tobytes()]
        for _ in range(40):
            obs, reward, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            seen += [obs.tobytes(), reward]
            if terminated:
                break
        return [*seen, GAMES["china"].encode(env.state)]

    a = TabletopGymEnv("china", players=4, seat=None, opponents=["easy", "random", "easy"])
    b = TabletopGymEnv("china", players=4, seat=None, opponents=["easy", "random", "easy"])
    assert trajectory(a, 9) == trajectory(b, 9)
    assert trajectory(a, 9) != trajectory(a, 10)
    seats = set()
    for s in range(12):
        a.reset(seed=s)
        seats.add(a.seat)
    assert len(seats) > 1  # seat=None draws the learner's seat per episode


def test_an_illegal_action_loses_or_raises():
    env = TabletopGymEnv("confucius")
    _, info = env.reset(seed=3)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, illegal)
    strict = TabletopGymEnv("confucius", illegal_action="raise")
    strict.reset(seed=3)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="opponent level 'grandmaster'"):
        TabletopGymEnv("china", opponents="grandmaster")
    with pytest.raises(ValueError, match="one for each of the 2 other seats"):
        TabletopGymEnv("china", opponents=["easy", "easy", "easy"])
    with pytest.raises(ValueError, match="seat"):
        TabletopGymEnv("china", seat=3)
    with pytest.raises(ValueError, match="observation"):
        TabletopGymEnv("china", observation="pixels")


def test_the_vectorised_form_steps_every_copy():
    envs = gym.make_vec(ENV_IDS["taj_mahal"], num_envs=3, vectorization_mode="sync", opponents="random")
    obs, info = envs.reset(seed=7)
    assert obs.shape == (3, spec("taj_mahal").size)
    assert info["action_mask"].shape == (3, codec(GAMES["taj_mahal"]).num_actions)
    rng = np.random.default_rng(7)
    finished = 0
    for _ in range(150):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in info["action_mask"]]
        obs, rewards, terminated, truncated, info = envs.step(np.array(actions))
        assert obs.shape[0] == 3 and ((rewards == 0) | terminated).all() and not truncated.any()
        finished += int(terminated.sum())
    masks = envs.call("action_masks")
    assert len(masks) == 3 and all(m.dtype == bool for m in masks)
    envs.close()
    assert finished >= 3  # each copy finished a game and went on (autoreset)
