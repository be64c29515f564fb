"""Small helpers shared by the Confucius tests: act through the contract, read through the view."""

from __future__ import annotations

from typing import Any

from engine.core import Event, IllegalAction
from engine.games.confucius import GAME
from engine.games.confucius.state import State
from tests.engine.support import assert_refused

#: Seats of the five-player examples (examples.md lists the colours in this seat order).
BLACK, GREEN, PURPLE, WHITE, YELLOW = range(5)
FIVE = ["black", "green", "purple", "white", "yellow"]


def discard_step(hands: dict[str, list[int]]) -> dict[str, Any]:
    """Description of Black, White and Green at the End of Round discard step (R98) of round 3, Black
    Chief Minister (so the first to choose), with these hands."""
    players = ["black", "white", "green"]
    return {
        "players": players,
        "round": 3,
        "phase": "court",
        "court_step": "discards",
        "chief_minister": "black",
        "hands": hands,
    }


def act(state: State, by: int | None, type: str, **fields: Any) -> list[Event]:
    """Apply ``{"type": type, **fields}`` as seat ``by`` (checked to be the one to move; None: whoever is)."""
    return GAME.apply(state, {"type": type, **fields}, by)


def pay(state: State, by: int, c1: int = 0, c2: int = 0, c3: int = 0) -> list[Event]:
    """Answer the pending payment (D3) of seat ``by`` with that many 1-, 2- and 3-coin cards."""
    assert pending(state)["decision"] == "pay", pending(state)
    return act(state, by, "pay", c1=c1, c2=c2, c3=c3)


def legal(state: State, type: str | None = None) -> list[dict[str, Any]]:
    """The legal actions (of one type, if given)."""
    return [a for a in GAME.legal_actions(state) if type is None or a["type"] == type]


def view(state: State, seat: int | None = None) -> dict[str, Any]:
    return GAME.view(state, seat)


def player(state: State, seat: int) -> dict[str, Any]:
    """Seat ``seat`` as it sees itself (hand included)."""
    return GAME.view(state, seat)["players"][seat]


def space(state: State, ministry: str, number: int) -> dict[str, Any]:
    """Official space ``ministry#number`` as the view shows it."""
    (m,) = (m for m in GAME.view(state, None)["ministries"] if m["ministry"] == ministry)
    return m["spaces"][number - 1]


def ministry(state: State, name: str) -> dict[str, Any]:
    (m,) = (m for m in GAME.view(state, None)["ministries"] if m["ministry"] == name)
    return m


def pending(state: State) -> dict[str, Any] | None:
    return GAME.view(state, None)["pending"]


def gifts(state: State) -> set[tuple[int, int, int]]:
    """The Gift Tracker as (giver, recipient, value) triples."""
    return {(g["giver"], g["recipient"], g["value"]) for g in GAME.view(state, None)["gift_tracker"]}


def events_of(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def refused(state: State, action: dict[str, Any], rule: str, seat: int | None = None) -> IllegalAction:
    """Assert ``action`` is refused naming ``rule`` and leaves the state unchanged."""
    return assert_refused(GAME, state, action, rule, seat)
