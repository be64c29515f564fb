"""Tournaments (issue 31): the request, the document, its summary, the listing and the results export,
typed for generated clients.

The documents are :class:`service.domain.tournaments.tournaments.Tournaments`'s; these schemas describe and
bound
them (the agreed shapes of the tournament design).  The request schema refuses what a schema can see
(types, ranges, an entrant that is neither a player nor a level, ...) with a 422 naming the field; the
domain refuses the rest (fewer entrants than ``players``, an unknown player, a duplicate entrant, too
many matches), naming its field the same way.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.ai import LEVELS
from service.domain.accounts import PLAYER_ID
from service.domain.tournaments.records import FORMATS, MATCH_STATUSES, ROUND_ROBIN
from service.domain.tournaments.records import STATUSES as TOURNAMENT_STATUSES
from service.domain.tournaments.tournaments import MAX_ENTRANTS, MAX_NAME
from service.http.schemas.fields import FullMatch, JsonBoolean, JsonInteger, think_ms
from service.http.schemas.lifecycle import TimeControlSchema
from service.http.schemas.matches import NAME_PATTERN, seat_name
from service.http.schemas.matchmaking import TimeControlDocSchema
from service.storage.tournaments import ABORTED, FINISHED

#: The export's formats (`GET /v1/tournaments/{id}/results?format=`).
RESULT_FORMATS = ("json", "csv")
#: The CSV export's columns, one row per seat of every finished or aborted match.
CSV_COLUMNS = (
    "round",
    "match_id",
    "status",
    "seat",
    "entrant",
    "name",
    "place",
    "points",
    "score",
    "stand_in",  # issue 42: appended, so the columns before keep their places
    "decisions",
)
#: Bounds that only keep numbers sane: the match count bound (TABLETOP_TOURNAMENT_MAX_MATCHES) is the
#: domain's, and it is what really limits `rounds` and `matches_per_pairing`.
MAX_ROUNDS = 1000
MAX_PER_PAIRING = 1000
MAX_PARALLEL = 10_000
#: A listing cursor: opaque, as the previous page's `next` gave it.
CURSOR = r"^[A-Za-z0-9_.:-]{1,200}$"
#: `starts_at` at most this far ahead (seconds since the epoch; the year 2100).
MAX_EPOCH = 4_102_444_800.0


class TournamentEntrantRequestSchema(Schema):
    """One entrant: a player of the caller's app, or a built-in bot level (exactly one of the two)."""

    player = fields.String(
        validate=FullMatch(PLAYER_ID.pattern),
        metadata={
            "description": "A player of the caller's app: it plays its matches itself, with its own token "
            "(it learns of each on its feed and the app's webhooks: `tournament_match`)."
        },
    )
    level = fields.String(
        validate=validate.OneOf(LEVELS),
        metadata={
            "description": "A built-in bot level. The same level may enter more than once only in an "
            "unrated tournament, each time under a distinct `name`."
        },
    )
    think_ms = think_ms(
        "A level entrant only (at most the server's TABLETOP_MAX_THINK_MS, as for a bot seat): its bot's "
        "thinking budget per decision, in every match it plays,"
    )
    name = seat_name(
        metadata={
            "description": "The name standings and a bot's seats show (default: the player's display "
            "name, or the level's, e.g. `Easy bot`); names must be distinct."
        },
    )

    @validates_schema
    def _one_kind(self, data: dict[str, Any], **_: Any) -> None:
        if ("player" in data) == ("level" in data):
            raise ValidationError("give exactly one of player and level", "player")
        if "player" in data and "think_ms" in data:
            raise ValidationError("only a level entrant has a thinking budget", "think_ms")


