"""Field types shared by the request schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import fields


class JsonInteger(fields.Integer):
    """An integer as JSON Schema means it: ``3`` and ``3.0`` are integers; ``"3"``, ``true`` and ``3.5``
    are not (marshmallow's strict Integer accepts ``true`` and refuses ``3.0``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.make_error("invalid", input=value)
        return value
