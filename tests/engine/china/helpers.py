"""Shared test helpers: action builders, refusal checks and a way to reach the final scoring.

Everything goes through the public contract (``GAME``) and the scenario builder; no test reads or
writes State fields.
"""

from __future__ import annotations

from typing import Any

from engine.core import IllegalAction
from engine.games.china.components import PROVINCES, SPACE_INDEX, SPACE_PROVINCES, SPACES
from engine.games.china.scenario import build
from engine.registry import get_game
from tests.engine.support import assert_refused

GAME = get_game("china")

FINISH = {"type": "finish"}
DRAW_DECK = {"type": "draw_deck"}


def house(target: str, pay: str) -> dict[str, Any]:
    return {"type": "place", "piece": "house", "target": target, "pay": pay}


def emissary(target: str, pay: str) -> dict[str, Any]:
    return {"type": "place", "piece": "emissary", "target": target, "pay": pay}


def swap(colour: str) -> dict[str, Any]:
    return {"type": "swap", "discard": colour}


def draw_display(slot: int) -> dict[str, Any]:
    return {"type": "draw_display", "slot": slot}


def play(state: Any, *actions: dict[str, Any]) -> list[dict[str, Any]]:
    """Apply ``actions`` in order (each must be legal); return all their events."""
    events: list[dict[str, Any]] = []
    for action in actions:
        assert action in GAME.legal_actions(state), f"{action} is not legal"
        events += GAME.apply(state, action)
    return events


def refused(state: Any, action: dict[str, Any], rule: str) -> IllegalAction:
    """``action`` is not listed, is refused naming ``rule``, and leaves the state untouched."""
    assert action not in GAME.legal_actions(state)
    return assert_refused(GAME, state, action, rule)


def seen(state: Any, seat: int | None = None) -> dict[str, Any]:
    """The view of ``seat`` (spectator by default)."""
    return GAME.view(state, seat)


def houses_of(state: Any) -> dict[str, int]:
    return seen(state)["board"]["houses"]


def scores(state: Any) -> list[int]:
    return [p["score"] for p in seen(state)["players"]]


def hand(state: Any, seat: int) -> list[str]:
    return sorted(seen(state, seat)["players"][seat]["hand"])


def final_scoring(desc: dict[str, Any]) -> dict[str, Any]:
    """The result of a game ending on ``desc``'s board: a final-round state (R52) in which the seat
    before the start player takes the last turn, a swap that changes no piece."""
    players = desc["players"]
    last = players - 1  # start player 0 (the default), so the round ends after seat players-1
    state = build(
        {
            **desc,
            "exhaustions": 2,
            "to_move": last,
            "hands": {last: ["R01"]},
            "display": ["G01", None, None, None],
        }
    )
    play(state, swap("red"), draw_display(0))
    result = GAME.result(state)
    assert result is not None and result["ended_by"] == "R52"
    return result


def house_counts(state: Any) -> dict[str, list[int]]:
    """Houses per province and seat, from the view (border houses counted in both provinces, R13)."""
    view = seen(state)
    counts = {p: [0] * len(view["players"]) for p in PROVINCES}
    for space, seat in view["board"]["houses"].items():
        for p in SPACE_PROVINCES[SPACE_INDEX[space]]:
            counts[PROVINCES[p]][seat] += 1
    return counts


def crowded_board(players: int, leave_free: str | None = None) -> dict[str, Any]:
    """Houses on every space but ``leave_free`` (dealt round the seats) and every dragon seal filled to
    its limit (R33), emissaries spread over the seats: the ``houses`` and ``emissaries`` of a
    scenario description."""
    houses = {s: i % players for i, s in enumerate(s for s in SPACES if s != leave_free)}
    emissaries: dict[str, dict[int, int]] = {}
    placed = [0] * players
    for province, per_seat in house_counts(build({"players": players, "houses": houses})).items():
        for _ in range(max(per_seat)):
            seat = placed.index(min(placed))
            placed[seat] += 1
            emissaries.setdefault(province, {}).setdefault(seat, 0)
            emissaries[province][seat] += 1
    return {"houses": houses, "emissaries": emissaries}


def blocking_turn(players: int) -> tuple[dict[str, Any], int]:
    """A crowded board (``crowded_board``) whose last free space is WU4, and a seat whose house on WU4
    raises no seal limit (R33), so that house blocks the board (R53): the board and that seat."""
    board = crowded_board(players, leave_free="WU4")
    counts = house_counts(build({"players": players, "houses": board["houses"]}))["WU"]
    return board, next(s for s in range(players) if counts[s] + 1 <= max(counts))


def s4_state(**extra: Any) -> Any:
    """Seed example 4 (R41), Jenő (seat 0) to move with R04 for WEI's last free space WEI4: WEI holds
    Jenő 3, Anita (1) 2 with B_ZHAO_WEI, Éva (3) B_WEI_ZHOU.  Anita's hand is R05, R06, G02."""
    houses = {"WEI1": 0, "WEI2": 0, "WEI3": 0, "WEI5": 1, "B_ZHAO_WEI": 1, "B_WEI_ZHOU": 3}
    hands = {0: ["R04", "G01", "V01"], 1: ["R05", "R06", "G02"]}
    return build({"players": 4, "houses": houses, "hands": hands, **extra})
