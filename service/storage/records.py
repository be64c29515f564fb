"""Reads for match records (issue 45): a match's meta, events and action log in one round trip, for
a batch of matches at once, and the indexes of finished matches the exports walk.

The indexes (``tt:done:<app>`` and ``tt:done:<app>:t:<tournament>``, written when a match finishes:
:func:`service.storage.matches.finished_indexes`) are sorted sets scored by the time each match
finished.  They name matches, never hold them: a match past its retention is gone, and its name is
dropped when an export meets it (and, at every read, every name older than the retention), so
nothing here outlives the matches it names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import redis
from redis.cluster import RedisCluster

from service.encoding import loads
from service.storage.lua import script
from service.storage.matches import MatchMeta, finished_indexes, match_key


@dataclass(frozen=True)
class Stored:
    """One match as a record is built from it: its meta, every event, its action log."""

    meta: MatchMeta
    #: The events each version wrote (those asked for), as a JSON array of them as stored: not parsed,
    #: an export writes them as they are.
    events: dict[int, bytes]
    log: list[dict[str, Any]]


class RecordStore:
    """The reads records are built from, over one Redis client (a match's, in one call of
    ``lua/record_read.lua``, which groups its events by version as JSON text: the client does no work
    an event)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._read = script(client, "record_read")

    def load_many(self, match_ids: list[str], leave_out: frozenset[str]) -> list[Stored | None]:
        """Each match's :class:`Stored` (``None``: gone), its events of the types ``leave_out`` left out,
        in one pipelined round trip."""
        skip = sorted(leave_out)
        keys = [[match_key(mid, p) for p in ("meta", "events", "log")] for mid in match_ids]
        client: object = self.redis  # a cluster's client passes for a Redis (service.storage.client.connect)
        if isinstance(client, RedisCluster):  # its pipelines run no scripts (and a batch spans slots)
            replies = [self._read(keys=k, args=skip) for k in keys]
        else:
            pipe = self.redis.pipeline(transaction=False)
            for k in keys:
                self._read(keys=k, args=skip, client=pipe)
            replies = pipe.execute()
        found: list[Stored | None] = []
        for mid, (meta, events, log) in zip(match_ids, replies, strict=True):
            if not meta:
                found.append(None)
                continue
            fields = {meta[i].decode(): meta[i + 1].decode() for i in range(0, len(meta), 2)}
            grouped = {int(events[i]): events[i + 1] for i in range(0, len(events), 2)}
            found.append(Stored(MatchMeta.from_fields(mid, fields), grouped, loads(log)))
        return found

    def finished_after(
        self,
        app: str,
        tournament: str | None,
        after: tuple[float, str] | None,
        since: float | None,
        until: float | None,
        count: int,
    ) -> list[tuple[str, float]]:
        """Up to ``count`` (match id, finish time) of the app's (or its ``tournament``'s) finished matches,
        oldest first: finished from ``since`` to ``until``, after the position ``after`` (the last match
        id and finish time an export gave: its cursor).  The cursor's match still named, the page goes on
        from its rank (equal times are ordered by id, as Redis orders them); a name dropped since, from
        after its time."""
        index = finished_indexes(app, tournament)[-1]
        rank = cast("int | None", self.redis.zrank(index, after[1])) if after is not None else None
        rows: list[tuple[bytes, float]]
        if rank is not None:
            rows = cast(
                "list[tuple[bytes, float]]", self.redis.zrange(index, rank + 1, rank + count, withscores=True)
            )
            rows = [(m, s) for m, s in rows if since is None or s >= since]
        else:
            low = "-inf" if since is None else repr(since)
            if after is not None and (since is None or after[0] >= since):
                low = f"({after[0]!r}"
            rows = cast(
                "list[tuple[bytes, float]]",
                self.redis.zrangebyscore(index, low, "+inf", start=0, num=count, withscores=True),
            )
        return [(m.decode(), float(s)) for m, s in rows if until is None or s <= until]

    def forget(
        self, app: str, tournament: str | None, match_ids: list[str], older: float | None = None
    ) -> None:
        """Drop names of gone matches from the index, and every name finished before ``older``."""
        index = finished_indexes(app, tournament)[-1]
        pipe = self.redis.pipeline(transaction=False)
        if match_ids:
            pipe.zrem(index, *match_ids)
        if older is not None:
            pipe.zremrangebyscore(index, "-inf", f"({older!r}")
        pipe.execute()
