"""Match creation, match documents and listings."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.ai import LEVELS
from service.domain import names
from service.domain.matches.seating import BOT, HUMAN, OPEN
from service.http.schemas.fields import FullMatch, JsonBoolean, JsonInteger, bot_level, think_ms
from service.http.schemas.lifecycle import (
    VISIBILITIES,
    VISIBILITY,
    ClockSchema,
    InviteSchema,
    OnLeaveSchema,
    SeatChoice,
    TimeControlSchema,
)
from service.storage.matches import STATUSES

#: A seat name is shown to every other player: the rule is :func:`service.domain.names.normalise` (NFKC,
#: spaces collapsed, no control, format or separator characters, at most 40 characters).  The spec
#: publishes a coarser pattern (no control characters, not blank): JSON Schema cannot name Unicode
#: categories in the ECMA-style regex dialect clients and fuzzers validate with.
_CONTROL = r"\u0000-\u001f\u007f-\u009f"
NAME_PATTERN = rf"^[^{_CONTROL}]*[^\s{_CONTROL}][^{_CONTROL}]*$"


class SeatName(fields.String):
    """A seat's name, normalised by the names rule; a refused name is a 422 saying why."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        raw = super()._deserialize(value, attr, data, **kwargs)
        if len(raw) > names.MAX_LENGTH:  # as sent, too: the spec's maxLength holds for the raw text
            raise ValidationError(f"is longer than {names.MAX_LENGTH} characters")
        try:
            return names.normalise(raw)
        except names.BadName as exc:
            raise ValidationError(str(exc)) from None


def seat_name(**kwargs: Any) -> SeatName:
    metadata = kwargs.pop("metadata", {})
    described = f"{metadata.get('description', '')} {NAME_RULE}".strip()
    return SeatName(
        # What the spec shows; a normalised name always passes them.
        validate=[
            validate.Length(min=1, max=names.MAX_LENGTH),
            FullMatch(NAME_PATTERN, error="must be printable text, not blank"),
        ],
        metadata={**metadata, "description": described},
        **kwargs,
    )


NAME_RULE = (
    "Stored normalised (NFKC, runs of spaces collapsed, trimmed); refused when empty, longer than "
    f"{names.MAX_LENGTH} characters, or holding control, invisible formatting (bidirectional overrides, "
    "zero-width) or line/paragraph separator characters (see \"Names\" in the docs' Matches guide)."
)


class SeatRequestSchema(Schema):
    name = seat_name(
        metadata={
            "description": "Required but for open seats (named by who joins) and seats naming a `player` "
            "(the player's display name unless given)."
        }
    )
    player = fields.String(
        validate=validate.Regexp(r"^[A-Za-z0-9_.@-]{1,64}$"),
        metadata={
            "description": "An id of a player of the caller's app (app key; a player token names only "
            "itself). A `human` seat is then that player's: its player tokens act for it and no seat "
            "token is issued. An `open` seat is kept for that player to join. The player's feed gets "
            "`invited`."
        },
    )
    kind = fields.String(
        load_default=HUMAN,
        validate=validate.OneOf([HUMAN, BOT, OPEN]),
        metadata={"description": "`open`: left for a player to join (the match waits until all are taken)."},
    )
    level = bot_level("Bots only")
    think_ms = think_ms("Bots only: thinking budget per decision")

    @validates_schema
    def _fields_of_the_kind(self, data: dict[str, Any], **_: Any) -> None:
        kind = data.get("kind", HUMAN)
        if kind == BOT and "player" in data:
            raise ValidationError("a bot seat names no player", "player")
        if kind != BOT:
            for name in ("level", "think_ms"):
                if name in data:
                    raise ValidationError("only bot seats have this", name)
        if kind != OPEN and "name" not in data and "player" not in data:
            raise ValidationError("Missing data for required field.", "name")


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
    visibility = fields.String(validate=validate.OneOf(VISIBILITIES), metadata={"description": VISIBILITY})
    on_leave = fields.Nested(
        OnLeaveSchema,
        metadata={"description": "What follows when a human seat resigns (default: an `easy` bot takes it)."},
    )
    time_control = fields.Nested(
        TimeControlSchema, metadata={"description": "Clocks for the human seats; none unless given."}
    )
    rated = JsonBoolean(
        load_default=False,
        metadata={
            "description": "Rate the players when the match finishes (OpenSkill, per app and game; see "
            "`GET /v1/games/{game_id}/leaderboard`). Only for matches created with an app key or a "
            "player token whose every seat is a named `player` of the app (an `open` seat kept for "
            "one too) or a built-in bot, with at least two different ones, and `on_leave.then` `bot`: "
            "422 otherwise. A player who resigns or times out is rated with the seat's place when "
            "the game ends."
        },
    )


