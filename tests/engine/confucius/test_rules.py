"""Rules beyond the examples: setup by player count, options, petitions, reward cards, discounts,
card drawing, the exam and candidate edge cases, tie-breaks, bad input and hidden information."""

from __future__ import annotations

import pytest

from engine.core import RULE_OVER, RULE_SCHEMA, RULE_TURN, InvalidOptions, event_visible
from engine.games.confucius import GAME
from engine.games.confucius.scenario import build
from engine.games.confucius.scoring import ranking

from .helpers import act, events_of, gifts, legal, ministry, pending, player, refused, space, view

THREE = ["black", "white", "green"]
BLACK, WHITE, GREEN = range(3)


# -- setup (R13-R21, R26, R27) ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "deck"), [(3, 57), (4, 54), (5, 51)])
def test_setup_by_player_count(players, deck):
    """Rule R13: only the deck size differs (66 - 3n); for every count R2, R15, R129 (officials on spaces
    3-5, 15 in the stack), R14, R16, R17, R18 (ten face-down reward cards), R19, R20, R21, R25, R27, R28."""
    state = GAME.setup(players, seed=players)
    v = view(state, 0)
    assert v["deck"] == deck and v["official_stack"] == 15 and v["reward_stack"] == 10
    for m in v["ministries"]:
        assert [s["tile"] is not None for s in m["spaces"]] == [False, False, True, True, True, False, False]
        assert all(s["marker"] is None for s in m["spaces"])
        assert m["minister_chit"] >= m["secretary_chit"]  # R14
    assert len({f["land"] for f in v["foreign_lands"]}) == 3  # R16
    assert v["candidate"] in ("bingbu", "hubu", "gongbu")  # R17: a specific one on top
    assert sorted(v["candidate_stack"]["ministries"]) == sorted(
        {"bingbu", "hubu", "gongbu"} - {v["candidate"]}
    )
    assert v["candidate_stack"]["any"] == 3
    assert v["players"][0]["hand"] == {"c1": 1, "c2": 1, "c3": 1}  # R19
    assert all(
        p["gifts"] == {"1": "available", **dict.fromkeys("23456", "not_available")} for p in v["players"]
    )
    assert all(p["armies_in_stock"] == 6 and p["score"] == 0 for p in v["players"])
    assert v["junk_supply"] == 25 and v["great_wall"] == 0 and v["round"] == 1
    cm = v["chief_minister"]
    assert [p["cubes"] for p in v["players"]] == [2 if s == cm else 3 for s in range(players)]  # R25, R27
    assert GAME.to_move(state) == (cm + 1) % players  # R28


def test_setup_is_seeded_and_varies():
    """Randomness lives in the state: the same seed gives the same game, another seed another one."""
    assert GAME.encode(GAME.setup(4, seed=5)) == GAME.encode(GAME.setup(4, seed=5))
    assert GAME.encode(GAME.setup(4, seed=5)) != GAME.encode(GAME.setup(4, seed=6))


@pytest.mark.parametrize(
    ("players", "options", "field"),
    [(2, None, "players"), (6, None, "players"), (4, {"advanced": "yes"}, "advanced"), (4, {"x": 1}, "x")],
)
def test_bad_setup_is_refused(players, options, field):
    """Rules R13, R22: 3-5 players; the two options are booleans."""
    with pytest.raises(InvalidOptions) as info:
        GAME.setup(players, options)
    assert info.value.field == field


# -- bad input ------------------------------------------------------------------------------------------


