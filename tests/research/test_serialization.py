"""OpenSpiel states pickle and deep-copy (issue 42: both failed with "GetRNGState unimplemented"), so
they can go to multiprocessing or Ray workers: a copy has the same observations, legal actions and
history, and continues exactly like the original, the random generator inside the state included.
OpenSpiel's game-and-state text works too (issue 46), and so does a copy whose seats' histories were
never read before it left (they are folded on demand, see test_lazy_observations.py)."""

from __future__ import annotations

import copy
import multiprocessing
import pickle
from typing import Any

import numpy as np
import pyspiel
import pytest

from engine.registry import GAMES
from research.openspiel_game import load
from tests.research.conftest import GAME_IDS


def _walk(state: Any, steps: int, seed: int) -> Any:
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def _fingerprint(state: Any) -> tuple[Any, ...]:
    """Everything a learner reads of a state, and the full state's digest (``str`` hashes the encoding,
    the random generator included)."""
    players = range(state.num_players())
    return (
        str(state),
        state.history(),
        state.move_number(),
        state.current_player(),
        state.is_terminal(),
        [] if state.is_terminal() else state.legal_actions(),
        [state.observation_string(p) for p in players],
        [state.information_state_string(p) for p in players],
        [state.information_state_tensor(p) for p in players],
        [state.observation_tensor(p) for p in players],
        state.returns(),
    )


def _continuation(state: Any, steps: int) -> list[tuple[Any, ...]]:
    """Play ``steps`` moves (a fixed choice among the legal ones) and fingerprint after each."""
    out = []
    for i in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[(7 * i + 3) % len(legal)])
        out.append(_fingerprint(state))
    return out


def _play_in_worker(job: tuple[Any, int]) -> tuple[Any, list[tuple[Any, ...]], int]:
    """Runs in another process: the state arrives pickled, plays on, and goes back pickled."""
    state, steps = job
    seen = _continuation(state, steps)
    return state, seen, multiprocessing.current_process().pid or 0


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_pickle_and_deepcopy_round_trip_and_continue_alike(game_id):
    game = load(game_id, players=3)
    fresh = game.new_initial_state()
    assert _fingerprint(pickle.loads(pickle.dumps(fresh))) == _fingerprint(fresh)  # the same deal
    state = _walk(game.new_initial_state(), 30, seed=5)
    before = _fingerprint(state)
    for copied in (pickle.loads(pickle.dumps(state)), copy.deepcopy(state), copy.copy(state)):
        assert type(copied) is type(state)
        assert _fingerprint(copied) == before
        assert _continuation(copied, 25) == _continuation(state.clone(), 25)
        assert _fingerprint(state) == before  # a copy is independent: its moves leave the original


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_openspiel_game_and_state_text_round_trips_and_continues_alike(game_id):
    game = load(game_id, players=3)
    state = _walk(game.new_initial_state(), 35, seed=8)
    text = pyspiel.serialize_game_and_state(game, state)
    assert text.splitlines()[5] == str(game)  # OpenSpiel's format: the game string, then the state
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert _fingerprint(state2) == _fingerprint(state)
    assert _continuation(state2, 25) == _continuation(state.clone(), 25)


def test_other_games_still_serialize_through_openspiel():
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    state.apply_action(4)
    game2, state2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(game2) == "tic_tac_toe()" and state2.history() == [4]


def test_the_game_pickles_with_its_parameters():
    game = load("year_of_dragon", players=4, large_privilege_cost=7, seed=9)
    again = pickle.loads(pickle.dumps(game))
    assert str(again) == str(game) == str(copy.deepcopy(game))
    assert again.max_game_length() == game.max_game_length() == GAMES["year_of_dragon"].max_decisions(4)
    assert _fingerprint(again.new_initial_state()) == _fingerprint(game.new_initial_state())  # seed 9


def test_states_travel_to_worker_processes_and_back():
    """A real pool of spawned interpreters (as multiprocessing does on macOS and Windows, and Ray
    always): every game's state goes to a worker, plays on there, and comes back; the parent plays the
    same moves on its own copy and sees the same thing at every step.  One of them (China) plays to the
    end there, so the returns are compared too."""
    states = [_walk(load(gid, players=3).new_initial_state(), 20, seed=i) for i, gid in enumerate(GAME_IDS)]
    steps = [10_000 if gid == "china" else 25 for gid in GAME_IDS]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        # a bound, so a worker that never answers fails the test instead of hanging the suite
        results = pool.map_async(_play_in_worker, list(zip(states, steps, strict=True))).get(timeout=120)
    for state, n, (back, seen, pid) in zip(states, steps, results, strict=True):
        assert pid != multiprocessing.current_process().pid
        local = state.clone()
        assert _continuation(local, n) == seen
        assert _fingerprint(back) == _fingerprint(local)
        assert _continuation(back, 15) == _continuation(local, 15)  # and on from there, alike
    finished = results[GAME_IDS.index("china")][0]
    assert finished.is_terminal() and sorted(finished.returns()) == [-1.0, 0.0, 1.0]
