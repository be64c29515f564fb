"""A match's life around its moves: join an open seat, cancel a waiting match, resign, rematch."""

from __future__ import annotations

from typing import Any

from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.schemas.lifecycle import RematchSchema
from service.http.schemas.matches import JoinedSchema, JoinRequestSchema, MatchSchema
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT, SECURITY_SCHEME

blp = Blueprint(
    "lifecycle", __name__, url_prefix="/v1/matches", description="Joining, leaving, returning, playing again"
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
    return services().matches.join(
        match_id, body["seat"], body.get("name"), body.get("invite"), current_caller()
    )


@blp.route("/<match_id>/cancel", methods=["POST"])
@blp.response(200, MatchSchema)
@blp.doc(
    operationId="cancelMatch",
    security=[{SECURITY_SCHEME: []}],
    responses=errors(
        (401, "The creator token (or the creating app key or player token) is required."),
        (403, "`not_creator`: this app key or player token did not create the match."),
        404,
        NOT_WAITING,
    ),
)
def cancel_match(match_id: str) -> dict[str, Any]:
    """Call off a match that waits for players; it ends `aborted`.  Bearer: an anonymous creation's
    `creator_token`, or the credential that created the match: the app's key (any match of the app)
    or the creating player's token (scope `play`), which is why those creations get no creator
    token."""
    return services().matches.cancel(match_id, current_caller())


@blp.route("/<match_id>/resign", methods=["POST"])
@blp.response(200, MatchSchema)
@blp.doc(
    operationId="resignSeat",
    security=REQUIRED_SEAT,
    responses=errors(401, 404, (409, "The match is over, or the seat was left already.")),
)
def resign_seat(match_id: str) -> dict[str, Any]:
    """Leave the match for good.  Before it starts, your seat opens again (a private seat's invite
    code joins it again; a private match whose seat has no code, one the creator named, ends
    `aborted`, reason `abandoned`); in a rematch not yet started, you withdraw the offer (it ends
    `aborted`, reason `withdrawn`).  During play a bot takes your seat
    (the level chosen at creation, `on_leave`) and the match goes on, or, when the match was created
    with `on_leave.then = "abort"`, it ends `aborted` once no human is left.  The result records who
    resigned."""
    return services().matches.resign(match_id, current_caller())


@blp.route("/<match_id>/return", methods=["POST"])
@blp.response(200, MatchSchema)
@blp.doc(
    operationId="returnToSeat",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        (403, "`seat_left`: the seat was resigned (a bot plays it for good)."),
        404,
        (
            409,
            "`not_away`: the seat is not away (it is yours already: a client may ignore this answer to "
            "a repeated call), or `match_over`.",
        ),
    ),
)
def return_to_seat(match_id: str) -> dict[str, Any]:
    """Come back to your seat after it went away (`"away": true`: a bot played it after
    `max_timeouts` timeouts): the seat is yours again, everyone gets a `seat_returned` event, and its
    clock runs from now if the decision is yours.  Answers the match as your seat sees it.  Reading
    the match or its legal actions never does this (a GET changes nothing; legal actions answer 403
    `seat_away` meanwhile); moving or asking for a hint does it too.  Calling this twice is safe: the
    second call is 409 `not_away`, which a client may ignore."""
    return services().matches.return_to_seat(match_id, current_caller())


@blp.route("/<match_id>/rematch", methods=["POST"])
@blp.response(200, RematchSchema)
@blp.doc(
    operationId="requestRematch",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        (403, "The seat was resigned (a bot played it to the end)."),
        404,
        (
            409,
            "The match is not finished, this seat has its place in the rematch already, or the offer "
            "was declined.",
        ),
    ),
)
def request_rematch(match_id: str) -> dict[str, Any]:
    """Play again: the first seat to ask creates the rematch (same game, options, bots and time
    control; a new seed; every seat moved one place so another player starts); each human seat's
    player gets their seat and its new token by calling this (a seat a bot played after timeouts
    too: its player never left).  The rematch starts when all have; the finished match's `rematch`
    names it and the rematch's `rematch_of` the finished match (a player's feed gets the offer as
    `invited` with `rematch_of` and `join_required`: joining the rematch takes the seat too).  An
    offer not taken by every player within `TABLETOP_WAITING_SECONDS` expires; asking again
    afterwards offers it anew."""
    return services().matches.rematch(match_id, current_caller())


@blp.route("/<match_id>/rematch/decline", methods=["POST"])
@blp.response(200, MatchSchema)
@blp.doc(
    operationId="declineRematch",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        (403, "The seat was resigned."),
        404,
        (409, "The match is not finished, nobody asked for a rematch, or the rematch is not waiting."),
    ),
)
def decline_rematch(match_id: str) -> dict[str, Any]:
    """Say no to the rematch of a finished match (bearer: your seat or player token of the finished
    match, the `rematch_of` of the offer's `invited` entry): a
    player who had not taken their seat declines the offer, one who had (the offerer) withdraws it.
    The rematch ends `aborted` (reason `declined` or `withdrawn`) and is the answer; the finished
    match's events tell it (`rematch_declined`).  Only an offer not yet started can be declined."""
    return services().matches.decline_rematch(match_id, current_caller())
