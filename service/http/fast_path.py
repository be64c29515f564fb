"""One fast path for the requests the API serves most (a move, an events long-poll): their arguments
read directly, without webargs and marshmallow, when the documented path's schemas would plainly
accept them, with every limit (fields, sizes, ranges, patterns, choices) read off those schemas.

A view with a fast path keeps its documented path (the schemas, through flask-smorest's decorators):
the spec is built from that path alone, and every request the fast path is unsure of goes down it,
so every refusal (400, 413, 422) is the schemas' own, body for body.  The fast path never refuses:
:meth:`Reader.read` answers the arguments as the schema would load them, or ``None``.  It is unsure
of anything unusual: a field given twice, a type or a syntax the schema would convert (``"3.0"``,
``"5e0"``, a float version), an unknown field, a missing required one.  A schema field whose
validators it cannot read makes building its :class:`Reader` fail at import, so a schema change can
never leave the fast path behind.

It mirrors what webargs and marshmallow do with a request (how a JSON body is read, how a string
becomes a float, what a validator holds): the versions pinned in ``pyproject.toml`` are the ones
``tests/service/test_fast_path.py`` checks it against, input for input.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Protocol

from flask import Request
from marshmallow import Schema, fields, validate

from service.http.schemas.fields import JsonInteger

#: The number syntaxes the fast path reads from a query or a header (plain decimal digits), which
#: marshmallow's ``Integer`` and ``Float`` load as Python does; anything else goes the long way.
_INTEGER = re.compile(r"[0-9]{1,18}")
_DECIMAL = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")

#: A field's check: the value as the schema would load it, or :data:`UNSURE`.
UNSURE = object()
#: A field not given at all (a JSON ``null`` is given: the schema refuses it).
_MISSING = object()
_Check = Callable[[Any], Any]


class _Given(Protocol):
    """Where the values are: a JSON object, the query string, the headers."""

    def get(self, key: str, default: Any) -> Any: ...


def _range(check: _Check, validator: validate.Range) -> _Check:
    low, high = validator.min, validator.max

    def within(value: Any) -> Any:
        value = check(value)
        if value is UNSURE:
            return UNSURE
        if low is not None and (value < low or (value == low and not validator.min_inclusive)):
            return UNSURE
        if high is not None and (value > high or (value == high and not validator.max_inclusive)):
            return UNSURE
        return value

    return within


def _length(check: _Check, validator: validate.Length) -> _Check:
    low, high, equal = validator.min, validator.max, validator.equal

    def sized(value: Any) -> Any:
        value = check(value)
        if value is UNSURE:
            return UNSURE
        size = len(value)
        if equal is not None:
            return value if size == equal else UNSURE
        if (low is not None and size < low) or (high is not None and size > high):
            return UNSURE
        return value

    return sized


def _pattern(check: _Check, validator: validate.Regexp) -> _Check:
    # Whole-value matches only: within what ``re.match`` (marshmallow's Regexp) and our FullMatch take.
    regex = validator.regex

    def matching(value: Any) -> Any:
        value = check(value)
        if value is UNSURE or regex.fullmatch(value) is None:
            return UNSURE
        return value

    return matching


def _one_of(check: _Check, validator: validate.OneOf) -> _Check:
    choices = frozenset(validator.choices)

    def chosen(value: Any) -> Any:
        value = check(value)
        return value if value is not UNSURE and value in choices else UNSURE

    return chosen


_VALIDATORS: dict[type[Any], Callable[[_Check, Any], _Check]] = {
    validate.Range: _range,
    validate.Length: _length,
    validate.Regexp: _pattern,
    validate.OneOf: _one_of,
}


def _text(value: Any) -> Any:
    return value if type(value) is str else UNSURE


def _text_integer(value: Any) -> Any:
    return int(value) if _INTEGER.fullmatch(value) else UNSURE


def _text_decimal(value: Any) -> Any:
    return float(value) if _DECIMAL.fullmatch(value) else UNSURE


def _json_integer(value: Any) -> Any:
    return value if type(value) is int else UNSURE  # not a bool, not a float (3.0 is the schema's)


def _json_object(value: Any) -> Any:
    return dict(value) if type(value) is dict else UNSURE  # the Dict field loads a shallow copy


def _base(field: fields.Field[Any], in_json: bool) -> _Check:
    """How a field's value is read, before its validators: by the field's own class (a subclass may
    load differently, so only the classes named here are read)."""
    kind = type(field)
    if kind is fields.String:
        return _text
    if not in_json and kind is fields.Integer:
        return _text_integer
    if not in_json and kind is fields.Float and not field.allow_nan:  # type: ignore[attr-defined]
        return _text_decimal
    if in_json and kind is JsonInteger:
        return _json_integer
    if in_json and kind is fields.Dict and field.key_field is None and field.value_field is None:  # type: ignore[attr-defined]
        return _json_object
    raise TypeError(f"the fast path cannot read a {kind.__name__} field here")


def _check(name: str, field: fields.Field[Any], in_json: bool) -> _Check:
    """A field's whole check, its validators included (each one the fast path knows)."""
    try:
        check = _base(field, in_json)
    except TypeError as exc:
        raise TypeError(f"{name}: {exc}") from None
    if field.allow_none:
        raise TypeError(f"{name}: the fast path does not read null")
    for validator in field.validators:
        wrap = next((w for kind, w in _VALIDATORS.items() if isinstance(validator, kind)), None)
        if wrap is None:
            raise TypeError(f"{name}: the fast path cannot read the validator {validator!r}")
        check = wrap(check, validator)
    return check


