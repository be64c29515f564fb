"""The event feed (JSON long-poll, NDJSON or SSE stream) and the action log."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from flask import Request, Response, jsonify, request

from service.encoding import dumps_bytes
from service.http import admission
from service.http.api import Blueprint, current_caller, services
from service.http.schemas.events import (
    EVENT_ID,
    EventsHeadersSchema,
    EventsPageSchema,
    EventsQuerySchema,
    LogSchema,
)
from service.http.spec import OPTIONAL_SEAT, errors
from service.http.waiters import waiter_credential, waiter_quotas
from service.live import PLAYER, LiveEvent, Subscription, Topic, poll_events, stream_events
from service.matches import seating
from service.matches.identity import ANONYMOUS, ANONYMOUS_CALLER
from service.matches.operations import status_after
from service.store import ACTIVE, OVER_STATUSES, MatchMeta

blp = Blueprint("events", __name__, url_prefix="/v1/matches", description="Events and the action log")

JSON = "application/json"
NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
#: What :func:`well_formed` reads directly (anything else goes through the schemas).
_QUERY_FIELDS = frozenset({"after", "wait"})
_EVENT_ID = re.compile(EVENT_ID)
_WAIT = re.compile(r"[0-9]{1,9}(\.[0-9]{1,9})?")
#: ``Accept`` headers naming one form (or none, or anything), read without werkzeug's parse: what
#: :func:`wanted` answers for them is what ``best_match`` would (about 20 µs of a long-poll's CPU).
_PLAIN_ACCEPT = {None: JSON, "": JSON, "*/*": JSON, JSON: JSON, NDJSON: NDJSON, SSE: SSE}
#: The streamed forms: text the spec can only call a string; each line (NDJSON) or each SSE `data:`
#: field is one JSON document of the `StreamLine` component, which generators still turn into a type.
_LINE = {"$ref": "#/components/schemas/StreamLine"}
_NDJSON_DOC = {
    "schema": {"type": "string", "description": "One `StreamLine` JSON document per line."},
    "x-item-schema": _LINE,
}
_SSE_DOC = {
    "schema": {
        "type": "string",
        "description": "Server-sent events: `event:` is the line's `type`, `data:` a `StreamLine` document "
        "(`id:` the event id, for `Last-Event-ID`); a comment line every 15 s as heartbeat.",
    },
    "x-item-schema": _LINE,
}


def ndjson_lines(batch: list[LiveEvent] | None) -> bytes:
    """A batch of events (``None``: a heartbeat) as NDJSON lines."""
    if batch is None:
        return b'{"type":"heartbeat"}\n'
    return b"".join(ev.json + b"\n" for ev in batch)


def sse_lines(batch: list[LiveEvent] | None) -> bytes:
    """A batch of events (``None``: a heartbeat) as server-sent events (``id:`` the event's id)."""
    if batch is None:
        return b": heartbeat\n\n"
    return b"".join(
        b"id: %s\nevent: %s\ndata: %s\n\n" % (ev.id.encode(), ev.type.encode(), ev.json) for ev in batch
    )


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
    head: bytes,
    events: Iterator[list[LiveEvent] | None],
    encode: Callable[[list[LiveEvent] | None], bytes],
    sub: Subscription,
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


def _stream(meta: MatchMeta, state: Any, seat: int | None, after: str, kind: str) -> Response:
    """A stream starts with a snapshot (the caller's match document), then events as they happen."""
    matches, match_id = services().matches, meta.id
    document = matches.document(meta, state, seat, current_caller())  # seats name players to their app
    snapshot = dumps_bytes({"type": "snapshot", "match": document})
    # Before the response starts (429 and 503 are still possible), while the request holds its place.
    sub = subscriber(Topic.match(match_id))()
    try:
        backlog = sub.backlog(after, version=meta.version)
    except BaseException:
        sub.close()
        raise

    encode = ndjson_lines if kind == NDJSON else sse_lines
    wire = admission.stream_wire(request.environ)
    over = meta.status in OVER_STATUSES
    events = stream_events(matches.config, sub, seat, backlog, over=over, wire=wire, encode=encode)
    head = snapshot + b"\n" if kind == NDJSON else b"event: snapshot\ndata: %s\n\n" % snapshot
    body = stream_body(head, events, encode, sub)
    return Response(body, mimetype=kind, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@blp.arguments(EventsQuerySchema(), location="query")
@blp.arguments(EventsHeadersSchema(), location="headers")
@blp.response(200, EventsPageSchema)
@blp.doc(
    operationId="getEvents",
    security=OPTIONAL_SEAT,
    responses={200: {"content": {NDJSON: _NDJSON_DOC, SSE: _SSE_DOC}}, **errors(401, 404)},
)
def _documented(query: dict[str, Any], headers: dict[str, Any], match_id: str) -> Any:
    """The caller's events after ``after`` (private events only reach their seat).

    ``Accept: application/json`` (default) answers at once, or long-polls with ``wait``.
    ``application/x-ndjson`` and ``text/event-stream`` stream: a snapshot first, then events, with a
    heartbeat at least every 15 s; the stream ends after the ``match_over`` event.

    A wait opened with a player token or an app key ends within seconds when that credential is
    revoked or expires: a stream writes a last line of type ``credential_revoked`` (its ``reason``)
    and ends, a long-poll answers 401 ``credential_revoked``.
    """
    return _events(query, headers, match_id)


def _fits(value: str | None, pattern: re.Pattern[str]) -> bool:
    """An optional value is absent, or matches ``pattern`` whole."""
    return value is None or pattern.fullmatch(value) is not None


def well_formed(req: Request) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The query and headers as the documented path's schemas would load them, if they accept them
    without a doubt; ``None`` sends the request down that path (and its 422s).

    A long-poll client asks again after every answer, so this request is, with the move, the one the
    API serves most: read directly, it skips webargs and marshmallow both ways (about 0.1 ms of a
    long-poll's server CPU).  Only ``after`` (an event id) and ``wait`` (plain decimal digits), each
    given once, and a well-formed ``Last-Event-ID`` pass."""
    args = req.args
    if not args.keys() <= _QUERY_FIELDS or any(len(args.getlist(k)) != 1 for k in args):
        return None
    after, wait, last = args.get("after"), args.get("wait"), req.headers.get("Last-Event-ID")
    if not (_fits(after, _EVENT_ID) and _fits(wait, _WAIT) and _fits(last, _EVENT_ID)):
        return None
    query: dict[str, Any] = {}
    if after is not None:
        query["after"] = after
    if wait is not None:
        query["wait"] = float(wait)
    headers: dict[str, Any] = {} if last is None else {"last_event_id": last}
    return query, headers


def get_events(match_id: str) -> Any:
    """The route's view: :func:`well_formed` requests here, the rest through :func:`_documented`.
    A page's schema dump is the page itself (its events are dicts, dumped as they are), so it is
    encoded as it is."""
    parsed = well_formed(request)
    if parsed is None:
        return _documented(match_id=match_id)
    answer = _events(*parsed, match_id)
    return answer if isinstance(answer, Response) else jsonify(answer)


# The spec and the docs come from the documented path's decorators and docstring.
get_events._apidoc = _documented._apidoc  # type: ignore[attr-defined]
get_events.__doc__ = _documented.__doc__
blp.route("/<match_id>/events", methods=["GET"])(get_events)


def wanted(req: Request) -> str:
    """The form the client asked for: JSON (the default), NDJSON or server-sent events."""
    kind = _PLAIN_ACCEPT.get(req.headers.get("Accept"))
    return kind if kind is not None else req.accept_mimetypes.best_match([JSON, NDJSON, SSE], default=JSON)


def _open_to_all(meta: MatchMeta) -> bool:
    """Whether a spectator's long-poll may be answered with a copy of the match's meta (see
    :meth:`service.live.LiveEvents.match_meta`): the match is in play (its keys do not expire then) and
    public (the copy lets in everyone the match does; a private one is read each time, and refuses)."""
    return meta.status == ACTIVE and seating.readable(meta.life, ANONYMOUS_CALLER)


def _events(query: dict[str, Any], headers: dict[str, Any], match_id: str) -> Any:
    """A page of events (a long-poll's included), or a stream's response."""
    matches, who = services().matches, current_caller()
    kind = wanted(request)
    wait = query.get("wait", 0.0)
    if kind != JSON:  # a stream starts with a snapshot: the state too, in the same round trip
        meta, state = matches.meta_and_state(match_id)
    elif wait > 0 and who.kind == ANONYMOUS:
        meta, state = services().live.match_meta(match_id, lambda: matches.meta(match_id), _open_to_all), None
    else:
        meta, state = matches.meta(match_id), None
    seat = matches.caller(meta, who, required=False)
    after = query.get("after") or headers.get("last_event_id") or "0-0"
    if kind != JSON:
        return _stream(meta, state, seat, after, kind)
    subscribe = subscriber(Topic.match(match_id))
    events, last, moving = poll_events(matches.store, matches.config, meta, seat, after, wait, subscribe)
    # Every commit writes at least one event (its action), so the events read tell how far the match
    # is: no second look at the match for its version, however long the poll waited.  Who is to move
    # is in no event: the commit published it with its events, and a page past the match read first
    # that does not have it (read from the stream) looks at the match once more.
    version = max(meta.version, int(last.split("-")[0]))
    if version == meta.version:
        to_move = meta.to_move
    elif moving is not None:
        to_move = int(moving) if moving else None
    else:
        to_move = matches.meta(match_id).to_move
    status = status_after(meta.status, events)
    return {
        "game": meta.game,
        "events": events,
        "last_id": last,
        "version": version,
        "status": status,
        "to_move": to_move,
    }


@blp.route("/<match_id>/log", methods=["GET"])
@blp.response(200, LogSchema)
@blp.doc(operationId="getLog", security=OPTIONAL_SEAT, responses=errors(401, 404))
def get_log(match_id: str) -> dict[str, Any]:
    """The action log: complete (with the seed, for replay) once the match is over; during play only
    the actions the caller may see, as they were shown to them."""
    matches = services().matches
    meta = matches.meta(match_id)
    seat = matches.caller(meta, current_caller(), required=False)
    return matches.action_log(meta, seat)
