"""Rules beyond the examples: setup and options, turn structure, refusals, end of game, visibility,
the fortification variant."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.core import RULE_OVER, RULE_SCHEMA, RULE_TURN, IllegalAction, InvalidOptions, unpack
from engine.games.china.components import COLOUR_COUNTS, REMOVED_PER_COLOUR
from engine.games.china.scenario import build
from engine.games.china.scoring import rank_points

from .helpers import (
    DRAW_DECK,
    FINISH,
    GAME,
    draw_display,
    emissary,
    final_scoring,
    hand,
    house,
    play,
    refused,
    scores,
    seen,
    swap,
)

# -- setup and options --------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 6, "4"])
def test_player_counts_outside_3_to_5_are_refused(players):
    """R2, R66: 3-5 players only."""
    with pytest.raises(InvalidOptions) as info:
        GAME.setup(players, None, seed=1)
    assert info.value.field == "players"


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"start_player": 3}, "start_player"),
        ({"start_player": -2}, "start_player"),
        ({"fortress": True}, "fortress"),
    ],
)
def test_bad_options_are_refused(options, field):
    """R19, R21: start_player is a seat or -1 (random); unknown options are refused."""
    with pytest.raises(InvalidOptions) as info:
        GAME.setup(3, options, seed=1)
    assert info.value.field == field


def test_start_player_option_and_random_start():
    """R19, R22: the host may fix the Emperor, who moves first; otherwise it is drawn at random."""
    view = seen(GAME.setup(4, {"start_player": 2}, seed=9))
    assert view["to_move"] == 2 and [p["emperor"] for p in view["players"]] == [False, False, True, False]
    assert len({seen(GAME.setup(4, None, seed=s))["to_move"] for s in range(20)}) > 1


@pytest.mark.parametrize("players", [3, 4, 5])
def test_card_removal_by_colour(players):
    """R16, R17: the cards in play are the 57 minus 2/1/0 of each colour, none lost in dealing."""
    state = GAME.setup(players, None, seed=players)
    payload = unpack("china", {1}, GAME.encode(state))[1]  # the serialized state: deck is there
    cards = Counter(payload["deck"]) + Counter(payload["display"])
    for hand_counts in payload["hands"]:
        cards += Counter({c: k for c, k in enumerate(hand_counts)})
    assert [cards[c] for c in range(len(COLOUR_COUNTS))] == [
        k - REMOVED_PER_COLOUR[players] for k in COLOUR_COUNTS
    ]


def test_rank_points():
    """R41: dense ranking, leaders get the total, rank k the count of rank k-1, ties share a rank."""
    assert rank_points([4, 2, 0, 1]) == [7, 4, 0, 2]  # seed example 4
    assert rank_points([2, 2, 1, 0]) == [5, 5, 2, 0]  # seed example 5
    assert rank_points([3, 2, 2, 1, 0]) == [8, 3, 3, 2, 0]  # E4
    assert rank_points([0, 0, 0]) == [0, 0, 0]  # R42


# -- turn structure --------------------------------------------------------------------------------


def two_piece_state():
    """Anita (seat 1) to move; WEI holds Jenő's house, so two pieces may go there (S1b)."""
    return build({"players": 4, "to_move": 1, "houses": {"WEI1": 0}, "hands": {1: ["R03", "G01", "G02"]}})


def test_finish_after_one_piece():
    """R26: 1 or 2 pieces: after one piece the player may stop and draw the one card he played."""
    state = two_piece_state()
    play(state, house("WEI2", "red"))
    assert FINISH in GAME.legal_actions(state) and seen(state)["phase"] == "place"
    play(state, FINISH)
    assert seen(state, 1)["pending"] == {"seat": 1, "decision": "draw", "rule": "R45", "draws_left": 1}


def test_decisions_out_of_order_are_refused():
    """R23 (swap or place, not both), R26 (finish needs a piece), R45 (draw only after acting)."""
    state = two_piece_state()
    refused(state, FINISH, "R26")
    refused(state, DRAW_DECK, "R45")
    play(state, house("WEI2", "red"))
    refused(state, swap("green"), "R23")
    state = two_piece_state()
    play(state, swap("red"))
    refused(state, house("WEI2", "green+green"), "R23")
    refused(state, FINISH, "R45")


def test_swap_needs_a_card_held():
    """R49: only a card in hand can be swapped."""
    refused(two_piece_state(), swap("violet"), "R49")


