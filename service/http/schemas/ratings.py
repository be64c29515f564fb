"""Ratings and leaderboards (issue 27 points 1 and 2)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.fields import FullMatch
from service.storage.ratings import PEOPLE, POOLS

POOL = (
    "`people`: the app's players; `bots`: the players the app flagged `bot` and the built-in levels "
    "(`builtin:random`, `builtin:easy`, `builtin:normal`, `builtin:hard`), on every app's board; a searching "
    "level rated at another think budget is its own player, `builtin:<level>@<think_ms>`."
)
ORDINAL = "The conservative rating the boards order by: `mu - 3 * sigma`."


class LeaderboardQuerySchema(Schema):
    pool = fields.String(load_default=PEOPLE, validate=validate.OneOf(POOLS), metadata={"description": POOL})
    cursor = fields.String(
        validate=FullMatch(r"^[A-Za-z0-9_-]{1,400}$"),
        metadata={"description": "The `next_cursor` of the previous page."},
    )
    limit = fields.Integer(validate=validate.Range(min=1, max=100))


class LeaderboardRowSchema(Schema):
    rank = fields.Integer(
        required=True, metadata={"description": "1 for the best ordinal; equal ordinals share a rank."}
    )
    player = fields.String(
        required=True,
        metadata={
            "description": "The app's id for the player, `builtin:<level>`, or `builtin:<level>@<think_ms>` "
            "(a searching level at another think budget)."
        },
    )
    name = fields.String(
        required=True, metadata={"description": "The name it played its last rated match as."}
    )
    mu = fields.Float(required=True, metadata={"description": "The estimated skill."})
    sigma = fields.Float(required=True, metadata={"description": "The uncertainty of `mu`."})
    ordinal = fields.Float(required=True, metadata={"description": ORDINAL})
    matches = fields.Integer(required=True, metadata={"description": "Rated matches played in this game."})
    last_played_at = fields.Float(
        required=True, allow_none=True, metadata={"description": "When its last rated match ended."}
    )


class LeaderboardSchema(Schema):
    game = fields.String(required=True)
    pool = fields.String(required=True, validate=validate.OneOf(POOLS))
    players = fields.List(fields.Nested(LeaderboardRowSchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True, metadata={"description": "null on the last page."}
    )


class RatingHistorySchema(Schema):
    match_id = fields.String(required=True)
    at = fields.Float(required=True, metadata={"description": "When the match ended."})
    place = fields.Integer(required=True, metadata={"description": "1 = first; tied seats share a place."})
    players = fields.Integer(required=True, metadata={"description": "Seats in the match."})
    before = fields.Float(required=True, metadata={"description": "The ordinal before the match."})
    after = fields.Float(required=True, metadata={"description": "The ordinal after it."})


class GameRatingSchema(Schema):
    game = fields.String(required=True)
    pool = fields.String(required=True, validate=validate.OneOf(POOLS), metadata={"description": POOL})
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True, metadata={"description": ORDINAL})
    matches = fields.Integer(required=True)
    rank = fields.Integer(required=True, metadata={"description": "The rank on the pool's leaderboard."})
    last_played_at = fields.Float(required=True, allow_none=True)
    history = fields.List(
        fields.Nested(RatingHistorySchema),
        required=True,
        metadata={"description": "The most recent rated matches (at most 30), newest first."},
    )


class PlayerRatingsSchema(Schema):
    player = fields.String(required=True)
    ratings = fields.List(
        fields.Nested(GameRatingSchema),
        required=True,
        metadata={"description": "One per game the player was rated in (none before a rated match)."},
    )
