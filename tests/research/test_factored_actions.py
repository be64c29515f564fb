"""China's factored action encoding (research.actions.factored): pinned, an exact bijection with the
flat ids, and conditional masks that offer exactly the legal actions, head by head."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.registry import GAMES
from research.actions import UnencodableAction, codec, factored

#: Fingerprint and head widths.  A change means a saved factored policy's outputs moved.
PINNED = ("0b3457ad1f42a419", (7, 59, 9, 55, 4, 5))


@pytest.fixture(scope="module")
def china():
    return factored(GAMES["china"])


def test_encoding_is_pinned_and_small(china):
    assert (china.fingerprint, china.sizes) == PINNED
    assert [h.name for h in china.heads] == ["kind", "target", "province", "pay", "slot", "colour"]
    assert sum(china.sizes) == 139 < codec(GAMES["china"]).num_actions == 31251


def test_every_flat_id_has_one_tuple_and_comes_back(china):
    tuples = {china.from_flat(code) for code in range(china.flat.num_actions)}
    assert len(tuples) == china.flat.num_actions
    assert all(china.to_flat(china.from_flat(code)) == code for code in range(china.flat.num_actions))


def test_heads_read_the_action_fields(china):
    """A house placed on a space and paid for (R26-R28) reads kind, target and pay; a swap (R49) only
    its colour; the heads a kind ignores are 0 and do not change the id."""
    action = {"type": "place", "piece": "house", "target": "QIN3", "pay": "red+green"}
    values = china.encode(action)
    heads = {h.name: h.values[v] for h, v in zip(china.heads, values, strict=True)}
    assert heads["kind"] == "place_house" and heads["target"] == "QIN3" and heads["pay"] == "red+green"
    assert china.used(values[0]) == (True, True, False, True, False, False)
    noisy = list(values)
    noisy[2], noisy[4], noisy[5] = 3, 2, 1  # ignored heads
    assert china.decode(noisy) == action
    swap = china.encode({"type": "swap", "discard": "violet"})
    assert china.used(swap[0]) == (True, False, False, False, False, True)
    assert china.heads[5].values[swap[5]] == "violet"


def test_tuples_that_name_no_action_are_refused(china):
    kind = china.heads[0].values.index("fortify")
    seal = china.heads[1].values.index("YAN")  # a dragon seal, not a space a house can stand on (R64)
    with pytest.raises(UnencodableAction, match="name no action"):
        china.to_flat([kind, seal, 0, 0, 0, 0])
    with pytest.raises(UnencodableAction):
        china.to_flat([99, 0, 0, 0, 0, 0])


def _completions(china, legal, prefix):
    if len(prefix) == len(china.sizes):
        return {china.to_flat(prefix)}
    found = set()
    for value in np.flatnonzero(china.conditional_mask(legal, prefix)):
        found |= _completions(china, legal, [*prefix, int(value)])
    return found


def test_conditional_masks_offer_exactly_the_legal_actions(china):
    """Walking the heads in order through the conditional masks reaches every legal id and nothing else,
    at every decision of random games (with the fortification variant, R64, too)."""
    game = GAMES["china"]
    kinds: set[str] = set()
    for seed, options in ((1, {}), (3, {"fortifications": True})):
        state = game.setup(3, options, seed=seed)
        rng = random.Random(seed)
        for _ in range(80):
            legal = china.flat.encode_all(game.legal_actions(state))
            assert _completions(china, legal, []) == set(legal)
            kinds |= {china.heads[0].values[china.from_flat(code)[0]] for code in legal}
            game.apply(state, rng.choice(game.legal_actions(state)))
    assert kinds == set(china.heads[0].values)  # every kind was offered somewhere


def test_a_game_without_a_factoring_is_refused_by_name():
    with pytest.raises(ValueError, match="no factored action encoding"):
        factored(GAMES["confucius"])