def test_malformed_and_out_of_turn_actions_are_refused_without_change():
    """Unknown type, missing/extra field, a name outside its enum, another seat's action, a finished
    game: IllegalAction naming the field or rule, and the state is unchanged."""
    state = GAME.setup(3, seed=1)
    mover = GAME.to_move(state)
    assert refused(state, {"type": "steal"}, RULE_SCHEMA).field == "type"
    assert refused(state, {"type": "buy_junks"}, RULE_SCHEMA).field == "count"
    assert refused(state, {"type": "tax_income", "count": 1}, RULE_SCHEMA).field == "count"
    assert (
        refused(state, {"type": "bribe_official", "ministry": "navy", "space": 3}, RULE_SCHEMA).field
        == "ministry"
    )
    assert (
        refused(state, {"type": "bribe_official", "ministry": "hubu", "space": 9}, RULE_SCHEMA).field
        == "space"
    )
    refused(state, {"type": "tax_income"}, RULE_TURN, seat=(mover + 1) % 3)
    refused(state, {"type": "tutor", "student": "red", "coins": 1}, "R29")  # not the pending decision
    over = build({"players": THREE, "round": 9, "phase": "court", "court_step": "round_end"})
    assert GAME.to_move(over) is None
    refused(over, {"type": "tax_income"}, RULE_OVER)


def test_round_1_forbids_students_and_forced_exams():
    """Rules R44, R45: neither Nominate Student nor Force Imperial Examination in round 1."""
    state = build({"players": THREE, "hands": {"white": [3, 3]}})
    assert not legal(state, "nominate_student") and not legal(state, "force_examination")
    refused(state, {"type": "nominate_student", "student": "red"}, "R44")
    refused(state, {"type": "force_examination"}, "R45")
    later = build({"players": THREE, "round": 2, "hands": {"white": [3]}, "students": {"red": "green"}})
    assert legal(later, "nominate_student") == [{"type": "nominate_student", "student": "orange"}]
    act(later, WHITE, "nominate_student", student="orange")  # pays its only card (2 coins due)
    assert view(later)["students"] == {"red": GREEN, "orange": WHITE}


# -- discounts and prices (R37, R43, R48, R49) -------------------------------------------------------------


def test_hubu_and_bingbu_discounts_and_payments():
    """Rule R43: a Hubu marker takes 1 coin off a bribe; a Bingbu marker makes an army cost 4 licences;
    R37: any set of cards worth at least the price pays it (over-payment, no change), nothing less."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "to_move": "white",
            "chief_minister": "black",
            "officials": {"hubu#3": "white s", "bingbu#3": "white s", "gongbu#3": "5"},
            "hands": {"white": [1, 1, 2, 3, 3]},
        }
    )
    act(state, WHITE, "bribe_official", ministry="gongbu", space=3)
    assert pending(state)["price"] == 4
    hand = (2, 1, 2)
    covering = {
        (x, y, z)
        for x in range(hand[0] + 1)
        for y in range(hand[1] + 1)
        for z in range(hand[2] + 1)
        if x + 2 * y + 3 * z >= 4
    }
    assert {(a["c1"], a["c2"], a["c3"]) for a in legal(state)} == covering
    assert (1, 1, 1) in covering and (0, 0, 2) in covering
    refused(state, {"type": "pay", "c1": 1, "c2": 1, "c3": 0}, "R37")  # 3 coins: not enough
    refused(state, {"type": "pay", "c1": 0, "c2": 0, "c3": 3}, "R37")  # not in hand
    act(state, WHITE, "pay", c1=0, c2=0, c3=2)
    act(state, GREEN, "no_action")
    act(state, BLACK, "no_action")
    act(state, WHITE, "recruit_army")
    assert pending(state)["price"] == 4 and pending(state)["currency"] == "licences"
    assert {(a["c1"], a["c2"], a["c3"]) for a in legal(state)} == {(1, 1, 0), (2, 0, 0), (2, 1, 0)}
    act(state, WHITE, "pay", c1=1, c2=1, c3=0)
    assert player(state, WHITE)["armies_in_colonies"] == 1 and player(state, WHITE)["hand"]["c1"] == 1


# -- reward cards (R69-R76) ---------------------------------------------------------------------------------


def test_reward_cards_cash_gift_recruit_and_bribery():
    """Reward cards: R70 Cash draws 4; R71 Gift frees a gift; R74 Recruit is free; R73 (ii) takes another
    player's unsecured marker for its cost, leaving White's marker unsecured (R128); a card leaves the game
    and costs no cube."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "to_move": "white",
            "chief_minister": "black",
            "cubes": {"white": 0, "black": 5, "green": 5},
            "hands": {"white": [3]},
            "rewards": {"white": ["cash", "gift", "recruit_army", "bribery_hubu"]},
            "officials": {"hubu#3": "green u 3", "hubu#4": "black s"},
        }
    )
    assert {"type": "pass"} in legal(state)
    targets = {(a["card"], a["space"]) for a in legal(state, "reward_bribery")}
    assert targets == {("bribery_hubu", 3), ("bribery_hubu", 5)}  # #4 is secured
    act(state, WHITE, "reward_bribery", card="bribery_hubu", ministry="hubu", space=3)  # pays c3
    assert space(state, "hubu", 3) == {
        "space": 3,
        "tile": 3,
        "marker": WHITE,
        "secured": False,
        "transferred": False,
    }
    for card, fields in (("reward_cash", {}), ("reward_gift", {"value": 6}), ("reward_recruit_army", {})):
        act(state, GREEN, "no_action")
        act(state, BLACK, "no_action")
        act(state, WHITE, card, **fields)
    me = player(state, WHITE)
    assert me["cards"] == 4 and me["gifts"]["6"] == "available" and me["armies_in_colonies"] == 1
    assert me["rewards"] == [] and me["cubes"] == 0


