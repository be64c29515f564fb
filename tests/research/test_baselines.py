"""The server's bot levels as offline baselines (issue 46 point 6): OpenSpiel bots that ``evaluate_bots``
plays to the end, decisions legal and decided from the seat's information only, reproducible from a seed;
the PettingZoo policy; a learner's policy seated among them; and a smoke run of ``bench.strength
--agent``."""

from __future__ import annotations

import json
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

from bench import strength
from engine.ai import LEVELS
from engine.registry import GAMES
from research.baselines import Baseline, BaselinePolicy, PolicyBot, features_of, make_bot
from research.features import spec
from research.openspiel_game import load
from research.pettingzoo_env import env as pz_env
from tests.research.conftest import GAME_IDS

#: The search levels on a token budget: enough to exercise the search, cheap enough for CI.
ITERATIONS = 2


class Checked(pyspiel.Bot):
    """Delegates to a bot and records every decision, checking it against the legal actions."""

    def __init__(self, bot: pyspiel.Bot) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self.moves: list[int] = []
        self.illegal: list[int] = []

    def restart_at(self, state):
        self.bot.restart_at(state)

    def inform_action(self, state, player_id, action):
        self.bot.inform_action(state, player_id, action)

    def step(self, state):
        action = self.bot.step(state)
        if action not in state.legal_actions():
            self.illegal.append(action)
        self.moves.append(action)
        return action


def play(game_id: str, levels: list[str], seed: int, deal: int = 11) -> tuple[list[float], list[Checked]]:
    game = load(game_id, players=len(levels), seed=deal)
    bots = [Checked(make_bot(game, s, lv, seed + s, iterations=ITERATIONS)) for s, lv in enumerate(levels)]
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(0))
    assert state.is_terminal() and GAMES[game_id].result(state.engine_state) is not None
    return returns, bots


@pytest.mark.parametrize("game_id", GAME_IDS)
@pytest.mark.parametrize("level", LEVELS)
def test_evaluate_bots_plays_each_level_to_the_end_with_legal_moves(game_id, level):
    returns, bots = play(game_id, [level, "random", "easy"], seed=3)
    assert sorted(returns) == [-1.0, 0.0, 1.0]  # a finished game's rank returns, one place each
    assert bots[0].moves and bots[0].illegal == []
    assert all(b.illegal == [] for b in bots)


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_seed_replays_the_same_decisions(level):
    """The server's bot is a function of its generator (the search levels on an iteration budget), so a
    seeded baseline replays; another seed plays another game."""
    _, first = play("year_of_dragon", [level, level, "random"], seed=7)
    _, again = play("year_of_dragon", [level, level, "random"], seed=7)
    assert [b.moves for b in first] == [b.moves for b in again]
    if level == "random":
        _, other = play("year_of_dragon", [level, level, "random"], seed=8)
        assert [b.moves for b in other] != [b.moves for b in first]


@pytest.mark.parametrize("level", LEVELS)
def test_a_baseline_decides_from_what_its_seat_knows(level):
    """Two states the seat cannot tell apart (its hidden information resampled) get the same decision from
    the same seed: the baseline goes through ``determinize`` as the worker does, never the true state."""
    game = GAMES["china"]
    rng = random.Random(4)
    state = game.setup(3, None, seed=4)
    for _ in range(12):
        game.apply(state, rng.choice(game.legal_actions(state)))
    seat = game.to_move(state)
    other = game.determinize(state, seat, random.Random(99))
    assert game.encode(other) != game.encode(state)  # another seat's hand or the deck differ
    a = Baseline(game, level, seed=5, iterations=ITERATIONS).action(state, seat)
    b = Baseline(game, level, seed=5, iterations=ITERATIONS).action(other, seat)
    assert a == b and a in game.legal_actions(state)


def test_baselines_refuse_what_they_cannot_do():
    game = GAMES["taj_mahal"]
    with pytest.raises(ValueError, match="unknown bot level 'grandmaster'"):
        Baseline(game, "grandmaster")
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        Baseline(game, "hard", iterations=0)
    state = game.setup(3, None, seed=1)
    seat = game.to_move(state)
    with pytest.raises(ValueError, match=f"seat {(seat + 1) % 3} is not to move"):
        Baseline(game, "easy").action(state, (seat + 1) % 3)


