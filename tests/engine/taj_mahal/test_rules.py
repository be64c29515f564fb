"""Rules not covered by examples.md: setup by player count, refusals, turn and visit order, card and
scoring details, and the engine decisions (X-rules)."""

from __future__ import annotations

import random

import pytest

from engine.core import IllegalAction, InvalidOptions
from engine.games.taj_mahal import GAME
from engine.games.taj_mahal.components import COLORED
from engine.games.taj_mahal.scenario import build, card_named, join_maps, ring
from engine.games.taj_mahal.state import PLACE, TAKE
from tests.engine.support import assert_refused

from .helpers import F1, act, card, events_of, place_any, play, prizes, take_any, with_next


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_by_player_count(players):
    """R10, R11, R12, R13, R14, R15, R16, R17, R18: tiles (12 on Agra), bonus tiles (Taj Mahal on
    Agra), court and supply, special cards beside the board, hands of 6, a 2n-1 display, empty
    discard pile, scores 0, tile 1 in the court, a start player."""
    s = GAME.setup(players, None, seed=7)
    comp = s.comp
    assert sorted(s.tile_province[1:]) == list(range(12))
    assert comp.province_ids[s.tile_province[12]] == "agra"
    bonus = {comp.city_ids[c]: comp.bonus_ids[b] for c, b in enumerate(s.bonus_on) if b >= 0}
    assert bonus["agra-city"] == "taj-mahal" and len(bonus) == 16
    assert all(comp.city_fortified[comp.city_index[c]] for c in bonus)
    assert all(s.court) and s.supply == [5, 5, 5, 5]
    assert sorted(s.unowned_specials) == sorted(comp.special_cards)
    view = GAME.view(s, None)
    assert len(view["specials_beside_board"]) == 4 and all(p["specials"] == [] for p in view["players"])
    assert [len(p.hand) for p in s.players] == [6] * players
    assert [p.score for p in s.players] == [0] * players
    assert len(s.display) == 2 * players - 1 and s.discard == []
    assert view["court_province_tile"] == 1
    assert len(s.deck) == 96 - 6 * players - (2 * players - 1)
    assert s.visit == 1 and 0 <= s.start < players and GAME.to_move(s) == s.start
    assert GAME.encode(GAME.setup(players, None, seed=7)) == GAME.encode(s)
    assert GAME.encode(GAME.setup(players, None, seed=8)) != GAME.encode(s)


@pytest.mark.parametrize(("players", "options"), [(2, None), (6, None), ("4", None), (4, {"variant": 1})])
def test_setup_refuses_bad_player_counts_and_options(players, options):
    """C4: 3-5 players only; the game has no options."""
    with pytest.raises(InvalidOptions):
        GAME.setup(players, options)


def _turn_state():
    return build(
        {
            "players": 3,
            "map": F1,
            "tiles": {"X": 1},
            "seats": [{"hand": ["red[E,V]", "green[E,G]", "white[M]"], "table": ["red[E,E]"]}],
        }
    )


@pytest.mark.parametrize(
    ("action", "rule", "field"),
    [
        ({"type": "palace", "city": "X1"}, "R22", "type"),
        ({"type": "take", "card": "red-01"}, "R22", "type"),
        ({"type": "play", "card": "no-such-card", "extra": ""}, "R24", "card"),
        ({"type": "play", "card": "red-01", "extra": "red-02"}, "R29", "card"),  # red-01 is on his table
        ({"type": "play", "card": "withdraw", "extra": ""}, "R24", "card"),
        ({"type": "play"}, "schema", "card"),
        ({"type": "withdraw", "now": 1}, "schema", "now"),
        ({"type": "fly"}, "schema", "type"),
    ],
)
def test_refusals_name_the_rule_and_change_nothing(action, rule, field):
    """D1 / R22, R24, R29 and the action schema: refused actions name rule and field, state unchanged."""
    s = _turn_state()
    before = GAME.encode(s)
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(s, action)
    assert (exc.value.rule, exc.value.field) == (rule, field)
    assert GAME.encode(s) == before