def test_display_slot_refilled_only_after_drawing():
    """R46: a slot emptied by this player stays empty until he has finished drawing."""
    state = build({"players": 3, "hands": {0: ["Y01", "Y02", "R01"]}})
    play(state, house("WEI1", "yellow+yellow"), draw_display(0))
    assert seen(state)["display"][0] is None
    refused(state, draw_display(0), "R46")
    play(state, draw_display(1))
    assert None not in seen(state)["display"]


def test_exhaustion_by_display_refill():
    """R50: the pile's last card going to the display is an exhaustion too: the discards are
    reshuffled into a new pile."""
    state = build({"players": 3, "deck": ["V05"], "hands": {0: ["Y01", "G01", "R01"]}})
    discards = len(seen(state)["discard"])
    play(state, house("WEI1", "red"), draw_display(2))
    view = seen(state)
    assert view["display"][2] == "violet" and view["exhaustions"] == 1
    assert view["deck_size"] == discards + 1 and view["discard"] == []


def test_final_round_triggered_in_the_last_seats_turn_ends_with_it():
    """R52: the second exhaustion during the turn of the start player's right-hand neighbour ends the
    game when that turn ends."""
    state = build(
        {
            "players": 4,
            "start": 0,
            "to_move": 3,
            "exhaustions": 1,
            "deck": ["R05"],
            "hands": {3: ["V01", "G01", "O01"]},
        }
    )
    play(state, house("ZHOU1", "violet"), DRAW_DECK)
    result = GAME.result(state)
    assert result is not None and result["ended_by"] == "R52" and GAME.to_move(state) is None


def test_forced_pass_and_forced_place():
    """R55: a seat that can neither place nor swap is skipped; one that cannot swap (nothing to take)
    but can place must place."""
    state = build(
        {
            "players": 3,
            "exhaustions": 2,
            "display": [None] * 4,
            "hands": {0: ["R01"], 1: [], 2: ["G01", "G02", "V01"]},
        }
    )
    assert {a["type"] for a in GAME.legal_actions(state)} == {"place"}
    events = play(state, house("WEI1", "red"))
    assert {"type": "passed", "visible_to": "all", "seat": 1, "rule": "R55"} in events
    assert seen(state)["to_move"] == 2


def test_shared_victory():
    """R60: equal top totals share the victory; no tie-breaker."""
    result = final_scoring({"players": 3})
    assert result["scores"] == [0, 0, 0] and result["winners"] == [0, 1, 2] and result["tiebreak"] is None


def test_no_result_before_the_end():
    assert GAME.result(GAME.setup(3, None, seed=1)) is None


# -- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"type": "pass"}, "type"),
        ({"type": "place", "piece": "house", "target": "WEI2"}, "pay"),
        ({**house("WEI2", "red"), "cards": 1}, "cards"),
        (house("MARS", "red"), "target"),
        (emissary("WEI1", "red"), "target"),
        (house("WEI2", "purple"), "pay"),
        ({"type": "place", "piece": "temple", "target": "WEI2", "pay": "red"}, "piece"),
        (swap("pink"), "discard"),
        ({"type": "draw_display", "slot": "0"}, "slot"),
    ],
)
def test_malformed_actions_name_the_field(action, field):
    """Malformed actions are refused with rule "schema" naming the field; nothing changes."""
    state = two_piece_state()
    error = refused(state, action, RULE_SCHEMA)
    assert error.field == field


def test_out_of_range_display_slot():
    state = two_piece_state()
    play(state, swap("red"))
    assert refused(state, draw_display(9), RULE_SCHEMA).field == "slot"


def test_wrong_seat_and_finished_game():
    """Only the seat to move may act ("turn"); nothing is accepted after the end ("game-over")."""
    state = two_piece_state()
    before = GAME.encode(state)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, house("WEI2", "red"), seat=0)
    assert info.value.rule == RULE_TURN and GAME.encode(state) == before
    state = build({"players": 3, "start": 0, "to_move": 2, "exhaustions": 2, "hands": {2: ["R01"]}})
    play(state, swap("red"), draw_display(0))
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, DRAW_DECK)
    assert info.value.rule == RULE_OVER


# -- visibility ---------------------------------------------------------------------------------------------


