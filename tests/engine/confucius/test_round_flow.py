"""The order of a round (R23) and its turn-taking (R28-R31, R60), the Court Phase steps that run or
stay silent (R79, R82), and how a round or the game ends (R92, R99, R101a)."""

from __future__ import annotations

from engine.games.confucius import GAME
from engine.games.confucius.scenario import build

from .helpers import act, events_of, legal, pending, player, view

BLACK, WHITE, GREEN = range(3)
THREE = ["black", "white", "green"]
FULL = {f"{m}#{s}": "black s" for m in ("bingbu", "hubu") for s in range(1, 8)}
BOTH_RESOLVED = {"bingbu": ["black", "black"], "hubu": ["black", "black"]}


def test_court_and_end_of_round_steps_run_in_rule_order():
    """Rule R23: after Imperial Favour the Court Phase builds the wall, holds the exam (the candidate goes
    to Hubu's only empty space), resolves the full Gongbu, conquers the full Annam; the End of Round
    places a new official and the next round starts with the Chief Minister's choice."""
    gongbu = {f"gongbu#{s}": "black s" for s in (1, 2, 3, 4)} | {f"gongbu#{s}": "green s" for s in (5, 6, 7)}
    state = build(
        {
            "players": THREE,
            "round": 3,
            "chief_minister": "black",
            "phase": "imperial_favour",
            "candidate": "hubu",
            "students": {"red": "white"},
            "forced": True,
            "officials": {"hubu#1": "3", "hubu#2": "4", "hubu#6": "5", **gongbu},
            "foreign_lands": {"1": {"land": "annam", "boxes": ["black", "white"]}},
        }
    )
    events = act(state, BLACK, "no_action")
    kinds = [e["type"] for e in events]
    steps = [
        "great_wall",
        "candidate_placed",
        "ministry_resolved",
        "invasion",
        "official_placed",
        "round_started",
    ]
    assert [kinds.index(k) for k in steps] == sorted(kinds.index(k) for k in steps)
    assert events_of(events, "candidate_placed")[0]["space"] == "hubu#7"
    assert events_of(events, "official_placed")[0]["space"] == "bingbu#1"
    assert pending(state) == {"seat": BLACK, "decision": "choose_chief_minister", "rule": "R26"}


def test_passed_players_are_skipped():
    """Rules R28, R30: turns go clockwise from the left of the Chief Minister, skipping Green, who passed."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "chief_minister": "black",
            "passed": ["green"],
            "cubes": {"green": 0},
        }
    )
    assert GAME.to_move(state) == WHITE
    act(state, WHITE, "no_action")
    assert GAME.to_move(state) == BLACK
    act(state, BLACK, "no_action")
    assert GAME.to_move(state) == WHITE


def test_after_the_last_pass_the_chief_minister_takes_imperial_favour():
    """Rules R31, R77: when the last player passes, the Chief Minister, though he passed himself, takes
    one box action for no cube; then the Court Phase starts."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "chief_minister": "black",
            "to_move": "black",
            "passed": ["white", "green"],
            "cubes": {"black": 0, "white": 0, "green": 0},
            "rewards": {"black": ["cash"]},
        }
    )
    act(state, BLACK, "pass")
    assert pending(state) == {"seat": BLACK, "decision": "imperial_favour", "rule": "R77"}
    assert {"type": "tax_income"} in legal(state) and not legal(state, "reward_cash")
    act(state, BLACK, "tax_income")
    assert view(state)["great_wall"] == 2 and player(state, BLACK)["cards"] == 3 + 2


def test_no_action_costs_one_cube_each_time():
    """Rule R60: No Action costs exactly one cube, even the second time (not the standard 2)."""
    state = build({"players": THREE, "round": 2, "chief_minister": "green", "cubes": {"black": 3}})
    for left in (2, 1):
        act(state, BLACK, "no_action")
        assert player(state, BLACK)["cubes"] == left
        act(state, WHITE, "no_action")
        act(state, GREEN, "no_action")
    assert player(state, BLACK)["cubes_placed"] == {"no_action": 2}


def test_without_a_trigger_there_is_no_exam_and_the_student_waits():
    """Rule R79: one student and no Force Imperial Examination: no exam; the student stays for a later
    round and the candidate stays on top."""
    state = build(
        {
            "players": THREE,
            "round": 3,
            "phase": "court",
            "chief_minister": "black",
            "candidate": "gongbu",
            "students": {"red": "white"},
        }
    )
    v = view(state)
    assert v["round"] == 4 and v["students"] == {"red": WHITE, "orange": None}
    assert v["candidate"] == "gongbu" and pending(state)["decision"] == "choose_chief_minister"