def test_colour_lock_and_shape_refusals_in_hand():
    """R24, R25: a second coloured card as extra, or a card of another colour, are refused."""
    s = _turn_state()
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(s, {"type": "play", "card": card(s, 0, "red[E,V]"), "extra": card(s, 0, "green[E,G]")})
    assert (exc.value.rule, exc.value.field) == ("R24", "extra")
    with pytest.raises(IllegalAction) as exc:
        play(s, "green[E,G]")
    assert exc.value.rule == "R25"
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(s, {"type": "play", "card": card(s, 0, "red[E,V]"), "extra": "red-99"})
    assert (exc.value.rule, exc.value.field) == ("R24", "extra")


def test_wrong_seat_and_finished_game():
    """Contract: an action for a seat not to move is refused (turn); a finished game refuses all."""
    s = _turn_state()
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(s, {"type": "withdraw"}, seat=1)
    assert exc.value.rule == "turn"
    rng = random.Random(0)
    while GAME.to_move(s) is not None:
        GAME.apply(s, rng.choice(GAME.legal_actions(s)))
    with pytest.raises(IllegalAction) as exc:
        GAME.apply(s, {"type": "withdraw"})
    assert exc.value.rule == "game-over" and GAME.legal_actions(s) == []


def test_withdrawal_refusals():
    """R36, R37, X3, R48: palaces on free cities of the province, the crown last, display cards only."""
    s = build(
        {
            "players": 3,
            "map": join_maps(F1, ring("Y")),
            "tiles": {"X": 1, "Y": 2},
            "court": ["general", "monk", "princess", "grand_mogul", "elephant"],
            "palaces": {"X1": 1},
            "seats": [{"table": ["red[V,G]", "red[K,V]"]}, {"out": True, "tiles": {"vizier": 1}}],
        }
    )
    act(s, "withdraw")  # general and crown
    assert s.phase == PLACE
    for action, rule in [
        ({"type": "palace", "city": "X1"}, "R36"),
        ({"type": "palace", "city": "Y1"}, "R36"),
        ({"type": "crown", "city": "X1"}, "X3"),
        ({"type": "withdraw"}, "R40"),
        ({"type": "take", "card": "red-01"}, "R40"),
    ]:
        with pytest.raises(IllegalAction) as exc:
            GAME.apply(s, action)
        assert exc.value.rule == rule, action
    act(s, "palace", city="X2")
    with pytest.raises(IllegalAction) as exc:
        act(s, "palace", city="X3")
    assert exc.value.rule == "R34"
    with pytest.raises(IllegalAction) as exc:
        act(s, "crown", city="Y1")
    assert exc.value.rule == "R37"
    act(s, "crown", city="X1")  # R37: beside seat 1's palace
    assert s.phase == TAKE
    with pytest.raises(IllegalAction) as exc:
        act(s, "take", card="no-such-card")
    assert exc.value.rule == "R48"


def test_turns_skip_withdrawn_players():
    """R21, R21a: turns pass clockwise, skipping players who withdrew; R55: the start moves left."""
    s = build({"players": 4, "map": with_next(F1), "tiles": {"X": 1, "Z": 2}, "start": 2})
    act(s, "withdraw")
    take_any(s)
    assert GAME.to_move(s) == 3
    play(s, GAME.legal_actions(s)[1]["card"])
    assert GAME.to_move(s) == 0
    act(s, "withdraw")
    take_any(s)
    assert GAME.to_move(s) == 1
    play(s, GAME.legal_actions(s)[1]["card"])
    assert GAME.to_move(s) == 3


def test_no_free_city_skips_the_palace():
    """X4, X8: in a one-city province the first palace is placed for him, the second skipped, and
    the crowned palace joins it without a decision."""
    s = build(
        {
            "players": 3,
            "map": {"provinces": {"P": ["P1"]}},
            "tiles": {"P": 1},
            "seats": [{"table": ["red[V,G]", "red[K,V]"]}],
        }
    )
    events = act(s, "withdraw")
    assert prizes(events) == {"vizier", "general", "grand_mogul"}
    assert [(e["city"], e["crowned"]) for e in events_of(events, "palace")] == [("P1", False), ("P1", True)]
    assert s.players[0].tiles[:2] == [1, 1] and s.players[0].score == 1
    assert s.phase == TAKE


