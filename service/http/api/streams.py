"""What the two waiting views (a match's events, :mod:`service.http.api.events`, and a player's feed,
:mod:`service.http.api.feed`) share: the form a client asks for, subscribing it to the process's live
reader under its waiter caps, and opening a stream (:func:`open_stream`), written once for both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from flask import Request, Response, request

from service.http import admission
from service.http.context import current_caller, services
from service.http.waiters import waiter_credential, waiter_quotas
from service.live.delivery import stream_events, stream_feed
from service.live.shaping import LiveEvent, ndjson_lines, ndjson_snapshot, sse_lines, sse_snapshot
from service.live.subscription import Encode, Subscription
from service.live.topics import MATCH, PLAYER, Topic

JSON = "application/json"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
#: ``Accept`` headers naming one form (or none, or anything), read without werkzeug's parse: what
#: :func:`wanted` answers for them is what ``best_match`` would (about 20 µs of a long-poll's CPU).
_PLAIN_ACCEPT = {None: JSON, "": JSON, "*/*": JSON, JSON: JSON, NDJSON: NDJSON, SSE: SSE}


def wanted(req: Request) -> str:
    """The form the client asked for: JSON (the default), NDJSON or server-sent events."""
    kind = _PLAIN_ACCEPT.get(req.headers.get("Accept"))
    return kind if kind is not None else req.accept_mimetypes.best_match([JSON, NDJSON, SSE], default=JSON)


def subscriber(topic: Topic) -> Callable[[], Subscription]:
    """Subscribes the caller to the topic's live events (counted against the caller's waiter caps:
    :func:`service.http.waiters.waiter_quotas`), watching its connection while it waits; tagged with
    the caller's credential, so revoking it ends the wait (:func:`service.http.waiters.waiter_credential`)."""
    live, environ, address = services().live, request.environ, request.remote_addr or "unknown"
    caller = current_caller()
    player = topic.key if topic.kind == PLAYER else None
    quotas = waiter_quotas(caller, address, services().config, player)
    credential = waiter_credential(caller)

    def subscribe() -> Subscription:
        sub = live.subscribe(topic, quotas, credential)
        admission.watch_client(environ, sub)
        return sub

    return subscribe


def stream_body(
    head: bytes, events: Iterator[list[LiveEvent] | None], encode: Encode, sub: Subscription
) -> Iterator[bytes]:
    """A stream's body.  A waiting stream's memory is its whole cost, so nothing written stays
    referenced while it waits: the empty string after each write (which a WSGI server sends as
    nothing, PEP 3333) takes the place of the last chunk in the server's and werkzeug's loops."""
    try:
        yield head
        del head
        yield b""
        for batch in events:
            data = encode(batch)
            del batch
            yield data
            del data
            yield b""
    finally:
        sub.close()


def open_stream(
    topic: Topic,
    kind: str,
    after: str,
    snapshot: dict[str, Any] | None = None,
    *,
    seat: int | None = None,
    over: bool = False,
    version: int | None = None,
    enrich: Callable[[list[LiveEvent]], list[LiveEvent]] | None = None,
) -> Response:
    """A streaming response (``kind``: NDJSON or SSE) of ``topic``'s events after ``after``: first the
    ``snapshot`` (a match's document, as the caller sees it) or else a heartbeat, so the response and
    its headers go out at once; then the backlog, then events as they come.  A match's stream shows
    what ``seat`` may see and ends after its last event (at once when it was ``over`` already);
    ``version`` is the match's as read.

    The subscription and the catch-up happen here, before the response starts (429 and 503 are still
    possible), while the request holds its place.

    ``enrich``: what each batch becomes before it is written, for this client alone (a feed's
    ``include=decision``); such a stream is written by its own greenlet, never by the reader, whose
    lines are shared by every waiter of the topic."""
    sub = subscriber(topic)()
    try:
        backlog = sub.backlog(after, version=version)
    except BaseException:
        sub.close()
        raise
    ndjson = kind == NDJSON
    encode = ndjson_lines if ndjson else sse_lines
    if snapshot is None:
        head = encode(None)
    else:
        head = ndjson_snapshot(snapshot) if ndjson else sse_snapshot(snapshot)
    wire = admission.stream_wire(request.environ) if enrich is None else None
    config = services().config
    if topic.kind == MATCH:
        events = stream_events(config, sub, seat, backlog, over=over, wire=wire, encode=encode)
    else:
        events = stream_feed(config, sub, backlog, wire=wire, encode=encode)
    if enrich is not None:
        events = (None if batch is None else enrich(batch) for batch in events)
    body = stream_body(head, events, encode, sub)
    return Response(body, mimetype=kind, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
