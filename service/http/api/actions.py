"""Moves: one action of the caller's seat, guarded by the match version."""

from __future__ import annotations

from typing import Any

from service.http.api import ETAG_HEADER, Blueprint, current_caller, services
from service.http.errors import etag
from service.http.schemas.actions import ActionHeadersSchema, ActionRequestSchema, MoveResultSchema
from service.http.spec import NOT_YOUR_DECISION, REQUIRED_SEAT, errors
from service.matches.operations import Move

blp = Blueprint("actions", __name__, url_prefix="/v1/matches", description="Moves")


_SAME_MATCH = {"match_id": "$request.path.match_id"}
#: After a move: what the next decision is, and the new state.
MOVE_LINKS = {
    "GetLegalActions": {"operationId": "getLegalActions", "parameters": _SAME_MATCH},
    "GetMatch": {"operationId": "getMatch", "parameters": _SAME_MATCH},
}


@blp.route("/<match_id>/actions", methods=["POST"])
@blp.arguments(ActionRequestSchema())
@blp.arguments(ActionHeadersSchema(), location="headers")
@blp.response(200, MoveResultSchema, headers=ETAG_HEADER)
@blp.doc(
    operationId="submitAction",
    security=REQUIRED_SEAT,
    responses={
        200: {"links": MOVE_LINKS},
        **errors(
            401,
            NOT_YOUR_DECISION,
            404,
            (
                409,
                "Stale `expected_version` (`details.current_version` is the match's version), or "
                "`out_of_time`: the decision's deadline (`details.deadline`) has passed and the timeout "
                "plays it.",
            ),
            (412, "Stale `If-Match`: `details.current_version` and `ETag` give the match's version."),
            413,
            (422, "Malformed request, or an illegal action: `rule` names the rule that forbids it."),
            (428, "Neither `If-Match` nor `expected_version` was sent (checked after 401 and 404)."),
        ),
    },
)
def submit_action(body: dict[str, Any], headers: dict[str, Any], match_id: str) -> Any:
    """Submit one action for the caller's seat, based on the version the caller saw.

    Retrying with the same ``Idempotency-Key`` returns the stored response and applies nothing twice;
    the same key with a different body is 422.  A move of an away seat brings its player back (as
    ``POST .../return`` does) and is played.
    """
    svc = services()
    if_match = headers.get("if_match")
    move = Move(
        action=body["action"],
        body_version=body.get("expected_version"),
        header_version=int(if_match.strip().strip('"')) if if_match else None,
        idempotency_key=headers.get("idempotency_key"),
    )
    who = current_caller()
    if move.header_version is None and move.body_version is None:
        # Who asks and for which match come before how (the spec's order: 401 and 404, then 428); a
        # versionless move is rare, so its extra read costs nothing on the path of real moves.
        svc.matches.caller(svc.matches.meta(match_id), who, required=True)
    result = svc.matches.move(match_id, who, move)
    svc.metrics.observe_move()
    return result, 200, {"ETag": etag(result["version"])}
