"""The scenario builder (engine/games/taj_mahal/scenario.py) builds valid states and refuses the
impossible ones, naming the rule they break."""

from __future__ import annotations

import random

import pytest

from engine.games.taj_mahal import GAME
from engine.games.taj_mahal.components import STANDARD
from engine.games.taj_mahal.scenario import ImpossibleState, build, card_named, ring

from .helpers import F1


def _refused(spec, rule):
    with pytest.raises(ImpossibleState) as exc:
        build(spec)
    assert str(exc.value).startswith(f"{rule}:"), exc.value


@pytest.mark.parametrize(
    ("spec", "rule"),
    [
        ({"players": 2}, "R10"),
        ({"players": 3, "seats": [{}, {}, {}, {}]}, "R16"),
        ({"players": 3, "seats": [{"out": True, "table": ["red[E,V]"]}]}, "R40"),
        ({"players": 3, "seats": [{"table": ["red[E,V]", "white[E]", "white[V]"]}]}, "R24"),
        ({"players": 3, "seats": [{"table": ["red[E,V]", "green[E,V]"], "colour": "red"}]}, "R25"),
        ({"players": 3, "seats": [{"table": ["red[E,V]", "green[E,V]"]}]}, "R25"),
        ({"players": 3, "seats": [{"table": ["red[E,V]", "SPANY"], "colour": "green"}]}, "R25"),
        ({"players": 3, "seats": [{"table": [], "colour": "green"}]}, "R25"),
        ({"players": 3, "seats": [{"table": ["red[E,V]", "red[E,M]", "SPANY"], "colour": None}]}, "R25"),
        ({"players": 3, "tile_goods": {13: ["rice"]}}, "R3"),
        ({"players": 3, "map": F1, "tiles": {"X": 1}, "palaces": {"X1": 0}, "seats": [{"out": True}]}, "R34"),
        ({"players": 3, "tile_goods": {1: ["gold"]}}, "R3"),
        ({"players": 3, "seats": [{"tiles": {"monk": 3}}]}, "R51"),
        ({"players": 3, "seats": [{"tiles": {"monk": 2}}]}, "R51"),
        ({"players": 3, "court": ["general", "monk", "princess", "grand_mogul", "elephant"]}, "R34"),
        ({"players": 3, "court": ["vizier", "general", "monk", "princess", "grand_mogul"]}, "R39"),
        ({"players": 3, "seats": [{"province_tiles": [1]}]}, "R39"),
        ({"players": 3, "seats": [{"province_tiles": [5]}]}, "R19"),
        ({"players": 3, "court": ["vizier", "general", "monk", "princess", "elephant"]}, "R35"),
        ({"players": 3, "supply": {"monk": 5}, "seats": [{"tiles": {"monk": 1}}]}, "R5"),
        ({"players": 3, "map": F1, "tiles": {"X": 1}, "bonus": {"X1": "+2"}}, "R11"),
        ({"players": 3, "map": F1, "tiles": {"X": 1}, "bonus": {"X4": "+2"}, "palaces": {"X4": 0}}, "R36"),
        (
            {
                "players": 3,
                "map": F1,
                "tiles": {"X": 1},
                "bonus": {"X4": "+2"},
                "palaces": {"X4": 0},
                "seats": [{"out": True}],
            },
            "R38",
        ),
        ({"players": 3, "map": F1}, "R10"),
        ({"players": 3, "map": F1, "tiles": {"X": 1}, "visit": 2}, "R19"),
        ({"players": 3, "map": F1, "tiles": {"X": 1}, "palaces": {"Q9": 0}}, "R2"),
        ({"players": 3, "seats": [{"hand": ["SP+2"]}]}, "R59"),
        ({"players": 3, "seats": [{"specials": ["SP+2"]}, {"specials": ["SP+2"]}]}, "R7"),
        ({"players": 3, "seats": [{"hand": ["red[E,X]"]}]}, "R7"),
        ({"players": 3, "seats": [{"hand": ["orange[E,V]"]}]}, "R7"),
        ({"players": 3, "seats": [{"out": True}] * 3}, "R50"),
        ({"players": 3, "seats": [{"out": True}], "to_move": 0}, "R21"),
        ({"players": 3, "seats": [{"out": True}], "display": 4}, "R48"),
        ({"players": 3, "deck": 200}, "R14"),
    ],
)
def test_builder_refuses_impossible_states(spec, rule):
    """The builder refuses what RULES.md makes impossible (rule named in the message)."""
    _refused(spec, rule)


