"""Player data (issue 48): a deletion's answer, the app's audit log, and the export's lines (NDJSON,
typed inline in the spec as the export's item schema)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from service.domain.privacy.erasure import DELETED, EXPORTED, MAX_PAGE
from service.domain.privacy.export import FORMAT, VERSION


class DeletedPlayerSchema(Schema):
    player = fields.String(required=True, metadata={"description": "The app's id of the deleted player."})
    status = fields.String(required=True, validate=validate.OneOf(["deleted"]))
    placeholder = fields.String(
        required=True,
        metadata={
            "description": "The stable name (`deleted-` and 12 hex digits) that replaces the player's in "
            "the matches, records and tournaments that stay; the same at every call."
        },
    )
    deleted_at = fields.String(
        required=True, metadata={"description": "When the first deletion ran (ISO 8601)."}
    )


class AuditQuerySchema(Schema):
    after = fields.String(metadata={"description": "The `next_cursor` of the previous page."})
    limit = fields.Integer(load_default=100, validate=validate.Range(1, MAX_PAGE))


class AuditCallerSchema(Schema):
    kind = fields.String(required=True, validate=validate.OneOf(["app", "player"]))
    credential = fields.String(
        allow_none=True,
        metadata={"description": "The app key's fingerprint, or the player token's id (never the secret)."},
    )
    player = fields.String(metadata={"description": "A player token's player."})


class AuditEntrySchema(Schema):
    id = fields.String(required=True, metadata={"description": "The entry's id, in order."})
    action = fields.String(required=True, validate=validate.OneOf([EXPORTED, DELETED]))
    player = fields.String(required=True, metadata={"description": "The player whose data it was."})
    by = fields.Nested(AuditCallerSchema, required=True)
    at = fields.String(required=True, metadata={"description": "When (ISO 8601)."})
    placeholder = fields.String(metadata={"description": "A deletion's placeholder."})
    removed = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        metadata={"description": "A deletion's count of items removed or rewritten, per section."},
    )


class AuditPageSchema(Schema):
    entries = fields.List(fields.Nested(AuditEntrySchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True)


def export_line_schema() -> dict[str, Any]:
    """The JSON Schema of one line of the export (``service.domain.privacy.export``)."""
    return {
        "anyOf": [
            {
                "type": "object",
                "title": "PlayerExportHeader",
                "required": ["type", "format", "version", "app", "player", "exported_at", "sections"],
                "properties": {
                    "type": {"type": "string", "enum": ["header"]},
                    "format": {"type": "string", "enum": [FORMAT]},
                    "version": {"type": "integer", "enum": [VERSION]},
                    "app": {"type": "string"},
                    "player": {"type": "string"},
                    "exported_at": {"type": "string", "format": "date-time"},
                    "sections": {"type": "array", "items": {"type": "string"}},
                },
            },
            {
                "type": "object",
                "title": "PlayerExportItem",
                "required": ["type", "section", "data"],
                "properties": {
                    "type": {"type": "string", "enum": ["item"]},
                    "section": {"type": "string", "description": "One of the header's `sections`."},
                    "data": {"type": "object", "description": "The item (docs/api/privacy.md, per section)."},
                },
            },
            {
                "type": "object",
                "title": "PlayerExportEnd",
                "required": ["type", "counts"],
                "properties": {
                    "type": {"type": "string", "enum": ["end"]},
                    "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                },
            },
        ]
    }
