"""When a waiting client is answered: a long-poll's wait (:func:`poll_events`, :func:`poll_feed`) and a
stream's batches and heartbeats (:func:`stream_events`, :func:`stream_feed`), over what the client's
seat may see (:func:`service.live.shaping.shown_to`).

A poll or a stream that caught up waits on its :class:`service.live.subscription.Subscription`; a
stream that caught up is written by the process's reader itself from then on
(:meth:`service.live.subscription.Subscription.go_direct`), and its own greenlet only sends what the
socket did not take at once.  Events arriving within ``stream_batch_seconds`` of a write join the
next one: a match played at machine speed costs its followers a write per batch, not per event.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from service.config import Config
from service.events import OVER
from service.live.credentials import CredentialRevoked
from service.live.shaping import LiveEvent, client_event, everyone, farewell, shown_to, visible_events
from service.live.subscription import Encode, Subscription, never
from service.live.topics import ALL
from service.live.wire import Wire
from service.storage.accounts import AccountStore
from service.storage.matches import MatchMeta, Store, now

#: Events read from the stream per JSON response (the client pages on with ``after=last_id``).
EVENTS_PER_PAGE = 1000


def _ends_match(row: LiveEvent) -> bool:
    return row.type == OVER  # finished or aborted


def poll_events(
    store: Store,
    config: Config,
    meta: MatchMeta,
    seat: int | None,
    after: str,
    wait: float,
    subscribe: Callable[[], Subscription],
) -> tuple[list[dict[str, Any]], str, str | None]:
    """Long-poll: return as soon as there is an event ``seat`` may see, or after ``wait`` seconds
    (or when the client has gone).

    Only a poll that waits subscribes to live events; it catches up from what the process's reader
    keeps when it can (:meth:`Subscription.backlog`), so a client that polls again at once after its
    answer costs no read of the match's events.  A poll that is live (it waited, or the match moved
    less than ``stream_batch_seconds`` ago) lets the events of the next ``stream_batch_seconds`` join
    the first, as a stream does: a client following a match played at machine speed polls a few times
    a second, not once per move.  A client behind the match gets its page at once.  Also who is to
    move after the last event, when its commit published it (``""``: nobody; ``None``: unknown)."""
    if min(wait, config.max_wait_seconds) <= 0:
        return (*visible_events(store, meta.id, seat, after, EVENTS_PER_PAGE), None)
    live = now() - meta.updated_at < config.stream_batch_seconds
    return _poll(config, after, wait, live, subscribe, shown_to(seat), meta.version)


def poll_feed(
    accounts: AccountStore,
    config: Config,
    key: str,
    after: str,
    wait: float,
    subscribe: Callable[[], Subscription],
) -> tuple[list[dict[str, Any]], str]:
    """:func:`poll_events` for the feed of the player ``key``: its entries after ``after`` at once, or
    the first that comes within ``wait`` seconds (with what joins it within ``stream_batch_seconds``)."""
    if min(wait, config.max_wait_seconds) <= 0:
        rows = accounts.feed_after(key, after, EVENTS_PER_PAGE)
        return [client_event(r) for r in rows], rows[-1].id if rows else after
    events, last, _ = _poll(config, after, wait, False, subscribe, everyone, None)
    return events, last


def _poll(
    config: Config,
    after: str,
    wait: float,
    live: bool,
    subscribe: Callable[[], Subscription],
    visible: Callable[[LiveEvent], bool],
    version: int | None,
) -> tuple[list[dict[str, Any]], str, str | None]:
    """A long-poll that waits (``wait`` > 0): the events after ``after`` at once when there are some
    and the topic is not ``live``, else the first that come within ``wait`` (with what joins them);
    and who is to move after the last of them when its commit said (:attr:`LiveEvent.to_move`)."""
    deadline = time.monotonic() + min(wait, config.max_wait_seconds)
    events: list[dict[str, Any]] = []
    with subscribe() as sub:
        rows = sub.backlog(after, EVENTS_PER_PAGE, version=version)
        if len(rows) > EVENTS_PER_PAGE:  # far behind: a page now, the next poll goes on from it
            rows = rows[:EVENTS_PER_PAGE]
        behind = len(rows) == EVENTS_PER_PAGE
        lingered = not live
        to_move: str | None = None
        while True:
            if sub.revoked is not None:  # what it gathered goes nowhere
                raise CredentialRevoked(sub.revoked)
            for row in rows:
                after, to_move = row.id, row.to_move
                if visible(row):
                    events.append(row.client)
            remaining = deadline - time.monotonic()
            if behind or remaining <= 0 or sub.client_gone() or (events and lingered):
                return events, after, to_move
            if events:  # the first news since the poll began: a short while for more to join
                lingered = True
                sub.rest(min(remaining, config.stream_batch_seconds))
                remaining = 0
            rows = sub.take(remaining)


def stream_events(
    config: Config,
    sub: Subscription,
    seat: int | None,
    backlog: list[LiveEvent],
    *,
    over: bool,
    wire: Wire | None = None,
    encode: Encode | None = None,
) -> Iterator[list[LiveEvent] | None]:
    """Events for a streaming response, in batches (what arrived together), the ``backlog`` first
    (:meth:`Subscription.backlog`); ``None`` items are heartbeats, due whenever nothing was written
    for ``heartbeat_seconds`` (events other seats may see do not count).  Ends after ``match_over``
    (at once when the match was ``over`` already and the backlog is past it), after
    ``stream_max_seconds`` (the client reconnects with the last id), or when the client has gone.

    After a write, events arriving within ``stream_batch_seconds`` wait and go out together: a
    match played at machine speed costs its followers a write per batch, not one per event,
    while a match played at human speed is not delayed at all.

    Given the stream's ``wire`` and its ``encode``, everything after the backlog is written by the
    process's reader (:meth:`Subscription.go_direct`), and this only waits for the end."""

    direct = None if wire is None or encode is None else (wire, seat, encode)
    return _stream(config, sub, backlog, shown_to(seat), _ends_match, over=over, direct=direct)