def test_the_pettingzoo_policy_plays_every_agent_to_the_end_within_the_mask():
    e = pz_env("year_of_dragon", players=3)
    e.reset(seed=2)
    policies = {
        a: BaselinePolicy(e, lv, seed=i, iterations=ITERATIONS)
        for i, (a, lv) in enumerate(zip(e.possible_agents, ["easy", "random", "normal"], strict=True))
    }
    moves, finals = 0, {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            finals[agent] = reward
            e.step(None)
            continue
        action = policies[agent](obs, agent)
        assert obs["action_mask"][action] == 1
        e.step(action)
        moves += 1
    assert moves > 0 and sorted(finals.values()) == [-1.0, 0.0, 1.0]  # played to the end
    e.reset(seed=2)
    idle = next(a for a in e.possible_agents if a != e.agent_selection)
    with pytest.raises(ValueError, match=f"{idle} is not to move"):
        policies[idle](e.observe(idle), idle)


def first_legal(observation: np.ndarray, info: dict) -> int:
    """A policy (module-level, so ``bench.strength --agent`` can name it): the lowest legal id."""
    assert observation.dtype == np.float32 and info["action_mask"].sum() == len(info["legal_actions"])
    return int(info["legal_actions"][0])


def test_a_policy_sits_among_the_baselines_and_an_illegal_choice_is_refused():
    game = load("taj_mahal", players=3, seed=5)
    bots = [PolicyBot(first_legal, 0), make_bot(game, 1, "easy", 1), make_bot(game, 2, "random", 2)]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert sorted(returns) == [-1.0, 0.0, 1.0]
    one = PolicyBot(first_legal, observe=features_of)  # no seat of its own: it acts for the seat to move
    assert sorted(evaluate_bots(game.new_initial_state(), [one, one, one], np.random.RandomState(0))) == [
        -1,
        0,
        1,
    ]
    state = game.new_initial_state()
    view = json.loads(state.observation_string(1))
    assert np.array_equal(features_of(state, 1), spec("taj_mahal").encode(view, 1))
    seen: list[np.ndarray] = []
    watcher = PolicyBot(lambda obs, info: seen.append(obs) or first_legal(obs, info))
    featured = load("taj_mahal", players=3, seed=5, observation="features").new_initial_state()
    seat = featured.current_player()
    expected = spec("taj_mahal").encode(json.loads(featured.observation_string(seat)), seat)
    featured.apply_action(watcher.step(featured))  # by default it observes the game's own tensor
    assert np.array_equal(seen[0], expected)
    masked = next(a for a in range(game.num_distinct_actions()) if a not in state.legal_actions())
    cheat = PolicyBot(lambda obs, info: masked, 0)
    with pytest.raises(ValueError, match="not legal here"):
        cheat.step(state)


def test_bench_strength_measures_an_agent_against_the_baselines(capsys):
    tally = strength.measure(first_legal, "year_of_dragon", ("easy", "random"), matches=3, seed=2)
    assert sorted(r.seat for r in tally.records) == [0, 1, 2]  # seats rotated
    assert 1.0 <= tally.mean_place()[0] <= 3.0 and 0 <= tally.wins <= 3
    assert (
        strength.main(
            [
                "--game",
                "year_of_dragon",
                "--agent",
                "tests.research.test_baselines:first_legal",
                "--opponents",
                "easy,normal",
                "--games",
                "3",
                "--normal-think-ms",
                "5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    with pytest.raises(SystemExit):
        strength.main(["--game", "china", "--agent", "no_such_level"])
    assert (
        "--agent: an agent is a level (random, easy, normal, hard) or module:attr" in capsys.readouterr().err
    )
    assert "first_legal vs easy,normal in year_of_dragon (3 matches, seats rotated): first " in out
    assert "mean place" in out


def test_the_gymnasium_policy_plays_the_learners_seat_to_the_end_within_the_mask():
    import gymnasium as gym

    import research.gym_env  # noqa: F401  (registers the environments)

    e = gym.make("tabletop/TajMahal-v0", players=3, seat=1, opponents="easy")
    policy = BaselinePolicy(e, "easy", seed=3)
    observation, info = e.reset(seed=3)
    terminated = truncated = False
    moves = 0
    while not (terminated or truncated):
        action = policy(observation, info)
        assert info["action_mask"][action] == 1
        observation, reward, terminated, truncated, info = e.step(action)
        moves += 1
    assert moves > 0 and terminated and reward in (-1.0, 0.0, 1.0) and "illegal_action" not in info