def test_defaults_describe_a_visit_start():
    """R12, R13, R14, R15, R17: hands of 6, a full display, the court full, supplies of 5, specials
    unowned."""
    s = build({"players": 4})
    assert [len(p.hand) for p in s.players] == [6] * 4
    assert len(s.display) == 7 and len(s.deck) == 96 - 24 - 7
    assert all(s.court) and s.supply == [5, 5, 5, 5]
    assert sorted(s.unowned_specials) == sorted(STANDARD.special_cards)
    assert s.comp is STANDARD  # nothing written needed a fixture


def test_withdrawn_players_shrink_the_default_display():
    """R48: each withdrawn player took 2 display cards; the seat to move defaults past them (R21)."""
    s = build({"players": 4, "seats": [{"out": True}, {"out": True}]})
    assert len(s.display) == 3 and GAME.to_move(s) == 2


def test_missing_cards_become_fixtures_that_encode_and_play():
    """R7, C1: a card the deck list lacks is added as a fixture; the state encodes, decodes and plays."""
    s = build(
        {
            "players": 3,
            "map": ring("X", fortified=(1,)),
            "tiles": {"X": 1},
            "bonus": {"X1": "rice"},
            "seats": [{"hand": ["purple[E,E]"] * 3}],
        }
    )
    assert len(s.comp.card_ids) == 101 and sum(cid.startswith("fixture-") for cid in s.comp.card_ids) == 1
    assert GAME.encode(GAME.decode(GAME.encode(s))) == GAME.encode(s)
    rng = random.Random(1)
    while GAME.to_move(s) is not None:
        GAME.apply(s, rng.choice(GAME.legal_actions(s)))
    assert GAME.result(s) is not None


def test_written_cards_and_piles_are_placed_as_given():
    """The deck is listed top first; counts deal random cards; unlisted cards leave the game."""
    s = build({"players": 3, "deck": ["white[E]", "red[E,E]"], "discard": 3, "display": ["green[V,M]"]})
    comp = s.comp
    assert [comp.card_label(c) for c in s.deck] == ["red[elephant,elephant]", "white[elephant]"]
    assert len(s.discard) == 3 and [comp.card_label(c) for c in s.display] == ["green[vizier,monk]"]


def test_a_lone_play_with_the_any_colour_card_leaves_the_colour_open():
    """R26, N4: after red[E,V] + SPANY the player is not committed (colour None), so his next plain
    play may be green and fixes green."""
    s = build(
        {
            "players": 3,
            "seats": [{"table": ["red[E,V]", "SPANY"], "colour": None, "hand": ["green[E,G]"]}],
        }
    )
    assert s.players[0].colour == -1
    GAME.apply(s, {"type": "play", "card": card_named(s.comp, s.players[0].hand, "green[E,G]"), "extra": ""})
    assert s.comp.colours[s.players[0].colour] == "green"


def test_fixture_province_tile_goods():
    """R3 / X7: ``tile_goods`` prints fixture goods on a province tile of the state's own kit."""
    s = build({"players": 3, "tile_goods": {1: ["rice", "rice"]}})
    assert [s.comp.goods[g] for g in s.comp.tile_goods[1]] == ["rice", "rice"]
    assert STANDARD.tile_goods[1] == (STANDARD.goods.index("rice"),)
