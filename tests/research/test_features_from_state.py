"""The feature writers (``FeatureSpec.encode_state``): each game's vector written straight from the engine
state must be, value for value, the vector of the seat's view (``FeatureSpec.encode``), the one the
documentation describes.  A writer reads the full state, hidden things included, so this equality is
also what shows it leaks nothing: a value it read from another seat's hand or the deck would differ
from the view's somewhere in these playouts."""

from __future__ import annotations

import random
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.registry import GAMES
from research.features import spec
from tests.research.conftest import GAME_IDS, option_sets, random_playout


def _differences(game_id: str, state, seat: int) -> str:  # type: ignore[no-untyped-def]
    """The slices where the writer and the view's vector differ (for the failure message)."""
    s = spec(game_id)
    game = GAMES[game_id]
    written = s.encode_state(game, state, seat)
    viewed = s.encode(game.view(state, seat), seat)
    parts = [(sl.name, slice(sl.offset, sl.offset + sl.length)) for sl in s.slices]
    bad = [
        f"{name}: {written[at].tolist()} != {viewed[at].tolist()}"
        for name, at in parts
        if not np.array_equal(written[at], viewed[at])
    ]
    return "; ".join(bad)


def _check(game_id: str, state, seat: int, out: np.ndarray) -> None:  # type: ignore[no-untyped-def]
    s = spec(game_id)
    game = GAMES[game_id]
    written = s.encode_state(game, state, seat, out)
    assert written is out
    if not np.array_equal(written, s.encode(game.view(state, seat), seat)):
        raise AssertionError(f"{game_id} seat {seat}: {_differences(game_id, state, seat)}")


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_game_has_a_writer(game_id):
    assert spec(game_id).writer is not None


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_writer_gives_the_views_vector_for_every_seat_at_every_step(game_id):
    """Every player count and option set, a random game each, every seat at every step (the final
    position too, where hands are shown).  ``out`` is reused dirty, as an observer reuses its tensor."""
    game = GAMES[game_id]
    out = np.full(spec(game_id).size, 7.0, np.float32)
    for players in range(game.min_players, game.max_players + 1):
        for k, options in enumerate(option_sets(game)):
            for state in random_playout(game, players, options, players * 10 + k):
                for seat in range(players):
                    _check(game_id, state, seat, out)


@settings(max_examples=12, deadline=None)
@given(game_id=st.sampled_from(GAME_IDS), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_random_play_never_parts_the_writer_from_the_view(game_id, seed, data):
    """Property: any seed, any player count and option set; the mover and one other seat each step."""
    game = GAMES[game_id]
    players = data.draw(st.integers(game.min_players, game.max_players), label="players")
    options = data.draw(st.sampled_from(option_sets(game)), label="options")
    out = np.zeros(spec(game_id).size, np.float32)
    rng = random.Random(seed)
    for state in random_playout(game, players, options, seed):
        mover = game.to_move(state)
        for seat in {mover if mover is not None else 0, rng.randrange(players)}:
            _check(game_id, state, seat, out)


def test_without_a_writer_the_view_is_encoded():
    """``encode_state`` of a spec with no writer is ``encode`` of the view (the fallback other games
    get)."""
    s = spec("china")
    game = GAMES["china"]
    state = game.setup(3, {}, seed=3)
    writer, s.writer = s.writer, None
    try:
        plain = s.encode_state(game, state, 1)
    finally:
        s.writer = writer
    assert np.array_equal(plain, s.encode(game.view(state, 1), 1))


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_any_float_array_is_filled_with_the_same_values(game_id):
    """Writers store native float32; float64, big-endian and strided arrays get the same values."""
    game = GAMES[game_id]
    s = spec(game_id)
    state = random_playout(game, game.max_players, {}, 3)[40]
    want = s.encode(game.view(state, 1), 1)
    for out in (np.full(s.size, 5.0), np.full(s.size, 5.0, ">f4"), np.full(2 * s.size, 5.0, np.float32)[::2]):
        assert np.array_equal(s.encode_state(game, state, 1, out), want)


def test_threads_writing_at_once_each_get_their_own_states_vector():
    """Taj Mahal's writer keeps board blocks between calls, per thread: four threads writing for four
    different games at once (switching every microsecond) each get exactly their views' vectors."""
    game = GAMES["taj_mahal"]
    s = spec("taj_mahal")
    games = [random_playout(game, 3, {}, seed) for seed in range(4)]
    plays = [[(one, game.to_move(one) or 0) for one in states] for states in games]
    wanted = [[s.encode(game.view(one, seat), seat) for one, seat in play] for play in plays]
    wrong: list[int] = []

    def write(k: int) -> None:
        out = np.zeros(s.size, np.float32)
        for (one, seat), want in zip(plays[k], wanted[k], strict=True):
            if not np.array_equal(s.encode_state(game, one, seat, out), want):
                wrong.append(k)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert wrong == []
