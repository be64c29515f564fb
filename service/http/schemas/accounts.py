"""Apps, players, player tokens and "my matches"."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.accounts import MAX_TOKEN_SECONDS
from service.domain.identity import SCOPES
from service.http.schemas.fields import JsonBoolean
from service.http.schemas.matches import MatchSummarySchema, seat_name
from service.storage.matches import STATUSES

PLAYER_ID = r"^[A-Za-z0-9_.@-]{1,64}$"


class AppLimitsSchema(Schema):
    rate = fields.String(
        metadata={
            "description": "The app's own rate limit (flask-limiter syntax, e.g. `600/minute;20/second`), "
            "in place of the server's TABLETOP_RATE_LIMIT_APP."
        }
    )


class CreateAppSchema(Schema):
    name = seat_name(required=True, metadata={"description": "What the operator calls the integration."})
    limits = fields.Nested(AppLimitsSchema, load_default=dict)


class AppSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["active", "revoked"]))
    limits = fields.Nested(AppLimitsSchema, required=True)
    created_at = fields.Float(required=True)


class AppWithKeySchema(AppSchema):
    key = fields.String(
        required=True,
        metadata={
            "description": "The app key (`ta.…`): shown only here, stored hashed. Keep it on a server."
        },
    )


class AppListSchema(Schema):
    apps = fields.List(fields.Nested(AppSchema), required=True)


class PutPlayerSchema(Schema):
    name = seat_name(required=True, metadata={"description": "The player's display name, shown in seats."})
    bot = JsonBoolean(load_default=False, metadata={"description": "The player is a program."})


class PlayerSchema(Schema):
    id = fields.String(required=True, metadata={"description": "The app's own id for the player."})
    name = fields.String(required=True)
    bot = fields.Boolean(required=True)
    created_at = fields.Float(required=True)
    updated_at = fields.Float(required=True)


class PlayerListQuerySchema(Schema):
    after = fields.String(
        validate=validate.Regexp(PLAYER_ID), metadata={"description": "The `next_cursor` of the last page."}
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class PlayerListSchema(Schema):
    players = fields.List(fields.Nested(PlayerSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class MintTokenSchema(Schema):
    scopes = fields.List(
        fields.String(validate=validate.OneOf(SCOPES)),
        load_default=lambda: list(SCOPES),
        validate=validate.Length(min=1),
        metadata={
            "description": "`read` (matches, events, my matches, my feed); `play` (also moves, "
            "hints, joins, resigns, rematches, creating matches). Default: both."
        },
    )
    expires_in = fields.Integer(
        validate=validate.Range(min=1, max=MAX_TOKEN_SECONDS),
        metadata={"description": "Seconds the token lives (default 30 days)."},
    )


class TokenSchema(Schema):
    id = fields.String(required=True, metadata={"description": "Names the token for revocation."})
    scopes = fields.List(fields.String(validate=validate.OneOf(SCOPES)), required=True)
    expires_at = fields.Float(required=True)
    created_at = fields.Float(required=True)


class MintedTokenSchema(TokenSchema):
    token = fields.String(
        required=True,
        metadata={
            "description": "The player token (`tp.…`): shown only here. Hand it to the player's client."
        },
    )
    player = fields.String(required=True)


class TokenListSchema(Schema):
    tokens = fields.List(fields.Nested(TokenSchema), required=True)


class RevokedSchema(Schema):
    revoked = fields.Integer(required=True, metadata={"description": "How many tokens stopped working."})


class MeQuerySchema(Schema):
    player = fields.String(
        validate=validate.Regexp(PLAYER_ID),
        metadata={
            "description": "With an app key: the player asked about (a player token speaks for itself)."
        },
    )


class MyMatchesQuerySchema(MeQuerySchema):
    game = fields.String(
        validate=validate.Length(min=1, max=64), metadata={"description": "Only matches of this game."}
    )
    status = fields.String(validate=validate.OneOf(STATUSES))
    my_turn = fields.Boolean(metadata={"description": "Only matches where the decision is (not) yours."})
    away = fields.Boolean(
        metadata={"description": "Only matches where your seat is (not) away (see `POST /v1/me/return`)."}
    )
    cursor = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,18}$"),
        metadata={"description": "The `next_cursor` of the last page."},
    )
    limit = fields.Integer(validate=validate.Range(min=1, max=100))


class MyMatchSchema(MatchSummarySchema):
    seat = fields.Integer(required=True, metadata={"description": "The player's seat."})
    invited = fields.Boolean(
        required=True, metadata={"description": "The seat is kept for the player, who has not joined it yet."}
    )
    my_turn = fields.Boolean(required=True, metadata={"description": "The pending decision is the player's."})
    away = fields.Boolean(
        required=True,
        metadata={
            "description": "The player's seat is away: a bot plays it after too many timeouts, until the "
            "player comes back (`POST /v1/me/return`, or a move)."
        },
    )
    deadline = fields.Float(
        required=True, allow_none=True, metadata={"description": "When the pending decision times out."}
    )
    result = fields.Dict(required=True, allow_none=True, metadata={"description": "Once over."})
    rematch = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The rematch offered after this match (its id), once a player asked."},
    )
    rematch_of = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "When this match is a rematch: the finished match it follows, where the "
            "offer is taken (`POST .../rematch`) or declined (`POST .../rematch/decline`)."
        },
    )


class MyMatchesSchema(Schema):
    matches = fields.List(fields.Nested(MyMatchSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)


class ReturnedSeatSchema(Schema):
    match_id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "Your seat there, yours again."})
    version = fields.Integer(required=True, metadata={"description": "The match's version after the return."})


class ReturnAnswerSchema(Schema):
    returned = fields.List(
        fields.Nested(ReturnedSeatSchema),
        required=True,
        metadata={"description": "The seats that were away and are yours again (empty: none was away)."},
    )
