"""The one error shape of the API, ``{"code", "message", "details"}`` (+ ``"rule"`` for illegal actions),
and the handlers that turn every failure into it, so no input can produce an HTML page or a bare 500.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import redis
from flask import Flask, Response, jsonify
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException

log = logging.getLogger(__name__)


class ApiError(Exception):
    """An error response: HTTP status, a stable machine-readable ``code`` and a human message."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        rule: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details or {}
        self.rule = rule
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "message": self.message, "details": self.details}
        if self.rule is not None:
            out["rule"] = self.rule
        return out

    def response(self) -> Response:
        resp = jsonify(self.body())
        resp.status_code = self.status
        resp.headers.update(self.headers)
        return resp


def not_found(what: str) -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def invalid(field: str, message: str) -> ApiError:
    """A 422 for a request that is well-formed JSON but wrong in ``field``."""
    return ApiError(422, "invalid_request", f"{field}: {message}", {"field": field})


def _snake(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def _first_problem(errors: Any) -> tuple[str, str]:
    """The dotted path (``seats.1.kind``) and message of the first of marshmallow's nested errors."""
    path: list[str] = []
    while isinstance(errors, dict) and errors:
        key, errors = next(iter(errors.items()))
        if key != "_schema":
            path.append(str(key))
    if isinstance(errors, list) and errors:
        errors = errors[0]
    return ".".join(path), str(errors)


def from_http_exception(exc: HTTPException) -> ApiError:
    """Werkzeug/webargs exceptions in our shape; webargs validation errors name the first field."""
    status = exc.code or 500
    data = getattr(exc, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    headers = dict(data.get("headers") or {})
    if exc.response is not None:  # e.g. 405 carries its Allow header on a prepared response
        headers.update({k: v for k, v in exc.response.headers.items() if k.lower() == "allow"})
    elif status == 405 and getattr(exc, "valid_methods", None):
        headers["Allow"] = ", ".join(exc.valid_methods)
    if messages:
        location, errors = next(iter(messages.items()))
        field, first = _first_problem(errors)
        return ApiError(
            status,
            "invalid_request" if status == 422 else _snake(exc.name),
            f"{field}: {first}" if field else first,
            {"location": location, "field": field, "errors": errors},
            headers=headers,
        )
    return ApiError(
        status, _snake(exc.name), data.get("message") or exc.description or exc.name, headers=headers
    )


def register(app: Flask) -> None:
    """Install the handlers; flask-smorest's own HTTPException handler is replaced in ``Api``."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> Response:
        return exc.response()

    @app.errorhandler(redis.RedisError)
    @app.errorhandler(RedisClusterException)
    def _redis_down(exc: Exception) -> Response:
        log.warning("redis unavailable: %s", exc)
        return ApiError(503, "unavailable", "storage is unavailable; retry later").response()

    @app.errorhandler(RecursionError)
    def _too_deep(exc: RecursionError) -> Response:
        # The JSON decoder recurses per nesting level and raises RecursionError (not a ValueError) on a
        # body like [[[[...]]]]: that is bad input, not a server fault.
        return ApiError(400, "bad_request", "the request body is nested too deeply").response()

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        if isinstance(exc, HTTPException):
            return from_http_exception(exc).response()
        log.exception("unhandled error")
        return ApiError(500, "internal_error", "internal error").response()
