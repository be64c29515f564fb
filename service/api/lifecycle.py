"""A match's life around its moves: join an open seat, cancel a waiting match, resign, rematch."""

from __future__ import annotations

from typing import Any

from flask import request

from service import lifecycle
from service.api import Blueprint, services
from service.schemas.lifecycle import RematchSchema
from service.schemas.matches import JoinedSchema, JoinRequestSchema, MatchSchema
from service.spec import REQUIRED_SEAT, SECURITY_SCHEME, errors

blp = Blueprint(
    "lifecycle", __name__, url_prefix="/v1/matches", description="Joining, leaving and playing again"
)

NOT_WAITING = (409, "The match is not waiting for players (it started, or was aborted).")


@blp.route("/<match_id>/join", methods=["POST"])
@blp.arguments(JoinRequestSchema())
@blp.response(200, JoinedSchema)
@blp.doc(
    operationId="joinMatch",
    security=[{}],
    responses=errors(
        (403, "A private match's seat needs its invite code."),
        404,
        (409, "The seat is taken (or kept for a rematch's player), or the match is not waiting."),
        413,
        422,
    ),
)
def join_match(body: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Take an open seat of a `waiting` match: a seat number or `"any"`, and your name.

    Answers the seat's token (the only time it is shown) and the match as your seat sees it; the
    match starts when its last open seat is taken.  A private match's seat needs its invite code.
    Of two clients racing for the last seat, one gets it and the other a 409.
    """
    return lifecycle.join(services().matches, match_id, body["seat"], body["name"], body.get("invite"))


@blp.route("/<match_id>/cancel", methods=["POST"])
@blp.response(200, MatchSchema)
@blp.doc(
    operationId="cancelMatch",
    security=[{SECURITY_SCHEME: []}],
    responses=errors((401, "The creator token is required."), 404, NOT_WAITING),
)
def cancel_match(match_id: str) -> dict[str, Any]:
    """Call off a match that waits for players (bearer: the creator token); it ends `aborted`."""
    return lifecycle.cancel(services().matches, match_id, request.headers.get("Authorization"))


@blp.route("/<match_id>/resign", methods=["POST"])
@blp.response(200, MatchSchema)
@blp.doc(
    operationId="resignSeat",
    security=REQUIRED_SEAT,
    responses=errors(401, 404, (409, "The match is over, or the seat was left already.")),
)
def resign_seat(match_id: str) -> dict[str, Any]:
    """Leave the match.  Before it starts, your seat opens again.  During play a bot takes your seat
    (the level chosen at creation, `on_leave`) and the match goes on, or, when the match was created
    with `on_leave.then = "abort"`, it ends `aborted` once no human is left.  The result records who
    resigned."""
    return lifecycle.resign(services().matches, match_id, request.headers.get("Authorization"))


@blp.route("/<match_id>/rematch", methods=["POST"])
@blp.response(200, RematchSchema)
@blp.doc(
    operationId="requestRematch",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        (403, "The seat was left (a bot played it to the end)."),
        404,
        (409, "The match is not finished, or this seat has its place in the rematch already."),
    ),
)
def request_rematch(match_id: str) -> dict[str, Any]:
    """Play again: the first seat to ask creates the rematch (same game, options, bots and time
    control; a new seed; every seat moved one place so another player starts); each human seat's
    player gets their seat and its new token by calling this.  The rematch starts when all have;
    the finished match's `rematch` names it."""
    return lifecycle.rematch(services().matches, match_id, request.headers.get("Authorization"))
