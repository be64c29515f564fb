"""What a learner reads, pinned (issue 46): the speed work on views, tensors and legal actions must not
change a single value.  Each game plays a fixed walk (2 and 3 players, every seat read at every step,
the spectator's view too) and the digest of everything read must stay the pinned one: observation and
information-state strings and tensors, the legal ids and the returns."""

from __future__ import annotations

import hashlib
import random

import numpy as np
import pytest

from engine.registry import GAMES
from research.openspiel_game import load
from tests.research.conftest import GAME_IDS

#: Digest of each game's walks (computed with the code before the speed work of issue 46).
PINNED = {
    "china": "4fcc5c7d8e63eaaf298b1881917835ac01a40b66a5cd9403148a5967e02d202d",
    "confucius": "085a54fdbd5d1c57f275388792ed4cafd145fffd1e5ba5255abe74fb387df5ce",
    "taj_mahal": "26e08c9ff139d44dcd1e4f153b85f4380a9303a5bd277d9efa85d3a1be5d721e",
    "year_of_dragon": "f36131800931a14b503bd47cb8116e3d6e5b83e29fd0e5ff9844d375da7f3fb3",
}


def _digest(game_id: str) -> str:
    h = hashlib.sha256()
    for players in (GAMES[game_id].min_players, 3):
        game = load(game_id, players=players, seed=11 + players)
        rng = random.Random(players)
        state = game.new_initial_state()
        while not state.is_terminal():
            for seat in range(players):
                h.update(np.asarray(state.observation_tensor(seat), np.float32).tobytes())
                h.update(np.asarray(state.information_state_tensor(seat), np.float32).tobytes())
                h.update(state.observation_string(seat).encode())
                h.update(state.information_state_string(seat).encode())
            h.update(str(state).encode())
            legal = state.legal_actions()
            h.update(repr(legal).encode())
            state.apply_action(rng.choice(legal))
        h.update(repr(state.returns()).encode())
    return h.hexdigest()


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_every_observation_along_a_fixed_walk_is_the_pinned_one(game_id):
    assert _digest(game_id) == PINNED[game_id]