class Reader:
    """The arguments of one location of a request (``"json"``, ``"query"`` or ``"headers"``) as
    ``schema`` loads them there, when it plainly accepts them (:meth:`read`)."""

    def __init__(self, schema: Schema, location: str) -> None:
        if location not in ("json", "query", "headers"):
            raise ValueError(f"the fast path reads no {location!r}")
        self.location = location
        in_json = location == "json"
        #: (where the value is found, where it is loaded to, its check, whether it is required).
        self._fields = [
            (field.data_key or name, field.attribute or name, _check(name, field, in_json), field.required)
            for name, field in schema.fields.items()
            if not field.dump_only
        ]
        #: What may be given (the query and a body take nothing else; headers carry many others).
        self.names = frozenset(found for found, *_ in self._fields)

    def read(self, req: Request) -> dict[str, Any] | None:
        """The request's arguments at this location as the schema loads them, or ``None``: the
        schema's path decides."""
        if self.location == "json":
            return self._json(req)
        if self.location == "query":
            return self._query(req)
        return self._headers(req)

    def _load(self, given: _Given) -> dict[str, Any] | None:
        loaded: dict[str, Any] = {}
        for found, to, check, required in self._fields:
            value = given.get(found, _MISSING)
            if value is _MISSING:
                if required:
                    return None
                continue
            value = check(value)
            if value is UNSURE:
                return None
            loaded[to] = value
        return loaded

    def _query(self, req: Request) -> dict[str, Any] | None:
        """The query string: each field at most once, nothing else."""
        args = req.args
        if not args.keys() <= self.names or any(len(args.getlist(k)) != 1 for k in args):
            return None
        return self._load(args)

    def _headers(self, req: Request) -> dict[str, Any] | None:
        """The headers this schema reads; the others are not its.  (A header sent twice reaches a WSGI
        app as one, its values joined with commas, as webargs reads it too.)"""
        return self._load(req.headers)

    def _json(self, req: Request) -> dict[str, Any] | None:
        """A JSON object body, read as webargs reads it (the request's cached data, UTF-8, the
        standard library's decoder; the body size limit applies alike), holding nothing else."""
        if req.mimetype != "application/json":
            return None
        try:
            body = json.loads(req.get_data(cache=True).decode("utf-8"))
        except ValueError:  # malformed JSON, bad UTF-8, an over-long integer: the schemas' errors
            return None
        if type(body) is not dict or not body.keys() <= self.names:
            return None
        return self._load(body)