class JoinRequestSchema(Schema):
    seat = SeatChoice(
        load_default="any",
        metadata={
            "description": 'The open seat to take, or `"any"` (the first open one).',
            "oneOf": [{"type": "integer", "minimum": 0, "maximum": 7}, {"type": "string", "enum": ["any"]}],
        },
    )
    name = seat_name(
        metadata={"description": "Required, but for a player (a player token): its display name then."}
    )
    invite = fields.String(
        validate=validate.Length(min=1, max=100),
        metadata={"description": "A private match's invite code (it names the seat)."},
    )


class SeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, metadata={"description": "Empty for an open seat."})
    kind = fields.String(required=True, validate=validate.OneOf([HUMAN, BOT, OPEN]))
    level = fields.String(validate=validate.OneOf(LEVELS))
    think_ms = fields.Integer()
    away = fields.Boolean(
        metadata={
            "description": "Present (true) on a player's seat a bot plays after too many timeouts, until "
            "the player acts again (`POST .../return`, a move or a hint request; reading the match or "
            "its legal actions is not acting); `kind` is `bot` meanwhile."
        }
    )
    player = fields.String(
        metadata={
            "description": "The app's own id of the player who holds the seat (or for whom it is kept, "
            "or who held it and resigned). Shown only to that app: its key and its players' tokens; "
            "never to anonymous callers, seat tokens or other apps."
        }
    )
    decisions = fields.Integer(
        metadata={"description": "The seat's decisions so far, whoever made them (see `stand_in`)."}
    )
    stand_in = fields.Integer(
        metadata={
            "description": "How many of the seat's decisions a stand-in made: the clock's `on_timeout` bot "
            "for a decision out of time, the bot of an away or resigned seat."
        }
    )


class MatchSummarySchema(Schema):
    id = fields.String(required=True)
    game = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    version = fields.Integer(required=True, metadata={"description": "Bumped by every move; the ETag."})
    players = fields.Integer(required=True)
    seats = fields.List(fields.Nested(SeatSchema), required=True)
    open_seats = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats a join may take (while `waiting`)."}
    )
    visibility = fields.String(required=True, validate=validate.OneOf(VISIBILITIES))
    rated = fields.Boolean(
        required=True, metadata={"description": "The players are rated when the match finishes."}
    )
    to_move = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Seat pending; null when over."}
    )
    result = fields.Dict(
        required=True,
        allow_none=True,
        metadata={
            "description": "Scores, ranking, winners and tie-break once finished, with the seats' "
            "`decisions` and `stand_in` counts (one number a seat, see the seats); null before."
        },
    )
    created_at = fields.Float(required=True)
    updated_at = fields.Float(required=True)


class MatchSchema(MatchSummarySchema):
    your_seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The caller's seat; null for spectators."}
    )
    options = fields.Dict(required=True)
    result = fields.Dict(
        required=True,
        allow_none=True,
        metadata={
            "description": "Scores, ranking and tie-break once over; `decisions` and `stand_in` per seat."
        },
    )
    view = fields.Dict(required=True, metadata={"description": "The game state as the caller may see it."})
    clock = fields.Nested(
        ClockSchema, required=True, allow_none=True, metadata={"description": "null: no time control."}
    )
    resigned = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that resigned."})
    rematch = fields.String(
        required=True, allow_none=True, metadata={"description": "The id of the rematch, once asked for."}
    )
    rematch_of = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "A rematch's finished match (where its offer is declined: "
            "`POST /v1/matches/{rematch_of}/rematch/decline`); null for any other match."
        },
    )


class JoinedSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Bearer token of the seat taken; shown only once. Null when a player joined "
            "(its player tokens act for the seat)."
        },
    )
    match = fields.Nested(
        MatchSchema, required=True, metadata={"description": "The match as this seat sees it."}
    )


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(
        required=True, metadata={"description": "Bearer token of this seat; shown only once."}
    )


class CreatedMatchSchema(MatchSchema):
    tokens = fields.List(fields.Nested(SeatTokenSchema), required=True)
    creator_token = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Cancels the match while it waits (bearer of `POST .../cancel`); shown only "
            "here. Null when an app key or a player token created the match: that credential cancels "
            "it (the app's key, or that player's tokens), so there is no token to keep."
        },
    )
    invites = fields.List(
        fields.Nested(InviteSchema),
        required=True,
        metadata={"description": "A private match's invite codes, one per open seat (empty if public)."},
    )


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
