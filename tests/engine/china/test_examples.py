"""Every scenario of shared/games/china/examples.md, one test each, named after its id.

Seats in the seed's examples: Jenő 0, Anita 1, Márk 2, Éva 3 (start player 0); in the constructed
cases A, B, C, D are seats 0-3.  Positions come from the scenario builder; geometry-dependent cases
use the reference board of components.json (R10).
"""

from __future__ import annotations

from engine.games.china.scenario import build

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
    houses_of,
    play,
    refused,
    s4_state,
    scores,
    seen,
    swap,
)

JENO, ANITA, MARK, EVA = 0, 1, 2, 3
A, B, C, D = 0, 1, 2, 3


# -- Part A: the seed's worked examples ---------------------------------------------------------------


def s1a_state():
    return build({"players": 4, "hands": {JENO: ["V01", "R01", "R02"]}})


def test_s1a_first_piece_into_empty_province():
    """R26, R30, R31, R34: one red card puts one house into the empty WEI; then the turn only draws."""
    state = s1a_state()
    view = seen(state)
    play(state, house("WEI1", "red"))
    after = seen(state, JENO)
    assert houses_of(state) == {"WEI1": JENO}
    assert after["players"][JENO]["houses"] == 19
    assert after["discard"] == [*view["discard"], "red"]
    assert after["phase"] == "draw" and after["pending"]["draws_left"] == 1  # DP4
    play(state, DRAW_DECK)
    assert seen(state)["to_move"] == ANITA and len(hand(state, JENO)) == 3


def test_s1a_rejections():
    """R31 (second house, or a house then an emissary, into a province empty at turn start: seed
    discrepancy D2), R34 (no emissary without a house), R30 (two provinces)."""
    state = s1a_state()
    refused(state, emissary("WEI", "red"), "R34")
    play(state, house("WEI1", "red"))
    refused(state, house("WEI2", "red"), "R31")
    refused(state, emissary("WEI", "red"), "R31")
    refused(state, house("XRED1", "red"), "R30")


def test_s1a_red_card_serves_either_red_province():
    """R27: a red card pays for a piece in WEI or in XRED."""
    state = s1a_state()
    legal = GAME.legal_actions(state)
    assert house("WEI1", "red") in legal and house("XRED1", "red") in legal
    play(state, house("XRED1", "red"))
    assert houses_of(state) == {"XRED1": JENO}


def s1b_state():
    return build(
        {"players": 4, "to_move": ANITA, "houses": {"WEI1": JENO}, "hands": {ANITA: ["R03", "G01", "G02"]}}
    )


def test_s1b_second_player_places_two_pieces():
    """R27, R33: a red card for a house and a green wild pair for an emissary in WEI (limit 1)."""
    state = s1b_state()
    play(state, house("WEI2", "red"), emissary("WEI", "green+green"))
    assert seen(state)["board"]["seals"]["WEI"] == [0, 1, 0, 0]


def test_s1b_wild_pair_for_a_second_house():
    """R27: the green pair may pay for a second house in WEI instead."""
    state = s1b_state()
    play(state, house("WEI2", "red"), house("WEI3", "green+green"))
    assert houses_of(state) == {"WEI1": JENO, "WEI2": ANITA, "WEI3": ANITA}


def test_s1b_two_emissaries_exceed_the_limit():
    """R33: with one house per player in WEI the seal holds one emissary, so the second is refused."""
    state = s1b_state()
    play(state, emissary("WEI", "red"))
    refused(state, emissary("WEI", "green+green"), "R33")


def s1c_state():
    return build(
        {
            "players": 4,
            "to_move": MARK,
            "houses": {"QI1": ANITA, "QIN1": MARK, "WEI2": JENO},
            "hands": {MARK: ["Y01", "Y02", "Y03"]},
        }
    )


def test_s1c_three_yellow_cards_alternatives():
    """R26, R27, R30: two pieces in QI, or two in QIN, or a yellow wild pair for one piece in WEI."""
    for first, second in (("QI2", "QI3"), ("QIN2", "QIN3")):
        state = s1c_state()
        play(state, house(first, "yellow"), house(second, "yellow"))
        assert houses_of(state)[first] == houses_of(state)[second] == MARK
        assert seen(state, MARK)["pending"]["draws_left"] == 2  # one yellow card stayed in hand
    state = s1c_state()
    play(state, house("WEI3", "yellow+yellow"))
    assert houses_of(state)["WEI3"] == MARK


