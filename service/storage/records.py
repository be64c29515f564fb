"""Reads for match records (issue 45): a match's meta, events and action log in one round trip, for
a batch of matches at once, the full records kept for finished matches, and the indexes of finished
matches the exports walk.

A finished match's full record never changes while the match stays as it is, so it is built once
(:mod:`service.domain.records.keeping`) and kept beside the match, in its hash slot
(``tt:{m:<id>}:record``: a hash of ``stamp`` and ``body``, the record's JSON compressed with zlib),
expiring with it.  ``lua/record_lib.lua`` stamps what a record is built from (the builder's id, every
meta field, the events' and the log's lengths): a read returns the kept record only under the stamp
the match has now, and :meth:`RecordStore.keep` writes one only if the match is still what the read
found, so a record is never served for a match that changed since (a rematch offer, a rewrite, a
release whose records differ), whatever runs at the same time.

The indexes (``tt:done:<app>`` and ``tt:done:<app>:t:<tournament>``, written when a match finishes:
:func:`service.storage.matches.finished_indexes`) are sorted sets scored by the time each match
finished.  They name matches, never hold them: a match past its retention is gone, and its name is
dropped when an export meets it (and, at every read, every name older than the retention), so
nothing here outlives the matches it names.
"""

from __future__ import annotations

import zlib
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
    #: What the match was when read (``lua/record_lib.lua``), when a builder's id was given: a record
    #: built from this read is kept under it (:meth:`RecordStore.keep`).
    stamp: str | None = None
    #: The full record kept for the match as it is now (its JSON, as built), in place of ``events`` and
    #: ``log`` (then empty), when a builder's id was given and one is kept.
    kept: bytes | None = None


#: The parts of a match a record is built from, and the key its kept record lives at (same hash slot).
PARTS = ("meta", "events", "log", "record")
#: zlib's level for kept records: its quickest, a Year of the Dragon record of 27 KB keeps in 3.9 KB
#: (level 6: 2.9 KB, for four times the compression's time; decompressing costs them the same).
LEVEL = 1


class RecordStore:
    """The reads records are built from, over one Redis client (a match's, in one call of
    ``lua/record_read.lua``, which groups its events by version as JSON text: the client does no work
    an event)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._read = script(client, "record_lib", "record_read")
        self._keep = script(client, "record_lib", "record_keep")

    def load_many(
        self, match_ids: list[str], leave_out: frozenset[str], build: str | None = None
    ) -> list[Stored | None]:
        """Each match's :class:`Stored` (``None``: gone), its events of the types ``leave_out`` left out,
        in one pipelined round trip.  With ``build`` (the builder's id), each stamped, and its kept
        record in place of its parts where one is kept for the match as it is now."""
        args: list[str | bytes] = [build or "", *sorted(leave_out)]
        found: list[Stored | None] = []
        for mid, (meta, events, log, stamp, kept) in zip(
            match_ids, self._run(self._read, match_ids, [args] * len(match_ids)), strict=True
        ):
            if not meta:
                found.append(None)
                continue
            fields = {meta[i].decode(): meta[i + 1].decode() for i in range(0, len(meta), 2)}
            match = MatchMeta.from_fields(mid, fields)
            if kept is not None:
                found.append(Stored(match, {}, [], stamp.decode(), zlib.decompress(kept)))
                continue
            grouped = {int(events[i]): events[i + 1] for i in range(0, len(events), 2)}
            found.append(Stored(match, grouped, loads(log), stamp.decode() if stamp else None))
        return found

    def keep(self, build: str, records: list[tuple[str, str, bytes]]) -> int:
        """Keep each (match id, stamp of the read it was built from, full record JSON) beside its match,
        expiring with it, where the match is still what that read found; how many were kept."""
        if not records:
            return 0
        ids = [mid for mid, _, _ in records]
        args: list[list[str | bytes]] = [
            [build, stamp, zlib.compress(body, LEVEL)] for _, stamp, body in records
        ]
        return sum(int(kept) for kept in self._run(self._keep, ids, args))

    def _run(self, run: Any, match_ids: list[str], args: list[list[str | bytes]]) -> list[Any]:
        """``run`` (a record script) over each match's :data:`PARTS`, with its ``args``: pipelined in one
        round trip, or on a cluster one call a match (its pipelines run no scripts, and a batch spans
        slots)."""
        keys = [[match_key(mid, p) for p in PARTS] for mid in match_ids]
        client: object = self.redis  # a cluster's client passes for a Redis (service.storage.client.connect)
        if isinstance(client, RedisCluster):
            return [run(keys=k, args=a) for k, a in zip(keys, args, strict=True)]
        pipe = self.redis.pipeline(transaction=False)
        for k, a in zip(keys, args, strict=True):
            run(keys=k, args=a, client=pipe)
        return pipe.execute()

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
