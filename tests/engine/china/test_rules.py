"""Rules beyond the examples: setup and options, turn structure, refusals, end of game, visibility,
the fortification variant."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.core import RULE_OVER, RULE_SCHEMA, RULE_TURN, IllegalAction, InvalidOptions, unpack
from engine.games.china.components import COLOUR_COUNTS, COLOURS, REMOVED_PER_COLOUR
from engine.games.china.scenario import build
from engine.games.china.scoring import rank_points

from .helpers import (
    DRAW_DECK,
    FINISH,
    GAME,
    blocking_turn,
    draw_display,
    emissary,
    final_scoring,
    hand,
    house,
    play,
    refused,
    s4_state,
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


def test_played_cards_go_to_the_discard_pile_at_once():
    """R36: the card paying for the first piece lies face up on the discard pile before the second
    piece is chosen and before any drawing."""
    state = two_piece_state()
    before = seen(state)["discard"]
    play(state, house("WEI2", "red"))
    view = seen(state)
    assert view["phase"] == "place" and view["discard"] == sorted([*before, "red"], key=COLOURS.index)


def test_one_house_per_space_and_no_house_in_a_full_province():
    """R32: an occupied space takes no second house; once WEI is full no house goes there, though an
    emissary still may (R34)."""
    state = s4_state()
    refused(state, house("WEI1", "red"), "R32")
    play(state, house("WEI4", "red"), FINISH, DRAW_DECK)  # an emissary could still go to WEI (R34)
    assert seen(state)["to_move"] == 1 and seen(state)["board"]["scored"] == ["WEI"]
    wei = [f"WEI{i}" for i in range(1, 6)] + ["B_ZHAO_WEI", "B_WEI_ZHOU"]
    for space in wei:
        refused(state, house(space, "red"), "R32")
    legal = GAME.legal_actions(state)
    assert not [a for a in legal if a["type"] == "place" and a["target"] in wei]
    assert emissary("WEI", "red") in legal and house("XRED1", "red") in legal


def test_scores_run_past_fifty_and_a_hundred():
    """R7: scores are plain integers (no track wrap-around, no point cards): seed example 4 adds 7 to
    99 and 2 to 48."""
    state = s4_state(scores=[99, 0, 0, 48])
    play(state, house("WEI4", "red"))
    assert scores(state) == [106, 4, 0, 50]


def test_shared_pieces():
    """R7, R21: one Emperor token for the whole game (the start player), one scoring marker (scored
    flag) per province, and with the variant one fortification per player, none without it."""
    state = GAME.setup(5, {"start_player": 2, "fortifications": True}, seed=4)
    view = seen(state)
    assert [p["emperor"] for p in view["players"]] == [False, False, True, False, False]
    assert [p["fortification"] for p in view["players"]] == [None] * 5
    assert view["board"]["scored"] == []
    assert all("fortification" not in p for p in seen(GAME.setup(5, None, seed=4))["players"])
    play(state, GAME.legal_actions(state)[0])
    assert [p["emperor"] for p in seen(state)["players"]] == [False, False, True, False, False]


def random_game(players, seed):
    """Random legal play from setup to the end: (view before, events, view after) of each decision."""
    rng = random.Random(seed)
    state = GAME.setup(players, None, seed=seed)
    steps = []
    while GAME.to_move(state) is not None:
        before = seen(state)
        events = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        steps.append((before, events, seen(state)))
    return steps


def test_pieces_never_move():
    """R35: along random games a house keeps its space and owner and a seal never loses an emissary,
    through province scoring and final scoring alike."""
    for seed in range(3):
        for before, _, after in random_game(4, seed):
            old, new = before["board"], after["board"]
            assert new["houses"].items() >= old["houses"].items()
            for province, counts in old["seals"].items():
                assert all(a >= b for a, b in zip(new["seals"][province], counts, strict=True))


def test_only_the_player_whose_turn_it_is_decides():
    """R63, R22: every decision is the turn player's; the decision passes only when his turn ends,
    clockwise to the next seat (skipping seats R55 passes); scoring needs no decision (its events come
    inside the mover's own actions)."""
    for players in (3, 4, 5):
        steps = random_game(players, 2)  # seed 2: every player count scores a province in play
        for before, events, after in steps:
            mover = before["to_move"]
            assert before["pending"]["seat"] == mover
            assert [e["seat"] for e in events if e["type"] == "action"] == [mover]
            if after["to_move"] in (None, mover):
                continue
            assert after["turn"] > before["turn"]
            nxt = (mover + 1) % players
            for skipped in [e["seat"] for e in events if e["type"] == "passed"]:
                assert skipped == nxt
                nxt = (nxt + 1) % players
            assert after["to_move"] == nxt
        assert steps[-1][2]["to_move"] is None
        assert any(e["type"] == "province_scored" for _, events, _ in steps for e in events)


def test_decisions_out_of_order_are_refused():
    """R23 (swap or place, not both), R26 (finish needs a piece), R45 (draw only after acting).
    Regression: "finish" after a swap was blamed on R45 ("the placing is over"), though nothing had
    been placed; R23 forbids it."""
    state = two_piece_state()
    refused(state, FINISH, "R26")
    refused(state, DRAW_DECK, "R45")
    play(state, house("WEI2", "red"))
    refused(state, swap("green"), "R23")
    state = two_piece_state()
    play(state, swap("red"))
    refused(state, house("WEI2", "green+green"), "R23")
    refused(state, FINISH, "R23")


def test_draw_before_deciding_on_a_second_piece_names_r26():
    """R26: after one piece the player places a second one or finishes; a draw before that is
    refused naming R26 (regression: it was blamed on R45, "draw only after placing", though he had
    placed)."""
    state = two_piece_state()
    play(state, house("WEI2", "red"))
    error = refused(state, DRAW_DECK, "R26")
    assert "finish" in error.message


def test_second_swap_names_r49():
    """R49: a swap exchanges exactly one card; after it only the draw of that one card is left."""
    state = two_piece_state()
    play(state, swap("red"))
    refused(state, swap("green"), "R49")
    assert seen(state, 1)["pending"]["rule"] == "R49"


def test_malformed_fields_are_named_in_any_phase():
    """Malformed fields are refused with rule "schema" naming the field even when the action is also
    out of place (regression: the phase was checked first, so the field went unnamed)."""
    state = two_piece_state()
    assert refused(state, draw_display(7), RULE_SCHEMA).field == "slot"  # turn start: no draw yet
    play(state, swap("red"))
    assert refused(state, house("MARS", "red"), RULE_SCHEMA).field == "target"
    assert refused(state, swap("pink"), RULE_SCHEMA).field == "discard"
    assert refused(state, {**FORT, "province": "MARS"}, RULE_SCHEMA).field == "province"


def test_spare_card_next_to_a_wild_pair_names_r28():
    """R28: a green wild pair plus an orange card for one house in WEI leaves the orange card unused
    (regression: named R27, as if no valid payment were in it); R27 when no payment fits at all."""
    state = build({"players": 3, "hands": {0: ["G01", "G02", "O01"]}})
    refused(state, house("WEI1", "green+green+orange"), "R28")
    refused(state, house("WEI1", "green+orange"), "R27")
    refused(state, house("WEI1", "green+green+green"), "R28")
    play(state, house("WEI1", "green+green"))


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


def test_blocked_board_is_checked_before_the_final_round():
    """R54, R53, R52: in the final round, when the last seat's turn blocks the board both end rules
    hold at once; R53 is checked first, so it is the one that ends the game."""
    board, mover = blocking_turn(4)
    state = build(
        {
            "players": 4,
            "start": (mover + 1) % 4,  # the mover is the last seat of the final round
            "to_move": mover,
            "exhaustions": 2,
            **board,
            "hands": {mover: ["O01", "O02", "O03"]},
        }
    )
    play(state, house("WU4", "orange"), draw_display(0))
    assert GAME.result(state)["ended_by"] == "R53"


def test_forced_pass_and_forced_place():
    """R55: a seat that can neither place nor swap is skipped; one that cannot swap (nothing to take)
    but can place must place."""
    state = build(
        {
            "players": 4,
            "start": 3,
            "to_move": 0,
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
    # regression: these were blamed on R23 (swap or place), but fortifying is action A itself
    refused(state, house("ZHOU3", "violet"), "R64")
    refused(state, FINISH, "R64")
    assert seen(state, 0)["pending"]["draws_left"] == 3
    play(state, DRAW_DECK, DRAW_DECK, DRAW_DECK)
    for seat in (1, 2):
        play(state, swap(hand(state, seat)[0]), DRAW_DECK)
    assert all(a["type"] != "fortify" for a in GAME.legal_actions(state))
    refused(state, FORT, "R64")


def test_fortified_house_doubles_province_scoring():
    """R65 (a): A (fortified house in ZHOU, 3 houses) completes ZHOU against B's 5: B +8, A 2 x 5."""
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
    play(state, house("B_ZHOU_XRED", "red+violet"))
    assert scores(state) == [10, 8, 0]


def test_no_doubling_without_the_variant():
    """R44: without the variant the same completion of ZHOU scores plain R41: B +8, A +5."""
    houses = {"ZHOU1": 0, "ZHOU2": 0} | {s: 1 for s in ("ZHOU3", "ZHOU4", "ZHOU5", "ZHOU6", "B_WEI_ZHOU")}
    state = build({"players": 3, "houses": houses, "hands": {0: ["V01", "R01", "G01"]}})
    play(state, house("B_ZHOU_XRED", "red+violet"))
    assert scores(state) == [5, 8, 0]


def test_fortified_house_doubles_its_chain_not_ports():
    """R65 (b): the chain holding the fortified house scores double; port scoring is not affected."""
    houses = {f"ZHOU{i}": 0 for i in range(1, 5)} | {"YAN4": 1}
    result = final_scoring(
        {"players": 3, "fortifications": True, "fortified": {0: "ZHOU1", 1: "YAN4"}, "houses": houses}
    )
    final = result["final_scoring"]
    assert final["chains"] == [8, 0, 0]
    assert final["ports"] == [0, 1, 0]
    assert final["provinces"] == [8, 2, 0]  # R56 with R65 (a): ZHOU 4 x 2, YAN 1 x 2


def test_second_piece_question_does_not_reveal_the_hand():
    """R26, R17: after the first piece the seat is asked for a second piece or FINISH whatever its hand
    holds, so the other seats cannot tell from the flow whether the hand could pay for one.  Two
    positions that differ only in seat 0's private cards look the same to seat 1 afterwards."""
    base = {
        "players": 3,
        "to_move": 0,
        "seed": 4,
        "display": ["O01", "O02", "V01", "V02"],
        "houses": {"YAN2": 1},  # R31: YAN is not empty, so it may take two pieces this turn
    }
    others = {1: ["R05", "R06", "Y05"], 2: ["G05", "O05", "V05"]}
    can = build({**base, "hands": {0: ["G01", "G02", "R01"], **others}})  # YAN is green: a second house fits
    cannot = build({**base, "hands": {0: ["G01", "R01", "Y01"], **others}})  # nothing left pays for YAN
    for state in (can, cannot):
        play(state, house("YAN1", "green"))
    assert GAME.view(can, 1) == GAME.view(cannot, 1)
    assert GAME.legal_actions(cannot) == [FINISH]
    assert len(GAME.legal_actions(can)) > 1 and FINISH in GAME.legal_actions(can)