class CreateTournamentSchema(Schema):
    name = fields.String(
        validate=[
            validate.Length(min=1, max=MAX_NAME),
            FullMatch(NAME_PATTERN, error="must be printable text, not blank"),
        ],
        metadata={
            "description": f"What to call it (at most {MAX_NAME} characters; default: `<Game> tournament`)."
        },
    )
    game = fields.String(required=True, validate=validate.Length(min=1, max=64))
    players = JsonInteger(
        required=True,
        validate=validate.Range(min=1, max=8),
        metadata={"description": "Seats per match, within the game's player counts."},
    )
    options = fields.Dict(
        load_default=dict,
        metadata={"description": "Game options of every match (see `GET /v1/games/{game}`), as at creation."},
    )
    entrants = fields.List(
        fields.Nested(TournamentEntrantRequestSchema),
        required=True,
        validate=validate.Length(min=1, max=MAX_ENTRANTS),
        metadata={
            "description": "Who plays, in entry order (the last tie-break): at least `players` of them, "
            "no player twice."
        },
    )
    format = fields.String(
        load_default=ROUND_ROBIN,
        validate=validate.OneOf(FORMATS),
        metadata={
            "description": "`round_robin` (default): every group of `players` entrants meets "
            "`matches_per_pairing` times, seats rotated; `swiss`: `rounds` rounds, each paired by the "
            "standings so far, avoiding rematches where possible."
        },
    )
    rounds = JsonInteger(
        validate=validate.Range(min=1, max=MAX_ROUNDS),
        metadata={
            "description": "Swiss only, and required there. A round robin's rounds are its "
            "`matches_per_pairing` (round r: the r-th meeting of every group)."
        },
    )
    matches_per_pairing = JsonInteger(
        validate=validate.Range(min=1, max=MAX_PER_PAIRING),
        metadata={
            "description": "Matches each group plays (per round in a Swiss). Default: `players` in a round "
            "robin (every entrant sits in every seat position equally often), 1 in a Swiss."
        },
    )
    time_control = fields.Nested(
        TimeControlSchema, metadata={"description": "Clocks for every match; none unless given."}
    )
    rated = JsonBoolean(
        load_default=False,
        metadata={"description": "Whether its matches are rated (the entrants' ratings per app and game)."},
    )
    starts_at = fields.Float(
        validate=validate.Range(min=0, max=MAX_EPOCH),
        metadata={"description": "When to start (epoch seconds); absent or past: now."},
    )
    parallel = JsonInteger(
        validate=validate.Range(min=1, max=MAX_PARALLEL),
        metadata={
            "description": "The most matches in flight at once (default TABLETOP_TOURNAMENT_PARALLEL, 32)."
        },
    )


class TournamentEntrantSchema(Schema):
    entrant = fields.Integer(required=True, metadata={"description": "Its index in the entry order."})
    name = fields.String(required=True)
    player = fields.String(metadata={"description": "A player entrant: the app's id for it."})
    level = fields.String(
        validate=validate.OneOf(LEVELS), metadata={"description": "A built-in entrant: its level."}
    )
    think_ms = fields.Integer(
        metadata={
            "description": "A built-in entrant: its thinking budget per decision in milliseconds (the one "
            "given, or its level's default), as every bot seat it takes has it."
        }
    )


class TournamentProgressSchema(Schema):
    done = fields.Integer(required=True, metadata={"description": "Matches finished or aborted."})
    total = fields.Integer(required=True, metadata={"description": "Matches in the whole tournament."})
    round = fields.Integer(
        required=True,
        metadata={
            "description": "The round under way (1 while scheduled): in a round robin the earliest "
            "with a match not over (the last once all are), in a Swiss the latest paired."
        },
    )
    rounds = fields.Integer(required=True)


class TournamentStandingSchema(Schema):
    rank = fields.Integer(required=True, metadata={"description": "1 = first; the position in the order."})
    entrant = fields.Integer(required=True)
    name = fields.String(required=True)
    points = fields.Float(
        required=True,
        metadata={
            "description": "Per match: 1 per opponent who finished below, 1/2 per opponent tied (a Swiss "
            "bye: `players - 1`)."
        },
    )
    played = fields.Integer(required=True, metadata={"description": "Matches finished (not aborted)."})
    wins = fields.Integer(required=True, metadata={"description": "First places, shared firsts included."})
    buchholz = fields.Float(
        required=True,
        metadata={"description": "The sum, over every match played, of each opponent's points."},
    )
    seats = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "Matches played from each seat position (index 0 = the first seat)."},
    )
    stand_in = fields.Integer(
        required=True,
        metadata={
            "description": "Decisions a stand-in made for this entrant in its finished matches: the bot "
            "that plays a seat out of time, away, or resigned (the results' `stand_in`)."
        },
    )
    stand_in_matches = fields.Integer(
        required=True,
        metadata={
            "description": "Finished matches a stand-in played mostly for this entrant (more than half of "
            "its seat's decisions): its points there are the stand-in's play."
        },
    )


