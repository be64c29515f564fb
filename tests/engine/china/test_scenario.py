"""The scenario builder: it derives what follows from the board and refuses unreachable positions."""

from __future__ import annotations

import random

import pytest

from engine.games.china.components import SPACES
from engine.games.china.scenario import ScenarioError, build

from .helpers import GAME, crowded_board, seen

ALL_REDS = [f"R{i:02d}" for i in range(1, 14)]


@pytest.mark.parametrize(
    ("desc", "rule"),
    [
        ({"players": 2}, "R2"),
        ({"players": 3, "colour": "blue"}, "schema"),
        ({"players": 3, "to_move": 3}, "R19"),
        ({"players": 3, "houses": {"NOWHERE": 0}}, "R10"),
        ({"players": 3, "houses": {"WEI1": 5}}, "R15"),
        ({"players": 3, "emissaries": {"WEI": {0: 1}}}, "R34"),
        ({"players": 3, "houses": {"WEI1": 0}, "emissaries": {"WEI": {1: 2}}}, "R33"),
        (
            {"players": 3, "houses": {"QIN1": 0, "QIN2": 0}, "emissaries": {"QIN": {0: 1}, "NOWHERE": {}}},
            "R10",
        ),
        ({"players": 3, "hands": {0: ["R01", "R01", "G01"]}}, "R5"),
        ({"players": 3, "hands": {0: ["X99", "R01", "G01"]}}, "R5"),
        ({"players": 4, "deck": ALL_REDS}, "R16"),
        ({"players": 3, "hands": {0: ["R01", "R02", "R03", "R04"]}}, "R17"),
        ({"players": 3, "hands": {0: ["R01", "R02"]}}, "R45"),
        ({"players": 3, "display": ["R01", None, "G01", "G02"]}, "R46"),
        ({"players": 3, "display": ["R01", "G01", "G02"]}, "R18"),
        ({"players": 3, "deck": []}, "R50"),
        ({"players": 3, "to_move": 1, "exhaustions": 2, "deck": ["R01"]}, "R50"),
        ({"players": 3, "exhaustions": 3}, "R50"),
        ({"players": 4, "start": 2, "to_move": 2, "exhaustions": 2}, "R52"),
        ({"players": 3, "deck": ["R01"], "discard": ["R02"]}, "R16"),
        ({"players": 3, "scores": [1, 2]}, "R20"),
        ({"players": 3, "houses": {"WEI1": 0}, "fortified": {0: "WEI1"}}, "R21"),
        ({"players": 3, "houses": {"WEI1": 1}, "fortifications": True, "fortified": {0: "WEI1"}}, "R64"),
    ],
)
def test_builder_refuses_impossible_states(desc, rule):
    """R2, R5, R10, R15-R21, R33, R34, R45, R46, R50, R52, R64: each description breaks one invariant
    (R52: the start player never begins a turn in the final round; the builder accepted that
    unreachable position before)."""
    with pytest.raises(ScenarioError) as info:
        build(desc)
    assert info.value.rule == rule


def test_builder_refuses_more_than_twenty_houses():
    """R6: a player owns 20 houses."""
    with pytest.raises(ScenarioError) as info:
        build({"players": 3, "houses": {s: 0 for s in SPACES[:21]}})
    assert info.value.rule == "R6"


def test_builder_refuses_more_than_eight_emissaries():
    """R6: 8 of the 9 emissaries are placeable."""
    houses = {f"ZHOU{i}": 1 for i in range(1, 6)} | {f"WEI{i}": 1 for i in range(1, 6)}
    with pytest.raises(ScenarioError) as info:
        build({"players": 3, "houses": houses, "emissaries": {"ZHOU": {0: 5}, "WEI": {0: 4}}})
    assert info.value.rule == "R6"


def test_builder_refuses_a_blocked_board():
    """R53: if nobody can place any piece the game is already over, so no turn can begin."""
    with pytest.raises(ScenarioError) as info:
        build({"players": 4, **crowded_board(4)})
    assert info.value.rule == "R53"
    build({"players": 4, **crowded_board(4, leave_free="WU4")})  # one free space: not blocked


def test_builder_refuses_a_turn_that_would_be_skipped():
    """R55: in the final round a seat with no card (and nothing to take) cannot act."""
    with pytest.raises(ScenarioError) as info:
        build({"players": 3, "to_move": 1, "exhaustions": 2, "hands": {1: []}, "display": [None] * 4})
    assert info.value.rule == "R55"


def test_builder_derives_supplies_scored_flags_and_card_piles():
    """R15, R37, R16-R18: supplies follow from the board, a full province is scored, every card of the
    deck is somewhere."""
    houses = {f"HAN{i}": 0 for i in range(1, 5)} | {"B_QIN_HAN": 1}
    state = build(
        {"players": 3, "houses": houses, "emissaries": {"HAN": {2: 3}}, "hands": {0: ["G01", "G02", "R01"]}}
    )
    view = seen(state, 0)
    assert [(p["houses"], p["emissaries"]) for p in view["players"]] == [(16, 8), (19, 8), (20, 5)]
    assert view["board"]["scored"] == ["HAN"]
    assert view["players"][0]["hand"] == ["red", "green", "green"]
    cards = view["deck_size"] + len(view["discard"]) + 4 + sum(p["hand_size"] for p in view["players"])
    assert cards == 47


def test_builder_deck_is_given_top_first():
    """R45: the first card listed is the first drawn."""
    state = build({"players": 3, "deck": ["V01", "R01"], "hands": {0: ["G01", "G02", "G03"]}})
    events = GAME.apply(state, {"type": "place", "piece": "house", "target": "YAN1", "pay": "green"})
    events += GAME.apply(state, {"type": "draw_deck"})
    assert next(e for e in events if e["type"] == "drew")["card"] == "violet"


def test_built_states_play_to_the_end():
    """A built position is a full game state: random legal play from it reaches a result."""
    state = build({"players": 5, "houses": {"WEI1": 4, "ZHOU3": 2}, "exhaustions": 1, "seed": 3})
    rng = random.Random(0)
    while GAME.to_move(state) is not None:
        GAME.apply(state, rng.choice(GAME.legal_actions(state)))
    assert GAME.result(state) is not None
    assert GAME.decode(GAME.encode(state)) is not None
