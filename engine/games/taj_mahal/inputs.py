"""The input schemas of Taj Mahal (published by the API): its (empty) options and one schema per action type.

The API serves these to clients, and ``apply`` (engine.core.GameBase) checks an action's shape against
them before the membership test, so a malformed field is named whatever the phase.
"""

from __future__ import annotations

from typing import Any

from engine.core import action_schema

OPTIONS: dict[str, Any] = {"type": "object", "properties": {}}  # the game has no options

_CARD = {"type": "string", "description": "card id, e.g. 'red-03'"}
_CITY = {"type": "string", "description": "city id of the current province"}
ACTIONS: dict[str, dict[str, Any]] = {
    "play": action_schema(
        "play",
        "R24: play one coloured card, optionally with one white or special card ('' for none)",
        card=_CARD,
        extra={"type": "string", "description": "white or special card id, or '' for none"},
    ),
    "withdraw": action_schema("withdraw", "R32: withdraw from the visit"),
    "palace": action_schema("palace", "R36: place one regular palace (D2)", city=_CITY),
    "crown": action_schema("crown", "R37: place the crowned palace (D2)", city=_CITY),
    "take": action_schema("take", "R48: take one display card (D3)", card=_CARD),
}