class TournamentMatchSchema(Schema):
    match_id = fields.String(
        required=True, metadata={"description": "Fixed in advance, also while the match is `pending`."}
    )
    round = fields.Integer(required=True)
    entrants = fields.List(
        fields.Integer(), required=True, metadata={"description": "The entrant in each seat, seat 0 first."}
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(MATCH_STATUSES),
        metadata={"description": "`pending`: not created yet; then the match's own status."},
    )
    places = fields.List(
        fields.Integer(),
        required=True,
        allow_none=True,
        metadata={"description": "Each seat's finishing place (1 = first, ties shared); null until over."},
    )
    points = fields.List(
        fields.Float(),
        required=True,
        allow_none=True,
        metadata={
            "description": "Each seat's tournament points; null until finished (an aborted match: none)."
        },
    )
    stand_in = fields.List(
        fields.Integer(),
        required=True,
        allow_none=True,
        metadata={
            "description": "Per seat, the decisions a stand-in made (a timeout's bot, an away or resigned "
            "seat's bot), as the match's result counts them; null until finished."
        },
    )
    decisions = fields.List(
        fields.Integer(),
        required=True,
        allow_none=True,
        metadata={"description": "Per seat, every decision of the seat (its own and a stand-in's)."},
    )


class TournamentSummarySchema(Schema):
    """A tournament without its matches (as listed)."""

    id = fields.String(required=True)
    name = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True, metadata={"description": "Seats per match."})
    options = fields.Dict(required=True)
    format = fields.String(required=True, validate=validate.OneOf(FORMATS))
    rounds = fields.Integer(required=True)
    matches_per_pairing = fields.Integer(required=True)
    rated = fields.Boolean(required=True)
    time_control = fields.Nested(TimeControlDocSchema, required=True, allow_none=True)
    parallel = fields.Integer(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(TOURNAMENT_STATUSES),
        metadata={
            "description": "`scheduled` until `starts_at`; `running`; `finished` once every match is over; "
            "`cancelled`."
        },
    )
    cancel_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Why it was cancelled: `cancelled` (the app key or its creator), `operator` "
            "(the admin API), `app_revoked` (its app was revoked); null unless cancelled."
        },
    )
    created_at = fields.Float(required=True)
    starts_at = fields.Float(required=True)
    finished_at = fields.Float(
        required=True, allow_none=True, metadata={"description": "When it finished or was cancelled."}
    )
    entrants = fields.List(fields.Nested(TournamentEntrantSchema), required=True)
    progress = fields.Nested(TournamentProgressSchema, required=True)
    standings = fields.List(
        fields.Nested(TournamentStandingSchema),
        required=True,
        metadata={
            "description": "Best first: by points, then wins, then Buchholz, then entry order (so ranks are "
            "never shared)."
        },
    )


class TournamentSchema(TournamentSummarySchema):
    """A tournament with every match, pending ones included."""

    matches = fields.List(
        fields.Nested(TournamentMatchSchema),
        required=True,
        metadata={
            "description": "Every match of the tournament, round by round (those known so far in a Swiss)."
        },
    )


class TournamentListQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(TOURNAMENT_STATUSES))
    after = fields.String(validate=FullMatch(CURSOR), metadata={"description": "The previous page's `next`."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class TournamentListSchema(Schema):
    tournaments = fields.List(
        fields.Nested(TournamentSummarySchema), required=True, metadata={"description": "Newest first."}
    )
    next = fields.String(required=True, allow_none=True, metadata={"description": "null on the last page."})


class TournamentResultsQuerySchema(Schema):
    format = fields.String(
        load_default="json",
        validate=validate.OneOf(RESULT_FORMATS),
        metadata={
            "description": "`json` (default), or `csv`: `text/csv`, a header line, then one row per seat "
            f"with the columns `{','.join(CSV_COLUMNS)}`."
        },
    )


class TournamentResultRowSchema(Schema):
    """One seat of one finished or aborted match (a row of the CSV export)."""

    round = fields.Integer(required=True)
    match_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf([FINISHED, ABORTED]))
    seat = fields.Integer(required=True)
    entrant = fields.Integer(required=True)
    name = fields.String(required=True)
    place = fields.Integer(required=True, allow_none=True, metadata={"description": "Null when aborted."})
    points = fields.Float(required=True, allow_none=True, metadata={"description": "Null when aborted."})
    score = fields.Float(
        required=True, allow_none=True, metadata={"description": "The game's score of the seat, if any."}
    )
    stand_in = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Decisions a stand-in made for the seat. Null when aborted."},
    )
    decisions = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Every decision of the seat. Null when aborted."},
    )


class TournamentResultsSchema(Schema):
    tournament = fields.String(required=True, metadata={"description": "The tournament's id."})
    status = fields.String(required=True, validate=validate.OneOf(TOURNAMENT_STATUSES))
    results = fields.List(
        fields.Nested(TournamentResultRowSchema),
        required=True,
        metadata={"description": "Round by round, match by match, seat by seat."},
    )
    standings = fields.List(fields.Nested(TournamentStandingSchema), required=True)
