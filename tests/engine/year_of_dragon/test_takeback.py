"""Which Year of the Dragon steps can be taken back (engine/games/year_of_dragon/takeback.py,
docs/takebacks.md): all is public (R57) but the coming rounds' action cards (R22, R58b) and, with
``reveal_played_card`` off, which card paid for each person (R58a)."""

from __future__ import annotations

import random

from engine.games.year_of_dragon.components import CARD_IDS, WILD
from engine.games.year_of_dragon.takeback import play_reveals
from engine.registry import get_game
from engine.takeback import RANDOM, REVEAL, step_block

GAME = get_game("year_of_dragon")
MONK = CARD_IDS.index("monk")
RECRUIT_MONK = 1 << MONK | 1 << WILD  # R58a: a monk recruited was paid with the monk card or a wild one


def test_a_hidden_play_reveals_only_what_no_history_explains() -> None:
    """R58a: hands start identical (R3: one card a type, two wild cards)."""
    assert not play_reveals([], RECRUIT_MONK)  # a fresh hand surely holds a monk or a wild card
    assert not play_reveals([RECRUIT_MONK, RECRUIT_MONK], RECRUIT_MONK)  # one of the three is left
    assert play_reveals([RECRUIT_MONK] * 3, RECRUIT_MONK)  # maybe monk and both wilds are gone: news
    # a card for an exhausted type (R68) narrows nothing while a typed card of it surely remains
    assert not play_reveals([1 << 0 | 1 << WILD], 1 << MONK)
    assert play_reveals([RECRUIT_MONK], 1 << MONK)


def test_the_round_start_is_random_and_played_cards_shown_reveal_nothing() -> None:
    """R22: the action cards of a round are shuffled when it begins; with played cards shown (the
    default, R58a) a recruit shows nothing new."""
    for hidden in (False, True):
        state = GAME.setup(3, {"reveal_played_card": not hidden}, 4)
        rng = random.Random(4)
        seen: dict[str, set[str | None]] = {}
        while GAME.to_move(state) is not None and len(seen.get("recruit", ())) < 2:
            action = rng.choice(GAME.legal_actions(state))
            found = step_block(GAME, state, action, GAME.to_move(state))
            seen.setdefault(action["type"], set()).add(None if found is None else found.reason)
            if found is not None and found.reason == RANDOM:
                assert found.rule == "R22"
            GAME.apply(state, action)
        assert RANDOM in seen["court"] | seen["place"]  # the last court choice starts month 1
        if not hidden:
            assert REVEAL not in set().union(*seen.values())
