"""Legal actions and moves."""

from __future__ import annotations

import re

from marshmallow import Schema, ValidationError, fields, validate

from service.http.schemas.fields import FullMatch, JsonInteger
from service.storage.matches import STATUSES

#: An ETag as the API sends it: a version in double quotes (RFC 9110 entity-tag), written as the API
#: writes it (no leading zeros, no sign): entity tags compare as strings, so ``"00"`` is not ``"0"``.
IF_MATCH = r'^\s*"(0|[1-9][0-9]{0,17})"\s*$'


class QuotedVersion(FullMatch):
    """Refuse anything but a quoted version (:data:`IF_MATCH`), showing the quoted form of an unquoted
    one: HTTP entity tags are quoted, and a client that sends ``If-Match: 12`` should learn how to fix
    it.  A pattern validator, so the move's fast path reads its pattern (:mod:`service.http.fast_path`)."""

    def __init__(self) -> None:
        super().__init__(IF_MATCH)

    def __call__(self, value: str) -> str:  # type: ignore[override]  # our fields hold text, never bytes
        if self.regex.fullmatch(value) is None:  # type: ignore[call-overload]  # a str pattern (__init__)
            bare = value.strip().strip('"')
            hint = f' (send If-Match: "{int(bare)}")' if re.fullmatch("[0-9]{1,18}", bare) else ""
            raise ValidationError(f"must be a version in double quotes, written as in the ETag header{hint}")
        return value


#: The spec component holding the anyOf of every registered game's action schemas (see service/http/spec/).
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
        validate=QuotedVersion(),
        metadata={
            "description": 'The match version the move is based on, as returned in ETag, quoted (`"12"`).',
            "pattern": IF_MATCH,
        },
    )
    idempotency_key = fields.String(
        data_key="Idempotency-Key",
        validate=validate.Length(min=1, max=255),
        metadata={
            "description": "Retries with the same key return the stored response; nothing is applied twice."
        },
    )


class DecisionSchema(Schema):
    """A pending decision, whole (issue 44): what a bot needs to decide without another request."""

    version = fields.Integer(
        required=True, metadata={"description": "The match version the decision is pending at: move with it."}
    )
    seat = fields.Integer(required=True, metadata={"description": "The seat that decides (yours)."})
    view = fields.Dict(
        required=True, metadata={"description": "Your seat's view, as `GET /v1/matches/{id}` shows it."}
    )
    legal_actions = fields.List(
        fields.Dict(metadata=ACTION),
        required=True,
        metadata={"description": "Your legal actions, as `GET /v1/matches/{id}/legal-actions` lists them."},
    )


class MoveResultSchema(Schema):
    game = fields.String(
        required=True, metadata={"description": "The match's game: it tells the shapes below."}
    )
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    to_move = fields.Integer(required=True, allow_none=True)
    result = fields.Dict(required=True, allow_none=True)
    view = fields.Dict(required=True)
    events = fields.List(
        fields.Dict(), required=True, metadata={"description": "This move's events you may see."}
    )
    next_decision = fields.Nested(
        DecisionSchema,
        required=True,
        allow_none=True,
        metadata={
            "description": "Your next decision when it is yours again at once (the same seat still to "
            "decide after this move: a run of decisions), with your view and legal actions; null when "
            "another seat, a bot or nobody decides next."
        },
    )


class LegalActionsSchema(Schema):
    game = fields.String(
        required=True, metadata={"description": "The match's game: it tells the shapes below."}
    )
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    actions = fields.List(fields.Dict(metadata=ACTION), required=True)