def test_s1c_rejections():
    """R30 (QI and QIN), R28/R29 (no third yellow card for two QI houses: no yellow pair in a yellow
    province, no spare card), R26 (no third piece)."""
    state = s1c_state()
    refused(state, house("QI2", "yellow+yellow+yellow"), "R28")
    play(state, house("QI2", "yellow"))
    refused(state, house("QIN2", "yellow"), "R30")
    refused(state, house("QI3", "yellow+yellow"), "R29")
    play(state, house("QI3", "yellow"))
    refused(state, house("QI4", "yellow"), "R26")


def s2_state():
    return build(
        {
            "players": 4,
            "to_move": EVA,
            "houses": {"ZHOU1": MARK, "ZHOU2": MARK, "ZHOU3": MARK, "ZHOU4": MARK, "ZHOU5": ANITA},
            "emissaries": {"ZHOU": {ANITA: 1, JENO: 1}},
            "hands": {EVA: ["V01", "O01", "O02"], JENO: ["V02", "R01", "R02"]},
        }
    )


def test_s2_emissary_limit_set_by_strongest_house_holder():
    """R27, R33: Márk's 4 houses allow 4 emissaries; Éva adds 2 (violet card, orange wild pair)."""
    state = s2_state()
    play(state, emissary("ZHOU", "violet"), emissary("ZHOU", "orange+orange"))
    view = seen(state)
    assert view["board"]["seals"]["ZHOU"] == [1, 1, 0, 2]
    assert view["players"][EVA]["emissaries"] == 6
    play(state, DRAW_DECK, DRAW_DECK, DRAW_DECK)  # three cards played, three drawn (R45)
    assert seen(state)["to_move"] == JENO
    refused(state, emissary("ZHOU", "violet"), "R33")


def s3_state():
    return build(
        {
            "players": 4,
            "houses": {"QIN1": ANITA, "QIN2": ANITA, "QIN3": MARK, "B_QIN_HAN": MARK},
            "hands": {JENO: ["Y01", "Y02", "G03"]},
        }
    )


def test_s3_two_emissaries_with_tied_leaders():
    """R33: Anita and Márk hold 2 houses each in QIN, so its empty seal takes 2 emissaries."""
    state = s3_state()
    play(state, emissary("QIN", "yellow"), emissary("QIN", "yellow"))
    assert seen(state)["board"]["seals"]["QIN"] == [2, 0, 0, 0]


def test_s3_emissary_and_house():
    """R33, R38: an emissary and a house in QIN are legal too."""
    state = s3_state()
    play(state, emissary("QIN", "yellow"), house("QIN4", "yellow"))
    assert houses_of(state)["QIN4"] == JENO and seen(state)["board"]["seals"]["QIN"] == [1, 0, 0, 0]


def test_s3_two_houses_fill_and_score_qin():
    """R37, R41, R13: QIN's last two spaces filled: 2-2-2 houses of 6 (border included) -> +6 each,
    QIN marked scored, then Jenő draws 2."""
    state = s3_state()
    events = play(state, house("QIN4", "yellow"), house("QIN5", "yellow"))
    assert scores(state) == [6, 6, 6, 0]
    assert [e["province"] for e in events if e["type"] == "province_scored"] == ["QIN"]
    assert seen(state)["board"]["scored"] == ["QIN"]
    assert seen(state, JENO)["pending"]["draws_left"] == 2


def test_s4_province_scoring_three_ranks():
    """R37, R41: WEI's 7th space filled: Jenő 4, Anita 2, Éva 1 -> +7, +4, +2; ZHAO, ZHOU unscored."""
    state = s4_state()  # Jenő (0) 3 houses, Anita (1) 2, Éva (3) 1, WEI4 free
    play(state, house("WEI4", "red"))
    assert scores(state) == [7, 4, 0, 2]
    assert seen(state)["board"]["scored"] == ["WEI"]


def test_s5_tie_for_first_place():
    """R41, R56: QIN unscored at the end: Anita 2, Márk 2, Éva 1 -> +5, +5, +2."""
    result = final_scoring(
        {
            "players": 4,
            "houses": {"QIN1": ANITA, "QIN2": ANITA, "QIN3": MARK, "QIN4": MARK, "QIN5": EVA},
        }
    )
    assert result["final_scoring"]["provinces"] == [0, 5, 5, 2]


