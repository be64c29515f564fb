"""Hints: ask a bot what it would play for the caller's seat, then poll the job for the answer."""

from __future__ import annotations

from typing import Any

from flask import request, url_for

from service.http import request_log
from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.schemas.hints import HintRequestSchema, JobSchema
from service.http.spec import NOT_YOUR_DECISION, REQUIRED_SEAT, errors

blp = Blueprint("hints", __name__, description="Bot suggestions for human seats")

#: Seconds a client should wait before polling a running job again.
POLL_SECONDS = 1
_JOB = {"job_id": "$response.body#/id"}
LOCATION = {"Location": {"description": "The job to poll.", "schema": {"type": "string"}}}
RETRY_AFTER = {"Retry-After": {"description": "Seconds until the next poll.", "schema": {"type": "integer"}}}


@blp.route("/v1/matches/<match_id>/hint", methods=["POST"])
@blp.arguments(HintRequestSchema(), required=False)  # no body: the default level and think time
@blp.response(202, JobSchema, headers=LOCATION)
@blp.doc(
    operationId="requestHint",
    security=REQUIRED_SEAT,
    responses={
        202: {"links": {"GetJob": {"operationId": "getJob", "parameters": _JOB}}},
        **errors(401, NOT_YOUR_DECISION, 404, 413, 422),
    },
)
def request_hint(body: dict[str, Any], match_id: str) -> Any:
    """Ask a bot (``level``, ``think_ms``) for a move for the caller's pending decision.

    The bot sees only what the caller's seat sees.  A seat has one hint at a time: while one is
    running, asking again (for whatever level) returns it; once finished, asking the same question
    (version and level) returns it too.  ``think_ms`` is capped by the server (422 beyond), and so are
    the hints one client address has queued or running at once (429 ``too_many_hints`` with
    ``Retry-After`` beyond); a client's only hint is served before the hints of clients with several.
    ``random`` and ``easy`` hints take milliseconds and never wait behind the searching levels' hints.
    Asking is acting: an away seat is its player's again (as with ``POST .../return``).
    """
    address = request.remote_addr or "unknown"  # the client's, behind TABLETOP_TRUSTED_PROXIES proxies
    doc = services().matches.request_hint(
        match_id, current_caller(), body.get("level"), body.get("think_ms"), address
    )
    return doc, 202, {"Location": url_for("hints.get_job", job_id=doc["id"])}


@blp.route("/v1/jobs/<job_id>", methods=["GET"])
@blp.response(
    200, JobSchema, description="Done: `finished` with the suggested `action`, or `failed` (ask again)"
)
@blp.alt_response(202, schema=JobSchema, description="Still running; poll again", headers=RETRY_AFTER)
@blp.doc(
    operationId="getJob",
    security=REQUIRED_SEAT,
    responses=errors(
        401,
        (404, "Unknown or expired job, or another seat's."),
        (409, "The match moved on before the bot could answer."),
    ),
)
def get_job(job_id: str) -> Any:
    """A hint job of the caller's seat: 202 while it runs, 200 with the suggested action once done.

    A job that failed is a 200 too, with status ``failed`` and an ``error``: the request for the job
    was fine and the job is what it is (a 5xx would tell monitoring the API is broken); asking for a
    hint again starts a new job.
    """
    doc = services().matches.hint(job_id, current_caller())
    request_log.annotate(seat=doc["seat"])
    if doc["status"] not in ("finished", "failed"):
        return doc, 202, {"Retry-After": str(POLL_SECONDS)}
    return doc
