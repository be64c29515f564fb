"""Match creation, match documents and listings."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.ai import LEVELS
from service.schemas.fields import FullMatch, JsonInteger, bot_level, think_ms
from service.store import STATUSES

#: A seat name is shown to every other player: printable text, not blank.  No control characters
#: (they could forge lines in a client's log or terminal) and no lone UTF-16 surrogates (JSON can
#: escape them, but they are not text); the surrogates are checked apart, as a range of them makes the
#: pattern invalid for ECMA-style regex engines that clients and fuzzers validate with.
_CONTROL = r"\u0000-\u001f\u007f-\u009f"
NAME_PATTERN = rf"^[^{_CONTROL}]*[^\s{_CONTROL}][^{_CONTROL}]*$"


def _no_lone_surrogates(value: str) -> None:
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise ValidationError("must be printable text, not blank")


class SeatRequestSchema(Schema):
    name = fields.String(
        required=True,
        validate=[
            validate.Length(min=1, max=40),
            FullMatch(NAME_PATTERN, error="must be printable text, not blank"),
            _no_lone_surrogates,
        ],
    )
    kind = fields.String(load_default="human", validate=validate.OneOf(["human", "bot"]))
    level = bot_level("Bots only")
    think_ms = think_ms("Bots only: thinking budget per decision")

    @validates_schema
    def _bot_fields_only_for_bots(self, data: dict[str, Any], **_: Any) -> None:
        if data.get("kind", "human") == "human":
            for name in ("level", "think_ms"):
                if name in data:
                    raise ValidationError("only bot seats have this", name)


class CreateMatchSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    seats = fields.List(
        fields.Nested(SeatRequestSchema),
        required=True,
        validate=validate.Length(min=1, max=8),
        metadata={"description": "One entry per seat, in seat order; their number is the player count."},
    )
    options = fields.Dict(
        load_default=dict, metadata={"description": "Game options; see `GET /v1/games/{game}`."}
    )
    seed = JsonInteger(
        validate=validate.Range(min=0, max=2**63 - 1),
        metadata={"description": "Only honoured when the server allows it (TABLETOP_ALLOW_SEED)."},
    )


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(["human", "bot"]))
    level = fields.String(validate=validate.OneOf(LEVELS))
    think_ms = fields.Integer()


class MatchSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True, metadata={"description": "Bumped by every move; the ETag."})
    players = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    to_move = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Seat pending; null when over."}
    )
    created_at = fields.Float(required=True)
    updated_at = fields.Float(required=True)


class MatchSchema(MatchSummarySchema):
    your_seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The caller's seat; null for spectators."}
    )
    options = fields.Dict(required=True)
    result = fields.Dict(
        required=True, allow_none=True, metadata={"description": "Scores, ranking and tie-break once over."}
    )
    view = fields.Dict(required=True, metadata={"description": "The game state as the caller may see it."})


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True, metadata={"description": "Bearer token of this seat; shown only once."}
    )


class CreatedMatchSchema(MatchSchema):
    tokens = fields.List(fields.Nested(SeatTokenSchema), required=True)


class MatchListQuerySchema(Schema):
    game = fields.String(validate=validate.Length(min=1, max=64))
    status = fields.String(validate=validate.OneOf(STATUSES))
    cursor = fields.String(
        validate=FullMatch(r"^[0-9]{1,18}$"),
        metadata={"description": "`next_cursor` of the previous page."},
    )
    limit = fields.Integer(validate=validate.Range(min=1, max=100))


class MatchListSchema(Schema):
    matches = fields.List(fields.Nested(MatchSummarySchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "null on the last page."}
    )


class ConditionalGetSchema(Schema):
    if_none_match = fields.String(
        data_key="If-None-Match",
        metadata={"description": "An ETag from an earlier response: 304 if unchanged."},
    )