# -- Part B: constructed edge cases -----------------------------------------------------------------


def e1_state(cards):
    return build({"players": 4, "to_move": B, "houses": {"HAN2": C}, "hands": {B: cards}})


def test_e1_border_house_then_house_in_the_common_province():
    """R27, R31, R40: a border house (yellow+green) and a house in HAN: QIN receives 1 piece, HAN 2."""
    state = e1_state(["Y01", "G01", "G02"])
    play(state, house("B_QIN_HAN", "green+yellow"), house("HAN3", "green"))
    assert houses_of(state) == {"HAN2": C, "B_QIN_HAN": B, "HAN3": B}


def test_e1_border_house_then_house_in_the_empty_province():
    """R31, R40: QIN was empty, so a border house plus a house in QIN is refused; the border house
    alone (two yellow cards) is legal."""
    state = e1_state(["Y01", "Y02", "Y03"])
    play(state, house("B_QIN_HAN", "yellow+yellow"))
    refused(state, house("QIN1", "yellow"), "R31")
    # HAN could still take a piece, so the seat is asked (its hand cannot pay: only FINISH is legal).
    assert GAME.legal_actions(state) == [FINISH]
    play(state, FINISH)
    assert seen(state)["phase"] == "draw"


def test_e1_no_wild_pair_for_a_border_house():
    """R29: an orange wild pair cannot pay for a border house; it can pay for a house in HAN."""
    state = e1_state(["O01", "O02", "G01"])
    refused(state, house("B_QIN_HAN", "orange+orange"), "R29")
    play(state, house("HAN3", "orange+orange"))
    assert houses_of(state)["HAN3"] == B


def test_e2_one_border_house_completes_two_provinces():
    """R13, R37, R41: B_WEI_ZHOU fills WEI (A 3, B 3, C 1) and ZHOU (B 4, C 3, A 1):
    A +10, B +15, C +7; ZHAO and XRED stay unscored."""
    state = build(
        {
            "players": 3,
            "to_move": B,
            "houses": {
                "WEI1": A,
                "WEI2": A,
                "WEI3": A,
                "WEI4": B,
                "WEI5": B,
                "B_ZHAO_WEI": C,
                "ZHOU1": B,
                "ZHOU2": B,
                "ZHOU3": B,
                "ZHOU4": C,
                "ZHOU5": C,
                "ZHOU6": C,
                "B_ZHOU_XRED": A,
            },
            "hands": {B: ["R01", "V01", "G05"]},
        }
    )
    events = play(state, house("B_WEI_ZHOU", "red+violet"))
    assert scores(state) == [10, 15, 7]
    assert sorted(e["province"] for e in events if e["type"] == "province_scored") == ["WEI", "ZHOU"]
    assert sorted(seen(state)["board"]["scored"]) == ["WEI", "ZHOU"]


def e3_state():
    return build(
        {
            "players": 4,
            "to_move": C,
            "houses": {"HAN1": B, "HAN2": C},
            "emissaries": {"HAN": {A: 1}},
            "hands": {C: ["G01", "G02", "O01"]},
        }
    )


def test_e3_emissary_limit_depends_on_order():
    """R33, R38: house first raises Márk to 2 houses, so the emissary fits (seal 2); the reverse
    order and two emissaries are refused (seal 1 already equals limit 1)."""
    state = e3_state()
    play(state, house("HAN3", "green"), emissary("HAN", "green"))
    assert seen(state)["board"]["seals"]["HAN"] == [1, 0, 1, 0]
    refused(e3_state(), emissary("HAN", "green"), "R33")


def test_e4_dense_ranking_with_tie_for_second():
    """R41: ZHOU full with A 3, B 2, C 2, D 1 -> A +8, B +3, C +3, D +2."""
    state = build(
        {
            "players": 4,
            "to_move": D,
            "houses": {
                "ZHOU1": A,
                "ZHOU2": A,
                "ZHOU3": A,
                "ZHOU4": B,
                "ZHOU5": B,
                "ZHOU6": C,
                "B_WEI_ZHOU": C,
            },
            "hands": {D: ["V02", "R05", "G01"]},
        }
    )
    play(state, house("B_ZHOU_XRED", "red+violet"))
    assert scores(state) == [8, 3, 3, 2]


