"""Which China steps can be taken back (engine/games/china/takeback.py, docs/takebacks.md): hands are
hidden except the cards seen taken from the display (R61, R62); a card drawn from the pile (R45), a
display refilled from it (R46) is random; a payment (R36) or a swap's discard (R49) of a card nobody
knew of reveals."""

from __future__ import annotations

from typing import Any

from engine.games.china.scenario import build
from engine.games.china.takeback import _skip_tells
from engine.takeback import RANDOM, REVEAL, step_block
from tests.engine.china.helpers import DRAW_DECK, FINISH, GAME, draw_display, play, swap

DISPLAY = ["Y01", "Y02", "V01", "O01"]


def blocked(state: Any, action: dict[str, Any]) -> tuple[str, str | None] | None:
    found = step_block(GAME, state, action, GAME.to_move(state))
    return None if found is None else (found.reason, found.rule)


def red_house(state: Any) -> dict[str, Any]:
    return next(a for a in GAME.legal_actions(state) if a["type"] == "place" and a["pay"] == "red")


def test_a_turn_can_be_taken_back_up_to_its_first_draw_from_the_pile() -> None:
    state = build({"players": 4, "to_move": 1, "houses": {"WEI1": 0}, "hands": {1: ["R03", "R04", "G02"]}})
    place = {"type": "place", "piece": "house", "target": "WEI2", "pay": "red"}
    assert blocked(state, place) == (REVEAL, "R36")  # the red card was hidden (R61)
    play(state, place)
    assert blocked(state, FINISH) is None  # R26: stopping after one piece shows nothing
    play(state, FINISH)
    assert blocked(state, DRAW_DECK) == (RANDOM, "R45")
    assert blocked(state, draw_display(0)) == (RANDOM, "R46")  # the one draw due: the display refills


def test_a_draw_from_the_display_with_more_due_can_be_taken_back() -> None:
    state = build({"players": 3, "hands": {0: ["R01", "R02", "G01"]}, "display": DISPLAY})
    play(state, {"type": "place", "piece": "house", "target": "YAN1", "pay": "red+red"})
    assert blocked(state, draw_display(0)) is None  # R45: a face-up card; R46: no refill yet
    play(state, draw_display(0))
    assert blocked(state, draw_display(1)) == (RANDOM, "R46")  # the last draw: the display refills


def test_a_card_everybody_saw_taken_shows_nothing_when_discarded() -> None:
    """R62: a display card taken is known to be in the hand; discarding it in a swap (R49) reveals
    nothing, discarding a card of another colour does."""
    state = build({"players": 3, "hands": {0: ["R01", "G01", "G03"]}, "display": DISPLAY})
    play(state, swap("red"), draw_display(0))  # seat 0 takes Y01 in everybody's sight
    while GAME.to_move(state) != 0:
        action = next(a for a in GAME.legal_actions(state) if a["type"] in ("swap", "draw_deck"))
        play(state, action)
    assert blocked(state, swap("yellow")) is None
    assert blocked(state, swap("green")) == (REVEAL, "R49")


def test_a_card_every_possible_hand_holds_shows_nothing() -> None:
    """Every card nobody can place (hands and pile) is red: a red payment is no news (R36, R61)."""
    reds = [f"R{i:02d}" for i in range(1, 11)]
    state = build(
        {
            "players": 3,
            "hands": {0: reds[0:3], 1: reds[3:6], 2: reds[6:9]},
            "display": DISPLAY,
            "deck": reds[9:],
        }
    )
    assert blocked(state, red_house(state)) is None


def test_a_skipped_turn_tells_only_when_some_possible_hand_had_a_move() -> None:
    """R55: in the final round (R52: pile and display empty) a seat that can neither place nor swap is
    skipped; the skip shows that its hand has no move, which is news unless every hand it may hold has
    none (an empty hand has none)."""
    state = build(
        {
            "players": 3,
            "start": 2,
            "to_move": 0,
            "exhaustions": 2,
            "display": [None] * 4,
            "hands": {0: ["R01"], 1: [], 2: ["G01", "G02"]},
        }
    )
    events = play(state, red_house(state))  # the last card: the turn ends at once
    assert {"type": "passed", "visible_to": "all", "seat": 1, "rule": "R55"} in events
    assert GAME.to_move(state) is None, "the final round ended (R52)"
    assert _skip_tells(state, 2), "a hand of two unknown cards might have placed"
    assert not _skip_tells(state, 1), "an empty hand has no move: its skip tells nothing"
