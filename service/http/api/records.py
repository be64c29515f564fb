"""Match records (issue 45): one match's (``GET /v1/matches/{id}/record``), the NDJSON exports of a
player's, an app's and a tournament's finished matches, and the record's JSON Schema
(``/record.schema.json``, outside the API spec like the spec itself)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Blueprint as FlaskBlueprint
from flask import Response

from engine import record_schema
from service.domain.chat.chat import Chat
from service.domain.identity import Caller
from service.domain.records.records import Filters, Records, filters
from service.encoding import dumps_bytes, loads
from service.http.api import Blueprint
from service.http.api.streams import NDJSON
from service.http.context import current_caller, services
from service.http.schemas.records import (
    DEFAULT_EXPORT_LIMIT,
    ExportQuerySchema,
    PlayerExportQuerySchema,
    RecordQuerySchema,
    RecordSchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import OPTIONAL_SEAT, REQUIRED_SEAT
from service.storage.matches import MatchMeta

match_records = Blueprint(
    "records", __name__, url_prefix="/v1/matches", description="Match records: a match's, to replay it"
)
exports = Blueprint(
    "exports", __name__, url_prefix="/v1", description="Exports of finished matches' records (NDJSON)"
)
#: The record's JSON Schema, served as the spec is: a static document, not an operation.
schema_file = FlaskBlueprint("record-schema", __name__)

_EXPORT_DOC = {
    200: {
        "description": "One full record a line (`Record`); after `limit` records a last line "
        '`{"type": "cursor", "cursor": "..."}`: pass it as `cursor` to go on.',
        "content": {
            NDJSON: {
                "schema": {"type": "string", "description": "One `Record` JSON document per line."},
                "x-item-schema": {"$ref": "#/components/schemas/Record"},
            }
        },
    }
}


def _records() -> Records:
    svc = services()
    matches = svc.matches

    def seat_of(meta: MatchMeta, who: Caller) -> int | None:
        return matches.caller(meta, who, required=False)

    return Records(matches.store, matches.games, svc.config, svc.accounts, seat_of)


def _stream(lines: Iterator[bytes], query: dict[str, Any]) -> Response:
    if "chat" in _includes(query):
        lines = _chat_lines(lines, services().chat)
    return Response(lines, mimetype=NDJSON, headers={"Cache-Control": "no-store"})


def _filters(query: dict[str, Any]) -> Filters:
    return filters(query.get("game"), query.get("rated"), query.get("since"), query.get("until"))


@match_records.route("/<match_id>/record", methods=["GET"])
@match_records.arguments(RecordQuerySchema(), location="query")
@match_records.response(200, RecordSchema)
@match_records.doc(operationId="getRecord", security=OPTIONAL_SEAT, responses=errors(401, 403, 404, 422))
def get_record(query: dict[str, Any], match_id: str) -> dict[str, Any] | Response:
    """The match's record (format `tabletop-record/1`, or `tabletop-record/2` when something was taken back,
    docs/records.md; JSON Schema `/record.schema.json`): its header, every decision (seat, action, when, the
    clock after it, the game events it caused; a taken-back one marked `taken_back`, with the `takebacks`) and
    the result.  Once the match is over anyone who may read it gets the `full` record, with the seed (`setup`)
    that replays it; `as=spectator` or `as=seat&seat=N` give another perspective.  While it is in play
    a seat (its token, or its player's) reads its own (its actions whole, others' secret parts masked, only
    the events it may see, no seed) or `as=spectator`; anyone else the spectator's (403 `record_in_play`
    for more).  `include=views` adds each decision's view after it and the `initial_view`."""
    record = _records().record(
        match_id,
        current_caller(),
        views="views" in _includes(query),
        perspective=query.get("perspective"),
        seat=query.get("seat"),
    )
    if "chat" in _includes(query):
        record = _with_chat(record, services().chat)
    if isinstance(record, bytes):  # a finished match's full record as kept: what the schema's dump gives
        return Response(record + b"\n", mimetype="application/json")
    return record


@exports.route("/me/records", methods=["GET"])
@exports.arguments(PlayerExportQuerySchema(), location="query")
@exports.doc(
    operationId="exportMyRecords",
    security=REQUIRED_SEAT,
    responses={**_EXPORT_DOC, **errors(401, 403, 404, 422)},
)
def export_my_records(query: dict[str, Any]) -> Response:
    """The player's finished matches as full records, newest first, one a line (NDJSON): a player token
    exports its own, an app key names the `player`.  Filters: `game`, `rated`, `since`/`until` (when
    the match finished)."""
    lines = _records().player_export(
        current_caller(), query.get("player"), _filters(query), query.get("cursor"), _limit(query)
    )
    return _stream(lines, query)


@exports.route("/apps/me/records", methods=["GET"])
@exports.arguments(ExportQuerySchema(), location="query")
@exports.doc(
    operationId="exportAppRecords", security=REQUIRED_SEAT, responses={**_EXPORT_DOC, **errors(401, 403, 422)}
)
def export_app_records(query: dict[str, Any]) -> Response:
    """The app's finished matches (the app key's, or a player token's app's) as full records, in the
    order they finished, one a line (NDJSON).  Filters: `game`, `rated`, `since`/`until` (when the
    match finished): a nightly `since=<last night>` archives what finished since.  Records expire with
    their matches (`TABLETOP_RETENTION_SECONDS`): export them to keep them."""
    lines = _records().app_export(current_caller(), _filters(query), query.get("cursor"), _limit(query))
    return _stream(lines, query)


@exports.route("/tournaments/<tournament_id>/records", methods=["GET"])
@exports.arguments(ExportQuerySchema(), location="query")
@exports.doc(
    operationId="exportTournamentRecords",
    security=REQUIRED_SEAT,
    responses={**_EXPORT_DOC, **errors(401, 403, 404, 422)},
)
def export_tournament_records(query: dict[str, Any], tournament_id: str) -> Response:
    """A tournament's finished matches (a tournament of the caller's app) as full records, in the order
    they finished, one a line (NDJSON); filters as the app's export."""
    lines = _records().tournament_export(
        current_caller(), tournament_id, _filters(query), query.get("cursor"), _limit(query)
    )
    return _stream(lines, query)


@schema_file.route("/record.schema.json")
def record_schema_document() -> Response:
    """The JSON Schema of a match record: the document committed as ``openapi/record.schema.json``."""
    return Response(record_schema.render(), mimetype="application/schema+json")


def _includes(query: dict[str, Any]) -> set[str]:
    return set(str(query.get("include") or "").split(","))


def _with_chat(record: dict[str, Any] | bytes, chat: Chat) -> dict[str, Any]:
    """``include=chat``: the record with its match's chat as the record's perspective may read it."""
    found: dict[str, Any] = loads(record) if isinstance(record, bytes) else record
    match_id = found["header"]["match_id"]
    found["chat"] = chat.for_record(match_id, found["perspective"], found["seat"])
    return found


def _chat_lines(lines: Iterator[bytes], chat: Chat) -> Iterator[bytes]:
    """An export's lines, each record with its match's chat (a full record's: both channels).  The
    export writes a batch of lines a piece (service/domain/records/records.py): each is read alone."""
    for piece in lines:
        for line in piece.splitlines():
            found = loads(line)
            if found.get("type") == "cursor":
                yield line + b"\n"
            else:
                yield dumps_bytes(_with_chat(found, chat)) + b"\n"


def _limit(query: dict[str, Any]) -> int:
    return int(query.get("limit", DEFAULT_EXPORT_LIMIT))
