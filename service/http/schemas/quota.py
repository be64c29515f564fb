"""``GET /v1/apps/me``: an app's own record, the limits in effect for its calls and how much of them
it has used (see service/http/limits.py for how calls are counted)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

#: The scopes an app's own counters are kept in (service/http/limits.py).
COUNTER_SCOPES = ("app", "create")


def _rate(description: str) -> fields.String:
    return fields.String(
        required=True,
        allow_none=True,
        metadata={"description": f"{description} (`null`: no limit), e.g. `1200/minute;50/second`."},
    )


class QuotaRatesSchema(Schema):
    app = _rate("Requests of the app's key and all its players' tokens together, per app")
    player = _rate("Requests of one player's tokens, per player (also counted in `app`)")
    create = _rate(
        "Match and tournament creations, per creator: the app key's creations together, and each "
        "player's apart"
    )


class TournamentLimitsSchema(Schema):
    """The app's tournament caps (issue 42): past one, creating a tournament is 409 naming it."""

    max_tournaments = fields.Integer(
        required=True,
        metadata={
            "description": "Tournaments scheduled or running at once (`TABLETOP_TOURNAMENT_MAX_RUNNING`; "
            "0: no cap); past it 409 `too_many_tournaments`."
        },
    )
    max_scheduled_matches = fields.Integer(
        required=True,
        metadata={
            "description": "Matches not over (made, or still to make) of those tournaments together "
            "(`TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES`; 0: no cap); past it 409 "
            "`too_many_scheduled_matches`."
        },
    )
    max_matches_per_tournament = fields.Integer(
        required=True,
        metadata={"description": "Matches of one tournament (`TABLETOP_TOURNAMENT_MAX_MATCHES`); more: 422."},
    )


class TournamentUsageSchema(Schema):
    tournaments = fields.Integer(
        required=True, metadata={"description": "The app's tournaments scheduled or running now."}
    )
    matches = fields.Integer(
        required=True,
        metadata={"description": "Their matches not over: made and under way, or still to make."},
    )


class QuotaLimitsSchema(Schema):
    rates = fields.Nested(QuotaRatesSchema, required=True)
    max_waiters_per_app = fields.Integer(
        required=True,
        metadata={
            "description": "Waiting clients (event streams, long-polls, feeds) of the app's key and its "
            "players together, per server process; past it 429 `too_many_waiters`."
        },
    )
    max_waiters_per_player = fields.Integer(
        required=True, metadata={"description": "Waiting clients per player, per server process."}
    )
    tournaments = fields.Nested(TournamentLimitsSchema, required=True)
    overrides = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={
            "description": "What the operator set for this app alone (e.g. `rate`); already applied in "
            "`rates`."
        },
    )


class QuotaCounterSchema(Schema):
    scope = fields.String(required=True, validate=validate.OneOf(COUNTER_SCOPES))
    policy = fields.String(
        required=True,
        metadata={"description": "The policy's name, as in the `RateLimit` headers (`app-60s`)."},
    )
    limit = fields.String(required=True, metadata={"description": "The limit, e.g. `1200 per 1 minute`."})
    quota = fields.Integer(required=True, metadata={"description": "Requests allowed per window."})
    window = fields.Integer(required=True, metadata={"description": "The window, in seconds."})
    remaining = fields.Integer(required=True, metadata={"description": "Requests left now."})
    reset = fields.Integer(
        required=True,
        metadata={"description": "Seconds until more is available (the window slides: not all of it)."},
    )


class QuotaUsageSchema(Schema):
    rates = fields.List(
        fields.Nested(QuotaCounterSchema),
        required=True,
        metadata={"description": "The app's own counters, one per limit in effect."},
    )
    players = fields.Integer(required=True, metadata={"description": "How many players the app has."})
    tournaments = fields.Nested(TournamentUsageSchema, required=True)


class MyAppSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["active", "revoked"]))
    created_at = fields.Float(required=True, metadata={"description": "Unix time, in seconds."})
    limits = fields.Nested(QuotaLimitsSchema, required=True)
    usage = fields.Nested(QuotaUsageSchema, required=True)
