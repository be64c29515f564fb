"""Observations on demand (issue 46): a move records its events and nothing else; a seat's history is
folded only when read, and a view's tensor reuses the parts of the view already hashed.  What is read
must be what an eager computation gives: the same digests, bags and tensors, whenever (and whether)
each seat was read before."""

from __future__ import annotations

import random
import zlib
from typing import Any

import numpy as np
import pyspiel
import pytest

from engine.core import event_visible
from engine.registry import GAMES
from research import observation
from research.observation import (
    HISTORY_BUCKETS,
    VIEW_BUCKETS,
    canonical,
    chain,
    event_payload,
    tensor_size,
    write_view_tensor,
)
from research.openspiel_game import load
from tests.research.conftest import GAME_IDS


def _reference_view_tensor(game: Any, view: dict[str, Any], seat: int, to_move: bool) -> np.ndarray:
    """The observation tensor exactly as the module docstring specifies it, leaf by leaf in float32."""
    out = np.zeros(tensor_size(game), np.float32)
    head = len(out) - VIEW_BUCKETS - 1
    out[seat] = 1.0
    out[head] = 1.0 if to_move else 0.0

    def leaves(doc: Any, path: str) -> None:
        items = doc.items() if isinstance(doc, dict) else enumerate(doc)
        for key, item in items:
            here = f"{path}.{key}"
            if isinstance(item, dict | list | tuple):
                leaves(item, here)
                continue
            if isinstance(item, bool | int | float):
                name, value = here, float(item)
            else:
                name, value = f"{here}={item}", 1.0
            h = zlib.crc32(name.encode())
            out[head + 1 + h % VIEW_BUCKETS] += np.float32(-value if h & 0x80000000 else value)

    leaves(view, "")
    return out


class _Eager:
    """Every seat's digest and bag, folded on every move from the engine's own events (the old way)."""

    def __init__(self, game: Any, state: Any, players: int) -> None:
        seats: list[int | None] = [*range(players), None]
        self.seats = seats
        self.digests = [chain(b"", canonical(game.view(state, s))) for s in seats]
        self.bags = [np.zeros(HISTORY_BUCKETS, np.float32) for _ in seats]

    def after(self, events: list[dict[str, Any]]) -> None:
        for i, seat in enumerate(self.seats):
            for e in events:
                if event_visible(e, seat):
                    payload = event_payload(e)
                    self.digests[i] = chain(self.digests[i], payload)
                    self.bags[i][zlib.crc32(payload) % HISTORY_BUCKETS] += 1.0


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_histories_read_at_any_time_equal_the_eager_fold(game_id):
    """Seats are read at random moments (some never until the end), a clone parts from the original
    halfway and plays other moves: every reading equals the history folded eagerly on every move."""
    engine = GAMES[game_id]
    game = load(game_id, players=3, seed=21)
    state = game.new_initial_state()
    shadow = engine.setup(3, None, seed=21)
    eager = _Eager(engine, shadow, 3)
    rng = random.Random(game_id)
    branch = None
    for step in range(60):
        if state.is_terminal():
            break
        if step == 30:
            branch = (
                state.clone(),
                engine.clone(shadow),
                list(eager.digests),
                [b.copy() for b in eager.bags],
            )
        if rng.random() < 0.3:
            seat = rng.randrange(3)
            assert state.information_state_string(seat).endswith(eager.digests[seat].hex())
            assert state.information_state_tensor(seat)[-HISTORY_BUCKETS:] == eager.bags[seat].tolist()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        eager.after(engine.apply(shadow, game.codec.decode(action)))
    for seat in range(3):
        assert state.information_state_string(seat).endswith(eager.digests[seat].hex())
        assert state.information_state_tensor(seat)[-HISTORY_BUCKETS:] == eager.bags[seat].tolist()
    assert state.box.history.seen(3)[0] == eager.digests[3]  # the public history
    assert branch is not None
    clone, shadow2, digests, bags = branch
    eager2 = _Eager(engine, engine.setup(3, None, seed=21), 3)
    eager2.digests, eager2.bags = digests, bags
    for _ in range(20):
        if clone.is_terminal():
            break
        action = clone.legal_actions()[-1]
        clone.apply_action(action)
        eager2.after(engine.apply(shadow2, game.codec.decode(action)))
    for seat in range(3):
        assert clone.information_state_string(seat).endswith(eager2.digests[seat].hex())
        assert clone.information_state_tensor(seat)[-HISTORY_BUCKETS:] == eager2.bags[seat].tolist()


def test_a_move_does_no_observation_work_for_seats_nobody_reads():
    game = load("year_of_dragon", players=4, seed=3)
    state = game.new_initial_state()
    for _ in range(40):
        state.apply_action(state.legal_actions()[0])
    step = state.box.history.step
    unread = 0
    while step.prev is not None:
        assert step.payloads is None and step.seen is None  # nothing hashed, nothing folded
        unread += 1
        step = step.prev
    assert unread == 40
    assert step.seen is None and step.initial is not None  # the initial views: a copy, not yet hashed
    state.information_state_tensor(2)
    assert set(state.box.history.step.seen or {}) == {2}  # reading seat 2 folds seat 2 only
    assert set(step.seen or {}) == {2} and step.initial is not None  # its initial view only hashed
    for seat in range(4):
        state.information_state_tensor(seat)
    assert set(step.seen or {}) == {0, 1, 2, 3} and step.initial is not None  # the public one is left
    state.information_state_tensor(2)  # a seat read again folds nothing new
    assert set(step.seen) == {0, 1, 2, 3}
    public = game.make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE)
    )
    public.set_from(state, 0)
    assert set(step.seen) == {0, 1, 2, 3, 4} and step.initial is None  # every history hashed: copy let go


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_view_tensors_equal_the_leaf_by_leaf_definition_with_the_part_cache_cold_and_warm(game_id):
    engine = GAMES[game_id]
    rng = random.Random(7)
    state = engine.setup(3, None, seed=7)
    views = []
    while engine.to_move(state) is not None and len(views) < 40:
        views.extend((engine.view(state, s), s) for s in range(3))
        for _ in range(3):
            if engine.to_move(state) is not None:
                engine.apply(state, rng.choice(engine.legal_actions(state)))
    out = np.zeros(tensor_size(engine), np.float32)
    for rounds in range(2):  # first with parts of earlier views only, then every part already known
        if rounds == 0:
            observation._PARTS.clear()
        for view, seat in views:
            write_view_tensor(out, view, seat, seat == 1)
            assert np.array_equal(out, _reference_view_tensor(engine, view, seat, seat == 1))
