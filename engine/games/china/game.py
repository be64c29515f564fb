"""The China game object: the engine contract (engine/core.py) wired to this package's modules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import StateCodec, action_schema, check_players, check_shape, check_turn, resolve_options

from . import rules
from .components import COLOURS, DISPLAY_SIZE, PLAYER_COUNTS, PROVINCES, SPACES
from .heuristic import heuristic
from .legal import legal_actions
from .payments import PAY_CARDS
from .scoring import result
from .state import OVER, State
from .view import determinize, view

_COLOUR = {"type": "string", "enum": list(COLOURS)}
_PAY = {
    "type": "string",
    "enum": list(PAY_CARDS),
    "description": "the cards paid: their colours joined by '+' in colour order (red, green, ...)",
}
_SPACE = {"type": "string", "enum": list(SPACES)}


class China(StateCodec):
    """China (Michael Schacht) on the Border Disputes board, 3-5 players (RULES.md)."""

    id = "china"
    state_class = State
    title = "China"
    min_players = min(PLAYER_COUNTS)
    max_players = max(PLAYER_COUNTS)
    rules_file = str(Path(__file__).with_name("RULES.md"))
    search_options: ClassVar[dict[str, Any]] = {}
    options: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "start_player": {
                "type": "integer",
                "default": -1,
                "description": "seat of the start player (Emperor), or -1 to draw it at random (R19)",
            },
            "fortifications": {
                "type": "boolean",
                "default": False,
                "description": "fortification variant (R21, R64, R65)",
            },
        },
    }
    actions: ClassVar[dict[str, dict[str, Any]]] = {
        "place": action_schema(
            "place",
            "place one piece and pay for it (R26-R34): a house on a free space or an emissary on a "
            "province's dragon seal",
            piece={"type": "string", "enum": ["house", "emissary"]},
            target={"type": "string", "enum": [*SPACES, *PROVINCES]},
            pay=_PAY,
        ),
        "finish": action_schema("finish", "stop after one piece and go on to draw (R26)"),
        "swap": action_schema(
            "swap", "discard one card instead of placing, then take one (R49)", discard=_COLOUR
        ),
        "draw_deck": action_schema("draw_deck", "take the top card of the draw pile (R45, R49)"),
        "draw_display": action_schema(
            "draw_display",
            "take a face-up display card (R45, R49)",
            slot={"type": "integer", "minimum": 0, "maximum": DISPLAY_SIZE - 1},
        ),
        "fortify": action_schema(
            "fortify",
            "variant: put your fortification under one of your houses, paying two payments for one of "
            "its provinces (R64)",
            space=_SPACE,
            province={"type": "string", "enum": list(PROVINCES)},
            pay=_PAY,
        ),
    }

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
        check_players(self, players)
        return rules.setup(players, resolve_options(self.options, options), seed)

    def to_move(self, state: State) -> int | None:
        return None if state.phase == OVER else state.seat

    def legal_actions(self, state: State) -> list[dict[str, Any]]:
        return legal_actions(state)

    def apply(self, state: State, action: dict[str, Any], seat: int | None = None) -> list[dict[str, Any]]:
        mover = check_turn(self.to_move(state), seat)
        return rules.apply(state, action, check_shape(self.actions, action), mover)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def result(self, state: State) -> dict[str, Any] | None:
        return result(state)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)
