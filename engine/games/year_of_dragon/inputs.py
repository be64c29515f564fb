"""The input schemas (published by the HTTP API): the game options and the schema of every action type."""

from __future__ import annotations

from typing import Any

from engine.core import action_schema

from .components import ACTION_IDS, CARD_IDS, LARGE_COSTS, TILE_IDS

OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "large_privilege_cost": {
            "type": "integer",
            "default": LARGE_COSTS[0],
            "enum": list(LARGE_COSTS),
            "description": "R65: price of the large privilege, 6 yuan (2007 edition) or 7 (later printings)",
        },
        "reveal_played_card": {
            "type": "boolean",
            "default": True,
            "description": "R58a: whether the other seats see which person card (typed or wild) was played",
        },
        "first_player": {
            "type": "integer",
            "default": -1,
            "description": "R13: seat of the first player; -1 draws it at random from the seed (public)",
        },
    },
}

_PALACE = {"type": "integer", "minimum": 0, "description": "index of one of your palaces"}
_TILE = {"type": "string", "enum": list(TILE_IDS), "description": "person tile: type, _y young / _o old"}
_CARD = {"type": "string", "enum": list(CARD_IDS)}

ACTIONS: dict[str, dict[str, Any]] = {
    "court": action_schema(
        "court",
        "DP1 (R14): the two young tiles of your initial court, in person order",
        first=_TILE,
        second=_TILE,
    ),
    "place": action_schema(
        "place", "DP2/DP7 (R14, R37): palace with a free floor for the pending tile", palace=_PALACE
    ),
    "action": action_schema(
        "action",
        "DP3 (R23-R26): put your dragon on a group and carry out one of its actions",
        group={"type": "integer", "minimum": 0},
        action={"type": "string", "enum": list(ACTION_IDS)},
    ),
    "refill": action_schema("refill", "DP3 (R25): take yuan up to 3 instead of an action"),
    "build_floor": action_schema("build_floor", "DP4 (R29): add one built floor to a palace", palace=_PALACE),
    "build_palace": action_schema("build_palace", "DP4 (R29): found a new palace with one built floor"),
    "privilege": action_schema(
        "privilege", "DP5 (R34): buy one privilege", size={"type": "string", "enum": ["small", "large"]}
    ),
    "recruit": action_schema(
        "recruit",
        "DP6 (R36): play a person card and take an available tile it allows",
        card=_CARD,
        person=_TILE,
    ),
    "spend": action_schema(
        "spend", "DP6 (R36): play a card for which no tile is left; you get nothing", card=_CARD
    ),
    "replace": action_schema(
        "replace",
        "DP8 (R37a): release this person; the newcomer takes its place",
        palace=_PALACE,
        person=_TILE,
    ),
    "release_newcomer": action_schema("release_newcomer", "DP8 (R37b): the newcomer leaves the game"),
    "release": action_schema(
        "release",
        "DP9-DP12 (R42-R46): release one owed person; several are named in palace order",
        palace=_PALACE,
        person=_TILE,
    ),
}
