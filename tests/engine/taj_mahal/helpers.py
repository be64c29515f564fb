"""Fixture maps of examples.md and small helpers to act by card name, as the scenarios are written."""

from __future__ import annotations

from typing import Any

from engine.core import Event
from engine.games.taj_mahal import GAME
from engine.games.taj_mahal.scenario import card_named, join_maps, ring
from engine.games.taj_mahal.state import PLACE, TAKE, State

F1 = ring("X", fortified=(4,))  # one ring province X, X4 fortified
F2 = ring("Y", fortified=(1, 2))  # one ring province Y, Y1 and Y2 fortified
F3 = join_maps(
    *(ring(p) for p in "ABCDEFGHI"),
    roads=(
        ("A4", "B1"),
        ("A4", "C1"),
        ("A2", "E1"),
        ("A1", "D1"),
        ("A3", "H1"),
        ("A3", "I1"),
        ("H1", "B2"),
        ("I1", "G1"),
        ("D1", "C4"),
        ("C4", "B3"),
    ),
)
NEXT = ring("Z")  # an unconnected province for the next visit, so a visit's end can be watched


def with_next(board: dict[str, Any]) -> dict[str, Any]:
    return join_maps(board, NEXT)


def card(s: State, seat: int, name: str) -> str:
    """Id of a card called ``name`` (``red[E,V]``, ``SPANY``) in ``seat``'s hand or special cards."""
    p = s.players[seat]
    return card_named(s.comp, p.hand + p.specials, name)


def play(s: State, name: str, extra: str | None = None) -> list[Event]:
    """The player to move plays ``name`` (plus ``extra``), by card name."""
    seat = GAME.to_move(s)
    action = {"type": "play", "card": card(s, seat, name), "extra": card(s, seat, extra) if extra else ""}
    return GAME.apply(s, action)


def act(s: State, kind: str, **fields: Any) -> list[Event]:
    return GAME.apply(s, {"type": kind, **fields})


def place_any(s: State) -> list[Event]:
    """D2: put the palaces on the first cities offered."""
    events = []
    while s.phase == PLACE:
        events += GAME.apply(s, GAME.legal_actions(s)[0])
    return events


def take_any(s: State) -> list[Event]:
    """D3: take whatever display cards are offered (examples.md asserts only counts)."""
    events = []
    while s.phase == TAKE:
        events += act(s, "take", card=GAME.legal_actions(s)[0]["card"])
    return events


def events_of(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def prizes(events: list[Event]) -> set[str]:
    return {e["symbol"] for e in events_of(events, "prize")}


def points(events: list[Event]) -> int:
    return sum(e["points"] for e in events_of(events, "scored"))