def test_named_bribery_card_falls_back_to_unresolved_ministries():
    """Rule R73: Bribery in Bingbu works in any unresolved ministry once Bingbu is resolved."""
    state = build(
        {
            "players": THREE,
            "round": 4,
            "to_move": "white",
            "chief_minister": "black",
            "officials": {f"bingbu#{s}": "black s" for s in range(1, 8)},
            "resolved": {"bingbu": ["black", "black"]},
            "rewards": {"white": ["bribery_bingbu"]},
        }
    )
    assert {a["ministry"] for a in legal(state, "reward_bribery")} == {"hubu", "gongbu"}


# -- Confucius deck (R38) -----------------------------------------------------------------------------------


def test_empty_deck_is_rebuilt_from_the_discard_pile_and_draws_stop_when_both_are_empty():
    """Rule R38: Tax Income with an empty deck reshuffles the discard pile; with both empty the draws are
    lost."""
    rest = [1] * 22 + [2] * 22 + [3] * 22
    hands = {"black": rest[:20], "white": rest[20:40], "green": rest[40:65]}
    state = build(
        {
            "players": THREE,
            "round": 2,
            "to_move": "green",
            "chief_minister": "white",
            "hands": hands,
            "discard": [3],
        }
    )
    assert view(state)["deck"] == 0
    events = act(state, GREEN, "tax_income")
    assert events_of(events, "deck_reshuffled") and player(state, GREEN)["cards"] == 26
    assert view(state)["deck"] == 0 and view(state)["discard_pile"] == {"c1": 0, "c2": 0, "c3": 0}


# -- petitions (R56-R58, advanced game) ---------------------------------------------------------------------


PETITIONER = {
    "players": THREE,
    "round": 3,
    "to_move": "white",
    "chief_minister": "black",
    "advanced": True,
    "gift_states": {"white": dict.fromkeys("23456", "available")},
    "officials": {"hubu#3": "white u", "hubu#5": "black s", "hubu#2": "green u 2", "gongbu#1": "black u 3"},
    "junks": {"black": {"shipyard": 3}, "green": {"shipyard": 1}},
    "students": {"red": "black"},
    "foreign_lands": {"1": {"land": "korea", "boxes": ["green", None, None]}},
}


def test_petitions_belong_to_the_advanced_game():
    """Rule R56: no petition in the basic game."""
    state = build({**PETITIONER, "advanced": False})
    assert not [a for a in legal(state) if a["type"].startswith("petition_")]
    refused(state, {"type": "petition_replace_student", "student": "red"}, "R56")


