"""A player's feed, ``GET /v1/me/events``: one connection per player instead of one per match.

Each commit of a match with players leaves notes in the match's outbox, drained into the feeds of the
players it concerns (:mod:`service.domain.feeds.feed`, :meth:`service.domain.outbox.entries.Outbox.drain`);
this view reads a feed the way the match events view reads a match: at once, as a long-poll, or as an
NDJSON or SSE stream served by the process's live reader (:mod:`service.live`), opened as a match's is
(:func:`service.http.api.streams.open_stream`), with the same waiter caps (by app and player:
:func:`service.http.waiters.waiter_quotas`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from flask import request

from service.domain.feeds.decisions import with_decisions
from service.domain.feeds.feed import YOUR_TURN
from service.domain.identity import READ
from service.encoding import dumps_bytes
from service.http.api import Blueprint
from service.http.api.streams import JSON, NDJSON, SSE, open_stream, subscriber, wanted
from service.http.context import current_caller, services
from service.http.schemas.events import EventsHeadersSchema
from service.http.schemas.feed import DECISION, FeedPageSchema, FeedQuerySchema
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT
from service.live.delivery import poll_feed
from service.live.shaping import LiveEvent
from service.live.topics import Topic

blp = Blueprint("feed", __name__, url_prefix="/v1/me", description="Your feed: one per player")

_LINE = {
    "anyOf": [
        {"$ref": "#/components/schemas/FeedEntry"},
        {"$ref": "#/components/schemas/StreamHeartbeat"},
        {"$ref": "#/components/schemas/StreamRevoked"},
    ]
}
_NDJSON_DOC = {
    "schema": {
        "type": "string",
        "description": "One JSON document per line: a `FeedEntry`, or a `StreamHeartbeat` (the first line, "
        "and while nothing happens); a `StreamRevoked` last if the credential was revoked or expired.",
    },
    "x-item-schema": _LINE,
}
_SSE_DOC = {
    "schema": {
        "type": "string",
        "description": "Server-sent events: `event:` is the entry's `type`, `data:` a `FeedEntry` document, "
        "`id:` the entry id (for `Last-Event-ID`); a comment line first and then as heartbeat.",
    },
    "x-item-schema": _LINE,
}


@blp.route("/events", methods=["GET"])
@blp.arguments(FeedQuerySchema(), location="query")
@blp.arguments(EventsHeadersSchema(), location="headers")
@blp.response(200, FeedPageSchema)
@blp.doc(
    operationId="getMyEvents",
    security=REQUIRED_SEAT,
    responses={200: {"content": {NDJSON: _NDJSON_DOC, SSE: _SSE_DOC}}, **errors(401, 403, 404, 429)},
)
def get_my_events(query: dict[str, Any], headers: dict[str, Any]) -> Any:
    """Your feed: what happened in your matches, one connection for all of them.

    Entries, oldest first: `your_turn`, `match_started`, `seat_joined`, `match_over` (with the
    result), `timeout`, `clock_warning` (your deadline is near), `invited`; each says where its match
    stands after it (`status`, `version`, `to_move`, `my_turn`, `deadline`), so you can act on it
    without reading the match: `invited` says whether you must still join (`join_required`) and
    which finished match a rematch offer follows (`rematch_of`, where it is declined); `timeout`
    says whether the timed-out seat is now `away`.

    Authenticate with a player token (scope `read`), or with your app key and `?player=<id>` naming
    one of your players; a player of another app is not found (404).  The feed keeps its latest
    1000 entries.

    `Accept: application/json` (default) answers at once with the entries after `after`, or long-polls
    with `wait` (answering as soon as an entry comes); `last_id` is the next call's `after`.
    `include=decision`: each `your_turn` entry carries `decision`, the pending decision whole
    (`version`, `seat`, `view`, `legal_actions`: what `GET /v1/matches/{id}` as your seat and
    `GET .../legal-actions` answer), built when the entry is served, at the match's current version;
    `null` once the decision is no longer pending.  Without it entries are as above.

    `application/x-ndjson` and `text/event-stream` stream: a heartbeat first, then entries as they
    come (SSE `id:` is the entry id; resume with `after` or `Last-Event-ID`), a heartbeat at least
    every 15 s; a stream ends only after the server's `TABLETOP_STREAM_MAX_SECONDS` (an hour by
    default): reconnect with the last id.  Waiting clients count against your app's and your player's
    waiter caps (`TABLETOP_MAX_WAITERS_PER_APP`, `TABLETOP_MAX_WAITERS_PER_PLAYER`; an app key reading
    a player's feed counts against both); past one, 429 names it.

    Revoking the credential (the token, all the player's tokens, the app; a rotated app key) or its
    expiry ends the wait within seconds: a stream writes a last line of type `credential_revoked`
    (its `reason`: `token_revoked`, `token_expired`, `app_revoked`, `key_rotated`) and ends; a
    long-poll answers 401 `credential_revoked` (`details.reason`).
    """
    svc = services()
    key = svc.accounts.me(current_caller(), READ, query.get("player"))
    kind = wanted(request)
    after = query.get("after") or headers.get("last_event_id") or "0-0"
    topic = Topic.player(key)
    decided = query.get("include") == DECISION
    if kind == JSON:
        wait = query.get("wait", 0.0)
        events, last = poll_feed(svc.accounts.store, svc.config, key, after, wait, subscriber(topic))
        if decided:
            events = with_decisions(svc.matches.reading, key, events)
        return {"events": events, "last_id": last}
    # A heartbeat first: the response (and its headers) goes out at once, not at the first entry.
    return open_stream(topic, kind, after, enrich=_decided(key) if decided else None)


def _decided(key: str) -> Callable[[list[LiveEvent]], list[LiveEvent]]:
    """A stream's batches with each ``your_turn`` line's ``decision``, built as the batch goes out
    (:func:`with_decisions`): such a stream is written by its own greenlet, not the reader, whose lines
    are shared by every waiter of the feed."""
    reading = services().matches.reading

    def enrich(batch: list[LiveEvent]) -> list[LiveEvent]:
        if not any(row.type == YOUR_TURN for row in batch):
            return batch
        shown = with_decisions(reading, key, [row.client for row in batch])
        return [
            row if doc is row.client else replace(row, client=doc, json=dumps_bytes(doc))
            for row, doc in zip(batch, shown, strict=True)
        ]

    return enrich
