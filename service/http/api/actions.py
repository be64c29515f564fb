"""Moves: one action of the caller's seat, guarded by the match version.

A move is the request the API serves most, so its view has a fast path (issue 30 point 2: a move cost
three times a health check).  A well-formed request (a JSON object holding an ``action`` object and at
most an integer ``expected_version``, a quoted ``If-Match``, a short ``Idempotency-Key``) is read here
directly, without webargs and marshmallow, and its answer is encoded without the response schema's
dump, which would copy the view unchanged.  Anything else, every request that could be refused
included, takes the documented path (:func:`_documented`): the same schemas, so the same 400, 413 and
422 bodies as ever, and the spec is built from that path's decorators alone.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Request, Response, jsonify, request

from service.http.api import ETAG_HEADER, Blueprint, current_caller, services
from service.http.errors import etag
from service.http.schemas.actions import (
    IF_MATCH,
    ActionHeadersSchema,
    ActionRequestSchema,
    MoveResultSchema,
)
from service.http.spec import NOT_YOUR_DECISION, REQUIRED_SEAT, errors
from service.matches.operations import Move

blp = Blueprint("actions", __name__, url_prefix="/v1/matches", description="Moves")


_SAME_MATCH = {"match_id": "$request.path.match_id"}
#: After a move: what the next decision is, and the new state.
MOVE_LINKS = {
    "GetLegalActions": {"operationId": "getLegalActions", "parameters": _SAME_MATCH},
    "GetMatch": {"operationId": "getMatch", "parameters": _SAME_MATCH},
}
#: The body fields of a move request (:class:`ActionRequestSchema`): any other is a 422.
_BODY_FIELDS = frozenset({"action", "expected_version"})
#: The longest ``Idempotency-Key`` (:class:`ActionHeadersSchema`).
_MAX_IDEMPOTENCY_KEY = 255
_IF_MATCH = re.compile(IF_MATCH)


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
    """
    result, tag = _play(body, headers, match_id)
    return result, 200, {"ETag": tag}


def well_formed(req: Request) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The move request's body and headers as the documented path's schemas would load them, if the
    request is one they accept without a doubt; ``None`` sends it down that path.

    The body is read as webargs reads it (the request's cached data, UTF-8, the standard library's
    decoder; the body size limit applies alike), and only what the schemas plainly accept passes: a
    JSON object with an ``action`` object and at most a non-negative integer ``expected_version``; an
    ``If-Match`` matching :data:`IF_MATCH`; an ``Idempotency-Key`` of 1 to 255 characters.  A float
    version (``3.0``, which the schema takes as 3) and anything unusual go the long way."""
    if req.mimetype != "application/json":
        return None
    try:
        body = json.loads(req.get_data(cache=True).decode("utf-8"))
    except ValueError:  # malformed JSON, bad UTF-8, an over-long integer: the schemas' errors
        return None
    if type(body) is not dict or not body.keys() <= _BODY_FIELDS or type(body.get("action")) is not dict:
        return None
    version = body.get("expected_version", 0)
    if type(version) is not int or version < 0:
        return None
    headers: dict[str, Any] = {}
    if_match = req.headers.get("If-Match")
    if if_match is not None:
        if _IF_MATCH.fullmatch(if_match) is None:
            return None
        headers["if_match"] = if_match
    key = req.headers.get("Idempotency-Key")
    if key is not None:
        if not 0 < len(key) <= _MAX_IDEMPOTENCY_KEY:
            return None
        headers["idempotency_key"] = key
    # The schema's Dict field loads a shallow copy of the action.
    return {**body, "action": dict(body["action"])}, headers


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
