"""The contract entry points of Confucius: ``to_move``, ``legal_actions`` and ``apply``.

``apply`` accepts exactly the actions ``legal_actions`` lists (the list is cached on the state until
the next change), dispatches to the handler of the action type, and then plays a decision that has a
single legal option itself when that option is forced by public information alone (the lone payment,
the forced influence receiver, the pass of a player with nothing left to do, R32).
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, action_events, check_shape, check_turn

from . import actions, flow
from .explain import explain
from .legal import legal as pending_legal
from .schemas import ACTIONS
from .state import OVER, State

#: The handler of each action type: (state, seat, action, events) -> None.
HANDLERS = {
    **{
        kind: actions.play_reward if kind in actions.REWARD_TYPES else actions.box_action
        for kind in actions.EFFECTS
    },
    "pay": actions.pay,
    "choose_distant_land": actions.choose_distant_land,
    "choose_chief_minister": flow.choose_chief_minister,
    "pass": flow.pass_turn,
    "tutor": flow.tutor,
    "end_tutoring": flow.end_tutoring,
    "place_candidate": flow.place_candidate,
    "give_influence": flow.give_influence,
    "keep_cards": flow.keep_cards,
}


def to_move(state: State) -> int | None:
    return None if state.phase == OVER else state.seat


def legal_actions(state: State) -> list[Action]:
    """The cached list of the pending decision (a copy: a caller may reorder it freely)."""
    return _legal(state)[:]


def _legal(state: State) -> list[Action]:
    if state.phase == OVER:
        return []
    legal = state._legal
    if legal is None:
        legal = state._legal = pending_legal(state)
    return legal


def apply(state: State, action: Action, seat: int | None = None) -> list[dict[str, Any]]:
    p = check_turn(to_move(state), seat)
    kind = check_shape(ACTIONS, action)
    if action not in _legal(state):
        raise explain(state, p, action)
    ev = _events(p, action)
    HANDLERS[kind](state, p, action, ev)
    state._legal = None
    while state.phase != OVER:
        legal = _legal(state)
        if len(legal) != 1 or not _forced_in_public(state, legal[0]):
            break
        only, p = legal[0], state.seat
        ev += _events(p, only)
        HANDLERS[only["type"]](state, p, only, ev)
        state._legal = None
    return ev


#: Decisions whose having a single option follows from public information: a lone payment is the
#: whole hand (which the payment shows anyway), lands, candidate spaces and receivers are public, and
#: ``end_tutoring`` is alone only once the hand is empty.
_PUBLIC_LONE_OPTIONS = frozenset(
    {"pay", "choose_distant_land", "place_candidate", "give_influence", "end_tutoring"}
)


def _forced_in_public(state: State, only: Action) -> bool:
    """Whether the engine may play ``only`` itself without telling the others anything.

    Skipping a decision is visible, so a lone option that hidden cards made lone must still be asked
    for: a uniform hand would show through a lone card to lay (R116) or to keep (R98), an unplayable
    reward card through a lone pass (R114), a hand too poor for any bribe through a lone No Action.
    R32 allows the automatic pass exactly for a player holding no reward card.
    """
    kind = only["type"]
    return kind in _PUBLIC_LONE_OPTIONS or (kind == "pass" and not state.rewards[state.seat])


def _events(p: int, action: Action) -> list[dict[str, Any]]:
    """The action event; the card of a tutoring play and a hand kept are face down for others (R116,
    R98)."""
    kind = action["type"]
    if kind == "tutor":
        return action_events(p, action, public={"type": kind, "student": action["student"]})
    if kind == "keep_cards":
        return action_events(p, action, public={"type": kind})
    return action_events(p, action)