def test_petition_effects():
    """Rules R58.1-R58.5: each petition removes its gift, costs 2 cubes, and does what it says."""
    state = build(PETITIONER)
    act(state, WHITE, "petition_reassign_junks", source=BLACK, destination=WHITE)
    assert [p["shipyard"] for p in view(state)["players"]] == [1, 2, 1]
    assert player(state, WHITE)["gifts"]["2"] == "removed" and player(state, WHITE)["cubes"] == 3 - 2
    for petition, fields in (
        ("petition_replace_student", {"student": "red"}),
        (
            "petition_swap_officials",
            {"ministry": "hubu", "space": 3, "other_ministry": "hubu", "other_space": 5},
        ),
        ("petition_redeploy_army", {"position": 1, "box": 0, "to_position": 1, "to_box": 2}),
        ("petition_replace_influence", {"ministry": "gongbu", "space": 1, "seat": WHITE}),
    ):
        again = build(PETITIONER)
        act(again, WHITE, petition, **fields)
        assert (
            player(again, WHITE)["gifts"][
                {
                    "replace_student": "3",
                    "swap_officials": "4",
                    "redeploy_army": "5",
                    "replace_influence": "6",
                }[petition.removeprefix("petition_")]
            ]
            == "removed"
        )
        v = view(again)
        if petition.endswith("student"):
            assert v["students"]["red"] == WHITE
        elif petition.endswith("officials"):
            assert space(again, "hubu", 3)["marker"] == BLACK and space(again, "hubu", 5)["marker"] == WHITE
            assert space(again, "hubu", 5)["secured"] is False
        elif petition.endswith("army"):
            assert [b["army"] for b in v["foreign_lands"][0]["boxes"]] == [None, None, GREEN]
        else:
            assert space(again, "gongbu", 1) == {
                "space": 1,
                "tile": 3,
                "marker": WHITE,
                "secured": True,
                "transferred": False,
            }


def test_coat_petition_only_towards_equal_or_lower_seniority():
    """Rule R58.3: the other tile's space number must be at least the petitioner's; no empty space."""
    state = build(PETITIONER)
    swaps = {(a["other_ministry"], a["other_space"]) for a in legal(state, "petition_swap_officials")}
    assert ("hubu", 2) not in swaps and ("gongbu", 1) not in swaps  # more senior than #3
    assert ("hubu", 5) in swaps and ("gongbu", 3) in swaps and ("hubu", 6) not in swaps  # #6 is empty


# -- exam and candidate edge cases (R80, R81, R88, R89) ---------------------------------------------


def test_forced_exam_without_students_does_nothing():
    """Rule R80: forced, no student: the candidate stays."""
    state = build({"players": THREE, "round": 3, "phase": "court", "forced": True, "candidate": "hubu"})
    assert view(state)["candidate"] == "hubu"


def test_uncontested_exam_needs_no_tutoring():
    """Rule R81: one student wins at once, no cards are played, so no gift can be cancelled."""
    state = build(
        {
            "players": THREE,
            "round": 3,
            "phase": "court",
            "candidate": "hubu",
            "forced": True,
            "students": {"orange": "green"},
            "gifts": ["green>white:2"],
        }
    )
    assert pending(state)["decision"] == "place_candidate" and pending(state)["seat"] == GREEN
    assert gifts(state) == {(GREEN, WHITE, 2)}


def test_candidate_for_a_resolved_ministry_goes_anywhere_or_is_removed():
    """Rule R88 step 4: a Bingbu candidate with Bingbu resolved goes to an empty space of any unresolved
    ministry; step 5: with no such space or open official, it is removed and the next one comes up."""
    full = {f"bingbu#{s}": "black s" for s in range(1, 8)}
    desc = {
        "players": THREE,
        "round": 4,
        "phase": "court",
        "candidate": "bingbu",
        "forced": True,
        "students": {"red": "white"},
        "officials": full,
        "resolved": {"bingbu": ["black", "black"]},
        "candidate_stack": ["hubu", "any"],
    }
    state = build(desc)
    assert {a["ministry"] for a in legal(state)} == {"hubu", "gongbu"}
    closed = {f"{m}#{s}": "green s" for m in ("hubu", "gongbu") for s in range(1, 8)}
    stuck = build({**desc, "officials": {**full, **closed}})
    v = view(stuck)
    assert v["candidate"] == "hubu" and v["students"] == {"red": None, "orange": None}
    assert not any(s["tile"] == "candidate" for m in v["ministries"] for s in m["spaces"])
    assert GAME.to_move(stuck) is None  # Hubu and Gongbu then resolve: all three resolved (R100)


