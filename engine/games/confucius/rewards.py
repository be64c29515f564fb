"""Emperor's Reward cards: drawing them while they last (R76) and what the simple ones do (R70-R75).

The Extra Action and the Bribery cards lead into box-action machinery and are handled in actions.py.
"""

from __future__ import annotations

from engine.core import Event, event

from .cards import draw
from .components import INSULT_VP, REWARD_INDEX, REWARDS
from .gifts import GIFTS
from .state import AVAILABLE, State

CASH, GIFT, EXTRA_ACTION, INSULTED, RECRUIT = (
    REWARD_INDEX[r] for r in ("cash", "gift", "extra_action", "emperor_insulted", "recruit_army")
)
CASH_CARDS = 4  # R70: the Cash card draws 4 Confucius cards


def draw_reward(state: State, p: int, ev: list[Event]) -> None:
    """R76: the top reward card goes to ``p``'s hand (face down: only ``p`` sees which); none when
    the stack is empty."""
    if not state.reward_deck:
        ev.append(event("reward_stack_empty", seat=p, rule="R76"))
        return
    card = state.reward_deck.pop()
    hand = state.rewards[p]
    hand.append(card)
    hand.sort()
    ev.append(event("reward_drawn", [p], seat=p, card=REWARDS[card]))
    ev.append(event("reward_drawn", "others", seat=p))


def discard_reward(state: State, p: int, card: int) -> None:
    """R69: a played card leaves the game."""
    state.rewards[p].remove(card)


def cash(state: State, p: int, ev: list[Event]) -> None:
    draw(state, p, CASH_CARDS, ev)  # R70


def free_gift(state: State, p: int, value: int) -> None:
    state.gift[p * GIFTS + value - 1] = AVAILABLE  # R71


def recruit(state: State, p: int) -> None:
    """R49, R74: one army from stock to the military colonies."""
    state.stock[p] -= 1
    state.colonies[p] += 1


def insult(state: State, p: int, ev: list[Event]) -> None:
    """R75: an army from the colonies goes onto the card for good; +2 VP."""
    state.colonies[p] -= 1
    state.insulted = p
    state.score[p] += INSULT_VP
    ev.append(event("scored", seat=p, vp=INSULT_VP, source="emperor_insulted"))
