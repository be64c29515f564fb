"""Hidden information beyond the view itself (R113-R116): which decisions the engine skips must not
depend on cards another seat cannot see, and ``pending`` tells a client what it must decide.

Each regression test builds two states that look the same to everybody but one seat, makes the same
public move in both, and checks that the pending decision is the same: before the fix, the engine
played a lone option itself, so a skipped decision told the table about a hidden hand.
"""

from __future__ import annotations

from engine.core import event_visible
from engine.games.confucius import GAME
from engine.games.confucius.scenario import build

from .helpers import act, discard_step, legal, pending, view

BLACK, WHITE, GREEN = range(3)
THREE = ["black", "white", "green"]


def twins(desc: dict, white_a: dict, white_b: dict):
    """Two states that differ only in what White alone knows; Black sees the same view of both."""
    a, b = build({**desc, **white_a}), build({**desc, **white_b})
    assert view(a, BLACK) == view(b, BLACK) and view(a, GREEN) == view(b, GREEN)
    return a, b


def test_a_uniform_hand_is_still_asked_which_four_cards_to_keep():
    """Rules R98, R114: White holds five 1-coin cards (one way to keep 4) or four 1s and a 2 (two ways);
    the others cannot tell, so White is asked in both cases instead of the uniform hand being kept
    silently (which showed the table that White's hand was uniform)."""
    a, b = twins(
        discard_step({"black": [3, 3, 3, 3, 1], "white": [1] * 5}),
        {},
        {"hands": {"black": [3, 3, 3, 3, 1], "white": [1, 1, 1, 1, 2]}},
    )
    for state in (a, b):
        act(state, BLACK, "keep_cards", c1=0, c2=0, c3=4)
        assert (pending(state)["seat"], pending(state)["decision"]) == (WHITE, "keep_cards")
    assert legal(a) == [{"type": "keep_cards", "c1": 4, "c2": 0, "c3": 0}]
    assert len(legal(b)) == 2


def test_a_uniform_hand_is_still_asked_which_card_to_lay_at_a_student():
    """Rules R116, R84: White, obliged to Green's student by Green's gift, holds two 2-coin cards (one
    possible first card) or a 2 and a 3 (two); after Black's tutoring White is asked in both cases."""
    desc = {
        "players": THREE,
        "round": 3,
        "phase": "court",
        "chief_minister": "black",
        "students": {"red": "green", "orange": "black"},
        "gifts": ["green>white:1"],
    }
    a, b = twins(
        desc,
        {"hands": {"black": [1], "white": [2, 2], "green": []}},
        {"hands": {"black": [1], "white": [2, 3], "green": []}},
    )
    for state in (a, b):
        act(state, BLACK, "tutor", student="orange", coins=1)  # his only card: his turn ends
        assert (pending(state)["seat"], pending(state)["decision"]) == (WHITE, "tutor")
        assert view(state, BLACK)["players"][WHITE]["tutoring"] is None
    assert legal(a) == [{"type": "tutor", "student": "red", "coins": 2}]


def test_the_automatic_pass_is_only_for_a_player_without_reward_cards():
    """Rules R32, R114: with no cube and no marker, White is passed automatically only when holding no
    reward card.  Holding one, White is asked even if the card cannot be played (Recruit an Army
    with no army in stock), since the others cannot tell it from a playable Cash card."""
    desc = {
        "players": THREE,
        "round": 4,
        "chief_minister": "green",
        "to_move": "black",
        "cubes": {"black": 2, "white": 0, "green": 2},
        "armies": {"white": {"colonies": 6}},
    }
    bare = build(desc)
    events = act(bare, BLACK, "no_action")
    assert view(bare)["players"][WHITE]["passed"] and pending(bare)["seat"] == GREEN
    assert [e["action"] for e in events if e["type"] == "action"][-1] == {"type": "pass"}
    a, b = twins(desc, {"rewards": {"white": ["recruit_army"]}}, {"rewards": {"white": ["cash"]}})
    for state in (a, b):
        act(state, BLACK, "no_action")
        assert pending(state)["seat"] == WHITE and not view(state)["players"][WHITE]["passed"]
    assert legal(a) == [{"type": "pass"}]
    assert legal(b) == [{"type": "reward_cash"}, {"type": "pass"}]


