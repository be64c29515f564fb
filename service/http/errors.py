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

from service.domain.errors import (
    Conflict,
    Forbidden,
    Illegal,
    Invalid,
    MatchError,
    NotFound,
    Stale,
    TooMany,
    Unauthorized,
    VersionRequired,
)
from service.live.caps import TooManyWaiters
from service.live.credentials import CredentialRevoked
from service.storage.client import ReplicasMissing

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


#: Seconds a client is told to wait (``Retry-After``) before retrying after a storage 503: the API
#: gives up on a hung Redis within about a second, so a second later is the earliest a retry can help.
RETRY_AFTER_SECONDS = 1


def unavailable(message: str) -> ApiError:
    """A 503 for a failing storage or bots queue, with ``Retry-After``: the client should come back."""
    return ApiError(503, "unavailable", message, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


#: The HTTP status of each kind of the domain's refusals: the one place a refusal becomes a status.
#: (A stale version is 412 when it came in ``If-Match``, an HTTP precondition, else 409.)
STATUSES: dict[type[MatchError], int] = {
    Unauthorized: 401,
    Forbidden: 403,
    NotFound: 404,
    Conflict: 409,
    Stale: 409,
    Invalid: 422,
    Illegal: 422,
    VersionRequired: 428,
    TooMany: 429,
}


def etag(version: int) -> str:
    """The ETag of a match: its version, as a strong validator (``"12"``)."""
    return f'"{version}"'


def from_refusal(exc: MatchError) -> ApiError:
    """The response to a refusal of the domain: its status from :data:`STATUSES`, the code, message and
    details as they are, and the headers the status calls for."""
    status, headers, rule = STATUSES[type(exc)], {}, None
    if isinstance(exc, Unauthorized):
        headers["WWW-Authenticate"] = exc.challenge
    elif isinstance(exc, Stale):
        status = 412 if exc.source == "header" else 409
        headers["ETag"] = etag(exc.current)
    elif isinstance(exc, TooMany):
        headers["Retry-After"] = str(exc.retry_after)
    elif isinstance(exc, Illegal):
        rule = exc.rule
    return ApiError(status, exc.code, exc.message, exc.details, rule=rule, headers=headers)


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
        headers["Allow"] = ", ".join(exc.valid_methods)  # type: ignore[attr-defined]  # MethodNotAllowed's
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

    @app.errorhandler(MatchError)
    def _refused(exc: MatchError) -> Response:
        return from_refusal(exc).response()

    @app.errorhandler(CredentialRevoked)
    def _credential_revoked(exc: CredentialRevoked) -> Response:
        headers = {"WWW-Authenticate": 'Bearer error="invalid_token"'}
        return ApiError(401, exc.code, exc.message, exc.details, headers=headers).response()

    @app.errorhandler(TooManyWaiters)
    def _waiters_full(exc: TooManyWaiters) -> Response:
        headers = {"Retry-After": str(exc.retry_after)}
        return ApiError(429, exc.code, exc.message, exc.details, headers=headers).response()

    @app.errorhandler(redis.RedisError)
    @app.errorhandler(RedisClusterException)
    def _redis_down(exc: Exception) -> Response:
        log.warning("redis unavailable: %s", exc)
        return unavailable("storage is unavailable; retry later").response()

    logged: set[str] = set()

    @app.errorhandler(ReplicasMissing)
    def _replicas_missing(exc: ReplicasMissing) -> Response:
        # Likely a configuration fault, not a passing stall: the operator must read the cause, so it is
        # in the answer and logged (once per app: every write would repeat it).
        if str(exc) not in logged:
            logged.add(str(exc))
            log.error("%s", exc)
        return unavailable(str(exc)).response()

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
