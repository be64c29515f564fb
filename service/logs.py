"""Structured logs: every record of the process as one JSON object per line on stderr.

JSON because log pipelines (Loki, Elasticsearch, Cloud Logging) index fields without parsing rules, and
one line per record because they split on newlines.  A record logged while serving a request carries
that request's id (:data:`REQUEST_ID`, set by :mod:`service.http.request_log`, which also writes the
access line), so a client's bug report, its access line and any error logged meanwhile tie together.

Every process loads this module (the API, the workers, the CLI): it imports nothing of Flask, so a
worker does not load the web framework to write its lines.
"""

from __future__ import annotations

import json
import logging
import logging.config
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

#: The id of the request being served in this context (a thread, or a gevent greenlet), ``None``
#: outside one: set and reset around each request by :mod:`service.http.request_log`.
REQUEST_ID: ContextVar[str | None] = ContextVar("tabletop_request_id", default=None)
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
        request_id = REQUEST_ID.get()
        if request_id is not None and not hasattr(record, "request_id"):
            record.request_id = request_id
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
