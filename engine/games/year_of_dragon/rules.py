"""The contract entry points: setup, to_move, legal_actions, apply.

``apply`` checks the turn, then membership in the (cached) legal list, which is all the validation the
hot path does; a refused action gets the shape check and the rule-naming ``explain`` (cold path).  Then
the action's handler mutates the state, and ``settle`` resolves every decision that has a single legal
option (RULES section 15 lets the engine decide when every option leads to the same state), so a seat
is only ever asked when it has a real choice -- except for a person card played while played cards are
hidden (R58a): whether a play was forced depends on the hand, so resolving it silently would tell the
other seats which card it was.
"""

from __future__ import annotations

from engine.core import Action, Event, action_events, check_shape, check_turn

from .actions import HANDLERS
from .explain import explain
from .legal import LEGAL
from .schemas import ACTIONS
from .state import OVER, PERSON, State

#: The only value types of action fields (engine.core.action_schema: integers and strings).
_PLAIN = frozenset((int, str))


def to_move(state: State) -> int | None:
    return None if state.phase == OVER else state.order[state.turn]


def legal_actions(state: State) -> list[Action]:
    """The cached legal list (shared by clones of the same state: callers must not mutate it)."""
    legal = state.legal
    if legal is None:
        legal = state.legal = (
            [] if state.phase == OVER else LEGAL[state.phase](state, state.order[state.turn])
        )
    return legal


def _action_events(state: State, seat: int, action: Action) -> list[Event]:
    """R58a: with ``reveal_played_card`` off, the other seats see that a card was played, not which."""
    if not state.reveal and action["type"] in ("recruit", "spend"):
        return action_events(seat, action, public={**action, "card": "hidden"})
    return action_events(seat, action)


def apply(state: State, action: Action, seat: int | None = None) -> list[Event]:
    mover = check_turn(to_move(state), seat)
    # Membership in the legal list is the whole check on the hot path; only values equal to but not of
    # the declared type (``True == 1.0 == 1``) could slip through it, hence the type guard.  The shape
    # check names the offending field, on the cold path only.
    if action not in legal_actions(state) or any(v.__class__ not in _PLAIN for v in action.values()):
        check_shape(ACTIONS, action)
        raise explain(state, mover, action)
    events = _action_events(state, mover, action)
    state.legal = None
    HANDLERS[action["type"]](state, mover, action, events)
    settle(state, events)
    return events


def settle(state: State, events: list[Event]) -> None:
    """Apply every forced decision (exactly one legal option) until a seat has a choice or the game ends.

    R58a: with hidden played cards the Person decision is always asked, forced or not: an automatic play
    (made during the previous seat's move) would reveal that the hand allowed one play only, e.g. that
    the last card was a typed one rather than a wild one.
    """
    while state.phase != OVER:
        seat = state.order[state.turn]
        legal = LEGAL[state.phase](state, seat)
        if len(legal) > 1 or (state.phase == PERSON and not state.reveal):
            state.legal = legal
            return
        (action,) = legal
        for ev in _action_events(state, seat, action):
            ev["auto"] = True
            events.append(ev)
        HANDLERS[action["type"]](state, seat, action, events)
    state.legal = []
