"""Which Confucius steps can be taken back (engine/games/confucius/takeback.py, docs/takebacks.md):
hands, face-down tutoring and set-aside cards are hidden (R114-R116); a priced action is offered only to
a hand that can pay (R37) and its payment is played at once when it takes the whole hand, so choosing
it may tell the others about the hand."""

from __future__ import annotations

import random

from engine.games.confucius.cards import COINS, LICENCES
from engine.games.confucius.takeback import _price_tells
from engine.registry import get_game
from engine.takeback import RANDOM, REVEAL, step_block

GAME = get_game("confucius")
POOL = [11, 15, 11]  # hidden 1-, 2- and 3-coin cards


def test_a_price_tells_nothing_only_when_every_possible_hand_pays_it_the_same_way() -> None:
    """R37: two cards pay 2 coins always, but a hand of two 1-coin cards pays with both at once (the lone
    payment the engine plays itself) while others choose: the choice tells."""
    assert _price_tells(POOL, 2, COINS, 2) is not None
    assert _price_tells(POOL, 1, COINS, 2) == "choosing it showed the hidden hand can pay 2"
    assert _price_tells(POOL, 5, COINS, 2) is None  # five cards: always a choice of payment
    assert _price_tells(POOL, 2, COINS, 1) is None  # any card pays 1, leaving the other out
    assert _price_tells([0, 6, 0], 2, COINS, 4) is None  # only 2-coin cards: the hand is known
    assert _price_tells(POOL, 3, LICENCES, 2) is None  # a card is worth 1-3 licences (R9)


def test_draws_and_reveals_name_their_rule() -> None:
    """R38, R54, R55, R70, R76: drawn cards are random; R37: cards paid from the hidden hand reveal."""
    rng = random.Random(8)
    state = GAME.setup(4, None, 8)
    rules: set[tuple[str, str | None]] = set()
    while GAME.to_move(state) is not None and len(rules) < 6:
        action = rng.choice(GAME.legal_actions(state))
        found = step_block(GAME, state, action, GAME.to_move(state))
        if found is not None:
            assert found.rule is not None and found.rule.startswith("R")
            rules.add((found.reason, found.rule))
            if action["type"] == "tax_income":
                assert (found.reason, found.rule) == (RANDOM, "R55")
        GAME.apply(state, action)
    assert (REVEAL, "R37") in rules
    assert any(reason == RANDOM for reason, _ in rules)
