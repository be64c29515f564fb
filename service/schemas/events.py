"""Event feed and action log."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from service.schemas.fields import FullMatch

EVENT_ID = r"^[0-9]{1,18}-[0-9]{1,18}$"

_SEATS = {"type": "array", "items": {"$ref": "#/components/schemas/Seat"}}


def _service_event(kind: str, description: str, closed: bool = True, **fields: Any) -> dict[str, Any]:
    """JSON schema of an event the service (not a game) writes; ``closed=False`` for events whose
    fields are still growing, so a new field never makes a valid response fail the spec."""
    return {
        "type": "object",
        "description": description,
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": not closed,
    }


#: Events of every match, whatever the game (their ``type`` never clashes with a game's event):
#: each game's event union in the spec (service/spec.py) lists them beside the game's own.
SERVICE_EVENTS: dict[str, dict[str, Any]] = {
    "match_created": _service_event(
        "match_created",
        "The match was created: its game, seats and options.",
        game={"type": "string"},
        seats=_SEATS,
        options={"type": "object"},
    ),
    "match_started": _service_event("match_started", "The last open seat was taken.", closed=False),
    "seat_joined": _service_event("seat_joined", "A player took an open seat.", closed=False),
    "resigned": _service_event("resigned", "A seat resigned.", closed=False),
    "timeout": _service_event("timeout", "A seat ran out of time.", closed=False),
    "aborted": _service_event("aborted", "The match was aborted.", closed=False),
}


class EventsQuerySchema(Schema):
    after = fields.String(
        validate=FullMatch(EVENT_ID),
        metadata={"description": "Return events after this event id (default: from the start)."},
    )
    wait = fields.Float(
        validate=validate.Range(min=0, max=30),
        metadata={"description": "Long-poll: wait up to this many seconds for an event you may see."},
    )


class EventsHeadersSchema(Schema):
    last_event_id = fields.String(
        data_key="Last-Event-ID",
        validate=FullMatch(EVENT_ID),
        metadata={"description": "SSE reconnection: same as `after`."},
    )


class EventsPageSchema(Schema):
    events = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "Events you may see, oldest first; each has `id`, `type` and its data."},
    )
    last_id = fields.String(
        required=True,
        metadata={"description": "Cursor for the next call's `after` (covers hidden events too)."},
    )
    version = fields.Integer(required=True)
    status = fields.String(required=True)


class LogEntrySchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "The version this action produced."})
    seat = fields.Integer(required=True)
    action = fields.Dict(required=True)


class LogSchema(Schema):
    complete = fields.Boolean(
        required=True,
        metadata={
            "description": "True once the match is over: every action in full, and the seed to replay it."
        },
    )
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    seed = fields.Integer(required=True, allow_none=True)
    entries = fields.List(fields.Nested(LogEntrySchema), required=True)