def test_e5_alliances_with_tied_leaders():
    """R58: WEI {A, B} lead (2-2-1), ZHOU {A} (3-1), QI {B} (2-1): WEI-ZHOU gives A 5+4, WEI-QI gives
    B 5+3, QI-ZHOU nobody; D (houses only, setting the limits) scores no alliance."""
    houses = {f"WEI{i}": D for i in range(1, 6)} | {f"ZHOU{i}": D for i in range(1, 5)}
    houses |= {f"QI{i}": D for i in range(1, 4)}
    result = final_scoring(
        {
            "players": 4,
            "houses": houses,
            "emissaries": {"WEI": {A: 2, B: 2, C: 1}, "ZHOU": {A: 3, B: 1}, "QI": {B: 2, A: 1}},
        }
    )
    assert result["final_scoring"]["alliances"] == [9, 8, 0, 0]


def test_e6_branched_house_chain_counts_whole():
    """R59: A's 5 houses form one group branching at ZHOU2 (+5, not the longest path 4); B's
    WEI5-QI1-QI2-QI3 +4; C's groups of 3 and 2 score nothing."""
    owners = {A: ["ZHOU1", "ZHOU2", "ZHOU3", "B_WEI_ZHOU", "WEI4"], B: ["WEI5", "QI1", "QI2", "QI3"]}
    owners[C] = ["XRED1", "XRED2", "XRED3", "YAN4", "YAN5"]
    result = final_scoring({"players": 3, "houses": {s: seat for seat, ss in owners.items() for s in ss}})
    assert result["final_scoring"]["chains"] == [5, 4, 0]


def test_e7_port_scoring():
    """R57, R14: 5 ports occupied, A 2, B 2, C 1 -> A +5, B +5, C +2; the port houses also count
    as ordinary houses of YAN, QI, WU and XRED in the province scoring (A: YAN 1 + QI 2, B: QI 2 +
    WU 1, C: XRED 1)."""
    result = final_scoring(
        {"players": 3, "houses": {"YAN4": A, "QI4": A, "QI5": B, "WU3": B, "XRED5": C}},
    )
    assert result["final_scoring"]["ports"] == [5, 5, 2]
    assert result["final_scoring"]["provinces"] == [3, 3, 1]


def test_e8_first_exhaustion_in_the_middle_of_drawing():
    """R46, R48, R50: the pile's last card G05 is drawn, the discards (with the 2 cards just played)
    become the new pile, the display stays; the second draw takes slot 0, refilled only afterwards.
    (Card counts follow from card conservation: the 3-player deck's 47 cards, so the discard pile holds
    33 cards rather than the example's illustrative 10.)"""
    state = build(
        {
            "players": 3,
            "deck": ["G05"],
            "display": ["R01", "Y02", "O03", "V04"],
            "hands": {A: ["Y03", "Y04", "R02"]},
        }
    )
    discards = len(seen(state)["discard"])
    assert discards == 47 - 9 - 4 - 1
    play(state, house("WEI1", "yellow+yellow"))
    assert seen(state, A)["pending"]["draws_left"] == 2
    events = play(state, DRAW_DECK)
    view = seen(state, A)
    assert next(e for e in events if e["type"] == "drew")["card"] == "green"
    assert view["exhaustions"] == 1 and view["deck_size"] == discards + 2 and view["discard"] == []
    assert view["display"] == ["red", "yellow", "orange", "violet"]
    play(state, draw_display(0))
    view = seen(state, A)
    assert hand(state, A) == ["green", "red", "red"]
    assert view["deck_size"] == discards + 1 and None not in view["display"]
    assert view["final_round"] is False


def test_e9_second_exhaustion_completes_the_round():
    """R50, R52: P2 takes the second pile's last card; P3 and P4 play once more, only from the
    display, and the game ends after P4 without P1 playing again."""
    state = build(
        {"players": 4, "to_move": 1, "exhaustions": 1, "deck": ["R05"], "hands": {1: ["G01", "O01", "V01"]}}
    )
    play(state, house("ZHOU1", "violet"), DRAW_DECK)
    view = seen(state)
    assert view["final_round"] and view["exhaustions"] == 2 and view["to_move"] == 2
    for seat, slot in ((2, 0), (3, 1)):
        assert seen(state)["to_move"] == seat
        assert {a["type"] for a in GAME.legal_actions(state)} <= {"place", "swap"}
        play(state, swap(hand(state, seat)[0]))
        assert {a["type"] for a in GAME.legal_actions(state)} == {"draw_display"}
        play(state, draw_display(slot))
        assert seen(state)["display"][slot] is None
    assert GAME.to_move(state) is None and GAME.result(state)["ended_by"] == "R52"


