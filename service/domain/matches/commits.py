"""The write side every match operation shares: a commit's news, the settling after it, and changes of
who holds the seats.

Every write of a match is one compare-and-set commit of the store; after it stands, :meth:`Commits.settle`
puts the pending decision's deadline and clock warning in their indexes and the bot turn on its queue,
and the commit's outbox entry (:class:`~service.domain.matches.changes.News`) is delivered.  A
change of the seats, life or clock without a move (joining, resigning, coming back...) is decided on the
current version and committed by :meth:`Commits.change`, again on a lost race.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from service.config import Config
from service.domain.errors import Conflict, not_found
from service.domain.matches import bots, clocks, seating
from service.domain.matches.changes import Change, News
from service.domain.matches.reading import MatchReading
from service.events import RETURNED
from service.storage.matches import (
    ACTIVE,
    KEEP,
    OVER_STATUSES,
    PERSIST,
    WAITING,
    MatchMeta,
    Store,
    lifecycle_fields,
    progress_fields,
)

#: Compare-and-set attempts before a change of who holds the seats gives up (each lost race means the
#: match moved).
CHANGE_ATTEMPTS = 10


class _Unchanged(Exception):
    """A change found nothing to do on the current version (it commits nothing: every commit writes
    an event)."""

    def __init__(self, meta: MatchMeta) -> None:
        super().__init__(meta.id)
        self.meta = meta


class Commits:
    """What happens around every commit of a match, and the commits of its changes."""

    def __init__(
        self,
        store: Store,
        config: Config,
        reading: MatchReading,
        news: News,
        bot_queue: bots.BotQueue,
        clock: Callable[[], float],
    ) -> None:
        self.store = store
        self.config = config
        self.reading = reading
        #: Where a commit's news goes: its outbox entry, derived before and delivered after it.
        self.news = news
        self.bots = bot_queue
        self.now = clock

    def change(self, match_id: str, decide: Callable[[MatchMeta], Change]) -> tuple[Change, Any]:
        """Load, ``decide`` (which raises the operation's refusals) and commit the seats, life and clock
        it chose, again on a lost race (:class:`service.domain.matches.lifecycle.Lifecycle`'s operations
        and :meth:`reclaim`). Returns the committed change and the decoded state.

        A match leaving ``waiting`` for play loses the expiry of a waiting match; one over gets the
        retention time."""
        for _ in range(CHANGE_ATTEMPTS):
            meta, state = self.reading.meta_and_state(match_id)
            change = decide(meta)
            after = replace(change.after, version=meta.version + 1, updated_at=self.now())
            fields = {
                **lifecycle_fields(after),
                **progress_fields(after.status, after.to_move, after.result, after.updated_at),
            }
            expire = KEEP
            if after.status in OVER_STATUSES:
                expire = self.config.retention_seconds
            elif after.status != WAITING:
                expire = PERSIST
            outbox = self.news.entry(meta, after, change.events)
            commit = self.store.commit(meta, None, fields, change.events, None, expire, None, outbox)
            if commit.gone:
                raise not_found(f"match {match_id!r}")
            if commit.version is not None:
                change.after = after
                self.settle(after)
                self.news.deliver(after.id, outbox)
                return change, state
        raise Conflict("busy", "the match changed too often while we tried; try again")

    def reclaim(self, meta: MatchMeta, seat: int | None) -> MatchMeta:
        """The match after ``seat``'s player acts: an away seat (played by a bot after too many
        timeouts) is the player's again (:meth:`come_back`).  Acting is a POST of the seat's player:
        coming back (:meth:`service.domain.matches.lifecycle.Lifecycle.return_to_seat`), a move or a hint
        request.  No
        read is (a GET must change nothing: a page left open, a prefetch or a retry sends it), and a
        finished match's away player asks for the rematch as they are."""
        if seat is None or not seating.is_away(meta.seats[seat]):
            return meta

        def decide(current: MatchMeta) -> Change:
            if not seating.is_away(current.seats[seat]):
                raise _Unchanged(current)  # came back meanwhile (another call of the same player)
            return self.come_back(current, seat)

        try:
            change, _ = self.change(meta.id, decide)
        except _Unchanged as unchanged:
            return unchanged.meta
        return change.after

    def come_back(self, meta: MatchMeta, seat: int) -> Change:
        """The change that gives away ``seat`` back to its player, with a ``seat_returned`` event; if it
        is the seat's decision its clock starts now (the bot's pending turn finds the version moved on
        and stands down)."""
        seats = seating.come_back(meta.seats, seat)
        clock = meta.clock
        if clock is not None and meta.status == ACTIVE and meta.to_move == seat:
            clock = copy.deepcopy(clock)
            clocks.start_turn(clock, seats, seat, self.now())
        events = [{"type": RETURNED, "visible_to": "all", "seat": seat}]
        return Change(replace(meta, seats=seats, clock=clock), events, {"seat": seat})

    def settle(self, meta: MatchMeta, *, announce: bool = True) -> None:
        """After a commit: the pending decision's deadline in the clock index, and the bot turn on the
        queue if a bot is to decide (unless the caller, a bot job chaining decisions, plays it)."""
        if meta.clock is not None:
            self.store.clocks.set_deadline(meta.id, meta.clock["deadline"] if meta.status == ACTIVE else None)
            self.index_warning(meta)
        if announce and meta.status == ACTIVE:
            self.announce_bot_turn(meta)

    def announce_bot_turn(self, meta: MatchMeta) -> None:
        """Enqueue the bot turn pending at ``meta``'s version, if a bot is to decide."""
        if meta.to_move is not None and bots.is_bot(meta.seats[meta.to_move]):
            self.bots.turn_pending(meta.id, meta.version, meta.seats[meta.to_move], app=meta.life.get("app"))

    def index_warning(self, meta: MatchMeta) -> None:
        """After the commit of ``meta``: its decision's clock warning in the warnings index (and the
        previous version's out of it), at its clock's warning time (at most the server's
        ``clock_warning_seconds`` by default: :func:`service.domain.matches.clocks.warning_seconds`)."""
        assert meta.clock is not None
        lead = clocks.warning_seconds(meta.clock, self.config.clock_warning_seconds)
        self.store.clocks.set_warning(meta.id, meta.version, clocks.warning_at(meta, lead))
