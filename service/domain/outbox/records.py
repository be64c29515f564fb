"""The ``record`` part of an outbox entry: a commit that leaves a match finished has its full record
built and kept (:class:`service.domain.records.keeping.Keeper`), so the first export that reads it
writes stored bytes (issue 45's export speed).  A commit on a match already finished (a rematch offer)
changes what its record is stamped with: it is kept again."""

from __future__ import annotations

import logging
from typing import Any

from service.domain.outbox.entries import Consumed
from service.domain.records.keeping import Keeper
from service.storage.matches import FINISHED, MatchMeta

log = logging.getLogger(__name__)


class RecordSubscriber:
    """Keeps a finished match's full record, after the entry is popped (:attr:`Consumed.then`): it
    never holds the match's notes back, and a failure only leaves the record to be built at its first
    read."""

    part = "record"

    def __init__(self, keeper: Keeper) -> None:
        self.keeper = keeper

    def derive(self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]) -> int | None:
        return 1 if after.status == FINISHED else None

    def consume(self, match_id: str, entry: dict[str, Any], part: Any) -> Consumed:
        return Consumed(then=lambda: self._keep(match_id))

    def _keep(self, match_id: str) -> None:
        try:
            self.keeper.keep([match_id])
        except Exception:  # a cache's write, after the commit and its notes: the first read builds it
            log.warning("keeping the record of match %s failed", match_id, exc_info=True)
