"""The component data the rules run on (RULES section 1), checked against the tables of RULES.md, and the
privileges (R6) and unlimited commodities (R7) as the rules use them."""

from __future__ import annotations

import pytest

from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.components import SUPPLY, TILE_IDS, TILE_SYMBOLS, TILE_VALUE
from engine.games.year_of_dragon.scenario import build

from .helpers import act, player

#: RULES R1, typed in from its table: tile -> (value, symbols).
R1_TABLE = {
    "craftsman": (2, 1),
    "court_lady": (1, 1),
    "tax_collector": (3, 3),
    "pyrotechnist_y": (5, 1),
    "pyrotechnist_o": (3, 2),
    "warrior_y": (5, 1),
    "warrior_o": (3, 2),
    "monk_y": (6, 1),
    "monk_o": (2, 2),
    "healer_y": (4, 1),
    "healer_o": (1, 2),
    "farmer_y": (4, 1),
    "farmer_o": (1, 2),
    "scholar_y": (4, 2),
    "scholar_o": (2, 3),
}
SPLIT_TYPES = ("pyrotechnist", "warrior", "monk", "healer", "farmer", "scholar")


def test_person_tiles_values_and_symbols():
    """R1: 9 types, six with a young and an old tile, three young only; values and symbols as tabled."""
    assert dict(zip(TILE_IDS, zip(TILE_VALUE, TILE_SYMBOLS, strict=True), strict=True)) == R1_TABLE


def test_young_tiles_are_worth_more_and_show_fewer_symbols():
    """R62 (resolved by R1, against the Polish text): young = higher value and fewer symbols than old."""
    for kind in SPLIT_TYPES:
        (young_value, young_symbols), (old_value, old_symbols) = R1_TABLE[f"{kind}_y"], R1_TABLE[f"{kind}_o"]
        assert young_value > old_value and young_symbols < old_symbols, kind


def test_recruiting_moves_the_marker_by_the_tile_value():
    """R1: a tile's value is the number of person-track spaces its recruitment gains, for every tile."""
    for tile, (value, _) in R1_TABLE.items():
        state = build(
            {
                "players": 5,
                "phase": "person",
                "seats": [{"pos": 50, "palaces": [[1]]}, {}, {}, {}, {}],
            }
        )
        act(state, "recruit", card="wild", person=tile)
        assert player(state, 0)["person_pos"] == 50 + value, tile


def test_person_tile_totals():
    """R2, R10: 10 tiles of each type (6 young + 4 old, or 10 young), 90 in all; fewer players use fewer, the
    same number of each type."""
    five = dict(zip(TILE_IDS, SUPPLY[5], strict=True))
    assert sum(five.values()) == 90
    for kind in SPLIT_TYPES:
        assert (five[f"{kind}_y"], five[f"{kind}_o"]) == (6, 4)
    assert five["craftsman"] == five["court_lady"] == five["tax_collector"] == 10
    for players, per_type in ((4, 8), (3, 6), (2, 4)):
        supply = dict(zip(TILE_IDS, SUPPLY[players], strict=True))
        assert all(supply[f"{k}_y"] + supply[f"{k}_o"] == per_type for k in SPLIT_TYPES)
        assert supply["craftsman"] == supply["court_lady"] == supply["tax_collector"] == per_type


def test_released_tiles_never_return_to_the_supply():
    """R2, R17: person tiles are the one limited component; a released person leaves the game, so the
    supply does not grow back."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 5,
            "event": "contagion",
            "seats": [{"palaces": [[2, "monk_y", "farmer_y"]]}, {"palaces": [[1, "monk_y"]]}],
        }
    )
    supply = GAME.view(state, None)["supply"]
    assert (supply["monk_y"], supply["farmer_y"]) == (1, 2)  # R10 for 2 players: 3 young each, minus held
    assert player(state, 0)["palaces"] == [{"floors": 1, "persons": []}]  # both released, then decay


def test_privileges_prices_and_round_value():
    """R6, R34: a small privilege costs 2 yuan and shows 1 dragon (1 VP a round), a large one 6 yuan and
    2 dragons (2 VP a round)."""
    groups = [["privilege", "taxes", "build", "harvest"], ["fireworks", "military_parade", "research"]]
    for size, cost, per_round in (("small", 2, 1), ("large", 6, 2)):
        state = build(
            {"players": 2, "round": 2, "groups": groups, "stack": [1, 0], "seats": [{"yuan": 9}, {}]}
        )
        act(state, "action", group=0, action="privilege")
        act(state, "privilege", size=size)
        assert player(state, 0)["yuan"] == 9 - cost
        scored = build({"players": 2, "phase": "decay", "round": 4, "seats": [{size: 1}, {}]})
        assert player(scored, 0)["vp"] == per_round


@pytest.mark.parametrize(
    ("stock", "start", "action", "after"),
    [
        ("yuan", 70, "taxes", 72),  # more than the 66 yuan of the physical coins
        ("rice", 24, "harvest", 25),  # more than the 24 rice tiles
        ("fireworks", 12, "fireworks", 13),  # more than the 12 fireworks tiles
    ],
)
def test_commodities_are_unlimited(stock, start, action, after):
    """R7: yuan, rice and fireworks never run out; the engine keeps one integer each."""
    groups = [["taxes", "harvest", "fireworks", "build"], ["military_parade", "research", "privilege"]]
    state = build(
        {"players": 2, "round": 3, "groups": groups, "stack": [1, 0], "seats": [{stock: start}, {}]}
    )
    act(state, "action", group=0, action=action)
    assert player(state, 0)[stock] == after


def test_privileges_never_run_out():
    """R7, R70: a sixth small and a fourth large privilege can be bought (5 and 3 exist physically)."""
    groups = [["privilege", "taxes", "build", "harvest"], ["fireworks", "military_parade", "research"]]
    state = build(
        {
            "players": 2,
            "round": 8,
            "groups": groups,
            "stack": [1, 0],
            "seats": [{"yuan": 20, "small": 5, "large": 3}, {"yuan": 20, "small": 5, "large": 3}],
        }
    )
    act(state, "action", group=0, action="privilege")
    act(state, "privilege", size="small")
    act(state, "action", group=0, action="privilege")  # the occupied group costs 3 more
    act(state, "privilege", size="large")
    assert player(state, 0)["privileges"] == {"small": 6, "large": 3}
    assert player(state, 1)["privileges"] == {"small": 5, "large": 4}
    assert (player(state, 0)["yuan"], player(state, 1)["yuan"]) == (18, 11)
