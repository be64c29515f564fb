"""Records as trajectories (research.records): a record of every game, replayed through the OpenSpiel
game, gives per seat the very observations, legal masks, actions and returns the PettingZoo and
OpenSpiel adapters give when the same actions are played on the same deal; a record that disagrees
with the rules is refused at the decision where it does."""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

from engine.records import record_of_play, restrict
from engine.registry import GAMES
from engine.takeback import judge
from research.actions import codec
from research.observation import info_tensor_size, tensor_size
from research.openspiel_game import load
from research.pettingzoo_env import env as pettingzoo_env
from research.records import RecordTrajectoryError, SeatTrajectory, to_arrays, trajectories
from tests.research.conftest import GAME_IDS, option_sets

SEED = 2**62 + 12345  # a server-sized (63-bit) seed: past what an OpenSpiel int parameter holds


def random_record(game_id: str, players: int, options: dict[str, Any], seed: int = SEED) -> dict[str, Any]:
    rng = random.Random(seed)
    return record_of_play(game_id, players, options, seed, policy=lambda state, legal: rng.choice(legal))


def interleaved(trajs: list[SeatTrajectory]) -> list[tuple[int, int, int]]:
    """(decision number, seat, step index) of every step, in the match's order."""
    return sorted((n, t.seat, i) for t in trajs for i, n in enumerate(t.decisions))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_a_record_becomes_the_trajectories_the_pettingzoo_adapter_gives_on_the_same_deal(game_id):
    game = GAMES[game_id]
    options = option_sets(game)[-1]  # every option away from its default, where a game has any
    players = game.min_players + 1
    record = random_record(game_id, players, options)
    trajs = trajectories(record)
    features = trajectories(record, observation="features")
    assert [t.seat for t in trajs] == list(range(players))
    assert sum(len(t) for t in trajs) == len(record["decisions"])
    hashed_env = pettingzoo_env(game_id, players=players, options=options)
    features_env = pettingzoo_env(game_id, players=players, options=options, observation="features")
    for env in (hashed_env, features_env):
        env.reset(seed=SEED)
    for n, seat, i in interleaved(trajs):
        agent = f"player_{seat}"
        assert hashed_env.agent_selection == agent, n
        seen = hashed_env.observe(agent)
        mine = trajs[seat]
        assert mine.observations[i].shape == (tensor_size(game),)
        np.testing.assert_array_equal(mine.observations[i], seen["observation"])
        np.testing.assert_array_equal(np.flatnonzero(seen["action_mask"]), mine.legal[i])
        np.testing.assert_array_equal(
            features[seat].observations[i], features_env.observe(agent)["observation"]
        )
        assert codec(game).decode(mine.actions[i]) == record["decisions"][n - 1]["action"]
        for env in (hashed_env, features_env):
            env.step(mine.actions[i])
    assert game.result(hashed_env.state)["ranking"] == record["result"]["ranking"]
    returns = [hashed_env._cumulative_rewards[f"player_{s}"] for s in range(players)]
    assert [t.final_return for t in trajs] == returns and sum(returns) == pytest.approx(0.0)
    for t in trajs:  # terminal rewards only: the return on a seat's last step, 0 before it
        assert t.rewards == [0.0] * (len(t) - 1) + [t.final_return] and t.returns == [t.final_return] * len(t)


def test_info_state_trajectories_are_the_openspiel_information_state_tensors():
    record = random_record("taj_mahal", 3, {})
    trajs = trajectories(record, observation="info_state")
    game = load("taj_mahal", players=3)
    state = game.dealt(SEED)
    for n, seat, i in interleaved(trajs):
        assert state.current_player() == seat, n
        assert trajs[seat].observations[i].shape == (info_tensor_size(game.engine),)
        np.testing.assert_array_equal(trajs[seat].observations[i], state.information_state_tensor(seat))
        state.apply_action(trajs[seat].actions[i])
    assert state.is_terminal() and [t.final_return for t in trajs] == state.returns()


