"""Match records (issue 45): the query of one match's record and of the exports, and the record as the
spec shows it (its full JSON Schema is ``/record.schema.json``, :mod:`engine.record_schema`)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from engine.records import FULL, SEAT, SPECTATOR
from service.http.schemas.accounts import PLAYER_ID
from service.http.schemas.chat import ChatMessageSchema

#: The most records one export call writes before its cursor line.
MAX_EXPORT_LIMIT = 10_000
DEFAULT_EXPORT_LIMIT = 1000
#: A moment: ISO-8601 or epoch seconds.
_MOMENT = (
    r"^([0-9]{1,12}(\.[0-9]{1,6})?"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9:.]{2,15})?(Z|[+-][0-9]{2}:?[0-9]{2})?)$"
)


#: ``include`` of a record: ``views``, ``chat`` or both (comma-separated).
_INCLUDE = r"^(views|chat)(,(views|chat))?$"


class RecordQuerySchema(Schema):
    include = fields.String(
        validate=validate.Regexp(_INCLUDE),
        metadata={
            "description": "`views`: each decision's view after it, and `initial_view`, as the record's "
            "perspective sees them (a full record's are the spectator's). `chat`: the match's chat "
            "(`chat`, docs/api/chat.md) as the perspective may read it. Both: `views,chat`."
        },
    )
    perspective = fields.String(
        data_key="as",
        validate=validate.OneOf([FULL, SEAT, SPECTATOR]),
        metadata={
            "description": "The perspective: `full` (once the match is over: the default then, with the "
            "seed), `seat` (with `seat`: a seat reads its own while the match is in play; anyone any "
            "seat's once it is over), `spectator` (anyone)."
        },
    )
    seat = fields.Integer(validate=validate.Range(min=0, max=63), metadata={"description": "With `as=seat`."})


class ExportQuerySchema(Schema):
    game = fields.String(validate=validate.Length(min=1, max=64), metadata={"description": "Only this game."})
    rated = fields.Boolean(metadata={"description": "Only rated (or unrated) matches."})
    since = fields.String(
        validate=validate.Regexp(_MOMENT),
        metadata={
            "description": "Only matches finished at or after this time (ISO-8601, UTC if no zone; "
            "or epoch seconds)."
        },
    )
    until = fields.String(
        validate=validate.Regexp(_MOMENT),
        metadata={"description": "Only matches finished at or before this time (as `since`)."},
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=200),
        metadata={"description": "The `cursor` of the last export's last line: go on from there."},
    )
    limit = fields.Integer(
        validate=validate.Range(min=1, max=MAX_EXPORT_LIMIT),
        metadata={"description": f"Records before the cursor line (default {DEFAULT_EXPORT_LIMIT})."},
    )
    include = fields.String(
        validate=validate.OneOf(["chat"]),
        metadata={"description": "`chat`: each record carries its match's chat (`chat`, both channels)."},
    )


class PlayerExportQuerySchema(ExportQuerySchema):
    player = fields.String(
        validate=validate.Regexp(PLAYER_ID),
        metadata={"description": "With an app key: the player whose matches (a player token: its own)."},
    )


class RecordSchema(Schema):
    """A match record (format `tabletop-record/1`, or `tabletop-record/2` when it holds takebacks; its
    JSON Schema: `/record.schema.json`)."""

    format = fields.String(required=True)
    perspective = fields.String(required=True, validate=validate.OneOf([FULL, SEAT, SPECTATOR]))
    seat = fields.Integer(required=True, allow_none=True)
    header = fields.Dict(required=True)
    decisions = fields.List(fields.Dict(), required=True)
    takebacks = fields.List(
        fields.Dict(),
        metadata={
            "description": "Format `tabletop-record/2` only: the takebacks, in order (`seat`, the "
            "`decisions` they took back by number, `requested_at`, `accepted_at`); those decisions stay "
            "in `decisions` where they were made, marked `taken_back`."
        },
    )
    initial_view = fields.Dict()
    chat = fields.List(
        fields.Nested(ChatMessageSchema),
        metadata={"description": "`include=chat`: the match's chat as the perspective may read it."},
    )
    result = fields.Dict(required=True, allow_none=True)
    setup = fields.Dict(required=True, allow_none=True)
