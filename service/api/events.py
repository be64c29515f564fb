"""The event feed (JSON long-poll, NDJSON or SSE stream) and the action log."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Response, request
from flask_smorest import Blueprint

from service.api import services
from service.play import Matches
from service.schemas.events import EventsHeadersSchema, EventsPageSchema, EventsQuerySchema, LogSchema
from service.spec import OPTIONAL_SEAT, errors

blp = Blueprint("events", __name__, url_prefix="/v1/matches", description="Events and the action log")

JSON = "application/json"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
_STREAM_DOC = {"schema": {"type": "string"}}


def _ndjson(items: Iterator[dict[str, Any] | None], first: dict[str, Any]) -> Iterator[str]:
    yield json.dumps(first) + "\n"
    for ev in items:
        yield json.dumps(ev if ev is not None else {"type": "heartbeat"}) + "\n"


def _sse(items: Iterator[dict[str, Any] | None], first: dict[str, Any]) -> Iterator[str]:
    yield f"event: snapshot\ndata: {json.dumps(first)}\n\n"
    for ev in items:
        if ev is None:
            yield ": heartbeat\n\n"
        else:
            yield f"id: {ev['id']}\nevent: {ev['type']}\ndata: {json.dumps(ev)}\n\n"


def _stream(matches: Matches, match_id: str, seat: int | None, after: str, kind: str) -> Response:
    """A stream starts with a snapshot (the caller's match document), then events as they happen."""
    meta, state = matches.meta_and_state(match_id)
    snapshot = {"type": "snapshot", "match": matches.document(meta, state, seat)}
    items = matches.stream_events(match_id, seat, after)
    body = _ndjson(items, snapshot) if kind == NDJSON else _sse(items, snapshot)
    return Response(body, mimetype=kind, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@blp.route("/<match_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema(), location="query")
@blp.arguments(EventsHeadersSchema(), location="headers")
@blp.response(200, EventsPageSchema)
@blp.doc(
    operationId="getEvents",
    security=OPTIONAL_SEAT,
    responses={200: {"content": {NDJSON: _STREAM_DOC, SSE: _STREAM_DOC}}, **errors(401, 404)},
)
def get_events(query: dict[str, Any], headers: dict[str, Any], match_id: str) -> Any:
    """The caller's events after ``after`` (private events only reach their seat).

    ``Accept: application/json`` (default) answers at once, or long-polls with ``wait``.
    ``application/x-ndjson`` and ``text/event-stream`` stream: a snapshot first, then events, with a
    heartbeat at least every 15 s; the stream ends after the ``match_over`` event.
    """
    matches = services().matches
    meta = matches.meta(match_id)
    seat = matches.caller(meta, request.headers.get("Authorization"), required=False)
    after = query.get("after") or headers.get("last_event_id") or "0-0"
    kind = request.accept_mimetypes.best_match([JSON, NDJSON, SSE], default=JSON)
    if kind != JSON:
        return _stream(matches, match_id, seat, after, kind)
    events, last = matches.poll_events(match_id, seat, after, query.get("wait", 0.0))
    if query.get("wait"):
        meta = matches.meta(match_id)
    return {"events": events, "last_id": last, "version": meta.version, "status": meta.status}


@blp.route("/<match_id>/log", methods=["GET"])
@blp.response(200, LogSchema)
@blp.doc(operationId="getLog", security=OPTIONAL_SEAT, responses=errors(401, 404))
def get_log(match_id: str) -> dict[str, Any]:
    """The action log: complete (with the seed, for replay) once the match is over; during play only
    the actions the caller may see, as they were shown to them."""
    matches = services().matches
    meta = matches.meta(match_id)
    seat = matches.caller(meta, request.headers.get("Authorization"), required=False)
    return matches.action_log(meta, seat)