def test_short_display_when_deck_and_discard_run_dry():
    """X1, R49: the next display holds what is left; nobody draws from nothing."""
    s = build(
        {
            "players": 3,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "seats": [{"out": True}, {"out": True}, {"table": ["red[E,E]"]}],
            "start": 2,
            "deck": 2,
        }
    )
    act(s, "withdraw")
    place_any(s)
    take_any(s)
    assert s.visit == 2 and len(s.display) == 3 and s.deck == []  # 2 cards + the 1 discarded, reshuffled
    assert len(s.discard) == 0 and s.reshuffles == 1


def test_cards_on_the_table_cannot_be_played_again():
    """R29 (regression: was refused as R24 "not in your hand"): a card lying on the player's table
    cannot be played again, neither as the coloured card nor as the extra; the any-colour card on the
    table cannot lift the colour lock a second time (R58: it returns only when he withdraws). R24:
    one card cannot be both halves of a play."""
    s = build(
        {
            "players": 3,
            "seats": [
                {
                    "table": ["red[E,V]", "SPANY"],
                    "colour": "red",
                    "hand": ["red[E,M]", "green[E,G]", "white[P]"],
                }
            ],
        }
    )
    p = s.players[0]
    on_table = card_named(s.comp, p.table, "red[E,V]")
    spany = card_named(s.comp, p.table, "SPANY")
    red, green = card(s, 0, "red[E,M]"), card(s, 0, "green[E,G]")
    for action, rule, field in [
        ({"type": "play", "card": on_table, "extra": ""}, "R29", "card"),
        ({"type": "play", "card": red, "extra": on_table}, "R29", "extra"),
        ({"type": "play", "card": green, "extra": spany}, "R29", "extra"),
        ({"type": "play", "card": red, "extra": red}, "R24", "extra"),
    ]:
        refused = assert_refused(GAME, s, action, rule)
        assert refused.field == field, action
    assert {"type": "play", "card": red, "extra": ""} in GAME.legal_actions(s)


def test_each_visit_starts_afresh():
    """R20: at the start of the next visit everybody is in it, with no cards on the table, no symbol
    counts and no colour commitment."""
    s = build(
        {
            "players": 3,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "seats": [
                {"table": ["red[E,V]"]},
                {"table": ["green[E,M]", "SPANY"], "colour": "green"},
                {"table": ["yellow[E,G]"]},
            ],
        }
    )
    while s.visit == 1:
        GAME.apply(s, GAME.legal_actions(s)[0])
    for p in s.players:
        assert p.in_visit and p.table == [] and p.colour == -1 and not any(p.counts)
    view = GAME.view(s, None)
    assert all(e["commitment"] is None and e["in_visit"] and e["table"] == [] for e in view["players"])


@pytest.mark.parametrize(
    ("special", "mine", "rival", "symbol"),
    [("SP+1E", "red[E,M]", "green[E,V]", "elephant"), ("SP+1K", "red[K,V]", "green[K,M]", "grand_mogul")],
)
def test_symbol_special_cards_count_like_white_cards(special, mine, rival, symbol):
    """R28, R57: the +1 elephant / +1 grand mogul card adds one symbol, like a white card, so 2 beats
    the rival's 1 (R32)."""
    s = build(
        {
            "players": 3,
            "seats": [
                {"hand": [mine], "specials": [special]},
                {"table": [rival], "hand": ["green[G,P]"]},
                {},
            ],
        }
    )
    play(s, mine, special)
    assert s.players[0].counts[s.comp.symbols.index(symbol)] == 2
    play(s, "green[G,P]")
    act(s, "withdraw")  # seat 2
    take_any(s)
    events = act(s, "withdraw")
    assert symbol in prizes(events)


