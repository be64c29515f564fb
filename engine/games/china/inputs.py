"""The input schemas of China (published by the API): the game options and one schema per action type.

The API serves these to clients and checks an action's shape against them before the membership test,
so a malformed field is named whatever the phase.  Spaces, provinces and colours are named by their
component ids; a payment by its cards' colours (see :mod:`payments`).
"""

from __future__ import annotations

from typing import Any

from engine.core import action_schema

from .components import COLOURS, DISPLAY_SIZE, PROVINCES, SPACES
from .payments import PAY_CARDS

_COLOUR = {"type": "string", "enum": list(COLOURS)}
_PAY = {
    "type": "string",
    "enum": list(PAY_CARDS),
    "description": "the cards paid: their colours joined by '+' in colour order (red, green, ...)",
}
_SPACE = {"type": "string", "enum": list(SPACES)}


OPTIONS: dict[str, Any] = {
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
ACTIONS: dict[str, dict[str, Any]] = {
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
