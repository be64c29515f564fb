"""Compact JSON of plain data, shared by the layers that write bytes themselves: the live reader (events
for streams), admission and the gunicorn side (their own error bodies).  The HTTP layer's responses
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
