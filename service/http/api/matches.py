"""Matches: create, list, read (the caller's view), legal actions."""

from __future__ import annotations

from typing import Any

from flask import Response, request, url_for

from service.http.api import ETAG_HEADER, Blueprint
from service.http.api.idempotency import idempotent
from service.http.context import current_caller, services
from service.http.errors import etag
from service.http.schemas.actions import LegalActionsSchema
from service.http.schemas.matches import (
    ConditionalGetSchema,
    CreatedMatchSchema,
    CreateMatchSchema,
    MatchListQuerySchema,
    MatchListSchema,
    MatchSchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import OPTIONAL_SEAT, REQUIRED_SEAT

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Matches and what a seat sees")

_MATCH_ID = "$response.body#/id"
#: OpenAPI links from a created match to what a client does next (schemathesis follows them too).
CREATED_LINKS = {
    name: {"operationId": op, "parameters": {"match_id": _MATCH_ID}}
    for name, op in (
        ("GetMatch", "getMatch"),
        ("GetLegalActions", "getLegalActions"),
        ("SubmitAction", "submitAction"),
        ("GetEvents", "getEvents"),
        ("GetLog", "getLog"),
    )
}


#: From the legal actions to submitting one of them, based on the version they were computed for.
LEGAL_LINKS = {
    "SubmitFirstLegalAction": {
        "operationId": "submitAction",
        "parameters": {"match_id": "$request.path.match_id", "header.If-Match": "$response.header.ETag"},
        "requestBody": {"action": "$response.body#/actions/0"},
    }
}


def not_modified(version: int) -> Response | None:
    """A 304 when the client's If-None-Match names the current version."""
    if request.if_none_match.contains_weak(str(version)):
        return Response(status=304, headers={"ETag": etag(version), "Vary": "Authorization"})
    return None


@blp.route("", methods=["POST"])
@idempotent
@blp.arguments(CreateMatchSchema())
@blp.response(201, CreatedMatchSchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(operationId="createMatch", responses={201: {"links": CREATED_LINKS}, **errors(413, 422)})
def create_match(body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
    """Start a match.  The response carries each human seat's token: the only time it is shown.

    Bad game ids, player counts (the number of seats) and options are 422 naming the field.  Only an
    anonymous creation gets a `creator_token` (to cancel with): an app key or a player token cancels
    with itself.
    """
    doc = services().matches.create(body, caller=current_caller())
    return (
        doc,
        201,
        {"Location": url_for("matches.get_match", match_id=doc["id"]), "ETag": etag(doc["version"])},
    )


@blp.route("", methods=["GET"])
@blp.arguments(MatchListQuerySchema(), location="query")
@blp.response(200, MatchListSchema)
@blp.doc(operationId="listMatches")
def list_matches(query: dict[str, Any]) -> dict[str, Any]:
    """Matches newest first, filtered by game and status; follow ``next_cursor`` for the next page.

    A page may hold fewer than ``limit`` matches when some have just expired.  Seats a player holds
    name it (`player`) to that app's key and its players' tokens only.
    """
    svc = services()
    limit = query.get("limit", svc.config.page_size)
    before = int(query["cursor"]) if "cursor" in query else None
    found, cursor = svc.matches.list_matches(
        query.get("game"), query.get("status"), before, limit, current_caller()
    )
    return {"matches": found, "next_cursor": None if cursor is None else str(cursor)}


@blp.route("/<match_id>", methods=["GET"])
@blp.arguments(ConditionalGetSchema(), location="headers")
@blp.response(200, MatchSchema, headers=ETAG_HEADER)
@blp.alt_response(304, description="Not modified: the version in If-None-Match is current")
@blp.doc(operationId="getMatch", security=OPTIONAL_SEAT, responses=errors(401, 404))
def get_match(_headers: dict[str, Any], match_id: str) -> Any:
    """The match as the caller's seat sees it (bearer seat token), or as a spectator (no token).

    Seats a player holds name it (`player`, the app's own id) to that app's key and its players'
    tokens only."""
    matches, who = services().matches, current_caller()
    meta, state = matches.meta_and_state(match_id)
    seat = matches.caller(meta, who, required=False)
    cached = not_modified(meta.version)
    if cached is not None:
        return cached
    document = matches.document(meta, state, seat, who)
    return document, 200, {"ETag": etag(meta.version), "Vary": "Authorization"}


LEGAL_REFUSED = (
    403,
    "The pending decision is another seat's (`not_your_decision`), the seat is away (`seat_away`: "
    "`POST /v1/matches/{match_id}/return` first) or was resigned (`seat_left`).",
)


@blp.route("/<match_id>/legal-actions", methods=["GET"])
@blp.response(200, LegalActionsSchema, headers=ETAG_HEADER)
@blp.doc(
    operationId="getLegalActions",
    security=REQUIRED_SEAT,
    responses={200: {"links": LEGAL_LINKS}, **errors(401, LEGAL_REFUSED, 404)},
)
def legal_actions(match_id: str) -> Any:
    """Every action the caller's seat may submit now (only when the pending decision is theirs).

    Reading them changes nothing: an away seat (a bot plays it after timeouts) stays away and gets 403
    `seat_away` until its player comes back with `POST /v1/matches/{match_id}/return`."""
    body = services().matches.legal_actions(match_id, current_caller())
    return body, 200, {"ETag": etag(body["version"])}
