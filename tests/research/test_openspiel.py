"""The OpenSpiel adapter: OpenSpiel's own random-simulation test on every game, player count and option
set, plus what that test cannot see (resampling, observations from the seat's view only, serialization,
an OpenSpiel bot playing)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

from engine.registry import GAMES
from research.actions import codec
from research.observation import canonical
from research.openspiel_game import load, short_name
from tests.research.conftest import GAME_IDS, option_sets


def _one_option_set_per_player_count() -> list[tuple[str, int, dict[str, object]]]:
    """Every game at every player count, the option sets taken in turn, so each set is played too:
    OpenSpiel's conformance checks read every state many ways (a couple of seconds a playout)."""
    out = []
    for gid in GAME_IDS:
        game = GAMES[gid]
        sets = option_sets(game)
        for i, n in enumerate(range(game.min_players, game.max_players + 1)):
            out.append((gid, n, sets[i % len(sets)]))
    return out


@pytest.mark.parametrize(("game_id", "players", "options"), _one_option_set_per_player_count())
def test_openspiel_random_simulation_test_passes(game_id, players, options):
    game = load(game_id, players=players, **options)
    assert game.num_players() == players
    # serialize=False: a sampled-stochastic Python game cannot serialize the *game* in OpenSpiel 2.0.2
    # (GetRNGState is not overridable from Python); states do, see the serialization test below.
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


def test_every_game_is_registered_with_its_options_as_parameters():
    names = set(pyspiel.registered_names())
    for gid, game in GAMES.items():
        assert short_name(gid) in names
        spec = pyspiel.load_game(short_name(gid)).get_type().parameter_specification
        assert {"players", "seed", "observation", *game.options.get("properties", {})} == set(spec)


def test_max_game_length_is_the_games_proven_bound():
    """OpenSpiel's bound is the engine's ``max_decisions`` (derived from each game's rules), which the
    random simulation test above checks every playout against."""
    for gid, game in GAMES.items():
        for n in range(game.min_players, game.max_players + 1):
            assert load(gid, players=n).max_game_length() == game.max_decisions(n)


def test_options_reach_the_engine_and_bad_ones_are_refused():
    game = load("year_of_dragon", players=4, large_privilege_cost=7, seed=5)
    state = game.new_initial_state()
    assert len(GAMES["year_of_dragon"].view(state.engine_state, 0)["players"]) == 4
    assert game.new_initial_state().observation_string(0) == state.observation_string(0)  # fixed seed
    with pytest.raises(Exception, match="players"):
        load("china", players=9)


def _walk(game, steps, seed):
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_observations_come_from_the_seat_view_and_resampling_keeps_the_information_state(game_id):
    game = load(game_id, players=3)
    engine = GAMES[game_id]
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for steps in (0, 7, 40):
        state = _walk(game, steps, seed=steps)
        for p in range(3):
            assert state.observation_string(p) == canonical(engine.view(state.engine_state, p)).decode()
            worlds = [state.resample_from_infostate(p, sampler) for _ in range(3)]
            for world in worlds:
                assert world.information_state_string(p) == state.information_state_string(p)
                assert world.information_state_tensor(p) == state.information_state_tensor(p)
                assert world.observation_tensor(p) == state.observation_tensor(p)
                assert world.legal_actions() == state.legal_actions() or world.current_player() != p
        # Another seat's hidden information is resampled, so some world differs from the truth.
        truth = engine.encode(state.engine_state)
        others = [state.resample_from_infostate(0, sampler) for _ in range(4)]
        assert any(engine.encode(w.engine_state) != truth for w in others)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_information_state_has_perfect_recall_of_the_history(game_id):
    game = load(game_id, players=3, seed=3)
    a, b = game.new_initial_state(), game.new_initial_state()
    assert a.information_state_string(0) == b.information_state_string(0)
    a.apply_action(a.legal_actions()[0])
    b.apply_action(b.legal_actions()[-1])
    mover_saw = [a.information_state_string(p) != b.information_state_string(p) for p in range(3)]
    assert any(mover_saw)


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_states_serialize_clone_and_return_zero_sum_rank_rewards(game_id):
    game = load(game_id, players=3)
    state = _walk(game, 25, seed=1)
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert str(clone) != str(state)
    end = _walk(game, 10_000, seed=2)
    assert end.is_terminal()
    assert sorted(end.returns()) == [-1.0, 0.0, 1.0]
    ranking = GAMES[game_id].result(end.engine_state)["ranking"]
    assert end.returns()[ranking[0]] == 1.0


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_openspiel_ismcts_bot_plays_a_legal_action(game_id):
    game = load(game_id, players=3, seed=11)
    state = game.new_initial_state()
    while len(state.legal_actions()) < 2:
        state.apply_action(state.legal_actions()[0])
    bot = ismcts.ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
        2.0,
        8,
        random_state=np.random.RandomState(2),
    )
    action = bot.step(state)
    assert action in state.legal_actions()
    assert codec(GAMES[game_id]).decode(action)["type"] in GAMES[game_id].actions
