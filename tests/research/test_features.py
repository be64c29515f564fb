"""The documented feature vectors (research.features): pinned layouts, values in [0, 1], seat-relative
blocks that say what the view says, built from the view alone, and a docs page that matches the specs."""

from __future__ import annotations

import copy
import pickle
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.observation import make_observation

from engine.registry import GAMES
from research.features import SPECS, markdown, spec
from research.observation import HISTORY_BUCKETS
from research.openspiel_game import load
from tests.research.conftest import GAME_IDS, option_sets

ROOT = Path(__file__).resolve().parents[2]

#: Fingerprint and length of each game's feature vector.  A change here means a saved policy's input
#: moved: only change it on purpose, and regenerate docs/research-features.md.
PINNED = {
    "china": ("aa7331fb0746ef38", 428),
    "confucius": ("6951300c0e4c8058", 696),
    "taj_mahal": ("dfb3167f9b873e54", 1303),
    "year_of_dragon": ("442a074a2fcd854e", 433),
}

#: Slices random play rarely or never lights up (Emperor reward cards, tutoring, insulting the
#: Emperor); test_rare_confucius_slices_read_their_keys checks them on a crafted view instead.
RARE = {
    "confucius": {
        "rewards",
        "set_aside_cards",
        "reward_cards",
        "distant_lands",
        "set_aside",
        "emperor_insulted",
    }
}


def _playout_views(game_id: str):
    """(view, seat) of the mover at every step and of every seat at every third step of two random
    games, the final position included: the fewest players with the default options, the most with
    every option flipped."""
    game = GAMES[game_id]
    sets = option_sets(game)
    for k, (players, options) in enumerate([(game.min_players, sets[0]), (game.max_players, sets[-1])]):
        state = game.setup(players, options, seed=k)
        rng = random.Random(k)
        step = 0
        while True:
            mover = game.to_move(state)
            for seat in range(players):
                if mover is None or seat == mover or step % 3 == 0:
                    yield game.view(state, seat), seat
            over = mover is None
            if over:
                break
            game.apply(state, rng.choice(game.legal_actions(state)))
            step += 1


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_layout_is_pinned(game_id):
    s = spec(game_id)
    assert (s.fingerprint, s.size) == PINNED[game_id]
    assert s.slices[-1].offset + s.slices[-1].length == s.size
    assert [x.offset for x in s.slices] == sorted({x.offset for x in s.slices})  # contiguous, no overlap


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_vector_is_in_the_unit_box_and_every_slice_is_used(game_id):
    s = spec(game_id)
    fired = np.zeros(s.size, bool)
    for view, seat in _playout_views(game_id):
        vec = s.encode(view, seat)
        assert vec.shape == (s.size,) and vec.dtype == np.float32
        assert np.isfinite(vec).all() and vec.min() >= 0.0 and vec.max() <= 1.0
        fired |= vec > 0
    dead = {x.name for x in s.slices if not fired[x.offset : x.offset + x.length].any()}
    assert dead == RARE.get(game_id, set())


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_blocks_are_relative_to_the_observing_seat(game_id):
    """Block 0 of every per-player slice is the observer, block 1 the next seat; blocks past the player
    count stay 0; ``to_move`` names the mover relative to the observer."""
    game = GAMES[game_id]
    s = spec(game_id)
    score_key = {"year_of_dragon": "vp"}.get(game_id, "score")
    cap = {"confucius": 40}.get(game_id, 100)
    state = game.setup(game.min_players, {}, seed=3)
    rng = random.Random(3)
    for _ in range(60):
        game.apply(state, rng.choice(game.legal_actions(state)))
    n = game.min_players
    mover = game.to_move(state)
    for seat in range(n):
        view = game.view(state, seat)
        vec = s.encode(view, seat)
        scores = vec[s.slice(score_key)]
        for k in range(n):
            assert scores[k] == pytest.approx(min(view["players"][(seat + k) % n][score_key] / cap, 1.0))
        assert not scores[n:].any()
        to_move = vec[s.slice("to_move")]
        assert to_move.tolist() == [1.0 if (seat + k) % n == mover and k < n else 0.0 for k in range(5)]


