"""Operations responses."""

from __future__ import annotations

from marshmallow import Schema, fields


class StatusSchema(Schema):
    status = fields.String(required=True)
