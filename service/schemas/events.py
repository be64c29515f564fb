"""Event feed and action log."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.schemas.fields import FullMatch

EVENT_ID = r"^[0-9]{1,18}-[0-9]{1,18}$"


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
