"""The JSON Schema of a match record (:mod:`engine.records`, docs/records.md): the one source of
``openapi/record.schema.json``, which ``tabletop spec`` writes beside the OpenAPI document and the
server publishes at ``/record.schema.json``.

It says what every record of every game has in common; what a game's own actions, events, views and
results hold is in that game's schemas (``GET /v1/games/{game}``, the OpenAPI document), which the
record refers to by the header's ``game``.  The perspective decides what may be there: a seat's or a
spectator's record has no seed and no event audiences, a full record has both.
"""

from __future__ import annotations

import json
from typing import Any

from engine.core import RESULT_FIELDS
from engine.records import FORMAT, FORMAT_TAKEBACKS, FULL, SEAT, SPECTATOR

_ISO = {"type": "string", "format": "date-time"}
_NULL = {"type": "null"}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, _NULL]}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
        **extra,
    }


_SEAT_NO = {"type": "integer", "minimum": 0}
_AUDIENCE = {
    "description": "who may see the event: everybody, everybody but the acting seat, or these seats",
    "anyOf": [{"enum": ["all", "others"]}, {"type": "array", "items": _SEAT_NO}],
}
_EVENT = {
    "type": "object",
    "description": "a game event (its fields: the game's event schemas); in a full record with its audience",
    "properties": {"type": {"type": "string"}, "visible_to": _AUDIENCE},
    "required": ["type"],
}
_VIEW = {
    "type": "object",
    "description": "the perspective's view (the game's view schema); a full record's are the spectator's",
    "properties": {"players": {"type": "array"}, "to_move": _nullable(_SEAT_NO)},
    "required": ["players", "to_move"],
}
_ACTION = {
    "type": "object",
    "description": "the action (the game's action schemas), or its masked form for another seat's secret one",
    "properties": {"type": {"type": "string"}},
    "required": ["type"],
}
_SEAT_ENTRY = _object(
    {
        "seat": _SEAT_NO,
        "kind": {"enum": ["player", "bot"]},
        "player": _nullable({"type": "string"}),
        "name": _nullable({"type": "string"}),
        "level": _nullable({"type": "string"}),
    }
)
_HEADER = _object(
    {
        "match_id": {"type": "string"},
        "game": {"type": "string"},
        "title": {"type": "string"},
        "engine_version": {"type": "string", "description": "the tabletop package that played the match"},
        "rules_version": {
            "type": "string",
            "pattern": "^[0-9a-f]{16}$",
            "description": "SHA-256 (16 hex digits) of the game's packaged RULES.md and components.json",
        },
        "players": {"type": "integer", "minimum": 1},
        "options": {"type": "object", "description": "the game options, defaults filled in"},
        "seats": {"type": "array", "items": _SEAT_ENTRY},
        "time_control": _nullable({"type": "object"}),
        "rated": {"type": "boolean"},
        "tournament": _nullable({"type": "string"}),
        "created_at": _nullable({**_ISO, "description": "null only in a record played offline"}),
        "started_at": _nullable(_ISO),
        "status": {"type": "string", "description": "the match's status when the record was read"},
    }
)
_DECISION = _object(
    {
        "n": {"type": "integer", "minimum": 1, "description": "1 for the first decision, then one more each"},
        "version": {"type": "integer", "minimum": 0, "description": "the match's version after the decision"},
        "seat": _SEAT_NO,
        "action": _ACTION,
        "at": _nullable({**_ISO, "description": "when the decision was committed; null offline"}),
        "clock": _nullable({"type": "object", "description": "the match clock after it"}),
        "events": {"type": "array", "items": _EVENT},
    },
    {
        "view": _VIEW,
        "taken_back": {
            "const": True,
            "description": "the decision was taken back (format tabletop-record/2 only; docs/records.md)",
        },
    },
)
#: A takeback (format tabletop-record/2): the seat that asked and the decisions it took back.
_TAKEBACK = _object(
    {
        "seat": _SEAT_NO,
        "decisions": {
            "type": "array",
            "items": {"type": "integer", "minimum": 1},
            "minItems": 1,
            "description": "the numbers (n) of the decisions taken back, ascending",
        },
        "requested_at": _nullable({**_ISO, "description": "null offline"}),
        "accepted_at": _nullable({**_ISO, "description": "when the last acceptance came; null offline"}),
    }
)
_RESULT = {
    "type": "object",
    "description": "the game's result (its result schema)",
    "properties": {"scores": {"type": "array"}, "ranking": {"type": "array", "items": _SEAT_NO}},
    "required": list(RESULT_FIELDS),
}
#: A full record's events carry their audience; no other perspective's do.
_WITH_AUDIENCES = {"items": {"properties": {"events": {"items": {"required": ["visible_to"]}}}}}
_WITHOUT_AUDIENCES = {"items": {"properties": {"events": {"items": {"not": {"required": ["visible_to"]}}}}}}

#: ``include=chat``: the match's chat as the perspective may read it (the service's docs/api/chat.md).
_CHAT = {
    "type": "array",
    "description": "the match's chat messages, oldest first (asked for with include=chat)",
    "items": {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "channel": {"enum": ["players", "spectators"]},
            "author": {"type": "string"},
            "seat": _nullable(_SEAT_NO),
            "name": {"type": "string"},
            "text": {"type": "string"},
            "at": {"type": "number"},
            "erased": {"type": "boolean"},
        },
        "required": ["id", "channel", "author", "seat", "name", "text", "at"],
    },
}

RECORD_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Tabletop match record",
    "description": (
        f"A match record, format {FORMAT} or, holding takebacks, {FORMAT_TAKEBACKS} (docs/records.md)."
    ),
    **_object(
        {
            "format": {"enum": [FORMAT, FORMAT_TAKEBACKS]},
            "perspective": {"enum": [FULL, SEAT, SPECTATOR]},
            "seat": _nullable(_SEAT_NO),
            "header": _HEADER,
            "decisions": {"type": "array", "items": _DECISION},
            "result": _nullable(_RESULT),
            "setup": _nullable(_object({"seed": {"type": "integer"}})),
        },
        {
            "initial_view": _VIEW,
            "chat": _CHAT,
            "takebacks": {
                "type": "array",
                "items": _TAKEBACK,
                "minItems": 1,
                "description": "the takebacks, in the order they took effect (format tabletop-record/2)",
            },
        },
    ),
    "allOf": [
        {  # a /1 reader must never meet a taken-back decision: such a record is /2
            "if": {"properties": {"format": {"const": FORMAT}}},
            "then": {
                "not": {"required": ["takebacks"]},
                "properties": {"decisions": {"items": {"not": {"required": ["taken_back"]}}}},
            },
            "else": {"required": ["takebacks"]},
        },
        {
            "if": {"properties": {"perspective": {"const": FULL}}},
            "then": {
                "properties": {"seat": _NULL, "setup": {"type": "object"}, "decisions": _WITH_AUDIENCES}
            },
        },
        {
            "if": {"properties": {"perspective": {"const": SEAT}}},
            "then": {"properties": {"seat": _SEAT_NO, "setup": _NULL, "decisions": _WITHOUT_AUDIENCES}},
        },
        {
            "if": {"properties": {"perspective": {"const": SPECTATOR}}},
            "then": {"properties": {"seat": _NULL, "setup": _NULL, "decisions": _WITHOUT_AUDIENCES}},
        },
    ],
}


def render() -> str:
    """The schema as committed in ``openapi/record.schema.json`` (stable formatting)."""
    return json.dumps(RECORD_SCHEMA, indent=2, ensure_ascii=False) + "\n"
