"""``Idempotency-Key`` on the requests that create something (issue 42): the one HTTP hook of
:mod:`service.domain.idempotency`, which says what a key means and how its records are kept.

A creating view takes the decorator :func:`idempotent` (right under its route); with the header, the
hook checks the caller (401 comes first), claims the key for this request (method, path and body),
runs the view, and keeps a successful answer (status, body, ``Location``) for a retry, which gets it
back byte for byte with ``Idempotent-Replayed: true``.  The spec documents the header on each such
operation (:class:`IdempotencyDoc`, from the same mark), with its 409 and 422.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from copy import deepcopy
from functools import wraps
from typing import Any

import redis
from apispec import BasePlugin
from flask import Flask, Response, current_app, request

from service import auth
from service.config import Config
from service.domain.errors import Conflict
from service.domain.idempotency import HEADER, MAX_KEY, RETRY_AFTER, Answer, Idempotency
from service.http.context import current_caller
from service.http.errors import ApiError
from service.storage.idempotency import IdempotencyStore

#: Where :func:`install` keeps the app's :class:`Idempotency` (``app.extensions[EXTENSION]``).
EXTENSION = "tabletop.idempotency"
#: The answer's headers a replay repeats (the rest, rate limits and request ids, are the retry's own).
KEPT_HEADERS = ("Location", "ETag", "Content-Type")
#: Set on a replayed answer.
REPLAYED = "Idempotent-Replayed"
#: The mark :func:`idempotent` leaves in the operation's doc for :class:`IdempotencyDoc`.
_MARK = "x-tabletop-idempotent"


def install(app: Flask, config: Config, client: redis.Redis) -> None:
    """Keep the app's idempotency records beside the match state, for ``TABLETOP_IDEMPOTENCY_SECONDS``."""
    app.extensions[EXTENSION] = Idempotency(IdempotencyStore(client), config.idempotency_seconds)


def _credential() -> str:
    """Whose key it is: the bearer credential as sent, else the client's address."""
    try:
        token = auth.bearer_token(request.headers.get("Authorization"))
    except ValueError:
        token = None
    return f"bearer:{token}" if token else f"address:{request.remote_addr or 'unknown'}"


def _request_bytes() -> bytes:
    """The request as a key compares it: method, path with query, and the body (JSON canonically: the
    same object in another key order or spacing is the same request)."""
    raw = request.get_data(cache=True)
    try:
        body = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode() if raw else b""
    except ValueError:
        body = raw
    return f"{request.method} {request.full_path}\n".encode() + body


def _replay(answer: Answer) -> Response:
    response = Response(answer.body, status=answer.status)
    for name, value in answer.headers.items():
        response.headers[name] = value
    response.headers[REPLAYED] = "true"
    return response


def idempotent(view: Callable[..., Any]) -> Callable[..., Any]:
    """Make a creating view honour ``Idempotency-Key`` (decorate right under its ``route``)."""

    @wraps(view)
    def run(*args: Any, **kwargs: Any) -> Any:
        key = request.headers.get(HEADER)
        if key is None:
            return view(*args, **kwargs)
        current_caller()  # a bad credential is 401 before any record is read
        keys: Idempotency = current_app.extensions[EXTENSION]
        try:
            begun = keys.begin(_credential(), key, _request_bytes())
        except Conflict as exc:
            retry = {"Retry-After": str(RETRY_AFTER)}
            raise ApiError(409, exc.code, exc.message, exc.details, headers=retry) from None
        if isinstance(begun, Answer):
            return _replay(begun)
        try:
            response = current_app.make_response(view(*args, **kwargs))
        except BaseException:
            keys.release(begun)
            raise
        if 200 <= response.status_code < 300:
            kept = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
            keys.finish(begun, Answer(response.status_code, kept, response.get_data()))
        else:
            keys.release(begun)
        return response

    doc = deepcopy(getattr(run, "_apidoc", {}))
    doc.setdefault("manual_doc", {})[_MARK] = True
    run._apidoc = doc  # type: ignore[attr-defined]
    return run


#: The header's parameter, as every marked operation documents it.
PARAMETER = {
    "name": HEADER,
    "in": "header",
    "required": False,
    "description": "Makes a retry safe: the same key with the same request (method, path, body) from the "
    "same caller (its credential, or its address without one) within `TABLETOP_IDEMPOTENCY_SECONDS` "
    "gets the first success back (status, body, `Location`; `Idempotent-Replayed: true`) and creates "
    "nothing more; the same key with another request is 422 naming `Idempotency-Key`; while the first "
    f"request runs, 409 `idempotency_in_progress` with `Retry-After`. 1 to {MAX_KEY} printable ASCII "
    "characters (a UUID, say). Stored answers are encrypted under the key and the credential.",
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY, "pattern": f"^[ -~]{{1,{MAX_KEY}}}$"},
}
_IN_PROGRESS = (
    "`idempotency_in_progress`: a request with this `Idempotency-Key` is still running; retry after "
    "`Retry-After` seconds."
)
_OTHER_REQUEST = "Or `invalid_request` naming `Idempotency-Key`: the key was used with another request."


class IdempotencyDoc(BasePlugin):
    """apispec plugin: an operation whose view is :func:`idempotent` documents the header, its 409 and
    its 422."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        for operation in (operations or {}).values():
            if not isinstance(operation, dict) or not operation.pop(_MARK, False):
                continue
            operation.setdefault("parameters", []).append(dict(PARAMETER))
            responses = operation.setdefault("responses", {})
            _add(responses, "409", _IN_PROGRESS)
            _add(responses, "422", _OTHER_REQUEST)


def _add(responses: dict[Any, Any], status: str, text: str) -> None:
    """Say ``text`` in the operation's ``status`` answer (made if absent, in the error shape); its key
    may be the number or its text."""
    found = responses.get(status) or responses.get(int(status))
    if isinstance(found, dict):
        found["description"] = f"{found.get('description', '').rstrip()} {text}".strip()
        return
    if found is not None:  # a reference to a shared answer: left as it is
        return
    responses[status] = {
        "description": text,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }
