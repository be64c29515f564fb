"""Every scenario of examples.md (shared/games/taj_mahal), built with the scenario builder.

Seats are named as in examples.md; the docstring of each test cites the rules it checks.
"""

from __future__ import annotations

import pytest

from engine.core import IllegalAction
from engine.games.taj_mahal import GAME, scoring
from engine.games.taj_mahal.scenario import build, join_maps, ring
from engine.games.taj_mahal.state import PLACE, TAKE, TURN

from .helpers import F1, F2, F3, act, card, events_of, place_any, play, points, prizes, take_any, with_next

# ------------------------------------------------------------------------------------------------
# Part 1: worked examples of the seed


def test_ex_s1_withdrawal_order_resolves_majorities():
    """EX-S1: R21, R23, R32, R33, R34, R35, R36, R37, R38, R40, R44, R48, R54, R55 (Anna, Péter,
    Krisztián, Dóra)."""
    anna, peter, kriszti, dora = range(4)
    s = build(
        {
            "players": 4,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "bonus": {"X4": "+2"},
            "seats": [
                {"table": ["red[E,E]", "red[E,V]", "red[E,P]"]},
                {"table": ["green[E,V]", "green[P,V]", "green[E,G]"]},
                {"table": ["yellow[G,P]", "yellow[K,M]", "yellow[V,G]"], "hand": ["yellow[E,E]"]},
                {"table": ["purple[P,M]", "white[K]", "purple[M,G]", "purple[G,K]"]},
            ],
        }
    )
    deck = len(s.deck)
    events = act(s, "withdraw")  # 1. Anna: only elephant (4 > 2, 0, 0); province tile 1 -> rice 1
    assert prizes(events) == {"elephant"} and points(events) == 1
    assert s.players[anna].province_tiles == [1]
    hand = len(s.players[anna].hand)
    take_any(s)
    assert len(s.players[anna].hand) == hand + 2 and len(s.discard) == 3
    events = act(s, "withdraw")  # 2. Péter: only vizier (2 > 1, 0); G 1 < 2; P 1 = 1
    assert prizes(events) == {"vizier"} and s.phase == PLACE
    events = act(s, "palace", city="X1")
    assert points(events) == 1
    take_any(s)
    assert GAME.to_move(s) == kriszti
    play(s, "yellow[E,E]")  # 3. Krisztián: E2, nothing else changes
    assert GAME.to_move(s) == dora
    events = act(s, "withdraw")  # 4. Dóra: monk (2 > 1) and grand mogul (2 > 1); G and P ties
    assert prizes(events) == {"monk", "grand_mogul"}
    act(s, "palace", city="X2")
    events = act(s, "crown", city="X4")  # R38: the crowned palace does not take the +2 tile
    assert points(events) == 1 and s.bonus_on[s.comp.city_index["X4"]] >= 0
    take_any(s)
    assert GAME.to_move(s) == kriszti  # R23: alone, he acts again
    events = act(s, "withdraw")  # 5. Krisztián: general (2 > 0) and princess (1 > 0)
    assert prizes(events) == {"general", "princess"}
    # R36: X3 and X4 (X4 holds only this visit's crowned palace) are the only free cities: X8 places them.
    placed = {e["city"] for e in events_of(events, "palace")}
    assert placed == {"X3", "X4"}
    assert points(events) == 3  # +2 tile, palaces +1
    assert len(events_of(events, "took")) == 1  # the last display card (R48), taken for him (X2)
    # End of visit (R54, R55): display refilled, crown back, court refilled from the supply.
    assert [p.score for p in s.players] == [1, 1, 3, 1]
    x4 = s.comp.city_index["X4"]
    assert (s.regular[x4], s.crowned[x4]) == (kriszti, dora)
    assert s.crown_city == -1 and all(s.court)
    assert s.supply == [4, 4, 4, 4]
    assert len(s.discard) == 14 and len(s.display) == 7 and len(s.deck) == deck - 7
    assert s.visit == 2 and s.start == peter and GAME.to_move(s) == peter