def test_counts_add_every_symbol_on_the_table():
    """R30, R32: an elephant+elephant card counts 2, so red[E,E] + red[E,V] + white[E] is 4 elephants,
    beating green[E,E] + green[E,M] (3)."""
    s = build(
        {
            "players": 3,
            "seats": [
                {"table": ["red[E,E]", "red[E,V]", "white[E]"]},
                {"table": ["green[E,E]", "green[E,M]"]},
            ],
        }
    )
    counts = GAME.view(s, 1)["players"][0]["counts"]
    assert counts["elephant"] == 4 and counts["vizier"] == 1 and counts["monk"] == 0
    events = act(s, "withdraw")
    assert prizes(events) == {"elephant", "vizier"}


def test_prizes_are_compulsory():
    """R33a, R34: the tile is taken at once and the only decision left is where the palace goes:
    no action declines it, and nothing else is accepted before it is placed."""
    s = build({"players": 3, "map": F1, "tiles": {"X": 1}, "seats": [{"table": ["red[V,G]"]}]})
    act(s, "withdraw")
    court = GAME.view(s, None)["court"]
    assert s.players[0].tiles[:2] == [1, 1] and not court["vizier"] and not court["general"]
    assert {a["type"] for a in GAME.legal_actions(s)} == {"palace"}
    assert len(GAME.legal_actions(s)) == 4
    assert_refused(GAME, s, {"type": "take", "card": s.comp.card_ids[s.display[0]]}, "R40")
    place_any(s)
    assert sum(r == 0 for r in s.regular) == 2


def test_points_count_at_once_and_without_bound():
    """R45: points reach the score before the display cards are taken, and scores have no ceiling."""
    s = build(
        {
            "players": 3,
            "map": F1,
            "tiles": {"X": 1},
            "bonus": {"X4": "+2"},
            "seats": [{"score": 500, "table": ["red[V,G]"]}],
        }
    )
    act(s, "withdraw")
    act(s, "palace", city="X4")
    act(s, "palace", city="X1")
    assert s.phase == TAKE and GAME.view(s, 1)["players"][0]["score"] == 503


def test_played_cards_go_face_up_onto_the_discard_pile():
    """R46, R40 step 7: the normal cards of the withdrawing player go onto the discard pile, which
    every seat sees; his special card goes back to his hand (R58)."""
    s = build({"players": 3, "seats": [{"table": ["red[E,V]", "white[M]", "red[E,G]", "SP+2"]}]})
    act(s, "withdraw")
    place_any(s)
    discard = [(c["colour"], sorted(c["symbols"])) for c in GAME.view(s, 2)["discard"]]
    assert discard == [("red", ["elephant", "vizier"]), (None, ["monk"]), ("red", ["elephant", "general"])]
    assert [s.comp.card_ids[c] for c in s.players[0].specials] == ["special-two-points"]


def test_crown_returns_to_the_court_after_the_last_visit():
    """R54 (regression: after visit 12 the crown stayed out of the court): the crown goes back after
    every visit, the last one too; the crowned palace stays as its owner's ordinary palace."""
    s = build({"players": 3, "map": F1, "tiles": {"X": 12}, "seats": [{"table": ["red[K,E]"]}]})
    act(s, "withdraw")
    act(s, "crown", city="X2")
    while GAME.to_move(s) is not None:
        GAME.apply(s, GAME.legal_actions(s)[0])
    view = GAME.view(s, None)
    assert view["court"]["grand_mogul"] and view["crowned_palace"] is None
    assert view["palaces"]["X2"] == {"regular": None, "crowned": 0}


def test_bounds_hold_in_random_games():
    """R63: the end-of-game card bonus stays within 4 + 12 + 21 = 37 and a player's palace points
    (R44) within 1 + 2 + ... + 12 = 78, at most 12 in one withdrawal."""
    for seed in range(12):
        s = GAME.setup(3 + seed % 3, None, seed=seed)
        rng = random.Random(seed)
        palace = [0] * s.n
        while GAME.to_move(s) is not None:
            for e in events_of(GAME.apply(s, rng.choice(GAME.legal_actions(s))), "scored"):
                if e["rule"] == "R44":
                    assert 1 <= e["points"] <= 12
                    palace[e["seat"]] += e["points"]
        assert max(palace) <= 78 and max(GAME.result(s)["card_bonus"]) <= 37


