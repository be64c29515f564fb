"""Compact JSON of plain data, shared by the layers that write bytes themselves: the live reader (events
for streams), admission and the gunicorn side (their own error bodies), and the storage layer's
writing and reading of what it stores.  The HTTP layer's responses
go through :mod:`service.http.json_provider`, which uses orjson the same way."""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps_bytes(obj: Any) -> bytes:
    """Compact JSON of plain data (events): orjson, or the standard encoder for what orjson refuses."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def dumps(obj: Any) -> str:
    """:func:`dumps_bytes` as text: what the storage layer writes (a move's events, log entry and meta
    fields: the standard encoder took about 5% of a server process's CPU under a crowd, issue 30)."""
    return dumps_bytes(obj).decode()


def loads(data: bytes | str) -> Any:
    """JSON as stored (events, a match's meta fields): orjson, or the standard decoder for what orjson
    refuses (``NaN``, integers past 64 bits), which the standard encoder may have written.  A stream
    catching up from a long backlog decodes every event: orjson makes that several times cheaper."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)
