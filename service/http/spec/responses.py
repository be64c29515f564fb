"""The error responses an operation declares (``@blp.doc(responses=errors(...))``)."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from service.http.spec.refs import ref

#: The 403 of the operations that act for the caller's seat (see :func:`errors`).
NOT_YOUR_DECISION = (403, "The pending decision is another seat's.")


def errors(*codes: int | tuple[int, str]) -> dict[int, Any]:
    """An operation's error responses, for ``@blp.doc(responses=...)``.

    A bare status refers to flask-smorest's response component for it (``FORBIDDEN``); a
    ``(status, description)`` pair is that response in the error shape with the operation's own
    description, which a reference cannot carry (``alt_response`` silently dropped it).  Also unlike
    ``alt_response``, this adds no wrapper around the view that runs on every request.
    """
    responses: dict[int, Any] = {}
    for code in codes:
        if isinstance(code, tuple):
            status, description = code
            responses[status] = {
                "description": description,
                "content": {"application/json": {"schema": ref("Error")}},
            }
        else:
            responses[code] = HTTPStatus(code).name
    return responses