def test_china_slices_say_what_the_view_says():
    """Spot checks of the board slices (R26 house placement, R33 dragon seals) against the view."""
    game = GAMES["china"]
    s = spec("china")
    from engine.games.china.components import COLOURS, PROVINCES, SPACES

    state = game.setup(4, {}, seed=8)
    rng = random.Random(8)
    for _ in range(120):
        game.apply(state, rng.choice(game.legal_actions(state)))
    view = game.view(state, 1)
    vec = s.encode(view, 1)
    owners = vec[s.slice("house_owner")].reshape(len(SPACES), 5)
    assert view["board"]["houses"]
    for space, owner in view["board"]["houses"].items():
        assert owners[SPACES.index(space)].tolist() == [
            1.0 if k == (owner - 1) % 4 else 0.0 for k in range(5)
        ]
    assert owners.sum() == len(view["board"]["houses"])
    seals = vec[s.slice("seals")].reshape(len(PROVINCES), 5)
    for p, province in enumerate(PROVINCES):
        for seat, n in enumerate(view["board"]["seals"][province]):
            assert seals[p, (seat - 1) % 4] == pytest.approx(n / 8)
    hand = vec[s.slice("hand")]
    assert hand.tolist() == pytest.approx([view["players"][1]["hand"].count(c) / 3 for c in COLOURS])


def test_built_from_the_view_alone_so_hidden_things_do_not_move_it():
    """Two states a seat cannot tell apart (a world resampled for it by ``determinize``: other hands
    and the deck redealt) give it the same vector; its own hand is its own."""
    for game_id in GAME_IDS:
        game = GAMES[game_id]
        s = spec(game_id)
        state = game.setup(game.max_players, {}, seed=5)
        rng = random.Random(5)
        for _ in range(30):
            game.apply(state, rng.choice(game.legal_actions(state)))
        for seat in range(game.max_players):
            world = game.determinize(state, seat, random.Random(seat))
            assert np.array_equal(
                s.encode(game.view(state, seat), seat), s.encode(game.view(world, seat), seat)
            )


def test_rare_confucius_slices_read_their_keys():
    game = GAMES["confucius"]
    s = spec("confucius")
    view = copy.deepcopy(game.view(game.setup(3, {}, seed=1), 0))
    me = view["players"][0]
    me.update(rewards=["cash"], set_aside_cards={"c1": 2, "c2": 0, "c3": 0}, reward_cards=1, set_aside=2)
    view["players"][1]["distant_lands"] = ["india"]
    view["emperor_insulted"] = 2
    vec = s.encode(view, 0)
    assert vec[s.slice("rewards")][0] == 1.0  # "cash" is the first reward card
    assert vec[s.slice("set_aside_cards")][0] == pytest.approx(2 / 4)
    assert vec[s.slice("reward_cards")][0] == pytest.approx(1 / 4)
    assert vec[s.slice("set_aside")][0] == pytest.approx(2 / 4)
    assert vec[s.slice("distant_lands")].reshape(5, 5)[1].sum() == 1.0  # seat 1's block
    assert vec[s.slice("emperor_insulted")].tolist() == [0.0, 0.0, 1.0, 0.0, 0.0]


def test_the_docs_page_is_generated_from_the_specs():
    page = (ROOT / "docs" / "research-features.md").read_text(encoding="utf-8")
    assert page == markdown(), "regenerate: python -m research.features > docs/research-features.md"
    for game_id, s in SPECS.items():
        assert f"`{s.fingerprint}`" in page and f"## {game_id}" in page


def test_an_unknown_game_is_refused_by_name():
    with pytest.raises(ValueError, match="chess"):
        spec("chess")


