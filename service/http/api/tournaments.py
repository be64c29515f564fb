"""Tournaments (issue 31): round robin and Swiss events the server runs, with standings and an export
(see :mod:`service.domain.tournaments.tournaments`).  A view parses, calls ``svc.tournaments``, and
serialises; the CSV export is rendered here from the JSON export's rows, so both say the same."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from typing import Any

from flask import Response, url_for

from service.http.api import Blueprint
from service.http.api.idempotency import idempotent
from service.http.context import current_caller, services
from service.http.schemas.tournaments import (
    CSV_COLUMNS,
    CreateTournamentSchema,
    TournamentListQuerySchema,
    TournamentListSchema,
    TournamentResultRowSchema,
    TournamentResultsQuerySchema,
    TournamentResultsSchema,
    TournamentSchema,
    TournamentSummarySchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "tournaments",
    __name__,
    url_prefix="/v1/tournaments",
    description="Tournaments: round robin and Swiss events, with standings and an export",
)

CREDENTIALS = (401, "The app key, or one of its players' tokens, is required.")
SCOPE = (403, "The player token lacks the `play` scope (`insufficient_scope`).")
READ_SCOPE = (403, "The player token lacks the `read` scope (`insufficient_scope`).")
NOT_FOUND = (404, "`tournament_not_found`: no such tournament in the caller's app.")
INVALID = (
    422,
    "`invalid_request` naming the field (`details.field`): `game` (unknown), `players` (not the game's "
    "counts), `options` (as at match creation), `entrants` (fewer than `players`, an unknown player, "
    "one entered twice, a level entered twice in a rated tournament, names not distinct, another "
    "player than itself entered with a player token, or too many matches in all: "
    "TABLETOP_TOURNAMENT_MAX_MATCHES), `rounds` (a Swiss without them, or too many matches), `rated`.",
)
NOT_CREATOR = (
    403,
    "`not_creator`: only the app key or the player who created it may cancel it; or "
    "`insufficient_scope`: a token without `play`.",
)
OVER = (409, "`tournament_over`: finished or cancelled already (`details.status`).")
CAPS = (
    409,
    "A cap of the app (issue 42; `details`: `limit`, `in_use`, `setting`): `too_many_tournaments` (it has "
    "`TABLETOP_TOURNAMENT_MAX_RUNNING` tournaments scheduled or running) or `too_many_scheduled_matches` "
    "(their matches not over, with this one's, would pass `TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES`). "
    "Both are shown in `GET /v1/apps/me`.",
)

CSV_TYPE = "text/csv"
_CSV_DOC = {
    "schema": {
        "type": "string",
        "description": "`format=csv`: a header line, then one row per seat of every finished or aborted "
        f"match, the columns `{','.join(CSV_COLUMNS)}` (a name that a spreadsheet would read as a "
        "formula, starting with `=`, `+`, `-` or `@`, is prefixed with `'`).",
    }
}
#: What a spreadsheet reads as the start of a formula (CSV injection): such a text cell gets a leading
#: ``'``, which spreadsheets show as text and every CSV reader keeps as a character.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@blp.route("", methods=["POST"])
@idempotent
@blp.arguments(CreateTournamentSchema())
@blp.response(201, TournamentSummarySchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(
    operationId="createTournament",
    security=REQUIRED_SEAT,
    responses=errors(CREDENTIALS, SCOPE, CAPS, 413, INVALID),
)
def create_tournament(body: dict[str, Any]) -> Any:
    """Run a tournament in the caller's app (the app key, or a player token with `play`, which enters
    only its own player besides bots): the game and its seats per match (`players`), options,
    the entrants (the app's players, built-in bot levels, or both), the format (`round_robin` or
    `swiss` with its `rounds`), matches per pairing, time control, rated or not, when to start and how
    many matches at most in flight.  The answer is the tournament without its matches (`Location`
    reads them): creating one costs the same whatever its size, and the workers' scheduler makes its
    matches as they start, from `starts_at` on.  Bots play on the workers, player entrants hear of each
    match on their feed and the app's webhooks (`tournament_match`, then `tournament_over`).  Points by
    finishing place (1 per opponent below, 1/2 per opponent tied); tie-breaks: wins, Buchholz, entry
    order.  Counted against the creation rate limit and the app's tournament caps."""
    doc = services().tournaments.create(body, current_caller())
    return doc, 201, {"Location": url_for("tournaments.get_tournament", tournament_id=doc["id"])}


