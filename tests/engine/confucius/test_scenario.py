"""The scenario builder (engine/games/confucius/scenario.py) builds playable states and refuses
impossible ones, each for the rule its invariant comes from."""

from __future__ import annotations

import random

import pytest

from engine.games.confucius import GAME
from engine.games.confucius.ministries import space_index
from engine.games.confucius.scenario import ScenarioError, build, validate

THREE = ["black", "white", "green"]


def test_default_description_is_a_playable_setup():
    """Unlisted parts stay as the seeded setup left them (R14-R21) and the game plays to its end."""
    state = build({"players": 4, "seed": 3})
    built, setup = GAME.view(state, 0), GAME.view(GAME.setup(4, seed=3), 0)
    for key in ("ministries", "foreign_lands", "distant_lands", "candidate", "chief_minister", "to_move"):
        assert built[key] == setup[key], key
    assert [p["cards"] for p in built["players"]] == [3] * 4 and built["players"][0]["hand"] == setup[
        "players"
    ][0]["hand"]
    rng = random.Random(3)
    while GAME.to_move(state) is not None:
        GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        validate(state)
    assert GAME.result(state) is not None


@pytest.mark.parametrize(
    ("desc", "message"),
    [
        ({"players": ["black", "white"]}, "Confucius takes 3-5"),  # R13
        ({"players": ["black", "black", "white"]}, "bad colours"),
        ({"players": THREE, "chief_minister": "yellow"}, "is not playing"),
        ({"players": THREE, "hands": {"black": [1] * 23}}, "more than 22 cards"),  # R9
        ({"players": THREE, "rewards": {"black": ["cash"], "white": ["cash"]}}, "no cash reward card"),  # R10
        ({"players": THREE, "gifts": ["black>black:1"]}, "himself"),
        ({"players": THREE, "gifts": ["black>white:2", "white>black:3"]}, "equal values"),  # R52, R64
        ({"players": THREE, "gifts": ["black>white:2", "black>green:2"]}, "given twice"),
        ({"players": THREE, "gift_states": {"black": {"1": "not_available"}}}, "value-1 gift"),  # R20
        ({"players": THREE, "officials": {"hubu#1": "black u cand"}}, "secured marker"),  # R4
        ({"players": THREE, "officials": {f"hubu#{s}": "7" for s in (1, 2, 6, 7)}}, "of cost 7"),  # R3
        ({"players": THREE, "candidate_stack": ["any"] * 4}, "too many any candidates"),  # R4
        ({"players": THREE, "officials": {"hubu#1": "black s cand"}}, "candidates placed"),  # R4, R17
        (
            {"players": THREE, "officials": {"hubu#3": "black s"}, "resolved": {"hubu": ["black", "white"]}},
            "resolved mid-game but not full",  # R90
        ),
        ({"players": THREE, "resolved": {"hubu": ["black", "white"]}}, "without its Minister"),  # R91, R101
        ({"players": THREE, "armies": {"black": {"colonies": 2, "stock": 5}}}, "6 in all"),  # R11
        ({"players": THREE, "junks": {"black": {"ocean": 5}}}, "junks at sea"),  # R47
        ({"players": THREE, "junks": {"black": {"shipyard": 26}}}, "25 junks"),  # R12
        ({"players": THREE, "reached": {"black": ["india"]}, "land_chits": {"india": 4}}, "chit and markers"),
        (
            {"players": THREE, "foreign_lands": {"1": {"land": "annam", "state": "success"}}},
            "empty box",
        ),  # R93
        ({"players": THREE, "round": 2, "wall": 5}, "one wall piece per round"),  # R78
        ({"players": THREE, "chits": {"hubu": [4, 8]}}, "higher chit"),  # R14
        ({"players": THREE, "phase": "choose_chief_minister"}, "from round 2"),  # R26
        ({"players": THREE, "hand": {"black": [1]}}, "unknown keys"),
        ({"players": THREE, "phase": "court", "court_step": "lunch"}, "unknown court step"),
    ],
)
def test_impossible_states_are_refused(desc, message):
    with pytest.raises(ScenarioError, match=message):
        build(desc)


