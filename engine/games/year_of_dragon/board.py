"""In the Year of the Dragon's board as data for clients (``GET /v1/games/year_of_dragon``: ``board``).

The game has no map (components.json: ``tracks.map`` is null): its board is the event row (one event per
month, R21), the action cards dealt into groups each month (R22), the person track (R9, R19), the
scoring track and each player's palaces of up to ``MAX_FLOORS`` floors.  They come from the component
data (:mod:`components`), with the colour and symbol of each person type as the tiles show them; the
layout (new data) gives each area a box, [x, y, width, height] in board units, stacked as a person
sees the table: the event row on top, the groups, the person track, then one row of palaces per player.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.games.year_of_dragon import components as c

_DATA = json.loads(Path(c.__file__).with_name("components.json").read_text(encoding="utf-8"))
WIDTH = 960
#: The areas of the table, top to bottom: id -> [x, y, width, height]; ``players`` holds one row per seat.
AREAS: dict[str, list[int]] = {
    "event_row": [10, 10, 940, 64],
    "action_groups": [10, 84, 940, 92],
    "person_track": [10, 186, 940, 56],
    "players": [10, 252, 940, 0],
}
#: Height of one player's row in ``players`` (palaces of up to MAX_FLOORS floors, persons beside them).
PLAYER_ROW = 150


def _build() -> dict[str, Any]:
    events = {e["id"]: e["name"] for e in _DATA["events"]["types"]}
    actions = {a["id"]: a["name"] for a in _DATA["action_cards"]["cards"]}
    return {
        "game": "year_of_dragon",
        "width": WIDTH,
        "months": c.ROUNDS,
        "max_floors": c.MAX_FLOORS,
        "player_row": PLAYER_ROW,
        "areas": [{"id": k, "at": v} for k, v in AREAS.items()],
        "events": [{"id": e, "name": events[e]} for e in c.EVENT_IDS],
        "actions": [{"id": a, "name": actions[a]} for a in c.ACTION_IDS],
        "person_types": [
            {"id": t["id"], "name": t["name"], "colour": t["color"], "symbol": t["symbol"]}
            for t in _DATA["person_types"]
        ],
    }


BOARD: dict[str, Any] = _build()

_NAMED = {
    "type": "object",
    "properties": {"id": {"type": "string"}, "name": {"type": "string", "description": "As printed."}},
    "required": ["id", "name"],
    "additionalProperties": False,
}
BOARD_SCHEMA: dict[str, Any] = {
    "title": "YearOfDragonBoardLayout",
    "description": "The table of In the Year of the Dragon: the event row, the action groups, the person "
    "track and each player's palaces (no map), with a layout box per area and the person types' colours.",
    "type": "object",
    "properties": {
        "game": {"const": "year_of_dragon"},
        "width": {"type": "number", "description": "Width of the layout, in board units."},
        "months": {"type": "integer", "description": "Months (rounds) in the event row (R21)."},
        "max_floors": {"type": "integer", "description": "Floors a palace may have at most."},
        "player_row": {"type": "number", "description": "Height of each player's row in `players`."},
        "areas": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"enum": list(AREAS)},
                    "at": {
                        "type": "array",
                        "items": {"type": "number"},
                        "minItems": 4,
                        "maxItems": 4,
                        "description": "[x, y, width, height] in board units; `players` grows by "
                        "`player_row` per seat.",
                    },
                },
                "required": ["id", "at"],
                "additionalProperties": False,
            },
        },
        "events": {"type": "array", "items": _NAMED, "description": "The event types (R21)."},
        "actions": {"type": "array", "items": _NAMED, "description": "The action cards (R22)."},
        "person_types": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "colour": {"type": "string", "description": "The tile's colour."},
                    "symbol": {"type": "string", "description": "The symbol the tile shows."},
                },
                "required": ["id", "name", "colour", "symbol"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["game", "width", "months", "max_floors", "player_row", "areas", "events", "actions",
                 "person_types"],
    "additionalProperties": False,
}
