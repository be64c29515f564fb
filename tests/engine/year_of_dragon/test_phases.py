"""The month's phases and what carries from one to the next: one action each (R8, R35), symbols counted when
used (R27, R38), the event of the month (R39, R41, R48), persons staying put (R16), scoring beyond the
physical track (R9) and what privileges and court ladies are worth at the end (R70, R71)."""

from __future__ import annotations

import random
from collections import Counter

from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.scenario import build

from .helpers import act, norm, palaces, pending, player

A, B, C = range(3)
ALL_ACTIONS = [["taxes", "build", "harvest", "research"], ["fireworks", "military_parade", "privilege"]]


def test_one_dragon_one_action_per_month():
    """R8, R23, R35: each seat makes exactly one Phase 1 choice a month (it has one dragon); the dragons
    come back and the cards are collected when the phase ends, so each month starts with free groups."""
    for seed in range(3):
        state = GAME.setup(3, None, seed=seed)
        rng = random.Random(seed)
        choices: Counter[tuple[int, int]] = Counter()
        while GAME.to_move(state) is not None:
            view = GAME.view(state, None)
            if view["phase"] == "action" and view["pending"]["seat"] == view["turn_order"][0]:
                assert all(g["dragons"] == 0 for g in view["groups"]), view["groups"]
            if view["phase"] == "person":
                assert view["groups"] == []
            for ev in GAME.apply(state, rng.choice(GAME.legal_actions(state))):
                if ev["type"] == "action" and ev["action"]["type"] in ("action", "refill"):
                    choices[view["round"], ev["seat"]] += 1
        assert choices == {(r, s): 1 for r in range(1, 13) for s in range(3)}


def test_the_event_of_month_m_is_slot_m():
    """R39: months 1-12 resolve the event row's slots 1-12 in order."""
    state = GAME.setup(4, None, seed=11)
    row = GAME.view(state, None)["event_row"]
    rng = random.Random(11)
    resolved = []
    while GAME.to_move(state) is not None:
        for ev in GAME.apply(state, rng.choice(GAME.legal_actions(state))):
            if ev["type"] == "month_event":
                resolved.append((ev["round"], ev["event"]))
    assert resolved == [(m, row[m - 1]) for m in range(1, 13)]


def test_peace_changes_nothing():
    """R41: a Peace month changes no stock, person or marker; only decay (R49) and scoring (R52) follow."""
    seats = [
        {"yuan": 1, "rice": 0, "fireworks": 3, "vp": 5, "palaces": [[2, "monk_y"], [1]]},
        {"yuan": 7, "rice": 2, "fireworks": 0, "vp": 9, "palaces": [[1, "warrior_y"]]},
    ]
    state = build({"players": 2, "phase": "event", "round": 2, "seats": seats})
    assert GAME.view(state, None)["event_row"][1] == "peace"
    for seat, before in enumerate(seats):
        now = player(state, seat)
        assert [now[k] for k in ("yuan", "rice", "fireworks")] == [
            before[k] for k in ("yuan", "rice", "fireworks")
        ]
    assert palaces(state, A) == [[2, "monk_y"]] and palaces(state, B) == [[1, "warrior_y"]]
    assert (player(state, A)["vp"], player(state, B)["vp"]) == (5 + 1, 9 + 1)
    assert (player(state, A)["person_pos"], player(state, B)["person_pos"]) == (6, 5)


