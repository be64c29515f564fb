"""An agent trained offline sees over HTTP exactly what it saw in training (research.remote)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import tabular_qlearner

from engine.registry import GAMES
from research.openspiel_game import load
from research.remote import action_from_id, time_step_from_match
from tests.research.conftest import GAME_IDS


def _match_doc(engine, state, seat):
    """The fields of the API's match document the helper reads (the service builds them the same way)."""
    return {"your_seat": seat, "to_move": engine.to_move(state), "view": engine.view(state, seat)}


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_time_step_from_the_api_equals_the_training_time_step(game_id):
    game = load(game_id, players=3, seed=8)
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    ts = env.reset()
    rng = np.random.default_rng(8)
    for _ in range(12):
        seat = ts.observations["current_player"]
        state = env.get_state
        engine = GAMES[game_id]
        online = time_step_from_match(
            game, _match_doc(engine, state.engine_state, seat), engine.legal_actions(state.engine_state)
        )
        assert online.observations["legal_actions"][seat] == ts.observations["legal_actions"][seat]
        assert np.allclose(online.observations["info_state"][seat], ts.observations["info_state"][seat])
        action = int(rng.choice(ts.observations["legal_actions"][seat]))
        assert action_from_id(game, action) in engine.legal_actions(state.engine_state)
        ts = env.step([action])


def test_a_trained_openspiel_agent_survives_pickling_and_acts_on_api_input():
    game = load("year_of_dragon", players=3, seed=2)
    env = rl_environment.Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION)
    agents = [tabular_qlearner.QLearner(p, env.action_spec()["num_actions"]) for p in range(3)]
    ts = env.reset()
    while not ts.last():
        ts = env.step([agents[ts.observations["current_player"]].step(ts).action])
    for agent in agents:
        agent.step(ts)
    agent = pickle.loads(pickle.dumps(agents[0]))
    engine = GAMES["year_of_dragon"]
    state = engine.setup(3, None, seed=5)
    while engine.to_move(state) != 0:
        engine.apply(state, engine.legal_actions(state)[0])
    step = agent.step(
        time_step_from_match(game, _match_doc(engine, state, 0), engine.legal_actions(state)),
        is_evaluation=True,
    )
    assert action_from_id(game, step.action) in engine.legal_actions(state)
