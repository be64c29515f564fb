"""Evaluation of a state for one seat, for the greedy and search bots (an estimate, not a rule).

A seat's *projection* is its VP now plus what its material will still be worth: the final scoring (R54,
money valued fractionally) and the round scorings still to come (R52).  To it is added what this month's
event is about to bring: its VP, minus the persons it will cost (R42-R46).  Empty palaces count only for
the scorings they survive before decaying away (R49), which keeps the bots from building palaces nobody
will live in.
"""

from __future__ import annotations

from .components import (
    COURT_LADY,
    GOODS_YUAN,
    ROUNDS,
    SYMBOLS,
    VP_PER_PERSON,
    YUAN_PER_VP,
)
from .monthly_events import forecast
from .palaces import symbols
from .scoring import final_gain
from .state import OVER, RELEASE, State

#: VP a released person costs: its final-scoring VP plus a few rounds of what it would have done.
PERSON_LOSS = VP_PER_PERSON + 2.0
#: Value of a person-track space (turn order, R19) relative to a VP.
TRACK_WEIGHT = 0.05


def heuristic(state: State, seat: int) -> float:
    """Own projected VP minus the best opponent's."""
    ahead = _month_ahead(state)
    own = projection(state, seat) + ahead[seat]
    return own - max(projection(state, p) + ahead[p] for p in range(state.n) if p != seat)


def projection(state: State, seat: int) -> float:
    palaces = state.palaces[seat]
    scorings = 0 if state.phase == OVER else ROUNDS - state.round + 1  # this month's scoring is to come
    per_round = (
        sum(1 for _, persons in palaces if persons)
        + symbols(palaces, SYMBOLS[COURT_LADY])
        + state.small[seat]
        + 2 * state.large[seat]
    )
    empty = sum(min(floors - 1, scorings) for floors, persons in palaces if not persons)
    persons, monks, _ = final_gain(state, seat)
    money = (state.yuan[seat] + GOODS_YUAN * (state.rice[seat] + state.fireworks[seat])) / YUAN_PER_VP
    return (
        state.vp[seat]
        + persons
        + monks
        + money
        + scorings * per_round
        + empty
        + TRACK_WEIGHT * state.pos[seat]
    )


def _month_ahead(state: State) -> list[float]:
    """Per seat, what this month's event is still going to bring: its VP minus the persons it will cost
    while it is ahead (Phases 1-2), the releases still owed once it has struck."""
    if state.phase == RELEASE:
        return [-PERSON_LOSS * owed for owed in state.owed]
    if state.phase == OVER or state.round < 1:
        return [0.0] * state.n
    vp, owed = forecast(state)
    return [v - PERSON_LOSS * o for v, o in zip(vp, owed, strict=True)]
