"""The PettingZoo AEC environments: PettingZoo's own API and seed tests, and the masks and rewards."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from engine.registry import GAMES
from research.actions import codec
from research.pettingzoo_env import env
from tests.research.conftest import GAME_IDS, option_sets


def _cases():
    return [
        (gid, n, opts)
        for gid in GAME_IDS
        for n in (GAMES[gid].min_players, GAMES[gid].max_players)
        for opts in option_sets(GAMES[gid])
    ]


@pytest.mark.parametrize(("game_id", "players", "options"), _cases())
def test_pettingzoo_api_test_passes(game_id, players, options):
    api_test(env(game_id, players, options, render_mode="ansi"), num_cycles=1000)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_pettingzoo_seed_test_passes(game_id):
    seed_test(lambda: env(game_id, 3), num_cycles=30)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_masks_are_the_legal_actions_and_a_game_ends_with_zero_sum_rank_rewards(game_id):
    e = env(game_id, 3)
    e.reset(seed=4)
    game = GAMES[game_id]
    c = codec(game)
    rng = np.random.default_rng(4)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter(5000):
        obs, reward, terminated, truncated, _ = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        seat = e.possible_agents.index(agent)
        assert game.to_move(e.state) == seat
        legal = sorted(c.encode(a) for a in game.legal_actions(e.state))
        assert np.flatnonzero(obs["action_mask"]).tolist() == legal
        for other in e.possible_agents:
            if other != agent:
                assert not e.observe(other)["action_mask"].any()
        e.step(int(rng.choice(legal)))
    assert not e.agents
    assert sorted(totals.values()) == [-1.0, 0.0, 1.0]


def test_an_illegal_action_is_refused():
    e = env("china", 3)
    e.reset(seed=1)
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        e.step(illegal)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_an_episode_past_max_steps_is_truncated(game_id):
    """Every agent is truncated (not terminated, reward 0, empty masks) after ``max_steps`` decisions."""
    e = env(game_id, 3, max_steps=12)
    e.reset(seed=2)
    made = 0
    for _agent in e.agent_iter(1000):
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            assert truncated and not terminated and reward == 0.0
            assert info == {"truncated_after": 12} and not obs["action_mask"].any()
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        made += 1
    assert made == 12 and not e.agents
    assert GAMES[game_id].to_move(e.state) is not None  # the game itself was not over


def test_truncation_keeps_the_pettingzoo_api():
    api_test(env("confucius", 3, max_steps=7), num_cycles=100)


def test_the_default_limit_is_the_game_bound():
    for gid in GAME_IDS:
        game = GAMES[gid]
        for n in (game.min_players, game.max_players):
            assert env(gid, n).max_steps == game.max_decisions(n)
    with pytest.raises(ValueError, match="max_steps"):
        env("china", 3, max_steps=0)
