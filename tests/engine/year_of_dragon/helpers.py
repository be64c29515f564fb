"""Small helpers shared by the Year of the Dragon tests: act through the contract, read through the view."""

from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalAction
from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.state import State
from tests.engine.support import assert_refused


def act(state: State, type: str, **fields: Any) -> list[Event]:
    """Apply ``{"type": type, **fields}`` for the seat to move."""
    return GAME.apply(state, {"type": type, **fields})


def player(state: State, seat: int, viewer: int | None = None) -> dict[str, Any]:
    """Seat ``seat`` as ``viewer`` (default: a spectator) sees it."""
    return GAME.view(state, viewer)["players"][seat]


def palaces(state: State, seat: int) -> list[list[Any]]:
    """A seat's palaces in the scenario notation ``[floors, person, ...]``, persons sorted by name."""
    return norm([[p["floors"], *p["persons"]] for p in player(state, seat)["palaces"]])


def norm(palaces: list[list[Any]]) -> list[list[Any]]:
    """Palaces in scenario notation with each palace's persons sorted by name (their order is no rule)."""
    return [[floors, *sorted(persons)] for floors, *persons in palaces]


def pending(state: State) -> dict[str, Any] | None:
    return GAME.view(state, None)["pending"]


def refused(state: State, action: dict[str, Any], rule: str, seat: int | None = None) -> IllegalAction:
    """Assert ``action`` is refused naming ``rule`` and leaves the state unchanged."""
    return assert_refused(GAME, state, action, rule, seat)
