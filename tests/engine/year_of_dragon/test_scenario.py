"""The scenario builder builds valid states and refuses impossible ones (R56a and the rules it lists)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.scenario import InvalidScenario, build, build_with_events

from .helpers import player


def test_defaults_are_a_consistent_state():
    """R10, R56a: unlisted supply = R10 minus the tiles held; pos defaults to the value of the persons;
    hands hold 12 - r cards in month r's Phase 1, the wild cards kept longest."""
    state = build({"players": 3, "round": 4, "seats": [{"palaces": [[2, "monk_y", "farmer_o"]]}, {}, {}]})
    view = GAME.view(state, 0)
    assert view["supply"]["monk_y"] == 3 and view["supply"]["farmer_o"] == 1 and view["supply"]["monk_o"] == 2
    me = view["players"][0]
    assert me["person_pos"] == 6 + 1 and me["hand_size"] == 8
    assert me["hand"] == {
        "warrior": 1,
        "monk": 1,
        "healer": 1,
        "farmer": 1,
        "scholar": 1,
        "wild": 2,
        "pyrotechnist": 1,
    }
    assert me["played"] == ["craftsman", "court_lady", "tax_collector"]
    assert (view["round"], view["phase"]) == (4, "action")


def test_person_phase_hands_follow_the_turn():
    """R56a: in month r's Person phase the seats that already played hold 11 - r cards, the others 12 - r."""
    state = build(
        {"players": 3, "phase": "person", "round": 2, "order": [2, 0, 1], "stack": [1, 0, 2], "turn": 1}
    )
    assert [player(state, p, p)["hand_size"] for p in range(3)] == [10, 10, 9]
    assert GAME.to_move(state) == 0


@pytest.mark.parametrize(
    ("desc", "rule"),
    [
        ({"players": 6}, "R10"),
        ({"players": 3, "phase": "auction"}, "phase"),
        ({"players": 3, "colour": "red"}, "colour"),
        ({"players": 3, "phase": "court", "round": 3}, "round"),
        ({"players": 3, "round": 13}, "R21"),
        ({"players": 3, "phase": "person", "round": 12}, "R21"),
        ({"players": 3, "seats": [{}, {}]}, "seats"),
        ({"players": 3, "seats": [{"gold": 3}, {}, {}]}, "gold"),
        ({"players": 3, "seats": [{"yuan": -1}, {}, {}]}, "R56"),
        ({"players": 3, "seats": [{"palaces": [[4]]}, {}, {}]}, "R15"),
        ({"players": 3, "seats": [{"palaces": [[0]]}, {}, {}]}, "R15"),
        ({"players": 3, "seats": [{"palaces": [[]]}, {}, {}]}, "R15"),
        ({"players": 3, "seats": [{"palaces": [[1, "monk_y", "farmer_y"]]}, {}, {}]}, "R50"),
        ({"players": 3, "seats": [{"palaces": [[1, "dragon"]]}, {}, {}]}, "R1"),
        ({"players": 3, "seats": [{"pos": 3, "palaces": [[1, "monk_y"]]}, {}, {}]}, "R56a"),
        ({"players": 2, "seats": [{"palaces": [[3, "monk_o", "monk_o"]]}, {}]}, "R56a"),
        ({"players": 3, "supply": {"monk_y": 5}}, "R56a"),
        ({"players": 3, "supply": {"monk_y": -1}}, "R56"),
        ({"players": 3, "round": 2, "seats": [{"hand": ["wild"] * 10}, {}, {}]}, "R56a"),
        ({"players": 3, "round": 2, "seats": [{"hand": ["wild", "monk"]}, {}, {}]}, "R56a"),
        ({"players": 3, "round": 2, "seats": [{"hand": ["joker"] * 10}, {}, {}]}, "R3"),
        ({"players": 3, "stack": [0, 0, 1]}, "R18"),
        ({"players": 3, "order": [0, 1]}, "R19"),
        ({"players": 3, "turn": 3}, "turn"),
        ({"players": 3, "order": [0, 1, 2]}, "R20"),  # all on 0: seat 2's marker is on top
        ({"players": 3, "order": [1, 2, 0], "turn": 1}, "R20"),  # seat 1 cannot have acted before seat 2
        ({"players": 3, "phase": "person", "order": [2, 0, 1], "turn": 2}, "R20"),
        (
            {
                "players": 3,
                "groups": [["taxes", "build"], ["harvest", "research"], ["fireworks", "privilege"]],
            },
            "R22",
        ),
        (
            {"players": 3, "groups": [["taxes", "bribe", "build"], ["harvest", "research"], ["fireworks"]]},
            "R4",
        ),
        ({"players": 3, "dragons": [1, 0, 0]}, "R23"),
        ({"players": 3, "dragons": [0, 0]}, "R23"),
        ({"players": 3, "round": 5, "event": "peace"}, "R11"),
        ({"players": 3, "round": 5, "event": "earthquake"}, "R5"),
        ({"players": 3, "events": ["peace"] * 12}, "R11"),
        ({"players": 3, "events": ["peace", "peace", "drought", "drought", *["contagion"] * 8]}, "R11"),
    ],
)
def test_impossible_states_are_refused(desc, rule):
    """R56a (with R1, R3-R5, R10, R11, R15, R18-R23, R50, R56): no reachable state breaks these."""
    with pytest.raises(InvalidScenario) as info:
        build(desc)
    assert info.value.rule == rule, info.value


