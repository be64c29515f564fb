"""Hints: a bot's suggestion for a human seat, computed by a worker and polled as a job."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from engine.ai import LEVELS
from service.http.schemas.actions import ACTION
from service.http.schemas.fields import bot_level, think_ms

#: The longest a hint request or a job read waits for the job (seconds).
MAX_JOB_WAIT_SECONDS = 30


def job_wait(what: str) -> fields.Float:
    """A long-poll's ``wait`` on a hint job: 0 (answer at once, as before) to 30 seconds."""
    return fields.Float(
        validate=validate.Range(min=0, max=MAX_JOB_WAIT_SECONDS),
        metadata={
            "description": f"{what} up to this many seconds (0 to {MAX_JOB_WAIT_SECONDS}; at most the "
            "server's `TABLETOP_MAX_WAIT_SECONDS`) for the job to finish: the answer comes as soon as it "
            "is `finished` or `failed` (200), or when the wait is over (202, still running). The wait "
            "counts against your waiter caps, like a long-poll of the feed."
        },
    )


class HintRequestSchema(Schema):
    level = bot_level("The bot to ask")
    think_ms = think_ms("Thinking budget")
    wait = job_wait("Wait")


class JobQuerySchema(Schema):
    wait = job_wait("Long-poll: wait")


class JobSchema(Schema):
    id = fields.String(required=True, metadata={"description": "Poll `GET /v1/jobs/{id}` for the result."})
    status = fields.String(
        required=True,
        metadata={
            "description": "`queued`, `scheduled` or `started` while running (202); `finished` or "
            "`failed` (200)."
        },
    )
    match_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The match version the hint answers."})
    seat = fields.Integer(required=True)
    level = fields.String(required=True, validate=validate.OneOf(LEVELS))
    action = fields.Raw(  # Raw, not Dict: apispec would add a "type: object" that forbids the null
        required=True,
        allow_none=True,
        metadata={"description": "The suggested action once finished; null before.", **ACTION},
    )
    error = fields.String(metadata={"description": "Why a `failed` job failed; absent otherwise."})