def test_events_neither_move_markers_nor_remove_palaces():
    """R48: an event releases persons but moves no marker and removes no floor; the palace A empties is
    still standing (with its floor) while B releases, and only decay (R49) takes it afterwards."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 6,
            "event": "contagion",
            "seats": [
                {"pos": 30, "palaces": [[1, "farmer_y"], [2, "monk_y", "scholar_y"], [1, "warrior_y"]]},
                {"pos": 20, "palaces": [[2, "farmer_o", "monk_o"], [2, "scholar_o", "warrior_o"]]},
            ],
        }
    )
    assert pending(state)["seat"] == A
    act(state, "release", palace=0, person="farmer_y")
    act(state, "release", palace=1, person="monk_y")
    act(state, "release", palace=1, person="scholar_y")
    assert pending(state)["seat"] == B
    assert palaces(state, A) == [[1], [2], [1, "warrior_y"]]
    assert (player(state, A)["person_pos"], player(state, B)["person_pos"]) == (30, 20)
    act(state, "release", palace=0, person="monk_o")
    act(state, "release", palace=0, person="farmer_o")
    act(state, "release", palace=1, person="scholar_o")
    # Decay: the emptied 1-floor palace is gone, the emptied 2-floor one is a floor lower.
    assert palaces(state, A) == [[1], [1, "warrior_y"]]
    assert (player(state, A)["person_pos"], player(state, B)["person_pos"]) == (30, 20)


def test_symbols_are_counted_when_the_action_resolves():
    """R27, R28: Taxes counts the tax collectors living in the palaces now; one released by last month's
    Contagion no longer counts."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 4,
            "event": "contagion",
            "seats": [
                {
                    "pos": 40,
                    "yuan": 0,
                    "palaces": [[3, "tax_collector", "tax_collector", "farmer_y"], [1, "monk_y"]],
                },
                {"palaces": [[2, "healer_y", "healer_o"]]},  # 3 mortars: B releases nobody
            ],
        }
    )
    # Every choice of 3 of these 4 persons includes a tax collector, so the engine released one at once.
    assert pending(state)["owed"] == 2
    act(state, "release", palace=0, person="farmer_y")  # the monk is the forced third release
    assert palaces(state, A) == [[3, "tax_collector"]]
    view = GAME.view(state, None)
    assert (view["round"], view["phase"], view["to_move"]) == (5, "action", A)
    group = next(i for i, g in enumerate(view["groups"]) if "taxes" in g["actions"])
    act(state, "action", group=group, action="taxes")
    assert player(state, A)["yuan"] == 2 + 3


def test_a_new_person_yields_nothing_at_once():
    """R38, R27: recruiting a tax collector or a scholar brings no yuan or VP then; the next month's Taxes
    counts the new tax collector."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "round": 2,
            "seats": [{"pos": 20, "yuan": 4, "vp": 3, "palaces": [[3, "tax_collector"]]}, {}],
        }
    )
    act(state, "recruit", card="tax_collector", person="tax_collector")
    assert (player(state, A)["yuan"], player(state, A)["vp"]) == (4, 3)
    act(state, "recruit", card="wild", person="scholar_y")  # B owns no palace: the scholar leaves at once
    view = GAME.view(state, None)
    assert (view["round"], view["to_move"]) == (3, A)
    assert player(state, A)["yuan"] == 4 and player(state, A)["vp"] == 3 + 1  # Peace, then 1 palace scored
    group = next(i for i, g in enumerate(view["groups"]) if "taxes" in g["actions"])
    act(state, "action", group=group, action="taxes")
    assert player(state, A)["yuan"] == 4 + 2 + 3 + 3


def test_persons_stay_in_their_palace():
    """R16, R37: a person never moves: the newcomer that replaces a person lives where that person lived,
    and every other person keeps its palace."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "round": 5,
            "seats": [
                {"pos": 30, "palaces": [[1, "farmer_y"], [2, "monk_y", "healer_y"], [1, "scholar_y"]]},
                {},
            ],
        }
    )
    act(state, "recruit", card="warrior", person="warrior_y")
    act(state, "replace", palace=1, person="healer_y")
    assert palaces(state, A) == norm([[1, "farmer_y"], [2, "monk_y", "warrior_y"], [1, "scholar_y"]])


def test_scores_pass_100():
    """R9: the scoring track does not wrap at 100."""
    state = build(
        {
            "players": 2,
            "phase": "decay",
            "round": 12,
            "seats": [{"vp": 99, "yuan": 0, "palaces": [[2, "monk_y"]]}, {}],
        }
    )
    assert GAME.result(state)["scores"][A] == 99 + 1 + 2 + 2  # a palace; the person; the monk on 2 floors


def test_privileges_score_each_month_but_not_at_the_end():
    """R70, R52, R54: privileges score in every round scoring, month 12 included, and add nothing to the
    final scoring."""
    state = build(
        {"players": 2, "phase": "decay", "round": 12, "seats": [{"vp": 10, "small": 2, "large": 1}, {}]}
    )
    result = GAME.result(state)
    assert result["final_scoring"][A] == {"persons": 0, "monks": 0, "money": 2}  # the 6 starting yuan
    assert result["scores"][A] == 10 + 2 * 1 + 1 * 2 + 2


def test_court_ladies_score_each_month_and_at_the_end():
    """R71, R52, R54: a court lady is worth 1 VP in every round scoring and 2 VP, like every person, at the
    end."""
    state = build(
        {
            "players": 2,
            "phase": "decay",
            "round": 12,
            "seats": [{"vp": 0, "yuan": 0, "palaces": [[2, "court_lady", "court_lady"]]}, {}],
        }
    )
    result = GAME.result(state)
    assert result["final_scoring"][A]["persons"] == 4
    assert result["scores"][A] == (1 + 2) + 4  # month 12: one palace and two ladies; then 2 x 2 persons