def test_openspiel_observers_offer_the_features_beside_the_hashed_form():
    game = load("taj_mahal", players=4, seed=3)
    state = game.new_initial_state()
    for _ in range(15):
        state.apply_action(state.legal_actions()[0])
    s = spec("taj_mahal")
    plain = make_observation(
        game, pyspiel.IIGObservationType(perfect_recall=False), {"observation": "features"}
    )
    recall = make_observation(
        game, pyspiel.IIGObservationType(perfect_recall=True), {"observation": "features"}
    )
    for seat in range(4):
        expected = s.encode(game.engine.view(state.engine_state, seat), seat)
        plain.set_from(state, seat)
        recall.set_from(state, seat)
        assert np.array_equal(plain.tensor, expected)
        assert recall.tensor.shape == (s.size + HISTORY_BUCKETS,)
        assert np.array_equal(recall.dict["view"], expected) and recall.dict["history"].sum() > 0
    hashed = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False))
    assert hashed.tensor.shape != plain.tensor.shape  # the hashed form stays the default
    with pytest.raises(ValueError, match="observation must be one of"):
        make_observation(game, pyspiel.IIGObservationType(perfect_recall=False), {"observation": "pixels"})


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_observation_parameter_puts_the_features_in_the_states_tensors(game_id):
    """``observation=features`` (a game parameter): ``observation_tensor`` and ``information_state_tensor``
    (Python's and C++'s routes), the default observer and the sizes OpenSpiel reports all hold the
    feature vector of the seat's view, and a pickled state keeps the form."""
    s = spec(game_id)
    game = load(game_id, players=3, seed=4, observation="features")
    assert game.observation_tensor_size() == s.size  # C++ sizes the tensor by observing seat 0
    assert game.information_state_tensor_size() == s.size + HISTORY_BUCKETS
    kind = pyspiel.IIGObservationType(perfect_recall=False)
    default = make_observation(game, kind)
    hashed = make_observation(game, kind, {"observation": "hashed"})
    assert default.tensor.shape == (s.size,) and hashed.tensor.shape != default.tensor.shape
    rng = random.Random(game_id)
    state = game.new_initial_state()
    for step in range(60):
        if state.is_terminal():
            break
        if step % 12 == 0:
            for seat in range(3):
                expected = s.encode(game.engine.view(state.engine_state, seat), seat)
                assert np.array_equal(np.asarray(state.observation_tensor(seat), np.float32), expected)
                assert state.observation_tensor(seat) == pyspiel.State.observation_tensor(state, seat)
                info = state.information_state_tensor(seat)
                assert info == pyspiel.State.information_state_tensor(state, seat)
                assert np.array_equal(np.asarray(info[: s.size], np.float32), expected)
                default.set_from(state, seat)
                assert np.array_equal(default.tensor, expected)
            for copied in (copy.deepcopy(state), pickle.loads(pickle.dumps(state))):
                assert copied.observation_tensor() == state.observation_tensor()
        state.apply_action(rng.choice(state.legal_actions()))
    assert load(game_id).observation_tensor_size() != s.size  # the hashed form stays the default
    with pytest.raises(ValueError, match="observation must be one of"):
        load(game_id, observation="pixels")


def test_openspiels_rl_environment_learns_from_the_features():
    """``rl_environment`` (OpenSpiel's DQN, PPO, ... read it) takes the information state tensor from the
    state: with ``observation=features`` its spec and its observations are the features and the bag."""
    from open_spiel.python import rl_environment

    game = load("china", players=3, seed=2, observation="features")
    env = rl_environment.Environment(game)
    size = spec("china").size + HISTORY_BUCKETS
    assert env.observation_spec()["info_state"] == (size,)
    rng = random.Random(0)
    time_step = env.reset()
    for _ in range(40):
        if time_step.last():
            break
        player = time_step.observations["current_player"]
        assert len(time_step.observations["info_state"][player]) == size
        time_step = env.step([rng.choice(time_step.observations["legal_actions"][player])])
    state = env.get_state
    assert pickle.loads(pickle.dumps(state)).information_state_tensor() == state.information_state_tensor()