# -- titles and the winner (R104-R107, R111) -------------------------------------------------------------


def test_title_without_the_tie_ministers_minister_goes_to_nobody():
    """Rules R104, R105, R106, R107: a tie at the top (even 0 : 0) goes to the tie-break Minister; none -> no
    title."""
    state = build({"players": THREE, "round": 9, "phase": "court", "court_step": "round_end"})
    result = GAME.result(state)
    assert result["titles"] == {"chief_minister": -1, "admiral": -1, "general": -1}
    assert result["scores"] == [0, 0, 0]


def test_shared_win_when_no_title_holder_is_tied():
    """Rules R111, last case: tied players without a title share the win (ranking still total)."""
    ranked, tiebreak = ranking([10, 10, 3], {"admiral": 2, "chief_minister": -1, "general": -1}, False)
    assert ranked == [0, 1, 2] and tiebreak is None
    ranked, tiebreak = ranking([10, 10, 3], {"admiral": 2, "chief_minister": -1, "general": 1}, False)
    assert ranked[0] == 1 and tiebreak == "R111 general"


# -- hidden information (R113-R116) ------------------------------------------------------------------------


def test_drawn_cards_and_laid_tutoring_cards_are_private_events():
    """Rules R114, R116: a draw shows the cards to the drawer only, a count to the others; a tutoring card
    shows its value to the tutor only."""
    state = build({"players": THREE, "round": 2, "to_move": "white", "chief_minister": "black"})
    events = act(state, WHITE, "tax_income")
    for seat in (BLACK, WHITE, GREEN, None):
        seen = [e for e in events_of(events, "drew") if event_visible(e, seat)]
        assert len(seen) == 1 and (("c1" in seen[0]) == (seat == WHITE))
    exam = build(
        {
            "players": THREE,
            "round": 3,
            "phase": "court",
            "chief_minister": "white",
            "students": {"red": "black", "orange": "green"},
            "hands": {"white": [2, 3]},
        }
    )
    events = act(exam, WHITE, "tutor", student="red", coins=2)
    public = [e for e in events if e["type"] == "action" and event_visible(e, BLACK)]
    assert public == [
        {
            "type": "action",
            "visible_to": "others",
            "seat": WHITE,
            "action": {"type": "tutor", "student": "red"},
        }
    ]


def test_end_of_round_discards_stay_face_down_until_everybody_chose():
    """Rule R98 (simultaneous choice): the first player's discards are set aside face down; the pile shows
    them only after the last player has chosen."""
    state = build(
        {
            "players": THREE,
            "round": 3,
            "phase": "court",
            "court_step": "discards",
            "chief_minister": "black",
            "hands": {"black": [3, 3, 3, 3, 1], "white": [1, 1, 1, 1, 2]},
        }
    )
    act(state, BLACK, "keep_cards", c1=0, c2=0, c3=4)
    v = view(state, WHITE)
    assert v["discard_pile"] == {"c1": 0, "c2": 0, "c3": 0} and v["players"][BLACK]["set_aside"] == 1
    assert "set_aside_cards" not in v["players"][BLACK]
    act(state, WHITE, "keep_cards", c1=4, c2=0, c3=0)
    assert view(state)["discard_pile"] == {"c1": 1, "c2": 1, "c3": 0}


def test_transfer_influence_only_in_unresolved_ministries():
    """Rules R62, R91 step 8: nothing in a resolved ministry can change."""
    state = build(
        {
            "players": THREE,
            "round": 4,
            "to_move": "black",
            "chief_minister": "green",
            "officials": {f"bingbu#{s}": "black s" for s in range(1, 8)} | {"hubu#3": "black u"},
            "resolved": {"bingbu": ["black", "black"]},
        }
    )
    assert {a["ministry"] for a in legal(state, "transfer_influence")} == {"hubu"}
    assert ministry(state, "bingbu")["resolved"]
