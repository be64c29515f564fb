"""R62a (engine rule): an official changes hands by Transfer Influence at most once per round, so two
players cannot hand one marker back and forth for ever (R32)."""

from __future__ import annotations

from engine.core import pack, unpack
from engine.games.confucius import GAME
from engine.games.confucius.scenario import build

from .helpers import act, legal, pending, refused, space, view

BLACK, WHITE, GREEN = range(3)
THREE = ["black", "white", "green"]


def _transfers(state) -> set[tuple[str, int, int]]:
    return {(a["ministry"], a["space"], a["recipient"]) for a in legal(state, "transfer_influence")}


def test_an_official_changes_hands_by_transfer_once_per_round():
    """R62a: the receiver cannot hand the official back (or on) this round, but may transfer every other
    marker he holds; R32: a player left with nothing he may transfer passes automatically."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "chief_minister": "black",
            "cubes": {"black": 1, "white": 0, "green": 0},
            "officials": {"hubu#3": "white u", "hubu#4": "white s", "gongbu#3": "green u"},
        }
    )
    act(state, WHITE, "transfer_influence", ministry="hubu", space=3, recipient=GREEN)
    assert space(state, "hubu", 3)["marker"] == GREEN and space(state, "hubu", 3)["transferred"]
    assert not space(state, "hubu", 4)["transferred"]
    # Green received Hubu#3: he may not hand it back (R62a), only his own Gongbu#3.
    assert _transfers(state) == {("gongbu", 3, BLACK), ("gongbu", 3, WHITE)}
    error = refused(
        state, {"type": "transfer_influence", "ministry": "hubu", "space": 3, "recipient": WHITE}, "R62a"
    )
    assert "this round" in error.message
    act(state, GREEN, "transfer_influence", ministry="gongbu", space=3, recipient=WHITE)
    act(state, BLACK, "no_action")
    # White holds Gongbu#3 (just received: frozen) and Hubu#4 (his own, never transferred).
    assert _transfers(state) == {("hubu", 4, BLACK), ("hubu", 4, GREEN)}
    refused(
        state, {"type": "transfer_influence", "ministry": "gongbu", "space": 3, "recipient": GREEN}, "R62a"
    )
    act(state, WHITE, "transfer_influence", ministry="hubu", space=4, recipient=BLACK)
    assert space(state, "hubu", 4) == {
        "space": 4,
        "tile": space(state, "hubu", 4)["tile"],
        "marker": BLACK,
        "secured": True,  # R62: the marker keeps its state
        "transferred": True,
    }
    # Nobody has a cube, a reward card or a marker he may transfer: all pass without being asked (R32),
    # and the Chief Minister's Imperial Favour closes the phase.
    assert all(p["passed"] for p in view(state)["players"])
    assert pending(state)["decision"] == "imperial_favour" and pending(state)["seat"] == BLACK


def test_the_limit_lasts_one_round():
    """R62a, R99: at the start of the next round every official may change hands again."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "chief_minister": "black",
            "cubes": {"black": 1, "white": 0, "green": 0},
            "officials": {"hubu#3": "white u"},
        }
    )
    act(state, WHITE, "transfer_influence", ministry="hubu", space=3, recipient=GREEN)
    while view(state)["round"] == 2:  # play the round out without transfers
        options = [a for a in legal(state) if a["type"] != "transfer_influence"]
        act(state, None, options[-1]["type"], **{k: v for k, v in options[-1].items() if k != "type"})
    assert not any(s["transferred"] for m in view(state)["ministries"] for s in m["spaces"])
    assert state.transferred == 0
    while not (pending(state)["decision"] == "action" and pending(state)["seat"] == GREEN):
        options = [a for a in legal(state) if a["type"] != "transfer_influence"]
        act(state, None, options[-1]["type"], **{k: v for k, v in options[-1].items() if k != "type"})
    assert space(state, "hubu", 3)["marker"] == GREEN
    assert {("hubu", 3, BLACK), ("hubu", 3, WHITE)} <= _transfers(state)


def test_the_mark_follows_the_official_moved_by_a_coat_petition():
    """R62a, R58 item 3: the mark belongs to the official, so swapping tiles moves it with the tile."""
    state = build(
        {
            "players": THREE,
            "advanced": True,
            "round": 2,
            "chief_minister": "black",
            "to_move": "green",
            "cubes": {"black": 1, "white": 3, "green": 1},
            "officials": {"gongbu#4": "green u", "hubu#5": "5"},
            "gift_states": {"white": {4: "available"}},
        }
    )
    act(state, GREEN, "transfer_influence", ministry="gongbu", space=4, recipient=WHITE)
    act(state, BLACK, "no_action")
    assert space(state, "gongbu", 4)["transferred"] and not space(state, "hubu", 5)["transferred"]
    act(
        state,
        WHITE,
        "petition_swap_officials",
        ministry="gongbu",
        space=4,
        other_ministry="hubu",
        other_space=5,
    )
    assert space(state, "hubu", 5)["marker"] == WHITE and space(state, "hubu", 5)["transferred"]
    assert not space(state, "gongbu", 4)["transferred"]


def test_a_state_stored_before_the_limit_decodes_with_no_official_marked():
    """R62a: states encoded before the rule existed have no ``transferred`` field; they decode with no
    official marked, and encode it from then on."""
    state = GAME.setup(3, None, seed=1)
    _, doc = unpack(GAME.id, {GAME.encoding_version}, GAME.encode(state))
    del doc["transferred"]
    old = GAME.decode(pack(GAME.id, GAME.encoding_version, doc))
    assert old.transferred == 0
    assert GAME.legal_actions(old) == GAME.legal_actions(state)