def test_e9_short_draw_in_the_final_round():
    """R47, R52: with one display card left, P3 plays 2 cards and ends the turn with 2 cards."""
    state = build(
        {
            "players": 4,
            "to_move": 2,
            "exhaustions": 2,
            "display": ["R01", None, None, None],
            "hands": {2: ["Y01", "Y02", "G01"]},
        }
    )
    play(state, house("WEI1", "yellow+yellow"), draw_display(0))
    assert len(hand(state, 2)) == 2 and seen(state)["to_move"] == 3


def test_e10_swap():
    """R49, R62: discard R03 face up, take display slot 1 (Y01), which is refilled at once; no piece;
    a card taken from the pile instead is shown only to the swapping seat."""
    desc = {"players": 3, "display": ["G01", "Y01", "O01", "V01"], "hands": {A: ["R01", "R02", "R03"]}}
    state = build(desc)
    deck = seen(state)["deck_size"]
    events = play(state, swap("red"), draw_display(1))
    view = seen(state)
    assert hand(state, A) == ["red", "red", "yellow"]
    assert view["discard"].count("red") == seen(build(desc))["discard"].count("red") + 1
    assert view["display"][1] is not None and view["deck_size"] == deck - 1
    assert view["board"]["houses"] == {} and view["to_move"] == B
    assert all(e["visible_to"] == "all" for e in events)
    state = build(desc)
    events = play(state, swap("red"), DRAW_DECK)
    assert [e["visible_to"] for e in events if e["type"] == "drew"] == [[A]]


def e11_state(to_move):
    """A: 20 houses on the board (none left) and 5 of 8 emissaries; B: everything placed."""
    a_houses = [f"{p}{i}" for p in ("YAN", "ZHAO", "QIN", "QI") for i in range(1, 6)]
    b_houses = [
        f"{p}{i}" for p, k in (("WEI", 5), ("HAN", 4), ("ZHOU", 6), ("XRED", 5)) for i in range(1, k + 1)
    ]
    return build(
        {
            "players": 3,
            "to_move": to_move,
            "houses": {s: A for s in a_houses} | {s: B for s in b_houses},
            "emissaries": {
                "YAN": {A: 2},
                "ZHAO": {A: 2},
                "QIN": {A: 1},
                "WEI": {B: 3},
                "HAN": {B: 2},
                "ZHOU": {B: 3},
            },
            "hands": {A: ["Y01", "Y02", "R01"]},
        }
    )


def test_e11_empty_supplies():
    """R39, R24: A (no house left) may place emissaries only; B (nothing left) can only swap."""
    state = e11_state(A)
    view = seen(state)
    assert [view["players"][s]["houses"] for s in (A, B)] == [0, 0]
    assert [view["players"][s]["emissaries"] for s in (A, B)] == [3, 0]
    places = [a for a in GAME.legal_actions(state) if a["type"] == "place"]
    assert places and all(a["piece"] == "emissary" for a in places)
    refused(state, house("B_QIN_HAN", "yellow+yellow"), "R39")
    state = e11_state(B)
    assert {a["type"] for a in GAME.legal_actions(state)} == {"swap"}


def test_e12_blocked_board_ends_the_game():
    """R53, R54, R25: the mover fills the last free space (WU4) without raising WU's emissary limit
    while every seal is at its limit: the game ends when this turn ends (after its drawing, R25), not
    at the end of the round, with the draw pile not empty, and the final scoring runs (no province
    left to score)."""
    board, mover = blocking_turn(4)
    start = (mover + 2) % 4  # the round would go on after the mover
    state = build(
        {"players": 4, "start": start, "to_move": mover, **board, "hands": {mover: ["O01", "O02", "O03"]}}
    )
    play(state, house("WU4", "orange"))
    assert GAME.result(state) is None and seen(state)["pending"]["decision"] == "draw"  # R25
    play(state, DRAW_DECK)
    result = GAME.result(state)
    assert result is not None and result["ended_by"] == "R53"
    assert seen(state)["deck_size"] > 0
    assert result["final_scoring"]["provinces"] == [0, 0, 0, 0]


