"""The error body every non-2xx response carries."""

from __future__ import annotations

from marshmallow import Schema, fields


class ErrorSchema(Schema):
    code = fields.String(
        required=True,
        metadata={"description": "Stable machine-readable code, e.g. `illegal_action`, `stale_version`."},
    )
    message = fields.String(required=True, metadata={"description": "What went wrong, for humans."})
    details = fields.Dict(
        required=True,
        metadata={"description": "Extra facts: the offending `field`, the `current_version`, ..."},
    )
    rule = fields.String(
        metadata={
            "description": "Illegal actions only: the RULES.md rule id (`R23`), "
            "or `schema`/`turn`/`game-over`."
        }
    )
