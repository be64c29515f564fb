"""Matchmaking: seeks (``/v1/seeks``) and challenges (``/v1/challenges``), typed for generated clients."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.ai import LEVELS
from service.domain.accounts import PLAYER_ID
from service.domain.matchmaking.challenges import ANSWERS, CHALLENGE_STATUSES, MAX_CHALLENGE_SECONDS, ORDERS
from service.domain.matchmaking.seeks import (
    DEFAULT_BOT_LEVEL,
    DEFAULT_BOTS_AFTER,
    MAX_SEEK_SECONDS,
    SEEK_STATUSES,
)
from service.http.schemas.fields import FullMatch, JsonBoolean, JsonInteger
from service.http.schemas.lifecycle import TimeControlSchema

#: Ratings (ordinals) are tens in practice; a range is bounded only to keep numbers sane.
RATING_BOUND = 1_000_000.0
#: A listing cursor: the posting time (epoch seconds) of the last seek of the page.
CURSOR = r"^[0-9]{1,12}(\.[0-9]{1,20})?$"
_PLAYER = FullMatch(PLAYER_ID.pattern)


def _player_field(what: str) -> fields.String:
    return fields.String(
        validate=_PLAYER,
        metadata={
            "description": f"With an app key: the app's player {what} (a player token acts for its own "
            "player, and may omit it)."
        },
    )


def _rating(description: str) -> fields.Float:
    return fields.Float(
        allow_none=True,
        validate=validate.Range(min=-RATING_BOUND, max=RATING_BOUND),
        metadata={"description": description},
    )


def _options() -> fields.Dict:
    return fields.Dict(
        load_default=dict,
        metadata={"description": "Game options (see `GET /v1/games/{game}`); defaults filled in."},
    )


def _rated(what: str) -> JsonBoolean:
    return JsonBoolean(
        load_default=False,
        metadata={"description": f"Whether the match {what} is rated (ratings per app and game)."},
    )


class RatingRangeSchema(Schema):
    min = _rating("The lowest opponent rating (ordinal) accepted; null or absent: no floor.")
    max = _rating("The highest opponent rating (ordinal) accepted; null or absent: no ceiling.")

    @validates_schema
    def _ordered(self, data: dict[str, Any], **_: Any) -> None:
        lo, hi = data.get("min"), data.get("max")
        if lo is not None and hi is not None and lo > hi:
            raise ValidationError("is above max", "min")


class BotsRequestSchema(Schema):
    allow = JsonBoolean(
        load_default=False,
        metadata={"description": "Whether bots may take the seats no person takes (default false)."},
    )
    after_seconds = JsonInteger(
        load_default=DEFAULT_BOTS_AFTER,
        validate=validate.Range(min=0, max=MAX_SEEK_SECONDS),
        metadata={
            "description": "Seconds to wait for people first; then bot players' seeks, the app's bot "
            f"players with room, or built-in bots fill the seats (default {DEFAULT_BOTS_AFTER}). Less "
            "than `expires_in`."
        },
    )
    level = fields.String(
        validate=validate.OneOf(LEVELS),
        metadata={
            "description": f"The level of built-in bots that fill the seats (default `{DEFAULT_BOT_LEVEL}`). "
            "A level asked for is the level played: bot players come only with `players` true."
        },
    )
    players = JsonBoolean(
        metadata={
            "description": "Whether the app's bot players (their seeks, or those with room) may take the "
            "seats before built-in bots do. Default: true, unless `level` is given."
        },
    )


class CreateSeekSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = JsonInteger(
        required=True,
        validate=validate.Range(min=1, max=8),
        metadata={"description": "The match's player count, within the game's range (you included)."},
    )
    options = _options()
    rated = _rated("found")
    time_control = fields.Nested(
        TimeControlSchema, metadata={"description": "Clocks for the match; none unless given."}
    )
    rating_range = fields.Nested(
        RatingRangeSchema,
        metadata={"description": "Opponents' ratings accepted; each seek's range must take the others'."},
    )
    bots = fields.Nested(
        BotsRequestSchema,
        metadata={
            "description": "Whether bots may fill seats, after how long, of which level, and whether the "
            "app's bot players may (a person's seek or a bot player's)."
        },
    )
    expires_in = JsonInteger(
        validate=validate.Range(min=1, max=MAX_SEEK_SECONDS),
        metadata={"description": "Seconds the seek waits unpaired (default TABLETOP_SEEK_SECONDS)."},
    )
    player = _player_field("seeking")


class TimeControlDocSchema(Schema):
    per_move_seconds = fields.Integer(required=True, allow_none=True)
    budget_seconds = fields.Integer(required=True, allow_none=True)
    increment_seconds = fields.Integer(required=True)
    on_timeout = fields.String(required=True, validate=validate.OneOf(LEVELS))
    max_timeouts = fields.Integer(required=True)
    warning_seconds = fields.Integer(
        metadata={"description": "Present when chosen: the clock warning's lead (else the default's)."}
    )


class RatingRangeDocSchema(Schema):
    min = fields.Float(required=True, allow_none=True)
    max = fields.Float(required=True, allow_none=True)


class BotsSchema(Schema):
    allow = fields.Boolean(required=True)
    after_seconds = fields.Integer(required=True)
    level = fields.String(required=True, validate=validate.OneOf(LEVELS))
    players = fields.Boolean(
        required=True, metadata={"description": "Whether bot players may take seats (else built-in bots)."}
    )


class SeekPlayerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    bot = fields.Boolean(required=True)
    rating = fields.Float(
        required=True, metadata={"description": "The player's rating (ordinal) in this game when it posted."}
    )


class SeekSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(SEEK_STATUSES),
        metadata={
            "description": "`open`: waiting; `pairing`: grouped, its match being made (a moment); "
            "`matched`: see `match_id`; `expired`; `cancelled`."
        },
    )
    match_id = fields.String(required=True, allow_none=True, metadata={"description": "Once `matched`."})
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    rated = fields.Boolean(required=True)
    time_control = fields.Nested(TimeControlDocSchema, required=True, allow_none=True)
    rating_range = fields.Nested(RatingRangeDocSchema, required=True)
    bots = fields.Nested(
        BotsSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The bot settings, defaults filled in (a bot player's seek has them too)."},
    )
    player = fields.Nested(SeekPlayerSchema, required=True)
    created_at = fields.Float(required=True)
    expires_at = fields.Float(required=True)


class SeekListQuerySchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = fields.Integer(
        validate=validate.Range(min=1, max=8), metadata={"description": "Only seeks of this player count."}
    )
    cursor = fields.String(
        validate=FullMatch(CURSOR), metadata={"description": "`next_cursor` of the previous page."}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class SeekListSchema(Schema):
    seeks = fields.List(fields.Nested(SeekSchema), required=True, metadata={"description": "Oldest first."})
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "null on the last page."}
    )


class CreateChallengeSchema(Schema):
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = fields.List(
        fields.String(validate=_PLAYER),
        required=True,
        validate=validate.Length(min=1, max=7),
        metadata={"description": "The ids of the app's players challenged (not the challenger)."},
    )
    options = _options()
    rated = _rated("made")
    time_control = fields.Nested(
        TimeControlSchema, metadata={"description": "Clocks for the match; none unless given."}
    )
    order = fields.String(
        load_default="random",
        validate=validate.OneOf(ORDERS),
        metadata={
            "description": "Seat order: `random` (default), or `given`: the challenger first, then the "
            "challenged as listed."
        },
    )
    expires_in = JsonInteger(
        validate=validate.Range(min=1, max=MAX_CHALLENGE_SECONDS),
        metadata={
            "description": "Seconds the challenge waits for its answers (default TABLETOP_CHALLENGE_SECONDS)."
        },
    )
    player = _player_field("challenging")


class ChallengeAsQuerySchema(Schema):
    player = _player_field("answering")


class ChallengerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class ChallengedSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    answer = fields.String(required=True, validate=validate.OneOf(ANSWERS))


class ChallengeSchema(Schema):
    id = fields.String(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(CHALLENGE_STATUSES),
        metadata={
            "description": "`open` until every challenged player accepted (`accepted`), one declined, "
            "the challenger cancelled, or it expired."
        },
    )
    match_id = fields.String(
        required=True, allow_none=True, metadata={"description": "Once `accepted`: the match made."}
    )
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    rated = fields.Boolean(required=True)
    time_control = fields.Nested(TimeControlDocSchema, required=True, allow_none=True)
    order = fields.String(required=True, validate=validate.OneOf(ORDERS))
    challenger = fields.Nested(ChallengerSchema, required=True)
    challenged = fields.List(fields.Nested(ChallengedSchema), required=True)
    declined_by = fields.String(
        required=True, allow_none=True, metadata={"description": "Once `declined`: who declined."}
    )
    created_at = fields.Float(required=True)
    expires_at = fields.Float(required=True)


class ChallengeListQuerySchema(Schema):
    player = _player_field("whose challenges to list")
    status = fields.String(validate=validate.OneOf(CHALLENGE_STATUSES))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class ChallengeListSchema(Schema):
    challenges = fields.List(
        fields.Nested(ChallengeSchema),
        required=True,
        metadata={"description": "Sent and received, newest first (kept a day past their expiry)."},
    )