def test_builder_takes_pieces_out_of_their_supplies():
    """Cards in hand leave the deck (R9), a listed tile leaves the stack (R3), junks leave the supply."""
    state = build(
        {
            "players": THREE,
            "hands": {"black": [3, 3, 3, 3]},
            "officials": {"hubu#1": "black u 7"},
            "junks": {"white": {"shipyard": 3, "ocean": 2}},
        }
    )
    v = GAME.view(state, 0)
    assert v["players"][0]["hand"] == {"c1": 0, "c2": 0, "c3": 4}
    assert v["deck"] == 66 - 4 - 3 - 3 and v["junk_supply"] == 20
    assert v["official_stack"] == 24 - 9 - 1
    assert v["ministries"][1]["spaces"][0] == {
        "space": 1,
        "tile": 7,
        "marker": 0,
        "secured": False,
        "transferred": False,
    }


def test_the_view_shows_the_colours_the_players_were_built_with():
    """Rule R11 (each player's pieces in one colour): a description naming the players by colour shows
    those colours, seat by seat, in every view, after encode/decode and in a determinized copy; a
    counted description and setup keep the seat order of components.json."""
    state = build({"players": ["black", "yellow", "green"], "seed": 2})
    colours = ["black", "yellow", "green"]
    assert [p["colour"] for p in GAME.view(state, 0)["players"]] == colours
    assert [p["colour"] for p in GAME.view(GAME.decode(GAME.encode(state)), None)["players"]] == colours
    copy = GAME.determinize(state, 1, random.Random(1))
    assert [p["colour"] for p in GAME.view(copy, 1)["players"]] == colours
    default = [p["colour"] for p in GAME.view(GAME.setup(3, seed=2), None)["players"]]
    assert [p["colour"] for p in GAME.view(build({"players": 3}), None)["players"]] == default
    assert default[0] != "black" or default[1] != "yellow"


#: Round 5: a Gongbu candidate replaced Gongbu 4's official (R88), and the board has 14 officials.
REPLACED = {
    "players": THREE,
    "round": 5,
    "chief_minister": "black",
    "candidate": "hubu",
    "candidate_stack": ["any", "any", "any"],
    "officials": {
        "gongbu#4": "black s cand",
        **{f"{m}#{s}": "white u" for m in ("bingbu", "hubu") for s in (1, 2)},
        "bingbu#6": "green u",
        "hubu#6": "green u",
    },
}


def test_official_stack_can_hold_nine_after_a_candidate_replaced_one():
    """Rules R88, R97, R3: with the official stack set, the tile a candidate replaced is out of play,
    so the state with 9 officials in the stack (14 on the board, 1 replaced) is built directly; the
    End of Round draws the stack's top tiles onto each ministry's most senior empty space."""
    loose = build(REPLACED)
    assert GAME.view(loose, None)["official_stack"] == 10  # the replaced tile went back under the stack
    nine = sorted(loose.stack)[1:]
    state = build({**REPLACED, "official_stack": nine})
    assert GAME.view(state, None)["official_stack"] == 9
    drawn = build({**REPLACED, "official_stack": nine, "phase": "court", "court_step": "new_officials"})
    firsts = [space_index(m, s) for m, s in (("bingbu", 7), ("hubu", 7), ("gongbu", 1))]
    assert [drawn.tile[i] for i in firsts] == nine[:3]  # R97: in ministry order, from the top
    assert all(drawn.owner[i] < 0 for i in firsts) and len(drawn.stack) == 6


def test_officials_out_of_play_need_candidates_that_replaced_them():
    """Rules R88, R3: only a candidate replacing an official takes it out of play, so a stack that
    leaves more officials out of play than candidates on the board is refused, and so is a cost that
    is not left."""
    loose = build(REPLACED)
    with pytest.raises(ScenarioError, match="R88"):
        build({**REPLACED, "official_stack": sorted(loose.stack)[2:]})
    with pytest.raises(ScenarioError, match="R88"):
        build({"players": THREE, "official_stack": sorted(build({"players": THREE}).stack)[1:]})
    with pytest.raises(ScenarioError, match="R3"):
        build({**REPLACED, "official_stack": [*sorted(loose.stack)[1:-1], 99]})
