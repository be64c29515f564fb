"""Takebacks (issue 47): ask to take back your latest decisions, read the requests, accept or decline
another seat's (service/domain/matches/takebacks.py)."""

from __future__ import annotations

from typing import Any

from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.schemas.takebacks import (
    REFUSAL_REASONS,
    MatchTakebacksSchema,
    TakebackAnswerSchema,
    TakebackRequestSchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import OPTIONAL_SEAT, REQUIRED_SEAT

blp = Blueprint(
    "takebacks", __name__, url_prefix="/v1/matches", description="Taking back decisions, by agreement"
)

_REASONS = ", ".join(f"`{r}`" for r in REFUSAL_REASONS)
REFUSED = (
    409,
    f"`takeback_refused`: `details.reason` is one of {_REASONS} (`details.rule`: the rule that drew or "
    "revealed); or `match_waiting`, `match_aborted`.",
)
SEAT_LEFT = (403, "`seat_left`: a bot plays your seat for good (you resigned).")


@blp.route("/<match_id>/takebacks", methods=["POST"])
@blp.arguments(TakebackRequestSchema(), required=False)  # no body: one decision
@blp.response(201, TakebackAnswerSchema)
@blp.doc(
    operationId="requestTakeback",
    security=REQUIRED_SEAT,
    responses=errors(401, SEAT_LEFT, 404, REFUSED, 413, 422),
)
def request_takeback(body: dict[str, Any], match_id: str) -> tuple[dict[str, Any], int]:
    """Ask to take back your last `count` decisions (default 1).

    Allowed when, since the first of them, no other seat decided, nothing hidden was revealed to
    anyone and nothing random was drawn, and they were yours (not a timeout's bot's); otherwise 409
    `takeback_refused` with the `reason` and the `rule`.  One request may be open per match (`open`)
    and each seat has `TABLETOP_TAKEBACK_LIMIT` requests a match (`limit`).  Every other player accepts
    (bots at once: with no other player the answer is already `accepted`); the request expires with the
    pending decision's clock (or after `TABLETOP_TAKEBACK_SECONDS` without one), and any decision made
    meanwhile makes it `void`.  Everyone gets a `takeback_requested` event (and feed entry)."""
    doc = services().matches.request_takeback(match_id, current_caller(), body.get("count", 1))
    return doc, 201


@blp.route("/<match_id>/takebacks", methods=["GET"])
@blp.response(200, MatchTakebacksSchema)
@blp.doc(operationId="listTakebacks", security=OPTIONAL_SEAT, responses=errors(401, 404))
def list_takebacks(match_id: str) -> dict[str, Any]:
    """The match's takeback requests, the open one apart; with a seat token (or player token) also your
    requests left and how many of your latest decisions you could take back now (`undoable`).
    Spectators see the requests too."""
    return services().matches.takebacks_of(match_id, current_caller())


@blp.route("/<match_id>/takebacks/<takeback_id>/accept", methods=["POST"])
@blp.response(200, TakebackAnswerSchema)
@blp.doc(
    operationId="acceptTakeback",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        (403, "`own_takeback`: the other players answer your request; or `seat_left`."),
        (404, "No such match or request."),
        (
            409,
            "`takeback_refused`: the request is no longer open (`closed`: answered or expired), or a "
            "decision was made since (`other_player`: the request is void); `already_answered`.",
        ),
    ),
)
def accept_takeback(match_id: str, takeback_id: str) -> dict[str, Any]:
    """Accept another seat's open request.  The last player to accept takes the decisions back: the
    match goes back to the position before them (a new version; everyone gets `takeback_accepted`
    and a `takeback` event: read the match again), and the requester decides again."""
    return services().matches.accept_takeback(match_id, takeback_id, current_caller())


@blp.route("/<match_id>/takebacks/<takeback_id>/decline", methods=["POST"])
@blp.response(200, TakebackAnswerSchema)
@blp.doc(
    operationId="declineTakeback",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        SEAT_LEFT,
        (404, "No such match or request."),
        (409, "`takeback_refused`: the request is no longer open (`closed`, `other_player`)."),
    ),
)
def decline_takeback(match_id: str, takeback_id: str) -> dict[str, Any]:
    """Decline another seat's open request, or withdraw your own: nothing changes on the board, and
    everyone gets `takeback_declined`."""
    return services().matches.decline_takeback(match_id, takeback_id, current_caller())