def test_cards_taken_from_the_display_are_public_until_played():
    """R61, R62: others see the size of a hand plus the cards they saw taken face up; a played card of
    that colour may be the seen one, so the seen count drops."""
    state = build(
        {"players": 3, "display": ["R05", "G05", "O05", "V05"], "hands": {0: ["Y01", "Y02", "G01"]}}
    )
    play(state, house("WEI1", "yellow+yellow"), draw_display(0), draw_display(1))
    other = seen(state, 1)["players"][0]
    assert "hand" not in other and other["hand_size"] == 3
    assert other["seen_cards"] == ["red", "green"]
    for seat in (1, 2):  # the others' turns: they swap
        play(state, swap(hand(state, seat)[0]), DRAW_DECK)
    play(state, house("HAN1", "green"))
    assert seen(state, 1)["players"][0]["seen_cards"] == ["red"]


def test_determinize_keeps_seen_cards():
    """R61, R62: a sampled state for seat 1 keeps seat 0's publicly seen cards in seat 0's hand."""
    import random

    state = build(
        {"players": 3, "display": ["R05", "G05", "O05", "V05"], "hands": {0: ["Y01", "Y02", "G01"]}}
    )
    play(state, house("WEI1", "yellow+yellow"), draw_display(3), draw_display(1))
    for k in range(10):
        sample = GAME.determinize(state, 1, random.Random(k))
        assert {"violet", "green"} <= set(hand(sample, 0))
        assert seen(sample, 1) == seen(state, 1)


# -- fortification variant (R21, R64, R65) -----------------------------------------------------------------

FORT = {"type": "fortify", "space": "ZHOU1", "province": "ZHOU", "pay": "violet+violet"}


def test_fortification_variant_is_off_by_default():
    """R21: without the option no fortify action exists."""
    state = build({"players": 3, "houses": {"ZHOU1": 0}, "hands": {0: ["V01", "V02", "R01"]}})
    refused(state, FORT, "R21")


def test_fortify_once_per_game():
    """R64: two payments for the province (two of its cards, or one plus a wild pair) put the
    fortification under an own house; no piece is placed; then the player draws; only once."""
    desc = {"players": 3, "fortifications": True, "houses": {"ZHOU1": 0, "ZHOU2": 1}}
    state = build({**desc, "hands": {0: ["V01", "R01", "R02"]}})
    legal = GAME.legal_actions(state)
    assert {**FORT, "pay": "red+red+violet"} in legal and FORT not in legal
    assert {**FORT, "space": "ZHOU2"} not in legal  # not his house
    play(state, {**FORT, "pay": "red+red+violet"})
    assert seen(state)["players"][0]["fortification"] == "ZHOU1"
    assert seen(state, 0)["pending"]["draws_left"] == 3
    play(state, DRAW_DECK, DRAW_DECK, DRAW_DECK)
    for seat in (1, 2):
        play(state, swap(hand(state, seat)[0]), DRAW_DECK)
    assert all(a["type"] != "fortify" for a in GAME.legal_actions(state))
    refused(state, FORT, "R64")


def test_fortified_house_doubles_province_scoring():
    """R65a: A (fortified house in ZHOU, 3 houses) completes ZHOU against B's 5: B +8, A 2 x 5."""
    houses = {"ZHOU1": 0, "ZHOU2": 0} | {s: 1 for s in ("ZHOU3", "ZHOU4", "ZHOU5", "ZHOU6", "B_WEI_ZHOU")}
    state = build(
        {
            "players": 3,
            "fortifications": True,
            "fortified": {0: "ZHOU1"},
            "houses": houses,
            "hands": {0: ["V01", "R01", "G01"]},
        }
    )
    play(state, house("B_ZHOU_CHU", "red+violet"))
    assert scores(state) == [10, 8, 0]


def test_fortified_house_doubles_its_chain_not_ports():
    """R65b: the chain holding the fortified house scores double; port scoring is not affected."""
    houses = {f"ZHOU{i}": 0 for i in range(1, 5)} | {"YAN4": 1}
    result = final_scoring(
        {"players": 3, "fortifications": True, "fortified": {0: "ZHOU1", 1: "YAN4"}, "houses": houses}
    )
    final = result["final_scoring"]
    assert final["chains"] == [8, 0, 0]
    assert final["ports"] == [0, 1, 0]
    assert final["provinces"] == [8, 2, 0]  # R56 with R65a: ZHOU 4 x 2, YAN 1 x 2