def test_palaces_are_unlimited():
    """R8: a player who already has 25 palaces on the board still places the next one."""
    s = build({"players": 3, "seats": [{"table": ["red[V,G]"]}]})
    comp = s.comp
    current = s.tile_province[s.visit]
    elsewhere = [comp.city_ids[c] for c in range(len(comp.city_ids)) if comp.city_province[c] != current]
    s = build({"players": 3, "seats": [{"table": ["red[V,G]"]}], "palaces": dict.fromkeys(elsewhere[:25], 0)})
    act(s, "withdraw")
    place_any(s)
    assert sum(r == 0 for r in s.regular) == 27


def test_no_hand_limit():
    """X6: a hand of 40 cards is legal: every coloured card may be played, and withdrawing still
    draws one and takes two display cards."""
    s = build({"players": 3, "seats": [{"hand": 40}]})
    hand = s.players[0].hand
    coloured = sum(s.comp.card_kind[c] == COLORED for c in hand)
    whites = len(hand) - coloured
    assert len(GAME.legal_actions(s)) == 1 + coloured * (1 + whites)
    act(s, "withdraw")
    take_any(s)
    assert len(s.players[0].hand) == 43


def test_repeated_good_on_a_fixture_tile():
    """X7, R43: a fixture province tile showing rice twice scores its goods one after another:
    1 + 1 (the bonus rice owned) and then 1 + 2."""
    s = build(
        {
            "players": 3,
            "map": F1,
            "tiles": {"X": 1},
            "tile_goods": {1: ["rice", "rice"]},
            "seats": [{"table": ["red[E,E]"], "bonus_goods": ["rice"]}],
        }
    )
    events = act(s, "withdraw")
    assert [e["points"] for e in events_of(events, "scored")] == [2 + 3]
    assert s.players[0].goods[s.comp.goods.index("rice")] == 3


def test_visits_follow_the_tile_numbers():
    """R19, R55 step 2: the 12 visits go to the provinces in the order of their tile numbers, Agra
    (tile 12) last, and the game ends after the 12th."""
    s = GAME.setup(4, None, seed=3)
    comp = s.comp
    visited = [(s.visit, comp.province_ids[s.tile_province[s.visit]])]
    rng = random.Random(3)
    while GAME.to_move(s) is not None:
        for e in events_of(GAME.apply(s, rng.choice(GAME.legal_actions(s))), "visit_started"):
            visited.append((e["visit"], e["province"]))
    assert [v for v, _ in visited] == list(range(1, 13))
    assert [p for _, p in visited] == [comp.province_ids[s.tile_province[t]] for t in range(1, 13)]
    assert visited[-1][1] == "agra"


def test_visit_ends_only_after_the_last_withdrawal_is_complete():
    """R50: the last player's withdrawal (palace decision included) runs to its end, taking the last
    display card, before the next visit begins."""
    s = build(
        {
            "players": 3,
            "map": with_next(F1),
            "tiles": {"X": 1, "Z": 2},
            "seats": [{"out": True}, {"out": True}, {"table": ["red[V,G]"]}],
            "start": 2,
        }
    )
    act(s, "withdraw")
    assert s.phase == PLACE and s.visit == 1 and len(s.display) == 1
    act(s, "palace", city="X1")
    assert s.phase == PLACE and s.visit == 1
    events = act(s, "palace", city="X2")
    assert [e["type"] for e in events if e["type"] in ("took", "visit_started")] == ["took", "visit_started"]
    assert s.visit == 2


@pytest.mark.parametrize(("display", "decisions"), [(2, 0), (1, 0), (3, 2)])
def test_display_choice_is_skipped_when_forced(display, decisions):
    """X2, R48: with no more display cards than he may take, a withdrawing player takes them all
    without a decision; otherwise he chooses each card."""
    s = build({"players": 3, "display": display, "seats": [{"hand": 2}]})
    events = act(s, "withdraw")
    assert len(events_of(events, "took")) == (display if not decisions else 0)
    made = 0
    while s.phase == TAKE:
        act(s, "take", card=GAME.legal_actions(s)[0]["card"])
        made += 1
    assert made == decisions and len(s.players[0].hand) == 2 + 1 + min(display, 2)
