"""The contract entry points of Taj Mahal: ``to_move``, ``legal_actions`` and ``apply``.

``apply`` checks the turn and the action's shape, then membership in the (cached) legal list, which is
all the validation the hot path does; a refused action is explained by :mod:`explain` (cold path) and
changes nothing.  Then the action's function in :mod:`actions` mutates the state, and :mod:`flow` runs
every automatic step up to the next real decision.
"""

from __future__ import annotations

from engine.core import Action, Event, action_events, check_shape, check_turn
from engine.games.taj_mahal import actions
from engine.games.taj_mahal.explain import explain
from engine.games.taj_mahal.legal import legal_actions
from engine.games.taj_mahal.schemas import ACTIONS
from engine.games.taj_mahal.state import OVER, State

__all__ = ["apply", "legal_actions", "to_move"]


def to_move(s: State) -> int | None:
    return None if s.phase == OVER else s.current


def apply(s: State, action: Action, seat: int | None = None) -> list[Event]:
    seat = check_turn(to_move(s), seat)
    kind = check_shape(ACTIONS, action)
    if action not in legal_actions(s):
        raise explain(s, action)
    s._legal = None
    if kind == "play":
        return actions.play(s, seat, action)
    events = action_events(seat, action)
    if kind == "withdraw":
        actions.withdraw(s, seat, events)
    elif kind == "palace":
        actions.palace(s, seat, action, events)
    elif kind == "crown":
        actions.crown(s, seat, action, events)
    else:
        actions.take(s, seat, action, events)
    return events
