"""Hints: ask a bot what it would play for the caller's seat, then poll the job for the answer."""

from __future__ import annotations

from typing import Any

from flask import request, url_for

from engine.ai import DEFAULT_THINK_MS
from service import auth, bots, logs
from service.api import Blueprint, services
from service.bots import JobInfo
from service.errors import invalid, not_found
from service.play import bearer_or_401, check_decision, stale, unauthorized
from service.schemas.hints import HintRequestSchema, JobSchema
from service.spec import NOT_YOUR_DECISION, REQUIRED_SEAT, errors

blp = Blueprint("hints", __name__, description="Bot suggestions for human seats")

#: Seconds a client should wait before polling a running job again.
POLL_SECONDS = 1
_JOB = {"job_id": "$response.body#/id"}
LOCATION = {"Location": {"description": "The job to poll.", "schema": {"type": "string"}}}
RETRY_AFTER = {"Retry-After": {"description": "Seconds until the next poll.", "schema": {"type": "integer"}}}


def job_document(info: JobInfo) -> dict[str, Any]:
    meta = info.meta
    action = info.result["action"] if info.result else None
    return {
        "id": info.id,
        "status": info.status,
        "match_id": meta["match_id"],
        "version": meta["version"],
        "seat": meta["seat"],
        "level": meta["level"],
        "action": action,
    }


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
    (version and level) returns it too.  ``think_ms`` is capped by the server (422 beyond).
    """
    matches = services().matches
    meta = matches.meta(match_id)
    seat = matches.caller(meta, request.headers.get("Authorization"), required=True)
    check_decision(meta, seat)
    level = body.get("level", bots.DEFAULT_LEVEL)
    think_ms = body.get("think_ms", DEFAULT_THINK_MS[level])
    refused = matches.bots.check_think_ms(think_ms)
    if refused is not None:
        raise invalid("think_ms", refused)
    job_id = matches.bots.request_hint(matches.store, match_id, meta.version, seat, level, think_ms)
    info = matches.bots.hint(job_id)
    if info is None:  # finished and expired in between: practically impossible, but say so
        raise not_found(f"job {job_id!r}")
    return job_document(info), 202, {"Location": url_for("hints.get_job", job_id=job_id)}


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
    matches = services().matches
    # The token first, and one 404 for a job that does not exist and one that is another seat's, so
    # nothing here tells whether, when or how another seat asked for help.
    token = bearer_or_401(request.headers.get("Authorization"))
    if token is None:
        raise unauthorized("a seat token is required")
    info = matches.bots.hint(job_id)
    loaded = matches.store.load(info.meta["match_id"], state=False) if info is not None else None
    mine = loaded is not None and auth.seat_of_token(token, loaded.meta.token_hashes) == info.meta["seat"]
    if not mine:
        raise not_found(f"job {job_id!r}")
    meta = loaded.meta
    logs.annotate(seat=info.meta["seat"])
    doc = job_document(info)
    if info.status in bots.DEAD:
        return {**doc, "status": "failed", "error": "the bot could not compute a hint; ask again"}
    if info.status != "finished":
        return doc, 202, {"Retry-After": str(POLL_SECONDS)}
    if doc["action"] is None:
        raise stale(meta.version, "body")
    return doc
