"""What each seat sees (R64-R66), the pending decision a client renders (§14), event audiences, and
determinize, which may resample only what the seat cannot see."""

from __future__ import annotations

import json
import random
import re

from engine.core import event_visible
from engine.games.taj_mahal import GAME
from engine.games.taj_mahal.components import STANDARD
from engine.games.taj_mahal.scenario import build
from engine.games.taj_mahal.state import TURN

from .helpers import F1, act, events_of, play, take_any

CARD_IDS = set(STANDARD.card_ids)


def test_views_hide_hands_and_deck_but_show_display_picks():
    """R64, R65, R66 (R31): secret hand cards only to their owner, display picks and specials to
    everybody, the drawn card's event only to the drawer, all hands at the end."""
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


def test_tables_and_special_cards_are_public():
    """R29, R59, R65: cards on the table show their symbols to every seat and to spectators, with the
    counts and the commitment; special cards in hand are public, the rest of the hand is not (R31:
    the API shows a hand to nobody but its owner)."""
    s = build(
        {
            "players": 3,
            "seats": [{"hand": ["red[E,V]", "white[M]", "green[E,E]"], "specials": ["SP+1K", "SPANY"]}],
        }
    )
    play(s, "red[E,V]", "SP+1K")
    for seat in (None, 0, 1, 2):
        entry = GAME.view(s, seat)["players"][0]
        assert [(c["colour"], sorted(c["symbols"])) for c in entry["table"]] == [
            ("red", ["elephant", "vizier"]),
            (None, ["grand_mogul"]),
        ]
        assert entry["counts"]["grand_mogul"] == 1 and entry["commitment"] == "red"
        assert [c["id"] for c in entry["specials"]] == ["special-any-colour"]
        assert entry["hand_size"] == 3
        assert ("hand" in entry) == (seat == 0)


def test_pending_names_the_decision_and_its_options():
    """§14 D1-D3: the view's ``pending`` tells the seat to move what to decide; for D2 it lists the
    allowed cities: free ones for a regular palace (R36: this visit's crowned palace alone does not
    occupy a city), any city of the province for the crowned palace (R37)."""
    spec = {
        "players": 3,
        "map": F1,
        "tiles": {"X": 1},
        "court": ["vizier", "general", "monk", "elephant"],
        "palaces": {"X1": 1},
        "crown": {"city": "X2", "seat": 1},
        "seats": [{"table": ["red[V,G]"]}, {"out": True, "tiles": {"princess": 1}}],
    }
    s = build(spec)
    assert GAME.view(s, None)["pending"] == {"seat": 0, "decision": "play_or_withdraw", "rule": "R22"}
    act(s, "withdraw")  # vizier and general: two palaces for the free cities X2, X3, X4
    expected = {"seat": 0, "decision": "palace", "rule": "R36", "left": 2, "crown": False}
    withdrawal = {"placed": False, "bonus_taken": []}  # nothing placed or taken yet (R42, R44)
    assert GAME.view(s, 2)["pending"] == {**expected, "cities": ["X2", "X3", "X4"], **withdrawal}
    act(s, "palace", city="X2")
    act(s, "palace", city="X3")
    assert GAME.view(s, 0)["pending"] == {"seat": 0, "decision": "take", "rule": "R48", "left": 2}

    crown_spec = {
        **spec,
        "court": ["vizier", "general", "monk", "grand_mogul", "elephant"],
        "crown": None,
        "seats": [{"table": ["red[K,V]"]}, {"out": True, "tiles": {"princess": 1}}],
    }
    s = build(crown_spec)
    act(s, "withdraw")  # vizier and the crown
    expected = {"seat": 0, "decision": "palace", "rule": "R36", "left": 1, "crown": True}
    assert GAME.view(s, 1)["pending"] == {**expected, "cities": ["X2", "X3", "X4"], **withdrawal}
    act(s, "palace", city="X3")
    expected = {"seat": 0, "decision": "crown", "rule": "R37", "left": 0, "crown": True}
    placed = {"placed": True, "bonus_taken": []}  # R44: the palace on X3 scores at the end (F1: no bonus)
    assert GAME.view(s, 1)["pending"] == {**expected, "cities": ["X1", "X2", "X3", "X4"], **placed}


def _card_ids(obj: object) -> set[str]:
    """The card ids a JSON document names anywhere."""
    return CARD_IDS.intersection(re.findall(r'"([^"]+)"', json.dumps(obj)))


def test_events_reveal_no_card_their_audience_cannot_see():
    """R64, R65: every card an event names is visible, right after the action, in the view of each
    seat (and of spectators) the event is shown to; a drawn card's event goes to the drawer alone."""
    for seed in range(3):
        s = GAME.setup(3 + seed, None, seed=seed)
        rng = random.Random(seed)
        while GAME.to_move(s) is not None:
            events = GAME.apply(s, rng.choice(GAME.legal_actions(s)))
            named = [(e, _card_ids(e)) for e in events]
            for seat in (None, *range(s.n)):
                shown = set().union(*(ids for e, ids in named if event_visible(e, seat)))
                if shown:
                    assert shown <= _card_ids(GAME.view(s, seat)), (seat, events)
            for e in events_of(events, "drew"):
                assert e["visible_to"] == [e["seat"]] if e["card"] else e["visible_to"] == "others"


def test_hand_size_counts_special_cards_which_are_listed_apart():
    """R59, R64: ``hand_size`` counts every card in hand, special cards included; the specials are
    public and listed under ``specials``, so a client shows the normal cards as hand_size minus their
    number, the same for every viewer; the owner's own ``hand`` holds the normal cards only."""
    s = build({"players": 3, "seats": [{"hand": ["red[E,V]", "white[M]"], "specials": ["SP+1K", "SPANY"]}]})
    for seat in (None, 0, 1):
        entry = GAME.view(s, seat)["players"][0]
        assert entry["hand_size"] == 4 and len(entry["specials"]) == 2
    assert len(GAME.view(s, 0)["players"][0]["hand"]) == 2
