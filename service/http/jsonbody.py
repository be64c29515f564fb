"""Reading JSON request bodies: webargs' parser, with integers too long for Python a 422 naming the field.

Python refuses to convert an integer literal of more than ``sys.get_int_max_str_digits()`` digits (4300
by default; a guard against quadratic-time conversion), and the JSON decoder raises that as a plain
``ValueError``, which webargs does not expect: such a body was a 500.  No field of the API takes a
number anywhere near that long, so it is an invalid request, reported like any other: status 422,
``details.field`` the dotted path of the offending value.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import marshmallow as ma
from flask import Request
from webargs.flaskparser import FlaskParser

from service.http.errors import ApiError


class _TooLong:
    """Stands for an integer literal that was too long to convert, while its path is looked for."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))


def _allowed(digits: str) -> int | _TooLong:
    limit = sys.get_int_max_str_digits()
    return _TooLong(digits) if limit and len(digits.lstrip("-")) > limit else int(digits)


def _find(value: Any, path: list[str]) -> tuple[list[str], _TooLong] | None:
    if isinstance(value, _TooLong):
        return path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        found = _find(item, [*path, str(key)])
        if found is not None:
            return found
    return None


def too_long_integer(body: bytes) -> ApiError | None:
    """The 422 for ``body`` if it holds an integer literal too long to convert, else ``None``."""
    try:
        found = _find(json.loads(body, parse_int=_allowed), [])
    except ValueError:
        return None
    if found is None:
        return None
    path, value = found
    field = ".".join(path)
    return ApiError(
        422,
        "invalid_request",
        f"{field or 'body'}: an integer of {value.digits} digits; at most {sys.get_int_max_str_digits()} "
        "are accepted",
        {"location": "json", "field": field},
    )


class BodyParser(FlaskParser):
    """webargs' Flask parser; a body with an over-long integer is a 422 naming the field (see above)."""

    def load_json(self, req: Request, schema: ma.Schema) -> Any:
        try:
            return super().load_json(req, schema)
        except ValueError:
            error = too_long_integer(req.get_data(cache=True))
            if error is None:
                raise
            raise error from None
