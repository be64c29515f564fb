"""Hints: a bot's suggestion for a human seat, computed by a worker and polled as a job."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from engine.ai import LEVELS
from service.http.schemas.actions import ACTION
from service.http.schemas.fields import bot_level, think_ms


class HintRequestSchema(Schema):
    level = bot_level("The bot to ask")
    think_ms = think_ms("Thinking budget")


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