def test_ex_s2_two_teas_and_a_province_tile():
    """EX-S2: R38, R40 steps 4-6, R42, R43, R44: 3 + 4 for the teas, +1 palaces, 8 for tile 9: +16."""
    s = build(
        {
            "players": 3,
            "map": F2,
            "tiles": {"Y": 9},
            "bonus": {"Y1": "tea", "Y2": "tea"},
            "seats": [
                {
                    "table": ["red[E,V]", "red[E,M]"],
                    "province_tiles": [5],
                    "bonus_goods": ["tea", "spices"],
                }
            ],
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"elephant", "vizier", "monk"}
    act(s, "palace", city="Y1")
    events = act(s, "palace", city="Y2")
    scored = [(e["rule"], e["points"]) for e in events_of(events, "scored")]
    assert scored == [("R43", 3), ("R43", 4), ("R44", 1), ("R43", 8)]
    anna = s.players[0]
    assert anna.score == 16
    goods = dict(zip(s.comp.goods, anna.goods, strict=True))
    assert goods["tea"] == 5 and goods["spices"] == 3
    assert len(anna.bonus_goods) == 4  # both tea tiles kept face up


# EX-S3 palaces by owner (red, blue, brown, gray); Brown's A3 palace is this visit's crowned one.
EX_S3_OWNERS = ["A2 A4 B1 C1 C2 E1 D3 F1 H2", "A1 A3 D1 I1 C3 E2 G2", "H1 B2 I1 G1 E3 F2", "D1 C4 B3"]
EX_S3_PALACES: dict[str, list[int]] = {}
for _seat, _cities in enumerate(EX_S3_OWNERS):
    for _city in _cities.split():
        EX_S3_PALACES.setdefault(_city, []).append(_seat)  # D1: Blue + Gray, I1: Blue + Brown


@pytest.mark.parametrize(
    ("seat", "expected"),
    [(0, 4), (1, 3), (2, 5), (3, 0)],
    ids=["red", "blue", "brown", "gray"],
)
def test_ex_s3_connected_provinces(seat, expected):
    """EX-S3: R44, N6: provinces joined to the current one through the owner's palaces count once."""
    brown = 2
    s = build(
        {
            "players": 4,
            "map": F3,
            "tiles": {p: i + 1 for i, p in enumerate("ABCDEFGHI")},
            "visit": 1,
            "court": ["elephant"],
            "seats": [
                {"out": True, "tiles": {"vizier": 1, "general": 1}},
                {"out": True, "tiles": {"monk": 1, "princess": 1}},
                {"out": True},
            ],
            "palaces": EX_S3_PALACES,
            "crown": {"city": "A3", "seat": brown},
        }
    )
    assert scoring.palace_points(s.comp, s, seat, s.tile_province[1]) == expected


def test_ex_s3_variant_gray_in_a1():
    """EX-S3 variant: R44: with a palace in A1, Gray reaches D, C and B: 4."""
    gray = 3
    s = build(
        {
            "players": 4,
            "map": F3,
            "tiles": {p: i + 1 for i, p in enumerate("ABCDEFGHI")},
            "court": ["vizier", "general", "monk", "princess", "elephant"],
            "seats": [{}, {}, {}, {"out": True}],
            "palaces": {"D1": [1, gray], "C4": gray, "B3": gray},
            "crown": {"city": "A1", "seat": gray},
        }
    )
    assert scoring.palace_points(s.comp, s, gray, s.tile_province[1]) == 4


@pytest.mark.parametrize(
    ("hand", "specials", "expected"),
    [
        (["white[E]", "white[V]", *["red[E,V]"] * 3, *["green[E,M]"] * 2], ["SP+2"], 6),
        (["white[K]", *["yellow[E,P]"] * 3, *["purple[E,G]"] * 3], ["SP+1E", "SPANY"], 6),
        (["white[E]", "green[E,V]", "green[E,M]", "red[E,G]"], ["SP+1K"], 4),
    ],
    ids=["hand1", "hand2", "hand3"],
)
def test_ex_s4_end_of_game_card_bonus(hand, specials, expected):
    """EX-S4: R61, N7: specials 1 each, whites 1 each, the largest colour once (ties count once);
    influence tiles and goods add nothing."""
    s = build(
        {
            "players": 3,
            "seats": [{"hand": hand, "specials": specials, "tiles": {"monk": 1}, "bonus_goods": ["tea"]}],
        }
    )
    p = s.players[0]
    assert scoring.card_bonus(s.comp, p.hand, p.specials) == expected


def test_ex_s5_bonus_tile_kinds():
    """EX-S5: R38, R42, R43: +2 -> 2, +1 card -> a secret draw, jewels -> 1 + 1, palaces +1: +5."""
    s = build(
        {
            "players": 3,
            "map": ring("X", fortified=(1, 2, 3)),
            "tiles": {"X": 3},
            "bonus": {"X1": "+2", "X2": "+1", "X3": "jewels"},
            "seats": [{"table": ["red[V,G]", "red[G,M]"], "bonus_goods": ["jewels"]}],
            "deck": ["green[E,E]", "red[E,E]"],
        }
    )
    xena = s.players[0]
    hand = len(xena.hand)
    events = act(s, "withdraw")
    assert prizes(events) == {"vizier", "general", "monk"}
    act(s, "palace", city="X1")
    act(s, "palace", city="X2")
    events = act(s, "palace", city="X3")
    assert points(events) == 5 and xena.score == 5
    drawn = events_of(events, "drew")
    assert [e["visible_to"] for e in drawn] == [[0], "others"]  # R64: only Xena sees the card
    assert s.comp.card_label(s.comp.card_index[drawn[0]["card"]]) == "green[elephant,elephant]"
    assert drawn[1]["card"] is None
    assert len(xena.hand) == hand + 1
    assert all(s.bonus_on[s.comp.city_index[c]] < 0 for c in ("X1", "X2", "X3"))
    assert [s.comp.bonus_ids[b] for b in xena.bonus_goods][-1:] == ["bonus-14"]  # jewels tile kept
    take_any(s)
    assert len(xena.hand) == hand + 3


def test_ex_s6_withdrawing_at_once():
    """EX-S6: R47, R48, N3: no prize, no points; draws the top card (seen by him alone), takes 2."""
    s = build({"players": 4, "start": 1, "deck": ["white[E]", *["red[E,E]"] * 2]})
    peter = s.players[1]
    hand, deck, display = len(peter.hand), len(s.deck), len(s.display)
    events = act(s, "withdraw")
    assert not prizes(events) and not points(events)
    drawn = events_of(events, "drew")
    assert (
        drawn[0]["visible_to"] == [1]
        and s.comp.card_label(s.comp.card_index[drawn[0]["card"]]) == "white[elephant]"
    )
    take_any(s)
    assert len(peter.hand) == hand + 3 and len(s.deck) == deck - 1 and len(s.display) == display - 2
    assert peter.score == 0


# ------------------------------------------------------------------------------------------------
# Part 2: constructed edge cases


def test_e01_first_tied_player_gets_nothing():
    """E1: R32, R33, R39: A ties on elephants and wins nothing; B then wins tile 4 (rice 1 + tea 1)."""
    s = build(
        {
            "players": 3,
            "map": F1,
            "tiles": {"X": 4},
            "seats": [{"table": ["red[E,E]"]}, {"table": ["green[E,E]"]}, {"table": ["yellow[G,P]"]}],
        }
    )
    events = act(s, "withdraw")
    assert not prizes(events) and s.players[0].score == 0
    take_any(s)
    events = act(s, "withdraw")
    assert prizes(events) == {"elephant"} and points(events) == 2
    take_any(s)
    assert not s.court[s.comp.elephant]
    events = act(s, "withdraw")  # C: general and princess, the tile is gone (R33)
    assert "elephant" not in prizes(events) and s.players[2].province_tiles == []


def test_e02_prize_needs_at_least_one_symbol():
    """E2: R32, R53, R55: C wins general and crown; monk and princess stay; V, G refilled."""
    s = build(
        {
            "players": 3,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "court": ["general", "monk", "princess", "grand_mogul"],
            "palaces": {"X1": 0},
            "seats": [
                {"out": True, "tiles": {"vizier": 1}},
                {"out": True, "province_tiles": [1]},
                {"table": ["purple[G,K]"]},
            ],
            "start": 2,
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"general", "grand_mogul"}
    act(s, "palace", city="X2")
    act(s, "crown", city="X3")  # the last display card is taken automatically (X2), the visit ends
    assert s.visit == 2 and all(s.court)
    assert dict(zip(s.comp.influence, s.supply, strict=True)) == {
        "vizier": 4,
        "general": 4,
        "monk": 5,
        "princess": 5,
    }


def test_e03_everybody_withdraws_immediately():
    """E3: R47, R48, R52, R53, R55: draws 1 + takes 2, 2, 1; tile and bonus tiles leave; deck 20->12."""
    s = build(
        {
            "players": 3,
            "map": join_maps(ring("X", fortified=(1, 2)), ring("Z")),
            "tiles": {"X": 4, "Z": 5},
            "bonus": {"X1": "+2", "X2": "rice"},
            "deck": 20,
        }
    )
    hands = [len(p.hand) for p in s.players]
    for _ in range(3):
        act(s, "withdraw")
        take_any(s)
    assert [len(p.hand) - h for p, h in zip(s.players, hands, strict=True)] == [3, 3, 2]
    assert [p.score for p in s.players] == [0, 0, 0]
    assert all(b < 0 for b in s.bonus_on) and all(p.province_tiles == [] for p in s.players)
    assert s.supply == [5, 5, 5, 5] and all(s.court)
    assert len(s.display) == 5 and len(s.deck) == 12
    assert s.visit == 5 and s.start == 1


def test_e04_last_player_keeps_playing():
    """E4: R23, R25, R32, R36, R37: C plays again, then wins 4 prizes; palaces +1."""
    s = build(
        {
            "players": 3,
            "map": F1,
            "tiles": {"X": 1},
            "court": ["general", "monk", "princess", "grand_mogul"],
            "palaces": {"X1": 0},
            "seats": [
                {"out": True, "tiles": {"vizier": 1}},
                {"out": True, "province_tiles": [1]},
                {"table": ["purple[G,K]"], "hand": ["purple[P,M]", "yellow[E,P]"]},
            ],
            "start": 2,
        }
    )
    with pytest.raises(IllegalAction) as refused:
        play(s, "yellow[E,P]")
    assert refused.value.rule == "R25"
    play(s, "purple[P,M]")
    assert GAME.to_move(s) == 2
    events = act(s, "withdraw")
    assert prizes(events) == {"general", "grand_mogul", "princess", "monk"}
    assert {e["city"] for e in events_of(events, "palace")} == {"X2", "X3", "X4"}  # forced (X8)
    events = act(s, "crown", city="X1")  # beside A's palace (R37)
    assert points(events) == 1
    x1 = s.comp.city_index["X1"]
    assert (s.regular[x1], s.crowned[x1]) == (0, 2)
    assert GAME.result(s) is not None  # the only visit of this map is over


def test_e05_special_card_exchange():
    """E5: R51, R56: Dóra's two monks buy SPANY from Anna; Péter's two viziers keep SP+1K."""
    anna, peter, _kriszti, dora = range(4)
    s = build(
        {
            "players": 4,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "court": ["general", "princess", "grand_mogul", "elephant"],
            "supply": {"monk": 3, "vizier": 3},
            "palaces": {"X1": peter, "X2": dora},
            "seats": [
                {"out": True, "specials": ["SPANY"]},
                {"out": True, "tiles": {"vizier": 2}, "specials": ["SP+1K"]},
                {"tiles": {"vizier": 1, "monk": 1}},
                {"out": True, "tiles": {"monk": 2}},
            ],
            "start": 2,
        }
    )
    events = act(s, "withdraw") + take_any(s)  # Krisztián, the last: draws, takes the last card
    exchanges = [(e["seat"], e["card"], e["source"]) for e in events_of(events, "special_card")]
    assert exchanges == [(peter, "special-grand-mogul", peter), (dora, "special-any-colour", anna)]
    ids = s.comp.card_ids
    assert [ids[c] for c in s.players[dora].specials] == ["special-any-colour"]
    assert s.players[anna].specials == []
    assert [ids[c] for c in s.players[peter].specials] == ["special-grand-mogul"]
    assert s.players[dora].tiles[2] == 0 and s.players[peter].tiles[0] == 0
    assert s.supply[0] == 5 - 1 and s.supply[2] == 5 - 1  # 5 after the return, then the court refill


E6_HAND = ["red[E,V]", "green[E,G]", "red[E,M]", "green[E,M]", "yellow[E,P]"]


def _alone(hand, specials=(), table=(), colour=None):
    """Seat 2 alone in a fresh 3-player visit (the others withdrew without prizes)."""
    seat = {"hand": hand, "specials": list(specials), "table": list(table)}
    if colour:
        seat["colour"] = colour
    return build({"players": 3, "seats": [{"out": True}, {"out": True}, seat], "start": 2})


def test_e06_any_colour_card_and_the_colour_lock():
    """E6: R24, R25, R26, R57, R58, N4: SPANY leaves the colour open; the next plain play fixes it."""
    s = _alone(E6_HAND, specials=["SPANY"])
    k = s.players[2]
    play(s, "red[E,V]", "SPANY")
    assert k.colour == -1  # R26: no commitment yet
    play(s, "green[E,G]")
    assert s.comp.colours[k.colour] == "green"
    with pytest.raises(IllegalAction) as refused:
        play(s, "red[E,M]")
    assert refused.value.rule == "R25"
    play(s, "green[E,M]")
    act(s, "withdraw")
    place_any(s)
    assert [s.comp.card_ids[c] for c in k.specials] == ["special-any-colour"]  # R58
    assert len(s.discard) == 3


def test_e06_variant_any_colour_after_commitment():
    """E6 step 4: R26: with SPANY still in hand, red[E,M] + SPANY is legal and green stays."""
    s = _alone(E6_HAND[2:], specials=["SPANY"], table=["green[E,G]"])
    play(s, "red[E,M]", "SPANY")
    assert s.comp.colours[s.players[2].colour] == "green"


def test_e07_illegal_play_shapes():
    """E7: R24: white or special alone, two extras, two coloured cards are refused and change nothing."""
    s = _alone(["white[E]", "white[V]", "red[E,P]", "red[E,G]"], specials=["SP+1E"])
    c = {name: card(s, 2, name) for name in ("white[E]", "white[V]", "red[E,P]", "red[E,G]", "SP+1E")}
    before = GAME.encode(s)
    refused = [
        {"type": "play", "card": c["white[E]"], "extra": ""},
        {"type": "play", "card": c["SP+1E"], "extra": ""},
        {"type": "play", "card": c["white[E]"], "extra": c["white[V]"]},
        {"type": "play", "card": c["red[E,P]"], "extra": c["red[E,G]"]},
        {"type": "play", "card": c["white[E]"], "extra": c["SP+1E"]},
    ]
    for action in refused:
        with pytest.raises(IllegalAction) as exc:
            GAME.apply(s, action)
        assert exc.value.rule == "R24", action
    with pytest.raises(IllegalAction) as exc:  # three cards do not fit the action at all
        GAME.apply(s, {"type": "play", "card": c["red[E,P]"], "extra": c["white[E]"], "extra2": c["SP+1E"]})
    assert exc.value.rule == "schema"
    assert GAME.encode(s) == before and GAME.to_move(s) == 2
    legal = GAME.legal_actions(s)
    for extra in ("white[E]", "SP+1E", None):
        action = {"type": "play", "card": c["red[E,P]"], "extra": c[extra] if extra else ""}
        assert action in legal


def test_e08_two_points_special_card():
    """E8: R27, R41, R58: +2 at once; withdrawing with nothing keeps 12; SP+2 returns to the hand."""
    s = build(
        {
            "players": 3,
            "seats": [
                {"score": 10, "specials": ["SP+2"], "hand": ["red[E,M]"]},
                {"table": ["yellow[E,M]", "yellow[E,M]"], "hand": ["yellow[E,V]"]},
                {"table": ["green[E,M]"], "hand": ["green[E,G]"]},
            ],
        }
    )
    dora = s.players[0]
    play(s, "red[E,M]", "SP+2")
    assert dora.score == 12
    play(s, "yellow[E,V]")
    play(s, "green[E,G]")
    events = act(s, "withdraw")
    assert not prizes(events) and dora.score == 12
    assert [s.comp.card_ids[c] for c in dora.specials] == ["special-two-points"]
    assert s.comp.card_label(s.discard[-1]) == "red[elephant,monk]"
    assert s.phase == TAKE and GAME.view(s, None)["pending"]["left"] == 2


def test_e09_crowned_palace_on_a_fortified_city():
    """E9: R35, R37, R38, R44, R52, R54: the crown never takes the jewels; the tile leaves at the end."""
    s = build(
        {
            "players": 3,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "bonus": {"X4": "jewels"},
            "seats": [{"table": ["red[E,K]"]}, {"table": ["green[E,E]"]}, {"hand": []}],
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"grand_mogul"}
    events = act(s, "crown", city="X4")
    assert points(events) == 1 and s.players[0].goods == [0, 0, 0, 0]
    x4 = s.comp.city_index["X4"]
    assert s.bonus_on[x4] >= 0
    take_any(s)
    act(s, "withdraw")  # seat 1: province tile, no palace
    take_any(s)
    act(s, "withdraw")  # seat 2: first turn, draws and takes the last card: the visit ends
    take_any(s)
    assert s.visit == 2 and s.bonus_on[x4] == -1 and s.court[s.comp.grand_mogul]
    assert s.crowned[x4] == 0 and s.crown_city == -1


def _e10(deck, discard):
    return build(
        {
            "players": 3,
            "map": ring("X", fortified=(1,)),
            "tiles": {"X": 2},
            "bonus": {"X1": "+1"},
            "start": 1,
            "to_move": 0,
            "deck": deck,
            "discard": discard,
            "seats": [{}, {"table": ["green[E,V]"]}, {"table": ["red[G,M]"]}],
        }
    )


def test_e10_deck_runs_out():
    """E10: R40, R42, R47, R49, X1: the "+1 card" reshuffles the discard pile without B's cards."""
    s = _e10(["white[E]"], 6)
    act(s, "withdraw")  # A: first turn, draws d1
    assert len(s.deck) == 0
    take_any(s)
    events = act(s, "withdraw")  # B: vizier and elephant
    assert prizes(events) == {"vizier", "elephant"}
    events = act(s, "palace", city="X1")
    assert events_of(events, "reshuffled")[0]["cards"] == 6
    assert len(s.deck) == 5 and s.reshuffles == 1
    assert [s.comp.card_label(c) for c in s.discard] == ["green[elephant,vizier]"]


def test_e10_variant_nothing_to_draw():
    """E10 variant: X1: deck and discard empty when the "+1 card" scores: nothing drawn, no error."""
    s = _e10([], [])
    s_hand = len(s.players[1].hand)
    act(s, "withdraw")  # A draws nothing (X1)
    take_any(s)
    act(s, "withdraw")
    events = act(s, "palace", city="X1")
    assert not events_of(events, "drew") and len(s.players[1].hand) == s_hand
    assert len(s.discard) == 1


def test_e11_final_tie():
    """E11: R61, R62, X5: 71 + 5 = 76 and 74 + 2 = 76 share first place; 70 + 4 = 74 is third."""
    s = build(
        {
            "players": 3,
            "map": F1,
            "tiles": {"X": 12},
            "display": [],
            "deck": [],
            "seats": [
                {"score": 71, "hand": ["red[E,V]"] * 5},
                {"score": 74, "hand": ["green[E,V]"] * 2},
                {"score": 70, "hand": ["yellow[E,V]"] * 4},
            ],
        }
    )
    for _ in range(3):
        act(s, "withdraw")
    result = GAME.result(s)
    assert result["scores"] == [76, 76, 74] and result["card_bonus"] == [5, 2, 4]
    assert result["ranks"] == [1, 1, 3] and result["winners"] == [0, 1]
    assert result["ranking"] == [0, 1, 2] and result["tiebreak"] is None


AGRA = {
    "provinces": {"AG": ["AG1", "AG2", "AG3", "AG4", "AGRA"]},
    "roads": [*ring("AG")["roads"], ["AGRA", "AG1"], ["AGRA", "AG3"]],
    "fortified": ["AGRA"],
}


def test_e12_display_is_dealt_before_the_last_visit():
    """E12 / R55 step 5: visit 12 starts with a display of 2 x players - 1 cards."""
    s = build({"players": 3, "map": join_maps(F1, AGRA), "tiles": {"X": 11, "AG": 12}})
    for _ in range(3):
        act(s, "withdraw")
        take_any(s)
    assert s.visit == 12 and len(s.display) == 5


def test_e12_taj_mahal_and_late_special_card_swap():
    """E12: R38, R42, R51, R60, R61: Taj Mahal +4; after visit 12 Yusuf's two princesses buy SP+2
    from Zoe, and the final card bonus counts it for Yusuf."""
    xena, yusuf, zoe = range(3)
    s = build(
        {
            "players": 3,
            "map": AGRA,
            "tiles": {"AG": 12},
            "bonus": {"AGRA": "taj"},
            "court": ["vizier", "general", "monk", "grand_mogul", "elephant"],
            "palaces": {"AG1": yusuf},
            "display": [],
            "deck": [],
            "seats": [
                {"table": ["red[G,M]"], "hand": []},
                {"out": True, "tiles": {"princess": 2}, "hand": []},
                {"table": ["green[E,G]"], "specials": ["SP+2"], "hand": []},
            ],
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"monk"}
    events = act(s, "palace", city="AGRA")
    assert [(e["rule"], e["points"]) for e in events_of(events, "scored")] == [("R42", 4), ("R44", 1)]
    assert s.players[xena].score == 5
    events = act(s, "withdraw")  # Zoe: general and elephant
    assert prizes(events) == {"general", "elephant"}
    events = act(s, "palace", city="AG2")
    swap = events_of(events, "special_card")
    assert [(e["seat"], e["card"], e["source"]) for e in swap] == [(yusuf, "special-two-points", zoe)]
    result = GAME.result(s)
    assert result["card_bonus"] == [0, 1, 0]


def test_e12_crowned_palace_does_not_take_the_taj_mahal():
    """E12: R38: a crowned palace on the Agra city leaves the Taj Mahal tile lying."""
    s = build(
        {
            "players": 3,
            "map": AGRA,
            "tiles": {"AG": 12},
            "bonus": {"AGRA": "taj"},
            "seats": [{"table": ["red[E,K]"]}, {"table": ["green[E,E]"]}],
        }
    )
    act(s, "withdraw")
    events = act(s, "crown", city="AGRA")
    assert points(events) == 1 and s.bonus_on[s.comp.city_index["AGRA"]] >= 0


def test_e13_empty_hand():
    """E13: R22, R47: with no cards the only action is to withdraw; he draws 1, then takes 2."""
    s = build({"players": 3, "seats": [{"hand": []}]})
    assert GAME.legal_actions(s) == [{"type": "withdraw"}]
    act(s, "withdraw")
    take_any(s)
    assert len(s.players[0].hand) == 3


def test_e14_several_identical_goods_in_one_withdrawal():
    """E14: R43: rice bonus 2 + 3, tile 7: rice 4 + spices 1: goods 10 (+1 palaces)."""
    s = build(
        {
            "players": 3,
            "map": ring("X", fortified=(1, 2)),
            "tiles": {"X": 7},
            "bonus": {"X1": "rice", "X2": "rice"},
            "seats": [{"table": ["red[E,V]", "red[E,G]"], "province_tiles": [1]}],
        }
    )
    act(s, "withdraw")
    act(s, "palace", city="X1")
    events = act(s, "palace", city="X2")
    goods = [e["points"] for e in events_of(events, "scored") if e["rule"] == "R43"]
    assert goods == [2, 3, 5] and points(events) == 11
    assert dict(zip(s.comp.goods, s.players[0].goods, strict=True)) == {
        "rice": 4,
        "tea": 0,
        "spices": 1,
        "jewels": 0,
    }


def test_e15_a_taken_prize_cannot_be_won_again():
    """E15: R33: B's four generals win nothing once A took the general tile."""
    s = build(
        {
            "players": 4,
            "court": ["vizier", "monk", "princess", "grand_mogul", "elephant"],
            "seats": [
                {"out": True, "tiles": {"general": 1}},
                {"table": ["red[V,G]", "red[G,M]", "red[E,G]", "white[G]"]},
            ],
            "palaces": {},
            "start": 1,
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"vizier", "monk", "elephant"}
    assert s.players[1].tiles[s.comp.influence.index("general")] == 0


def test_e16_tie_between_players_still_in():
    """E16: R32: A's tied crown stays in the court; B wins it only by withdrawing with K1 > C's 0."""
    s = build(
        {
            "players": 3,
            "seats": [{"table": ["red[P,K]"]}, {"table": ["green[K,M]"]}, {"table": ["yellow[E,E]"]}],
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"princess"} and s.court[s.comp.grand_mogul]
    place_any(s)
    take_any(s)
    assert s.phase == TURN and GAME.to_move(s) == 1 and s.crown_city == -1
    events = act(s, "withdraw")
    assert "grand_mogul" in prizes(events)
