"""The ``tournament`` part of an outbox entry: a tournament match's end, for its tournament."""

from __future__ import annotations

from typing import Any

from service.domain.outbox.entries import Consumed
from service.domain.tournaments.records import outcome
from service.domain.tournaments.scheduler import TournamentScheduler
from service.storage.matches import MatchMeta


class TournamentSubscriber:
    """Derives the end of a tournament's match (:func:`service.domain.tournaments.records.outcome`)
    and records it (:meth:`~service.domain.tournaments.scheduler.TournamentScheduler.recorded`, idempotent per
    match).  What follows it (the tournament's next matches,
    :meth:`~service.domain.tournaments.scheduler.TournamentScheduler.follow`) is handed on to run after the
    entry is popped, and only when this drain recorded it: it marks the tournament due, and the keeper
    makes the next matches, never the request of the player whose move ended this one.  The keeper's
    sweep does it too if this process dies."""

    part = "tournament"

    def __init__(self, scheduler: TournamentScheduler) -> None:
        self.scheduler = scheduler

    def derive(
        self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        if "tournament" not in after.life:
            return None
        return outcome(before, after)

    def consume(self, match_id: str, entry: dict[str, Any], part: Any) -> Consumed:
        if not self.scheduler.recorded(part):
            return Consumed()
        return Consumed(then=lambda: self.scheduler.follow(part))
