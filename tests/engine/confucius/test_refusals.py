"""A refused action names the rule that forbids it (or the malformed field) and changes nothing.

Each case is a request a client could plausibly send; before the audit these named a neighbouring
rule (the action type's own) instead of the one that actually forbids them.
"""

from __future__ import annotations

from engine.core import RULE_SCHEMA
from engine.games.confucius.scenario import build

from .helpers import act, discard_step, refused

BLACK, WHITE, GREEN = range(3)
THREE = ["black", "white", "green"]
EXAM = {
    "players": THREE,
    "round": 3,
    "phase": "court",
    "chief_minister": "white",
    "students": {"red": "green", "orange": "black"},
    "gifts": ["green>white:1"],
    "hands": {"white": [2, 3], "black": [1], "green": [3]},
}


def test_tutoring_the_wrong_student_names_the_obligation():
    """Rule R84: White holds Green's gift, so tutoring Black's student is refused under R84; R83: once a
    student is chosen the other is refused (one student per tutor), and so is a card not in hand;
    a card value that does not exist is a malformed ``coins`` field."""
    state = build(EXAM)
    refused(state, {"type": "tutor", "student": "orange", "coins": 2}, "R84")
    refused(state, {"type": "tutor", "student": "red", "coins": 1}, "R83")  # no 1-coin card
    assert refused(state, {"type": "tutor", "student": "red", "coins": 4}, RULE_SCHEMA).field == "coins"
    act(state, WHITE, "tutor", student="red", coins=2)
    refused(state, {"type": "tutor", "student": "orange", "coins": 3}, "R83")


def test_ending_tutoring_before_a_card_is_refused():
    """Rule R85: a tutor with cards lays at least one before stopping."""
    state = build(EXAM)
    refused(state, {"type": "end_tutoring"}, "R85")
    act(state, WHITE, "tutor", student="red", coins=2)
    act(state, WHITE, "end_tutoring")


def test_a_reward_card_not_held_names_r69():
    """Rule R69: playing a reward card one does not hold is refused under R69, whatever the card."""
    state = build({"players": THREE, "round": 2, "chief_minister": "green", "rewards": {"black": ["cash"]}})
    for action in (
        {"type": "reward_extra_action"},
        {"type": "reward_gift", "value": 2},
        {"type": "reward_recruit_army"},
        {"type": "reward_emperor_insulted"},
        {"type": "reward_bribery", "card": "bribery_any", "ministry": "hubu", "space": 3},
    ):
        refused(state, action, "R69")


def test_a_petition_without_its_gift_names_r56():
    """Rule R56: a petition needs an available gift of its value; the vase bought but already given away,
    or never bought, does not do."""
    state = build(
        {
            "players": THREE,
            "round": 3,
            "chief_minister": "green",
            "advanced": True,
            "gifts": ["black>white:3"],
            "students": {"red": "white"},
        }
    )
    refused(state, {"type": "petition_replace_student", "student": "red"}, "R56")
    refused(state, {"type": "petition_reassign_junks", "source": WHITE, "destination": BLACK}, "R56")


def test_card_sets_not_in_hand_name_the_rule_of_their_action():
    """Rule R98: keeping cards one does not hold is refused under the hand-limit rule, and keeping other
    than 4 too; R54: so is a Commercial Income paid with cards one does not hold."""
    keep = build(discard_step({"black": [1, 1, 1, 1, 2]}))
    refused(keep, {"type": "keep_cards", "c1": 0, "c2": 0, "c3": 4}, "R98")
    refused(keep, {"type": "keep_cards", "c1": 3, "c2": 0, "c3": 0}, "R98")
    income = build({"players": THREE, "round": 2, "chief_minister": "green", "hands": {"black": [1]}})
    refused(income, {"type": "commercial_income", "c1": 0, "c2": 0, "c3": 1}, "R54")


def test_a_seat_that_does_not_play_is_a_malformed_field():
    """Seats are 0..n-1: a larger one is refused as malformed, naming the field (R13: 3 players)."""
    state = build({"players": THREE, "round": 2, "chief_minister": "green", "advanced": True})
    for action, field in (
        ({"type": "give_gift", "value": 1, "recipient": 3}, "recipient"),
        ({"type": "petition_reassign_junks", "source": 5, "destination": 0}, "source"),
        ({"type": "petition_replace_influence", "ministry": "hubu", "space": 3, "seat": 4}, "seat"),
    ):
        assert refused(state, action, RULE_SCHEMA).field == field
    cm = build({"players": THREE, "round": 2, "phase": "choose_chief_minister", "chief_minister": "green"})
    assert refused(cm, {"type": "choose_chief_minister", "seat": 3}, RULE_SCHEMA).field == "seat"