def test_phase_order_follows_the_track():
    """R19, R20: the phase order is the track order at the phase start; a seat that already acted may have
    moved past one that acted before it (Military Parade), never past one still to act."""
    state = build({"players": 3, "stack": [0, 1, 2]})
    assert GAME.view(state, None)["turn_order"] == [2, 1, 0] and GAME.to_move(state) == 2
    state = build({"players": 3, "order": [1, 2, 0], "turn": 2, "dragons": [0, 0, 0]})
    assert GAME.to_move(state) == 0


def test_event_shortcut_builds_a_valid_row():
    """R11: naming the month's event puts it in that slot of a valid row."""
    for month, event in ((3, "drought"), (12, "contagion"), (7, "dragon_festival"), (1, "peace")):
        row = GAME.view(build({"players": 2, "round": month, "event": event}), None)["event_row"]
        assert row[month - 1] == event and row[:2] == ["peace", "peace"]
        assert all(a != b for a, b in pairwise(row[2:]))


def test_the_event_phase_returns_the_events_of_the_month():
    """R39, R40, R42, R49: building the ``event`` phase of an Imperial Tribute returns the month's event
    with its own figures (what each seat paid, the persons owed) as play would have emitted it; the
    ``decay`` phase returns the decay; a phase the builder runs no step for returns none."""
    desc = {
        "players": 3,
        "phase": "event",
        "round": 5,
        "event": "imperial_tribute",
        "seats": [
            {"yuan": 9, "palaces": [[2, "farmer_o"]]},
            {"yuan": 4},
            {"yuan": 2, "palaces": [[2, "farmer_y", "healer_y"], [2, "monk_y", "scholar_y"]]},
        ],
    }
    state, events = build_with_events(desc)
    month = [e for e in events if e["type"] == "month_event"]
    assert month == [
        {
            "type": "month_event",
            "visible_to": "all",
            "round": 5,
            "event": "imperial_tribute",
            "vp": [0, 0, 0],
            "paid": [4, 4, 2],
            "owed": [0, 0, 2],
        }
    ]
    assert GAME.encode(state) == GAME.encode(build(desc))
    _, decay = build_with_events({**desc, "phase": "decay"})
    assert [e["type"] for e in decay][:1] == ["decay"]
    assert build_with_events({**desc, "phase": "person"})[1] == []
