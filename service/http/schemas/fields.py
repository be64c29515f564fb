"""Field types shared by the request schemas."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate

from engine.ai import DEFAULT_THINK_MS, LEVELS
from service.domain.matches.bots import DEFAULT_LEVEL, MAX_THINK_MS


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


class JsonBoolean(fields.Boolean):
    """A boolean of a JSON body as JSON Schema means it: ``true`` and ``false`` only (marshmallow's
    Boolean also takes ``1``, ``"yes"``, ``"on"``...).  Query parameters keep marshmallow's Boolean."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class FullMatch(validate.Regexp):
    """A regular expression the whole value must match, as in JSON Schema.  Marshmallow's ``Regexp``
    uses ``re.match``, whose ``$`` also matches before a final newline: ``"12\n"`` would pass
    ``^[0-9]+$``.  The spec shows the same pattern (apispec reads it off ``Regexp``)."""

    def __call__(self, value: str) -> str:  # type: ignore[override]  # our fields hold text, never bytes
        if self.regex.fullmatch(value) is None:  # type: ignore[call-overload]  # a str pattern (__init__)
            raise ValidationError(self._format_error(value))
        return value


def bot_level(purpose: str) -> fields.String:
    """The ``level`` of a bot (a seat's or a hint's)."""
    return fields.String(
        validate=validate.OneOf(LEVELS), metadata={"description": f"{purpose} (default `{DEFAULT_LEVEL}`)."}
    )


def think_ms(purpose: str) -> JsonInteger:
    """A bot's ``think_ms``; the defaults in its description come from :data:`engine.ai.DEFAULT_THINK_MS`."""
    searching = ", ".join(f"{level} {ms}" for level, ms in DEFAULT_THINK_MS.items() if ms)
    return JsonInteger(
        validate=validate.Range(min=0, max=MAX_THINK_MS),
        metadata={"description": f"{purpose} in milliseconds (default: the level's, {searching})."},
    )
