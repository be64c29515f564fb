"""Rules not covered by examples.md: setup by player count, refusals, X-decisions, hidden information."""

from __future__ import annotations

import json
import random

import pytest

from engine.core import IllegalAction, InvalidOptions
from engine.games.taj_mahal import GAME, scoring
from engine.games.taj_mahal.components import STANDARD
from engine.games.taj_mahal.scenario import build, join_maps, ring
from engine.games.taj_mahal.state import PLACE, TAKE, TURN

from .helpers import F1, act, card, events_of, place_any, play, prizes, take_any, with_next


@pytest.mark.parametrize("players", [3, 4, 5])
def test_setup_by_player_count(players):
    """R10-R18: tiles (12 on Agra), bonus tiles (Taj Mahal on Agra), court, hands of 6, 2n-1 display."""
    s = GAME.setup(players, None, seed=7)
    comp = s.comp
    assert sorted(s.tile_province[1:]) == list(range(12))
    assert comp.province_ids[s.tile_province[12]] == "agra"
    bonus = {comp.city_ids[c]: comp.bonus_ids[b] for c, b in enumerate(s.bonus_on) if b >= 0}
    assert bonus["agra-city"] == "taj-mahal" and len(bonus) == 16
    assert all(comp.city_fortified[comp.city_index[c]] for c in bonus)
    assert all(s.court) and s.supply == [5, 5, 5, 5]
    assert sorted(s.unowned_specials) == sorted(comp.special_cards)
    assert [len(p.hand) for p in s.players] == [6] * players
    assert len(s.display) == 2 * players - 1
    assert len(s.deck) == 96 - 6 * players - (2 * players - 1)
    assert s.visit == 1 and 0 <= s.start < players and GAME.to_move(s) == s.start
    assert GAME.encode(GAME.setup(players, None, seed=7)) == GAME.encode(s)
    assert GAME.encode(GAME.setup(players, None, seed=8)) != GAME.encode(s)


@pytest.mark.parametrize(("players", "options"), [(2, None), (6, None), ("4", None), (4, {"variant": 1})])
def test_setup_refuses_bad_player_counts_and_options(players, options):
    """C4: 3-5 players only; the game has no options."""
    with pytest.raises(InvalidOptions):
        GAME.setup(players, options)


def test_components_match_the_rules():
    """R1, R3-R7: the data loaded from components.json has the sourced totals."""
    comp = STANDARD
    assert len(comp.city_ids) == 49 and sum(comp.city_fortified) == 16
    assert len(comp.normal_cards) == 96 and len(comp.special_cards) == 4
    assert len(comp.tile_goods) == 13 and len(comp.tile_goods[1]) == 1
    assert all(len(set(g)) == len(g) == 2 for g in comp.tile_goods[2:])  # X7: no repeated good
    assert comp.display_size == {3: 5, 4: 7, 5: 9}


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
        ({"type": "play", "card": "red-01", "extra": "red-02"}, "R24", "card"),
        ({"type": "play", "card": "withdraw", "extra": ""}, "R24", "card"),
        ({"type": "play"}, "schema", "card"),
        ({"type": "withdraw", "now": 1}, "schema", "now"),
        ({"type": "fly"}, "schema", "type"),
    ],
)
def test_refusals_name_the_rule_and_change_nothing(action, rule, field):
    """D1 / R22, R24 and the action schema: refused actions name rule and field, state unchanged."""
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


def test_repeated_good_on_a_tile_counts_the_earlier_copy():
    """X7, R43: a fixture tile showing rice twice scores 1 + 0 and then 1 + 1."""
    goods = [0, 0, 0, 0]
    assert scoring.gain_good(goods, 0) + scoring.gain_good(goods, 0) == 3 and goods[0] == 2


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


def test_views_hide_hands_and_deck_but_show_display_picks():
    """R64-R66: secret hand cards only to their owner, display picks and specials to everybody,
    the drawn card's event only to the drawer, all hands at the end."""
    s = build({"players": 3, "seats": [{"specials": ["SP+2"]}]})
    events = act(s, "withdraw")  # seat 0 draws (R47) then takes 2 display cards
    take_any(s)
    drew = events_of(events, "drew")
    assert drew[0]["visible_to"] == [0] and drew[1] == {**drew[1], "visible_to": "others", "card": None}
    secret = {s.comp.card_ids[c] for c in s.players[0].hand if c not in s.players[0].known}
    for seat in (None, 1, 2):
        view = GAME.view(s, seat)
        text = json.dumps(view)
        assert "hand" not in view["players"][0] and not any(f'"{c}"' in text for c in secret)
        assert len(view["players"][0]["hand_public"]) == 2 and view["players"][0]["hand_size"] == 10
        assert [c["id"] for c in view["players"][0]["specials"]] == ["special-two-points"]
        assert "deck" not in view and view["deck_size"] == len(s.deck)
    assert {c["id"] for c in GAME.view(s, 0)["players"][0]["hand"]} >= secret
    rng = random.Random(3)
    while GAME.to_move(s) is not None:
        GAME.apply(s, rng.choice(GAME.legal_actions(s)))
    final = GAME.view(s, None)
    assert all("hand" in p for p in final["players"]) and final["result"] == GAME.result(s)


def test_determinize_keeps_public_cards_and_reshuffle_generations():
    """R64, R65: determinize resamples only secret cards, keeps display picks in their hands, and
    never moves a card between draws from different reshuffles."""
    rng = random.Random(5)
    s = GAME.setup(4, None, seed=5)
    while s.reshuffles == 0 or s.phase != TURN:
        GAME.apply(s, rng.choice(GAME.legal_actions(s)))

    def pools(state, seat):
        out = {state.reshuffles: sorted(state.deck)}
        for i, p in enumerate(state.players):
            if i != seat:
                for c in p.hand:
                    if c not in p.known:
                        out.setdefault(state.gen[c], []).append(c)
        return {g: sorted(cards) for g, cards in out.items()}

    for seat in range(4):
        sample = GAME.determinize(s, seat, random.Random(seat))
        assert pools(sample, seat) == pools(s, seat)
        assert sample.players[seat].hand == s.players[seat].hand
        for p, q in zip(sample.players, s.players, strict=True):
            assert set(q.known) <= set(p.hand) and len(p.hand) == len(q.hand)
