"""The round structure (R21): who moves next, and the automatic steps between decisions.

Each ``next_*`` function is called when the seat to move has finished its part of a phase; it hands the
decision to the next seat of the phase order or runs the automatic steps (dealing, the event, decay,
scoring) up to the next decision.  Phase orders are fixed at the start of each phase (R20).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core import Action, Event, event

from .components import (
    ACTION_BASE,
    ACTION_BONUS,
    ACTION_IDS,
    ACTION_INDEX,
    GROUP_SIZES,
    NO_PERSON_ROUND,
    ROUNDS,
    SUPPLY,
    SYMBOLS,
)
from .monthly_events import EVENT_RULES, decay, month_event, resolve
from .palaces import track_order
from .scoring import score_final, score_round
from .state import ACTION, COURT, OVER, PERSON, PHASE_RULES, PLACE, RELEASE, State


def _next_seat(
    state: State, phase: int, then: Callable[[State, list[Event]], None], events: list[Event]
) -> None:
    """Hand ``phase``'s decision to the next seat of the phase order, or go on with ``then``."""
    state.turn += 1
    if state.turn < state.n:
        state.phase = phase
    else:
        then(state, events)


def next_court_seat(state: State, events: list[Event]) -> None:
    """R14: the court is chosen in seat order from the first player; then month 1 begins."""
    _next_seat(state, COURT, begin_round, events)


def begin_round(state: State, events: list[Event]) -> None:
    """R22: shuffle the 7 action cards into groups by player count, revealed to all; R19 order."""
    state.round += 1
    deal(state)
    state.order = track_order(state)
    state.turn = 0
    state.phase = ACTION
    events.append(
        event("round", round=state.round, groups=[[ACTION_IDS[a] for a in g] for g in state.groups])
    )


def deal(state: State) -> None:
    """R22, R58b: the groups are dealt from the state's RNG only now, at the start of Phase 1."""
    cards = list(range(len(ACTION_IDS)))
    state.rng.shuffle(cards)
    state.groups = []
    start = 0
    for size in GROUP_SIZES[state.n]:
        state.groups.append(tuple(cards[start : start + size]))
        start += size
    state.dragons = [0] * len(state.groups)


def next_action_seat(state: State, events: list[Event]) -> None:
    _next_seat(state, ACTION, _end_action_phase, events)


def _end_action_phase(state: State, events: list[Event]) -> None:
    """R35: the dragons return and the cards are collected; R21: month 12 has no Person phase."""
    state.groups = []
    state.dragons = []
    if state.round == NO_PERSON_ROUND:
        begin_event(state, events)
    else:
        state.order = track_order(state)
        state.turn = 0
        state.phase = PERSON


def next_person_seat(state: State, events: list[Event]) -> None:
    _next_seat(state, PERSON, begin_event, events)


def begin_event(state: State, events: list[Event]) -> None:
    """R39, R40: resolve the month's event in the order fixed now, then collect the releases owed."""
    state.order = track_order(state)
    events.append(resolve(state))
    state.turn = -1
    next_releaser(state, events)


def next_releaser(state: State, events: list[Event]) -> None:
    """R40: releases are made seat by seat in turn order; then decay and scoring follow."""
    state.last = -1
    for t in range(state.turn + 1, state.n):
        if state.owed[state.order[t]]:
            state.turn = t
            state.phase = RELEASE
            return
    end_month(state, events)


def end_month(state: State, events: list[Event]) -> None:
    """R49 decay, R52 scoring; after month 12 the final scoring ends the game (R53)."""
    events.append(decay(state))
    events.append(score_round(state))
    if state.round == ROUNDS:
        finish(state, events)
    else:
        begin_round(state, events)


def finish(state: State, events: list[Event]) -> None:
    events.append(score_final(state))
    state.phase = OVER
    state.turn = 0


def max_decisions(players: int) -> int:
    """A proven bound on the decisions of a game (engine.core.Game.max_decisions).

    Per seat: the court (R14) and the placing of its two persons; in each of the 12 months (R21) one
    action choice (R23) and then either one privilege choice (R34) or one decision per floor built
    (R29: 1 plus a hammer per craftsman symbol; at month ``r`` a seat holds at most its 2 court persons
    and ``r - 1`` recruits, and no more craftsmen than the supply has); in the 11 months with a Person
    phase one card (R36) and one placing or replacing (R37); and one release decision per person it
    ever released (R40-R48), at most the persons it ever gained.
    """
    build = ACTION_INDEX["build"]
    hammers = sorted(
        (w for k, w in enumerate(SYMBOLS[ACTION_BONUS[build]]) if w for _ in range(SUPPLY[players][k])),
        reverse=True,
    )
    person_months = ROUNDS - (1 if 1 <= NO_PERSON_ROUND <= ROUNDS else 0)
    court = 2
    per_seat = 1 + court  # DP1, DP2
    for month in range(1, ROUNDS + 1):
        held = court + month - 1
        per_seat += 1 + max(1, ACTION_BASE[build] + sum(hammers[:held]))  # DP3, then DP4 or DP5
    per_seat += 2 * person_months  # DP6, DP7/DP8
    per_seat += court + person_months  # DP9-DP12: releases
    return players * per_seat


def to_move(state: State) -> int | None:
    """The seat of the pending decision, ``None`` once over."""
    return None if state.phase == OVER else state.order[state.turn]


def forced(state: State, only: Action) -> bool:
    """Whether the engine plays ``only``, the single legal action, itself: RULES section 15 lets it
    decide when every option leads to the same state, so a seat is only ever asked when it has a real
    choice; except for the Person decision while played cards are hidden (R58a): an automatic play
    (made during the previous seat's move) would reveal that the hand allowed one play only, e.g. that
    the last card was a typed one rather than a wild one."""
    return state.phase != PERSON or state.reveal


def decision_rule(state: State) -> str:
    """The rule governing the pending decision (for refusals and the view's ``pending``)."""
    phase = state.phase
    if phase == RELEASE:
        return EVENT_RULES[month_event(state)]
    if phase == PLACE and state.round == 0:
        return "R14"
    return PHASE_RULES[phase]
