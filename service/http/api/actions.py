"""Moves: one action of the caller's seat, guarded by the match version.

A move is the request the API serves most, so its view has a fast path (issue 30 point 2: a move cost
three times a health check).  A request the schemas plainly accept (a JSON object holding an
``action`` object and at most an integer ``expected_version``, a quoted ``If-Match``, a short
``Idempotency-Key``) is read directly by :mod:`service.http.fast_path`, with the limits of the same
schemas, and its answer is encoded without the response schema's dump, which would copy the view
unchanged.  Anything else, every request that could be refused included, takes the documented path
(:func:`_documented`): the same schemas, so the same 400, 413 and 422 bodies as ever, and the spec is
built from that path's decorators alone.
"""

from __future__ import annotations

from typing import Any

from flask import Request, Response, jsonify, request

from service.domain.matches.play import Move
from service.http.api import ETAG_HEADER, Blueprint
from service.http.context import current_caller, services
from service.http.errors import etag
from service.http.fast_path import Reader
from service.http.schemas.actions import ActionHeadersSchema, ActionRequestSchema, MoveResultSchema
from service.http.spec.responses import NOT_YOUR_DECISION, errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint("actions", __name__, url_prefix="/v1/matches", description="Moves")


_SAME_MATCH = {"match_id": "$request.path.match_id"}
#: After a move: what the next decision is, and the new state.
MOVE_LINKS = {
    "GetLegalActions": {"operationId": "getLegalActions", "parameters": _SAME_MATCH},
    "GetMatch": {"operationId": "getMatch", "parameters": _SAME_MATCH},
}
#: The fast path's readers of a move's body and headers, with the documented path's schemas' limits.
_BODY = Reader(ActionRequestSchema(), "json")
_HEADERS = Reader(ActionHeadersSchema(), "headers")


def _play(body: dict[str, Any], headers: dict[str, Any], match_id: str) -> tuple[dict[str, Any], str]:
    """The move itself, on parsed arguments: the mover's answer and its ETag."""
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
    with svc.matches.store.holding():  # the load and the commit over one connection
        result = svc.matches.move(match_id, who, move)
    svc.metrics.observe_move()
    return result, etag(result["version"])


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
def _documented(body: dict[str, Any], headers: dict[str, Any], match_id: str) -> Any:
    """Submit one action for the caller's seat, based on the version the caller saw.

    Retrying with the same ``Idempotency-Key`` returns the stored response and applies nothing twice;
    the same key with a different body is 422.  A move of an away seat brings its player back (as
    ``POST .../return`` does) and is played.

    ``next_decision``: when the same seat decides again at once (a run of decisions), that decision
    whole (``version``, ``seat``, ``view``, ``legal_actions``), so a bot moves again without reading
    the match; ``null`` otherwise.
    """
    result, tag = _play(body, headers, match_id)
    return result, 200, {"ETag": tag}


def well_formed(req: Request) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The move request's body and headers as the documented path's schemas would load them, if the
    request is one they accept without a doubt (:class:`service.http.fast_path.Reader`); ``None``
    sends it down that path.  A float version (``3.0``, which the schema takes as 3) and anything
    unusual go the long way."""
    body = _BODY.read(req)
    if body is None:
        return None
    headers = _HEADERS.read(req)
    return None if headers is None else (body, headers)


def submit_action(match_id: str) -> Any:
    """The route's view: :func:`well_formed` requests here, the rest through :func:`_documented`.

    The answer is what the documented path sends: the response schema's dump of a move's answer is
    the answer itself (the same keys, in the schema's order), so it is encoded as it is."""
    parsed = well_formed(request)
    if parsed is None:
        return _documented(match_id=match_id)
    result, tag = _play(*parsed, match_id)
    response: Response = jsonify(result)
    response.headers["ETag"] = tag
    return response


# The spec and the docs come from the documented path's decorators and docstring.
submit_action._apidoc = _documented._apidoc  # type: ignore[attr-defined]
submit_action.__doc__ = _documented.__doc__
blp.route("/<match_id>/actions", methods=["POST"])(submit_action)
