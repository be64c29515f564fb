"""The event feed (JSON long-poll, NDJSON or SSE stream) and the action log."""

from __future__ import annotations

from typing import Any

from flask import Request, Response, jsonify, request

from service.domain.identity import ANONYMOUS, ANONYMOUS_CALLER
from service.domain.matches import seating
from service.domain.matches.reading import status_after
from service.http.api import Blueprint
from service.http.api.streams import JSON, NDJSON, SSE, open_stream, subscriber, wanted
from service.http.context import current_caller, services
from service.http.fast_path import Reader
from service.http.schemas.events import EventsHeadersSchema, EventsPageSchema, EventsQuerySchema, LogSchema
from service.http.spec.responses import errors
from service.http.spec.security import OPTIONAL_SEAT
from service.live.delivery import poll_events
from service.live.topics import Topic
from service.storage.matches import ACTIVE, OVER_STATUSES, MatchMeta

blp = Blueprint("events", __name__, url_prefix="/v1/matches", description="Events and the action log")

#: The fast path's readers of a long-poll's query and headers, with the documented path's schemas' limits.
_QUERY = Reader(EventsQuerySchema(), "query")
_HEADERS = Reader(EventsHeadersSchema(), "headers")
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


def _stream(meta: MatchMeta, state: Any, seat: int | None, after: str, kind: str) -> Response:
    """A stream starts with a snapshot (the caller's match document), then events as they happen."""
    # Seats name players to their app.
    document = services().matches.document(meta, state, seat, current_caller())
    over = meta.status in OVER_STATUSES
    return open_stream(
        Topic.match(meta.id), kind, after, document, seat=seat, over=over, version=meta.version
    )


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


def well_formed(req: Request) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The query and headers as the documented path's schemas would load them, if they accept them
    without a doubt (:class:`service.http.fast_path.Reader`); ``None`` sends the request down that
    path (and its 422s).

    A long-poll client asks again after every answer, so this request is, with the move, the one the
    API serves most: read directly, it skips webargs and marshmallow both ways (about 0.1 ms of a
    long-poll's server CPU).  Only ``after`` (an event id) and ``wait`` (plain decimal digits), each
    given once, and a well-formed ``Last-Event-ID`` pass."""
    query = _QUERY.read(req)
    if query is None:
        return None
    headers = _HEADERS.read(req)
    return None if headers is None else (query, headers)


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


def _open_to_all(meta: MatchMeta) -> bool:
    """Whether a spectator's long-poll may be answered with a copy of the match's meta (see
    :meth:`service.live.cache.MetaCache.match_meta`): the match is in play (its keys do not expire then) and
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
        metas = services().live.metas
        meta, state = metas.match_meta(match_id, lambda: matches.meta(match_id), _open_to_all), None
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