def test_to_arrays_batches_every_step_with_its_mask_and_return():
    trajs = [t for seed in (1, 2) for t in trajectories(random_record("year_of_dragon", 3, {}, seed))]
    batch = to_arrays(trajs)
    steps = sum(len(t) for t in trajs)
    num_actions = codec(GAMES["year_of_dragon"]).num_actions
    assert (
        batch["obs"].shape == (steps, tensor_size(GAMES["year_of_dragon"]))
        and batch["obs"].dtype == np.float32
    )
    assert batch["mask"].shape == (steps, num_actions)
    assert batch["mask"][np.arange(steps), batch["action"]].all()  # every chosen action was legal
    assert batch["done"].sum() == sum(1 for t in trajs if len(t))
    assert batch["reward"].sum() == pytest.approx(sum(t.final_return for t in trajs if len(t)))
    first = trajs[4]  # the second match's second seat
    rows = batch["episode"] == 4
    assert (batch["seat"][rows] == first.seat).all() and (batch["return"][rows] == first.final_return).all()
    assert "mask" not in to_arrays(trajs, masks=False)


def test_a_record_that_breaks_the_rules_is_refused_at_the_decision_that_does():
    record = random_record("china", 3, {})
    wrong_seat = copy.deepcopy(record)
    wrong_seat["decisions"][5]["seat"] = (wrong_seat["decisions"][5]["seat"] + 1) % 3
    with pytest.raises(RecordTrajectoryError) as caught:
        trajectories(wrong_seat)
    assert caught.value.n == 6 and "seat to move" in caught.value.what
    swapped = copy.deepcopy(record)  # a later decision's action, where it is not legal (or not that one)
    swapped["decisions"][3]["action"] = next(
        d["action"] for d in record["decisions"][4:] if d["action"] != record["decisions"][3]["action"]
    )
    with pytest.raises(RecordTrajectoryError) as caught:
        trajectories(swapped)
    assert caught.value.n == 4
    other_result = copy.deepcopy(record)
    other_result["result"]["ranking"].reverse()
    with pytest.raises(RecordTrajectoryError, match="result"):
        trajectories(other_result)
    cut = copy.deepcopy(record)
    del cut["decisions"][-1]
    with pytest.raises(RecordTrajectoryError, match="ends before"):
        trajectories(cut)


def test_a_record_with_takebacks_gives_the_trajectories_of_its_live_line():
    """A ``tabletop-record/2`` record is read as the decisions in force: its trajectories are those of
    the same game played without the taken-back decisions, numbered as in the record."""
    game, rng = GAMES["china"], random.Random(7)
    state, actions, undone = game.setup(3, None, SEED), [], None
    while (seat := game.to_move(state)) is not None:
        action = rng.choice(game.legal_actions(state))
        state, blocker = judge(game, state, action, seat)
        actions.append(action)
        if undone is None and blocker is None and len(actions) > 3:
            undone = len(actions)  # the first decision (past the opening) that can be taken back alone
    assert undone is not None
    again = actions[:undone] + actions[undone - 1 :]  # taken back, then made again the same way
    record = record_of_play("china", 3, None, SEED, again, takebacks={undone: 1})
    assert record["format"] == "tabletop-record/2" and record["decisions"][undone - 1]["taken_back"]
    plain = record_of_play("china", 3, None, SEED, actions)
    for observation in ("hashed", "info_state"):
        live, same = trajectories(record, observation), trajectories(plain, observation)
        for mine, theirs in zip(live, same, strict=True):
            assert mine.actions == theirs.actions and mine.final_return == theirs.final_return
            for seen, expected in zip(mine.observations, theirs.observations, strict=True):
                np.testing.assert_array_equal(seen, expected)
            # the record's own numbers: the taken-back decision is skipped, the later ones shifted by one
            assert mine.decisions == [n if n < undone else n + 1 for n in theirs.decisions]
    assert undone not in {n for t in live for n in t.decisions}
    assert sum(len(t) for t in live) == len(record["decisions"]) - 1
    wrongly_live = copy.deepcopy(record)  # the taken-back decision read as played: no longer the game
    del wrongly_live["decisions"][undone - 1]["taken_back"]
    with pytest.raises(RecordTrajectoryError):
        trajectories(wrongly_live)


def test_only_a_full_record_holds_the_deal_to_replay():
    record = random_record("confucius", 3, {})
    with pytest.raises(RecordTrajectoryError, match="full record"):
        trajectories(restrict(record, None))
    with pytest.raises(ValueError, match="observation"):
        trajectories(record, observation="pixels")
