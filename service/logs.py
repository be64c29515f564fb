"""Structured logs: every record of the process as one JSON object per line on stderr, and one access
line per request carrying its request id, match id, seat, version and latency.

JSON because log pipelines (Loki, Elasticsearch, Cloud Logging) index fields without parsing rules, and
one line per record because they split on newlines.  A request id ties a client's bug report, the access
line and any error logged while serving it; it is the client's ``X-Request-ID`` when that looks like an
id, else a fresh one, and is echoed in the response.

What an access line holds is fixed here and holds no secret: never a header value but the request id,
never a body, a view, a token, a seed or a state.  The only per-seat fact is the seat number.
"""

from __future__ import annotations

import json
import logging
import logging.config
import re
import secrets
import time
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, has_request_context, request

ACCESS = logging.getLogger("service.access")
REQUEST_ID_HEADER = "X-Request-ID"
#: A client's request id is kept only if it is this tame (it is echoed in a header and logged).
_CLIENT_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}\Z")
#: Attributes every LogRecord has; anything else on a record came from ``extra=`` and is logged.
_STANDARD = frozenset(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", <extra fields>, "exc"?}``, one line, UTF-8 kept as is."""

    def format(self, record: logging.LogRecord) -> str:
        doc: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        doc.update((k, v) for k, v in vars(record).items() if k not in _STANDARD)
        if record.exc_info:
            doc["exc"] = self.formatException(record.exc_info)
        return json.dumps(doc, default=str, ensure_ascii=False)


class RequestIdFilter(logging.Filter):
    """Stamps records logged while serving a request with that request's id."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context() and "request_id" in g and not hasattr(record, "request_id"):
            record.request_id = g.request_id
        return True


def logging_config(level: str) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` document: the root logger writes JSON to stderr.

    Gunicorn applies it in its master (``logconfig_dict``) so its own lines are JSON too; its access
    logger is silenced because the app writes a richer access line of its own.
    """
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": JsonFormatter}},
        "filters": {"request_id": {"()": RequestIdFilter}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "json",
                "filters": ["request_id"],
            }
        },
        "root": {"level": level.upper(), "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level.upper(), "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "CRITICAL", "handlers": [], "propagate": False},
        },
    }


def configure(level: str) -> None:
    """JSON logs for a process that is not started by gunicorn (the worker, scripts)."""
    logging.config.dictConfig(logging_config(level))


def annotate(**fields: Any) -> None:
    """Add facts to the current request's access line (only ids and numbers: it is logged as is)."""
    g.setdefault("access_fields", {}).update(fields)


def _version(response: Response) -> int | None:
    """The match version a response carries in its ETag (``"12"``), if any."""
    tag = response.headers.get("ETag", "").strip('"')
    return int(tag) if tag.isdigit() else None


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
