"""Voyages where the seed and the English rulebook disagree (R118, R119): the destination is a
Distant Land, only its first visitor takes the chit, and the Admiral counts markers, not chits."""

from __future__ import annotations

from engine.games.confucius.scenario import build
from engine.games.confucius.scoring import titles

from .helpers import act, player, view

YELLOW, PURPLE, GREEN = range(3)


def test_a_later_visitor_gets_a_marker_and_a_card_but_no_chit():
    """Rules R119, R47, R6: Purple sails to India, already reached by Yellow: a Purple marker goes there and
    a reward card is drawn, but no VP (the chit went to Yellow).  R118: for the Admiral both count 5
    per marker, so Purple (1 marker, 1 junk at sea) beats Yellow (1 marker, none at sea)."""
    state = build(
        {
            "players": ["yellow", "purple", "green"],
            "round": 3,
            "chief_minister": "yellow",
            "junks": {"purple": {"ocean": 4, "shipyard": 2}},
            "hands": {"purple": [2]},
            "reached": {"yellow": ["india"]},
            "scores": {"yellow": 4},
        }
    )
    assert view(state)["distant_lands"][1] == {"land": "india", "chit": None, "reached_by": [YELLOW]}
    act(state, PURPLE, "start_voyage", count=2)
    act(state, PURPLE, "choose_distant_land", land="india")
    me = player(state, PURPLE)
    assert me["score"] == 0 and me["distant_lands"] == ["india"] and len(me["rewards"]) == 1
    assert view(state)["distant_lands"][1]["reached_by"] == [YELLOW, PURPLE]
    info = titles(state)
    assert info["measures"]["admiral"] == [5, 6, 0] and info["holders"]["admiral"] == PURPLE
