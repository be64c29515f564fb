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


#: White to move in round 3 of the advanced game, holding the coat and junk petitions' gifts.
TARGETS = {
    "players": THREE,
    "round": 3,
    "chief_minister": "black",
    "advanced": True,
    "officials": {
        "hubu#2": "white u 4",
        "hubu#3": "black s 4",
        "hubu#4": "black u 4",
        "bingbu#5": "white u 4",
    },
    "rewards": {"white": ["bribery_hubu"]},
    "gift_states": {"white": {"4": "available", "6": "available"}},
    "hands": {"white": [3, 3, 3]},
    "students": {"red": "black", "orange": "green"},
}


def test_a_secured_target_is_named_as_the_reason():
    """Rules R42, R40, R41, R58 item 5, R73: an official carrying a secured marker cannot be bribed,
    secured again, replaced by the junk petition or taken by a Bribery card, and the refusal says
    that it is secured (not just that the values are impossible)."""
    state = build(TARGETS)
    secured = {"ministry": "hubu", "space": 3}
    for action, rule in (
        ({"type": "bribe_official", **secured}, "R40"),
        ({"type": "secure_official", **secured}, "R41"),
        ({"type": "petition_replace_influence", **secured, "seat": WHITE}, "R58.5"),
        ({"type": "reward_bribery", "card": "bribery_hubu", **secured}, "R73"),
    ):
        error = refused(state, action, rule)
        assert "secured marker" in error.message and "hubu 3" in error.message, error.message
        assert "with these values" not in error.message


def test_seniority_of_the_coat_petition_is_named():
    """Rule R58 item 3: the other official must have an equal or higher space number than one's own;
    Hubu 3 is more senior than White's Bingbu 5, and the refusal says so."""
    state = build(TARGETS)
    swap = {"type": "petition_swap_officials", "ministry": "bingbu", "space": 5}
    error = refused(state, {**swap, "other_ministry": "hubu", "other_space": 3}, "R58.3")
    assert "more senior" in error.message and "(5)" in error.message, error.message
    not_own = {**swap, "ministry": "hubu", "space": 4, "other_ministry": "hubu", "other_space": 5}
    assert "must carry yours" in refused(state, not_own, "R58.3").message


def test_full_student_spaces_are_named():
    """Rule R44: with both student spaces occupied nomination is refused, naming the occupied space;
    R58 item 2: the vase petition cannot replace one's own or a missing student."""
    state = build(TARGETS)
    error = refused(state, {"type": "nominate_student", "student": "red"}, "R44")
    assert "occupied" in error.message and "both student spaces" in error.message, error.message
    state = build({**TARGETS, "students": {"red": "white"}, "gift_states": {"white": {"3": "available"}}})
    assert (
        "already yours"
        in refused(state, {"type": "petition_replace_student", "student": "red"}, "R58.2").message
    )
    error = refused(state, {"type": "petition_replace_student", "student": "orange"}, "R58.2")
    assert "empty" in error.message
    assert (
        "you already have" in refused(state, {"type": "nominate_student", "student": "orange"}, "R44").message
    )