def test_every_player_with_cards_tutors_whatever_the_player_count():
    """Rules R82, R83, R127: with four players every one (candidates included) tutors once, from the Chief
    Minister clockwise; a player without cards is skipped."""
    state = build(
        {
            "players": ["black", "white", "green", "purple"],
            "round": 3,
            "phase": "court",
            "chief_minister": "green",
            "students": {"red": "black", "orange": "white"},
            "hands": {"black": [1, 2], "white": [1, 2], "green": [1, 2], "purple": [1, 2]},
        }
    )
    order = []
    while pending(state)["decision"] == "tutor":
        seat = pending(state)["seat"]
        order.append(seat)
        act(state, seat, "tutor", student="red", coins=2)
        act(state, seat, "end_tutoring")
    assert order == [GREEN, 3, BLACK, WHITE]
    skipped = build(
        {
            "players": ["black", "white", "green", "purple"],
            "round": 3,
            "phase": "court",
            "chief_minister": "green",
            "students": {"red": "black", "orange": "white"},
            "hands": {"black": [1, 2], "white": [1, 2], "green": [1, 2], "purple": []},
        }
    )
    act(skipped, GREEN, "tutor", student="red", coins=2)
    act(skipped, GREEN, "end_tutoring")
    assert pending(skipped)["seat"] == BLACK


def test_the_third_resolution_ends_the_game_after_the_round():
    """Rules R92, R100, R23: Gongbu, the last unresolved ministry, resolves; the round still finishes (the
    full Yunnan is conquered in the Invasions step), then the game ends."""
    gongbu = {f"gongbu#{s}": "green s" for s in (1, 2, 3, 4)} | {f"gongbu#{s}": "white u" for s in (5, 6, 7)}
    state = build(
        {
            "players": THREE,
            "round": 4,
            "phase": "court",
            "court_step": "ministries",
            "chief_minister": "black",
            "officials": {**FULL, **gongbu},
            "resolved": BOTH_RESOLVED,
            "chits": {"gongbu": [7, 4]},
            "foreign_lands": {"2": {"land": "yunnan", "boxes": ["white", "green"]}},
        }
    )
    assert GAME.to_move(state) is None and view(state)["round"] == 4
    assert view(state)["foreign_lands"][1]["state"] == "success"
    # Green: Minister 7, box 2, Admiral by the Gongbu tie-break; White: Secretary 4, box 4;
    # Black: Chief Minister, General by the Bingbu tie-break (White 1 = Green 1)
    assert GAME.result(state)["scores"] == [2, 8, 10]


def test_cubes_come_back_and_spaces_clear_for_the_next_round():
    """Rules R99, R24, R25: the next round starts with cubes recounted from the gifts, every action space
    empty, Commercial Income available again and nobody passed."""
    state = build(
        {
            "players": THREE,
            "round": 3,
            "chief_minister": "black",
            "phase": "imperial_favour",
            "gifts": ["white>green:1"],
            "commercial_used": ["white"],
            "cubes_placed": {"white": {"tax_income": 2, "commercial_income": 1}, "black": {"no_action": 1}},
        }
    )
    act(state, BLACK, "no_action")
    v = view(state)
    assert v["round"] == 4 and pending(state)["decision"] == "choose_chief_minister"
    assert [p["cubes"] for p in v["players"]] == [3, 4, 4]
    assert all(p["cubes_placed"] == {} and not p["passed"] for p in v["players"])
    assert not v["players"][WHITE]["commercial_income_used"]


def test_unfinished_invasions_score_nothing_at_the_end():
    """Rules R101a, R106: the game ends in round 5 (all ministries resolved) with Yunnan, on position 3
    (deadline 8), half invaded: White's army in the reward box gives no VP and no reward card, but
    counts for the General title."""
    gongbu = {f"gongbu#{s}": "green s" for s in range(1, 8)}
    state = build(
        {
            "players": THREE,
            "round": 5,
            "phase": "court",
            "court_step": "invasions",
            "chief_minister": "black",
            "officials": {**FULL, **gongbu},
            "resolved": {**BOTH_RESOLVED, "gongbu": ["green", "green"]},
            "foreign_lands": {"3": {"land": "yunnan", "boxes": [None, "white"]}},
        }
    )
    result = GAME.result(state)
    assert result is not None and view(state)["foreign_lands"][2]["state"] == "unresolved"
    assert result["titles"]["general"] == WHITE and result["scores"][WHITE] == 1
    assert view(state, WHITE)["players"][WHITE]["rewards"] == []