def stream_feed(
    config: Config,
    sub: Subscription,
    backlog: list[LiveEvent],
    *,
    wire: Wire | None = None,
    encode: Encode | None = None,
) -> Iterator[list[LiveEvent] | None]:
    """:func:`stream_events` for a player's feed: every entry, heartbeats meanwhile; a feed outlives
    every match, so it ends only after ``stream_max_seconds`` or when the client has gone."""
    direct = None if wire is None or encode is None else (wire, ALL, encode)
    return _stream(config, sub, backlog, everyone, never, over=False, direct=direct)


def _stream(
    config: Config,
    sub: Subscription,
    backlog: list[LiveEvent],
    visible: Callable[[LiveEvent], bool],
    ends: Callable[[LiveEvent], bool],
    *,
    over: bool,
    direct: tuple[Wire, int | str | None, Encode] | None,
) -> Iterator[list[LiveEvent] | None]:
    beat = config.heartbeat_seconds
    written = time.monotonic()
    deadline = written + config.stream_max_seconds
    rows = backlog
    sent = sub.began  # the last event id the stream carried, seen or not
    del backlog  # events go out once: a waiting stream keeps none of them
    while True:
        reason = sub.revoked
        if reason is not None:  # its credential was revoked or expired: a last line, the end
            yield [farewell(reason, sent)]
            return
        if rows:
            sent = rows[-1].id
        shown = [r for r in rows if visible(r)]
        ended = over or any(ends(r) for r in rows)
        del rows
        if shown:
            yield shown
            written = time.monotonic()
        if ended:
            return
        clock = time.monotonic()
        if clock >= deadline or sub.client_gone():
            return
        if direct is not None:
            wire, audience, encode = direct
            sub.go_direct(wire, audience, encode, visible, ends)
            _written_by_the_reader(sub, wire, deadline)
            if sub.revoked is not None and not wire.broken:  # the reader writes nothing more
                yield [farewell(sub.revoked, "{}-{}".format(*sub.cursor))]
            return
        if clock - written >= beat:
            yield None
            written = clock
        lull = written + config.stream_batch_seconds - clock
        if shown and lull > 0:
            sub.rest(lull)  # events arriving meanwhile go out in one write
        del shown
        rows = sub.take(min(written + beat, deadline) - time.monotonic())


def _written_by_the_reader(sub: Subscription, wire: Wire, deadline: float) -> None:
    """A direct stream's own greenlet: sends what the socket did not take at once, and returns when
    the stream ends (its last event went out, the client has gone, its time is up).  It sleeps
    until then: the reader writes the events and the process's heartbeat sweep the heartbeats
    (:meth:`service.live.fanout.Fanout.beat`)."""
    while True:
        if sub.revoked is not None:
            return
        if wire.owed and not wire.broken:
            wire.flush()
            continue
        if wire.broken or sub.ended:
            return
        clock = time.monotonic()
        if clock >= deadline or sub.client_gone():
            return
        sub.wait(deadline - clock)
