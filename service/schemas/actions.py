"""Legal actions and moves."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.schemas.fields import FullMatch, JsonInteger

#: The spec component holding the anyOf of every registered game's action schemas (see service/spec.py).
ACTION = {"allOf": [{"$ref": "#/components/schemas/Action"}]}


class ActionRequestSchema(Schema):
    action = fields.Dict(
        required=True,
        metadata={"description": "One of the match's game actions.", **ACTION},
    )
    expected_version = JsonInteger(
        validate=validate.Range(min=0),
        metadata={"description": "The version the move is based on, for clients that cannot send If-Match."},
    )


class ActionHeadersSchema(Schema):
    if_match = fields.String(
        data_key="If-Match",
        validate=FullMatch(r'^\s*"[0-9]{1,18}"\s*$'),
        metadata={"description": 'The match version the move is based on, as returned in ETag (`"12"`).'},
    )
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        validate=validate.Length(min=1, max=255),
        metadata={
            "description": "Retries with the same key return the stored response; nothing is applied twice."
        },
    )


class MoveResultSchema(Schema):
    version = fields.Integer(required=True)
    status = fields.String(required=True)
    to_move = fields.Integer(required=True, allow_none=True)
    result = fields.Dict(required=True, allow_none=True)
    view = fields.Dict(required=True)
    events = fields.List(
        fields.Dict(), required=True, metadata={"description": "This move's events you may see."}
    )


class LegalActionsSchema(Schema):
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    actions = fields.List(fields.Dict(metadata=ACTION), required=True)
