"""Event shaping, in one place: what a client gets of an event, whichever way it asks.

A stored event (a match's, with its audience ``visible_to``) or a feed entry goes out as its
*client form* (:func:`client_event`: its stream id first, without the audience), to the seats that may
see it (:func:`engine.core.event_visible`): in a move's answer (:func:`commit_events`), a page of
events or the action log (:func:`visible_events`), a long-poll's answer and a stream's lines
(:class:`LiveEvent`, built and encoded once per process and shared by every waiter of its topic), in
NDJSON or server-sent events (:func:`ndjson_lines`, :func:`sse_lines`, a heartbeat included), a match
stream's first line (:func:`ndjson_snapshot`, :func:`sse_snapshot`), and a stream's last line when
its credential was revoked (:func:`farewell`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from engine.core import event_visible
from service.encoding import dumps_bytes
from service.live.credentials import CREDENTIAL_REVOKED, reason_text
from service.storage.accounts import FeedEntry
from service.storage.matches import Store, StoredEvent


def client_event(stored: StoredEvent | FeedEntry) -> dict[str, Any]:
    """An event (or a feed entry) as clients get it: its stream id, without the audience list."""
    data = stored.event if isinstance(stored, StoredEvent) else stored.entry
    return {"id": stored.id, **{k: v for k, v in data.items() if k != "visible_to"}}


def commit_events(version: int, events: Iterable[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The events a commit of ``version`` writes (their ids ``<version>-<n>``, from 1) that ``seat``
    may see, as clients get them: a move's answer."""
    return [
        client_event(StoredEvent(f"{version}-{n}", ev))
        for n, ev in enumerate(events, 1)
        if event_visible(ev, seat)
    ]


def visible_events(
    store: Store, match_id: str, seat: int | None, after: str, count: int | None = None
) -> tuple[list[dict[str, Any]], str]:
    """Events after ``after`` that ``seat`` may see (of the next ``count`` or all), and the id of the
    last event read, seen or not."""
    rows = store.events_after(match_id, after, count)
    last = rows[-1].id if rows else after
    return [client_event(r) for r in rows if event_visible(r.event, seat)], last


@dataclass(frozen=True)
class LiveEvent:
    """A stored event (or feed entry) with its client form built and encoded once per process: every
    waiter of the topic shares the object."""

    id: str
    event: dict[str, Any]  #: as stored, with ``visible_to`` (a match's; a feed entry has none)
    client: dict[str, Any]  #: :func:`client_event`
    json: bytes  #: ``client``, encoded
    #: The last event of a commit that published who is to move after it: that seat (``""``: nobody).
    to_move: str | None = None

    @classmethod
    def of(cls, stored: StoredEvent | FeedEntry, to_move: str | None = None) -> LiveEvent:
        client = client_event(stored)
        data = stored.event if isinstance(stored, StoredEvent) else stored.entry
        return cls(stored.id, data, client, dumps_bytes(client), to_move)

    @property
    def type(self) -> str:
        return str(self.event["type"])


def shown_to(seat: int | None) -> Callable[[LiveEvent], bool]:
    """Whether ``seat`` (``None``: a spectator) may see a match's event."""

    def visible(row: LiveEvent) -> bool:
        return event_visible(row.event, seat)

    return visible


def everyone(row: LiveEvent) -> bool:
    """A player's feed holds only that player's entries: every one is visible to its waiters."""
    return True


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


def ndjson_snapshot(document: dict[str, Any]) -> bytes:
    """A match stream's first line in NDJSON: the caller's match document."""
    return dumps_bytes({"type": "snapshot", "match": document}) + b"\n"


def sse_snapshot(document: dict[str, Any]) -> bytes:
    """A match stream's first event in server-sent events: the caller's match document (no ``id:``)."""
    return b"event: snapshot\ndata: %s\n\n" % dumps_bytes({"type": "snapshot", "match": document})


def farewell(reason: str, last_id: str) -> LiveEvent:
    """A stream's last line after its credential was revoked (``reason``): its ``id`` is the last
    event's the stream carried, so a client resuming with another credential misses nothing."""
    line = {"id": last_id, "type": CREDENTIAL_REVOKED, "reason": reason, "message": reason_text(reason)}
    return LiveEvent(last_id, line, line, dumps_bytes(line))
