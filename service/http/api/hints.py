"""Hints: ask a bot what it would play for the caller's seat, then read the job for the answer, at once
or waiting for it (``wait``: one request instead of polling, issue 44).

A hint job finishes in a worker with no notification the API could hear, so a wait reads the job again
at growing intervals (:data:`FIRST_LOOK` doubling to :data:`LAST_LOOK`), from a subscription to the
match's live events: the wait counts against the caller's waiter caps like a feed's long-poll
(:func:`service.http.api.streams.subscriber`), gives up its request's place while it sleeps, ends
when the client goes or its credential is revoked, and looks at once when the match moves (the hint is
then stale, and its job says so).
"""

from __future__ import annotations

import time
from typing import Any

from flask import request, url_for

from service.domain.identity import Caller
from service.http import request_log
from service.http.api import Blueprint
from service.http.api.streams import subscriber
from service.http.context import current_caller, services
from service.http.schemas.hints import HintRequestSchema, JobQuerySchema, JobSchema
from service.http.spec.responses import NOT_YOUR_DECISION, errors
from service.http.spec.security import REQUIRED_SEAT
from service.live.credentials import CredentialRevoked
from service.live.topics import Topic

blp = Blueprint("hints", __name__, description="Bot suggestions for human seats")

#: Seconds a client should wait before polling a running job again.
POLL_SECONDS = 1
_JOB = {"job_id": "$response.body#/id"}
#: A waiting request's looks at its job: the first after this many seconds, then twice as long each
#: time up to :data:`LAST_LOOK` (a quick hint answers within the first few; a search within 0.5 s).
FIRST_LOOK, LAST_LOOK = 0.02, 0.5
#: A job's statuses once it is done.
DONE = ("finished", "failed")
LOCATION = {"Location": {"description": "The job to poll.", "schema": {"type": "string"}}}
RETRY_AFTER = {"Retry-After": {"description": "Seconds until the next poll.", "schema": {"type": "integer"}}}


@blp.route("/v1/matches/<match_id>/hint", methods=["POST"])
@blp.arguments(HintRequestSchema(), required=False)  # no body: the default level and think time
@blp.response(202, JobSchema, headers=LOCATION, description="Running: read the job (or ask with `wait`)")
@blp.alt_response(
    200,
    schema=JobSchema,
    headers=LOCATION,
    description="Done (finished or failed): within `wait`, or already, as a quick hint can be",
)
@blp.doc(
    operationId="requestHint",
    security=REQUIRED_SEAT,
    responses={
        202: {"links": {"GetJob": {"operationId": "getJob", "parameters": _JOB}}},
        **errors(
            401,
            NOT_YOUR_DECISION,
            404,
            (409, "With `wait`: the match moved on before the bot could answer."),
            413,
            422,
            (429, "Too many hints of this client in flight, or (with `wait`) too many waiting clients."),
        ),
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

    With ``wait`` (seconds) the answer waits for the job: 200 with the job done (its ``action``) as
    soon as it is, or 202 when the wait is over first; a bot gets its hint in one request.  Without
    ``wait`` the answer is 202 while the job runs, and 200 when it is done already: the same question
    answered before, or a quick hint a worker finished before the answer left.
    """
    address = request.remote_addr or "unknown"  # the client's, behind TABLETOP_TRUSTED_PROXIES proxies
    who = current_caller()
    doc = services().matches.request_hint(match_id, who, body.get("level"), body.get("think_ms"), address)
    location = {"Location": url_for("hints.get_job", job_id=doc["id"])}
    doc = _awaited(doc, who, body.get("wait", 0.0))
    return (doc, 200, location) if doc["status"] in DONE else (doc, 202, location)


@blp.route("/v1/jobs/<job_id>", methods=["GET"])
@blp.arguments(JobQuerySchema(), location="query")
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
        422,
        (429, "With `wait`: too many waiting clients (your waiter caps)."),
    ),
)
def get_job(query: dict[str, Any], job_id: str) -> Any:
    """A hint job of the caller's seat: 202 while it runs, 200 with the suggested action once done.

    A job that failed is a 200 too, with status ``failed`` and an ``error``: the request for the job
    was fine and the job is what it is (a 5xx would tell monitoring the API is broken); asking for a
    hint again starts a new job.

    With ``?wait=N`` (seconds, 0 to 30) the answer waits up to that long for the job to be done: no
    polling.
    """
    who = current_caller()
    doc = _awaited(services().matches.hint(job_id, who), who, query.get("wait", 0.0))
    request_log.annotate(seat=doc["seat"])
    if doc["status"] not in DONE:
        return doc, 202, {"Retry-After": str(POLL_SECONDS)}
    return doc


def _awaited(doc: dict[str, Any], who: Caller, wait: float) -> dict[str, Any]:
    """The hint job ``doc`` once it is done, or as it is after ``wait`` seconds (at most the server's
    ``max_wait_seconds``), the client gone or the server stopping: see the module for how it waits."""
    svc = services()
    wait = min(wait, svc.config.max_wait_seconds)
    if doc["status"] in DONE or wait <= 0:
        return doc
    deadline = time.monotonic() + wait
    look = FIRST_LOOK
    with subscriber(Topic.match(doc["match_id"]))() as sub:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or sub.client_gone():
                return doc
            sub.take(min(look, remaining))  # wakes at once if the match moved
            if sub.revoked is not None:
                raise CredentialRevoked(sub.revoked)
            look = min(look * 2, LAST_LOOK)
            doc = svc.matches.hint(doc["id"], who)
            if doc["status"] in DONE:
                return doc
