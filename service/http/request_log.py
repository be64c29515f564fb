"""Request ids and the access line: one line per request carrying its request id, match id, seat,
version and latency.

A request id ties a client's bug report, the access line and any error logged while serving it
(:class:`service.logs.RequestIdFilter` stamps those records); it is the client's ``X-Request-ID`` when
that looks like an id, else a fresh one, and is echoed in the response.

What an access line holds is fixed here and holds no secret: never a header value but the request id,
never a body, a view, a token, a seed or a state.  The only per-seat fact is the seat number.  These are
Flask hooks, so they live with the HTTP layer; :mod:`service.logs` (the formatter and the logging
configuration every process loads) stays free of Flask.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from typing import Any

from flask import Flask, Response, g, request

from service.digits import digits
from service.logs import REQUEST_ID

ACCESS = logging.getLogger("service.access")
REQUEST_ID_HEADER = "X-Request-ID"
#: A client's request id is kept only if it is this tame (it is echoed in a header and logged).
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}\Z")


def annotate(**fields: Any) -> None:
    """Add facts to the current request's access line (only ids and numbers: it is logged as is)."""
    g.setdefault("access_fields", {}).update(fields)


def _version(response: Response) -> int | None:
    """The match version a response carries in its ETag (``"12"``), if any."""
    tag = response.headers.get("ETag", "").strip('"')
    return int(tag) if digits(tag) else None


def _match_id(response: Response) -> str | None:
    if request.view_args and "match_id" in request.view_args:
        return str(request.view_args["match_id"])
    location = response.headers.get("Location", "")  # a created match
    return location.rsplit("/", 1)[-1] if location.startswith("/v1/matches/") else None


def install(app: Flask) -> None:
    """Request ids and the access line.  Installed first, so even a request refused by the rate
    limiter before its view runs has an id and a line."""

    @app.before_request
    def _begin() -> None:
        g.access_started = time.perf_counter()
        sent = request.headers.get(REQUEST_ID_HEADER, "")
        g.request_id = sent if _CLIENT_ID.match(sent) else secrets.token_hex(8)
        REQUEST_ID.set(g.request_id)

    @app.after_request
    def _access(response: Response) -> Response:
        response.headers[REQUEST_ID_HEADER] = g.request_id
        if not ACCESS.isEnabledFor(logging.INFO):  # a line nobody writes is not built either
            return response
        rule = request.url_rule.rule if request.url_rule is not None else None
        fields: dict[str, Any] = {
            "request_id": g.request_id,
            "method": request.method,
            "route": rule,
            "status": response.status_code,
            "latency_ms": round((time.perf_counter() - g.access_started) * 1000, 2),
            "match_id": _match_id(response),
            "version": _version(response),
            "seat": None,
            "client": request.remote_addr,
            **g.get("access_fields", {}),
        }
        ACCESS.info("%s %s %s", request.method, rule or "unmatched", response.status_code, extra=fields)
        return response

    @app.teardown_request
    def _end(exc: BaseException | None) -> None:
        REQUEST_ID.set(None)  # what this thread or greenlet logs next is no request's
