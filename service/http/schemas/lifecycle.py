"""Open seats, joining, leaving, clocks and rematches (see service/domain/matches/lifecycle.py and
service/domain/matches/clocks.py)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.ai import LEVELS
from service.domain.matches.clocks import DEFAULT_MAX_TIMEOUTS, DEFAULT_ON_TIMEOUT, MAX_SECONDS, WARNING_SHARE
from service.domain.matches.seating import DEFAULT_ON_LEAVE, PRIVATE, PUBLIC
from service.http.schemas.fields import JsonInteger

_SECONDS = validate.Range(min=1, max=MAX_SECONDS)
VISIBILITIES = (PUBLIC, PRIVATE)
VISIBILITY = (
    "`public`: listed, readable by anyone, and any open seat may be joined; `private`: not listed, "
    "readable only by its players (seat tokens, player tokens; a player a seat is kept for too), the key "
    "of the app that created it and "
    "the holders of its passes (the creator token, its invite codes; they read as spectators): anyone "
    "else gets 404; each open seat joined with its own invite code (returned to the creator) "
    "or by the player it is kept for. Default: `private` for a match created with an app key or a "
    "player token, `public` otherwise."
)


class OnLeaveSchema(Schema):
    then = fields.String(
        load_default=DEFAULT_ON_LEAVE["then"],
        validate=validate.OneOf(["bot", "abort"]),
        metadata={
            "description": "`bot`: a bot takes a resigned seat and the match goes on; `abort`: the same, "
            "but the match ends `aborted` when the last human resigns."
        },
    )
    level = fields.String(
        load_default=DEFAULT_ON_LEAVE["level"],
        validate=validate.OneOf(LEVELS),
        metadata={"description": "The level of the bot that takes the seat."},
    )


class TimeControlSchema(Schema):
    per_move_seconds = JsonInteger(
        validate=_SECONDS,
        metadata={"description": "Each decision of a human seat within this many seconds (1 s to 30 days)."},
    )
    budget_seconds = JsonInteger(
        validate=_SECONDS,
        metadata={"description": "Chess-style: each human seat's time for the whole match."},
    )
    increment_seconds = JsonInteger(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_SECONDS),
        metadata={"description": "Added to a seat's budget after each of its decisions."},
    )
    on_timeout = fields.String(
        load_default=DEFAULT_ON_TIMEOUT,
        validate=validate.OneOf(LEVELS),
        metadata={"description": "The level of the bot that decides for a seat out of time."},
    )
    max_timeouts = JsonInteger(
        load_default=DEFAULT_MAX_TIMEOUTS,
        validate=validate.Range(min=1, max=1000),
        metadata={"description": "After this many timeouts of one seat, its bot keeps the seat."},
    )
    warning_seconds = JsonInteger(
        validate=validate.Range(min=0, max=MAX_SECONDS),
        metadata={
            "description": "The player deciding gets a `clock_warning` feed entry this many seconds "
            "before the deadline (0: never; none either when the decision is no longer than this). "
            f"Default: {round(WARNING_SHARE * 100)}% of the decision's time (`per_move_seconds`, else "
            "`budget_seconds`), at most the server's `TABLETOP_CLOCK_WARNING_SECONDS` (an hour by "
            "default): 6 s of a 30-s move, an hour of a day's."
        },
    )

    @validates_schema
    def _a_limit(self, data: dict[str, Any], **_: Any) -> None:
        if "per_move_seconds" not in data and "budget_seconds" not in data:
            raise ValidationError("give per_move_seconds, budget_seconds or both", "per_move_seconds")


class ClockSchema(Schema):
    per_move_seconds = fields.Integer(required=True, allow_none=True)
    budget_seconds = fields.Integer(required=True, allow_none=True)
    increment_seconds = fields.Integer(required=True)
    on_timeout = fields.String(required=True, validate=validate.OneOf(LEVELS))
    max_timeouts = fields.Integer(required=True)
    warning_seconds = fields.Float(
        required=True,
        metadata={
            "description": "How long before a deadline the player deciding is warned (`clock_warning`): "
            "the time control's own, or its default; 0: never."
        },
    )
    remaining_seconds = fields.List(
        fields.Float(allow_none=True),
        required=True,
        metadata={
            "description": "Per seat: budget left (counting down for the seat deciding); null without one."
        },
    )
    deadline = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "When the pending decision times out (epoch seconds); null if no human decides."
        },
    )
    timeouts = fields.List(
        fields.Integer(), required=True, metadata={"description": "Timeouts so far, per seat."}
    )


class InviteSchema(Schema):
    seat = fields.Integer(required=True)
    code = fields.String(required=True, metadata={"description": "Joins this seat once; shown only here."})


class SeatChoice(fields.Field[int | str]):
    """A seat number or ``"any"`` (the first open seat)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | str:
        if value == "any" or (isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 8):
            return value  # type: ignore[no-any-return]
        raise ValidationError('a seat number (0-7) or "any"')


class RematchSchema(Schema):
    match_id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "The caller's seat in the rematch."})
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "Its bearer token; shown only once. Null for a player (its tokens act)."},
    )
    status = fields.String(
        required=True, metadata={"description": "`waiting` until every player has called."}
    )