@blp.route("", methods=["GET"])
@blp.arguments(TournamentListQuerySchema(), location="query")
@blp.response(200, TournamentListSchema)
@blp.doc(
    operationId="listTournaments", security=REQUIRED_SEAT, responses=errors(CREDENTIALS, READ_SCOPE, 422)
)
def list_tournaments(query: dict[str, Any]) -> dict[str, Any]:
    """The caller's app's tournaments (the app key or any of its players' tokens), newest first,
    without their matches; filter by `status`, and follow `next` (as `after`)."""
    found, cursor = services().tournaments.list(
        current_caller(), query.get("status"), query.get("after"), query["limit"]
    )
    return {"tournaments": found, "next": cursor}


@blp.route("/<tournament_id>", methods=["GET"])
@blp.response(200, TournamentSchema)
@blp.doc(
    operationId="getTournament", security=REQUIRED_SEAT, responses=errors(CREDENTIALS, READ_SCOPE, NOT_FOUND)
)
def get_tournament(tournament_id: str) -> dict[str, Any]:
    """A tournament of the caller's app (the app key or any of its players' tokens): its status,
    progress (matches done of all), standings, and every match (pending ones too: their ids are fixed
    in advance)."""
    return services().tournaments.get(tournament_id, current_caller())


@blp.route("/<tournament_id>/results", methods=["GET"])
@blp.arguments(TournamentResultsQuerySchema(), location="query")
@blp.response(200, TournamentResultsSchema)
@blp.doc(
    operationId="getTournamentResults",
    security=REQUIRED_SEAT,
    responses={200: {"content": {CSV_TYPE: _CSV_DOC}}, **errors(CREDENTIALS, READ_SCOPE, NOT_FOUND, 422)},
)
def get_tournament_results(query: dict[str, Any], tournament_id: str) -> Any:
    """Every finished or aborted match's seats in one read, with the standings: JSON, or with
    `format=csv` a CSV file (`text/csv`) of the same rows."""
    export = services().tournaments.results(tournament_id, current_caller())
    if query["format"] != "csv":
        return export
    return Response(
        render_csv(TournamentResultRowSchema(many=True).dump(export["results"])),  # the JSON's values
        mimetype=CSV_TYPE,
        headers={"Content-Disposition": f'attachment; filename="tournament-{export["tournament"]}.csv"'},
    )


@blp.route("/<tournament_id>/cancel", methods=["POST"])
@blp.response(200, TournamentSummarySchema)
@blp.doc(
    operationId="cancelTournament",
    security=REQUIRED_SEAT,
    responses=errors(CREDENTIALS, NOT_CREATOR, NOT_FOUND, OVER),
)
def cancel_tournament(tournament_id: str) -> dict[str, Any]:
    """Stop a tournament (the app key, or the player who created it): `cancelled`; no new match is made,
    standings stay as they were, and its matches under way are aborted by the workers moments later
    (the answer does not wait for them, and is the tournament without its matches: it costs the same
    whatever the tournament's size)."""
    return services().tournaments.cancel(tournament_id, current_caller())


def render_csv(rows: Iterable[Mapping[str, Any]]) -> str:
    """The export's rows as CSV (RFC 4180: ``\\r\\n`` line ends, quotes where needed), a header first;
    empty cells for nulls.  A name starting like a formula gets a ``'`` in front (see
    :data:`_FORMULA_START`): a file downloaded from here must not run anything in a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(column, row.get(column)) for column in CSV_COLUMNS])
    return out.getvalue()


def _cell(column: str, value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
