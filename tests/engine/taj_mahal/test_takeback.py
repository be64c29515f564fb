"""Which Taj Mahal steps can be taken back (engine/games/taj_mahal/takeback.py, docs/takebacks.md): the
cards dealt or drawn into a hand are hidden (R64), those taken from the display in public view are
not (R65), nor are special cards (R59)."""

from __future__ import annotations

import random

from engine.registry import get_game
from engine.takeback import RANDOM, REVEAL, step_block

GAME = get_game("taj_mahal")


def test_a_card_is_news_only_when_it_came_face_down() -> None:
    """R29: a card laid on the table from a hand; R47: withdrawing at once draws from the deck."""
    state = GAME.setup(3, None, 2)
    rng = random.Random(2)
    plays: dict[bool, set[object]] = {True: set(), False: set()}
    first_withdrawals = set()
    while GAME.to_move(state) is not None:
        seat = GAME.to_move(state)
        action = rng.choice(GAME.legal_actions(state))
        found = step_block(GAME, state, action, seat)
        outcome = None if found is None else (found.reason, found.rule)
        view = GAME.view(state, None)["players"][seat]
        if action["type"] == "play" and not action["extra"]:
            public = {c["id"] for c in view["hand_public"]}
            plays[action["card"] in public].add(outcome)
        if action["type"] == "withdraw" and not view["table"]:
            first_withdrawals.add(outcome)
        GAME.apply(state, action)
    assert plays[False] == {(REVEAL, "R29")}, "a card dealt or drawn face down shows in a play"
    assert plays[True] <= {None}, "a card everybody saw taken shows nothing"
    assert plays[True], "no play of a display card met: pick another seed"
    assert first_withdrawals and all(o is not None and o[0] == RANDOM for o in first_withdrawals)