def test_a_lone_no_action_is_still_asked_for():
    """Rules R35, R60, R114: White has one cube left and has used Tax, Commercial, Junks and Give Gift (a
    second use costs 2), so what a single cube buys depends on White's one card: with a 1-coin card
    only No Action, with a 2-coin card also a gift, a student or a forced exam.  No Action is asked for
    rather than played silently, which would show the others a poor hand."""
    desc = {
        "players": THREE,
        "round": 4,
        "chief_minister": "green",
        "to_move": "black",
        "gifts": ["white>black:1", "black>white:1", "green>white:2"],
        "cubes": {"black": 2, "white": 1},
        "cubes_placed": {
            "white": {"tax_income": 1, "commercial_income": 1, "junks_voyage": 1, "give_gift": 1}
        },
        "commercial_used": ["white"],
    }
    a, b = twins(desc, {"hands": {"white": [1]}}, {"hands": {"white": [2]}})
    for state in (a, b):
        act(state, BLACK, "no_action")
        assert pending(state)["seat"] == WHITE
    assert legal(a) == [{"type": "no_action"}]
    assert {"type": "buy_gift", "value": 2} in legal(b) and {"type": "force_examination"} in legal(b)


def test_pending_tells_a_client_what_to_decide():
    """Rules R83, R84, R88, R98: ``pending`` names the decision, its rule and what is open: the student(s)
    a tutor may support and who tutors next, the candidate to place, how many cards to keep."""
    exam = build(
        {
            "players": THREE,
            "round": 3,
            "phase": "court",
            "chief_minister": "white",
            "candidate": "gongbu",
            "students": {"red": "green", "orange": "black"},
            "gifts": ["green>white:1"],
            "hands": {"white": [2, 3], "black": [1, 1], "green": [3]},
        }
    )
    assert pending(exam) == {
        "seat": WHITE,
        "decision": "tutor",
        "rule": "R83",
        "students": ["red"],
        "still_to_tutor": [GREEN, BLACK],
    }
    act(exam, WHITE, "tutor", student="red", coins=3)
    act(exam, WHITE, "end_tutoring")
    assert pending(exam)["students"] == ["red", "orange"]  # Green holds no gift: free choice
    act(exam, GREEN, "tutor", student="red", coins=3)  # his only card
    act(exam, BLACK, "tutor", student="orange", coins=1)
    act(exam, BLACK, "end_tutoring")  # 6 : 1, Green's student wins
    assert pending(exam) == {
        "seat": GREEN,
        "decision": "place_candidate",
        "rule": "R88",
        "candidate": "gongbu",
    }
    keep = build(discard_step({"black": [3, 3, 3, 2, 1]}))
    assert pending(keep) == {"seat": BLACK, "decision": "keep_cards", "rule": "R98", "keep": 4}


def test_a_drawn_reward_card_is_named_to_its_drawer_only():
    """Rules R114, R76: a reward card earned by a voyage goes face down to the sailor: the event naming it
    is for his seat alone, everybody else learns that a card was drawn."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "chief_minister": "black",
            "junks": {"white": {"ocean": 4, "shipyard": 1}},
            "hands": {"white": [1]},
        }
    )
    act(state, WHITE, "start_voyage", count=1)
    events = act(state, WHITE, "choose_distant_land", land="india")
    drawn = [e for e in events if e["type"] == "reward_drawn"]
    seen = {seat: [e for e in drawn if event_visible(e, seat)] for seat in (None, BLACK, WHITE, GREEN)}
    assert all(len(events) == 1 and ("card" in events[0]) == (seat == WHITE) for seat, events in seen.items())
    assert view(state, WHITE)["players"][WHITE]["rewards"] == [seen[WHITE][0]["card"]]
    assert "rewards" not in view(state, BLACK)["players"][WHITE]
    assert GAME.view(state, None)["players"][WHITE]["reward_cards"] == 1
