"""The contract entry points of China: ``to_move``, ``legal_actions`` and ``apply``.

``apply`` checks an action by membership in :func:`legal.legal_actions` (so it accepts exactly that
list) and only then mutates, through the action's handler in :mod:`actions`; refused actions are
explained by :mod:`explain` (cold path) and change nothing.
"""

from __future__ import annotations

from engine.core import Action, Event, action_events

from .actions import HANDLERS
from .legal import legal_actions
from .state import OVER, State

__all__ = ["apply", "legal_actions", "to_move"]


def to_move(st: State) -> int | None:
    return None if st.phase == OVER else st.seat


def apply(st: State, action: Action, kind: str, mover: int) -> list[Event]:
    """Apply ``action`` of type ``kind``, already checked for turn and shape, by ``mover``; or raise
    IllegalAction with the state untouched."""
    if action not in legal_actions(st):
        from .explain import explain  # cold path

        raise explain(st, action, kind)
    st._legal = None
    events = action_events(mover, action)
    HANDLERS[kind](st, action, events)
    return events
