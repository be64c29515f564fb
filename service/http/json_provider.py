"""Flask's JSON responses through orjson: the serialization of every response body, views included.

Views are the bulk of a move's response, and the standard library's encoder was one of the larger
single costs of a move (about 40 us of the ~1 ms a Year of the Dragon move costs the API; orjson takes
2).  Types orjson would encode differently from Flask (dates, dataclasses) still go through Flask's
``default``, so the output is the same JSON.  Request bodies are still parsed by the standard library:
they are small, and its error behaviour on malformed input is what the API's 400s are built on.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask.json.provider import DefaultJSONProvider
from werkzeug.sansio.response import Response as SansioResponse

_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


class OrjsonProvider(DefaultJSONProvider):
    """Compact orjson output; anything orjson refuses (a lone surrogate in a string echoed back, an
    integer over 64 bits) falls back to the standard encoder, so no body fails to serialize."""

    sort_keys = False

    def _encode(self, obj: Any) -> bytes | None:
        try:
            return orjson.dumps(obj, default=self.default, option=_OPTIONS)
        except orjson.JSONEncodeError:
            return None

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        raw = None if kwargs else self._encode(obj)
        return super().dumps(obj, **kwargs) if raw is None else raw.decode()

    def response(self, *args: Any, **kwargs: Any) -> SansioResponse:
        if self.compact is False or (self.compact is None and self._app.debug):
            return super().response(*args, **kwargs)
        raw = self._encode(self._prepare_response_obj(args, kwargs))
        if raw is None:
            return super().response(*args, **kwargs)
        # The app's response_class is flask's Response, which takes a body (its sansio base does not).
        return self._app.response_class(raw + b"\n", mimetype=self.mimetype)  # type: ignore[arg-type]
