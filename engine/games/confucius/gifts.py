"""Gifts: the Gift Tracker, giving and cancelling (R52, R53, R61-R68) and the gift count (R24, R25).

``state.given[g * n + r]`` is the value of the active gift giver ``g`` has at recipient ``r`` (0: none);
``state.gift[p * 6 + value - 1]`` is the state of each of ``p``'s gift cards.  The obligations a held
gift creates are checked where they bite (bribery and Ministry Resolution in ministries.py, tutoring
in exam.py); this module only keeps the tracker right.
"""

from __future__ import annotations

from typing import Final

from engine.core import Event, event

from .components import CUBES_BY_COUNT, GIFT_VALUES
from .state import ACTIVE, REMOVED, State

GIFTS: Final = len(GIFT_VALUES)


def gift_count(state: State, p: int) -> int:
    """R24: active gifts ``p`` has given plus active gifts ``p`` holds."""
    n, given = state.n, state.given
    return sum(1 for q in range(n) if given[p * n + q]) + sum(1 for q in range(n) if given[q * n + p])


def active_cubes(state: State, p: int) -> int:
    """R25: action cubes for the coming round."""
    return CUBES_BY_COUNT[gift_count(state, p)]


def cancel(state: State, giver: int, recipient: int, rule: str, ev: list[Event]) -> None:
    """Remove the active gift ``giver`` has at ``recipient`` from the game (R53, R68)."""
    slot = giver * state.n + recipient
    value = state.given[slot]
    state.given[slot] = 0
    state.gift[giver * GIFTS + value - 1] = REMOVED
    ev.append(event("gift_cancelled", giver=giver, recipient=recipient, value=value, rule=rule))


def give(state: State, giver: int, value: int, recipient: int, ev: list[Event]) -> None:
    """R52: the three effects of Give Gift, in order (legality is checked by the caller)."""
    n = state.n
    if state.given[giver * n + recipient]:  # step 1: the giver's old gift there leaves the game
        cancel(state, giver, recipient, "R52", ev)
    state.given[giver * n + recipient] = value  # step 2
    state.gift[giver * GIFTS + value - 1] = ACTIVE
    back = state.given[recipient * n + giver]
    if back and back < value:  # step 3: a lower gift held from the recipient is cancelled
        cancel(state, recipient, giver, "R52", ev)