def test_e13_final_scoring_of_unscored_provinces():
    """R56, R42, R43: XRED (A 2 houses) -> A +2; WU (no house) nothing; WEI, scored in play, not again
    (B's 5 WEI houses earn nothing now; C's two border houses score in ZHAO and ZHOU, not WEI)."""
    houses = {"XRED1": A, "XRED2": A} | {f"WEI{i}": B for i in range(1, 6)}
    houses |= {"B_ZHAO_WEI": C, "B_WEI_ZHOU": C}
    result = final_scoring({"players": 3, "houses": houses})
    assert result["final_scoring"]["provinces"] == [2, 0, 2]


def test_e14_emissary_in_an_already_scored_province():
    """R34, R43: WEI was scored (A 4 houses, seal 3): one more emissary fits, a second does not."""
    state = build(
        {
            "players": 3,
            "to_move": C,
            "houses": {
                "WEI1": A,
                "WEI2": A,
                "WEI3": A,
                "WEI4": A,
                "WEI5": B,
                "B_ZHAO_WEI": B,
                "B_WEI_ZHOU": B,
            },
            "emissaries": {"WEI": {B: 2, C: 1}},
            "hands": {C: ["R01", "R02", "G01"]},
        }
    )
    assert seen(state)["board"]["scored"] == ["WEI"]
    play(state, emissary("WEI", "red"))
    assert seen(state)["board"]["seals"]["WEI"] == [0, 2, 2]
    refused(state, emissary("WEI", "red"), "R33")


def test_e15_wild_pair_of_the_targets_own_colour():
    """R27, R29: a violet pair cannot pay in violet ZHOU; two violet cards as two singles can."""
    state = build({"players": 3, "houses": {"ZHOU1": B}, "hands": {A: ["V01", "V02", "R01"]}})
    refused(state, emissary("ZHOU", "violet+violet"), "R29")
    play(state, house("ZHOU2", "violet"), emissary("ZHOU", "violet"))
    assert seen(state)["board"]["seals"]["ZHOU"] == [1, 0, 0]


def test_e16_setup_per_player_count():
    """R15-R20: 47/52/57 cards; 3 dealt each, 4 face up, 34/36/38 in the pile; 20 houses, 8
    emissaries, score 0 each."""
    for players, pile in ((3, 34), (4, 36), (5, 38)):
        state = GAME.setup(players, None, seed=players)
        view = seen(state)
        assert view["deck_size"] == pile and len(view["display"]) == 4 and None not in view["display"]
        assert view["discard"] == [] and view["exhaustions"] == 0 and not view["final_round"]
        for entry in view["players"]:
            assert (entry["hand_size"], entry["houses"], entry["emissaries"], entry["score"]) == (3, 20, 8, 0)


def test_e17_no_wild_pair_in_place_of_a_border_card():
    """R27, R29: Y01 plus an orange pair cannot buy B_QIN_HAN; the orange pair buys HAN3, or Y01 and
    the pair buy two houses in QIN."""
    desc = {"players": 3, "to_move": B, "houses": {"QIN1": B, "HAN2": C}, "hands": {B: ["Y01", "O01", "O02"]}}
    state = build(desc)
    refused(state, house("B_QIN_HAN", "orange+orange+yellow"), "R29")
    play(state, house("HAN3", "orange+orange"))
    state = build(desc)
    play(state, house("QIN2", "yellow"), house("QIN3", "orange+orange"))
    assert houses_of(state) == {"QIN1": B, "HAN2": C, "QIN2": B, "QIN3": B}


def test_e18_border_house_into_two_empty_provinces():
    """R13, R31, R34: a border house into empty QIN and HAN is legal (with yellow+green or two
    yellows), scores nothing, and allows no second piece in either province this turn."""
    desc = {"players": 3, "to_move": B, "hands": {B: ["Y01", "Y02", "G01"]}}
    state = build(desc)
    play(state, house("B_QIN_HAN", "green+yellow"))
    assert seen(state)["board"]["scored"] == [] and scores(state) == [0, 0, 0]
    refused(state, house("QIN1", "yellow"), "R31")
    state = build(desc)
    play(state, house("B_QIN_HAN", "yellow+yellow"))
    refused(state, emissary("HAN", "green"), "R31")
