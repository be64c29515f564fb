"""Redis persistence of the bot lanes on the queue Redis: which apps have a queue of each kind of work,
and each one's place in the lane's fair order; and the reads of RQ's own keys that RQ's API has no
read of its own for (the only code of the feature that talks to Redis).  What the lanes do with them
is :mod:`service.domain.matches.bots`'s and :mod:`workers.worker`'s.

Key layout (the queue Redis is never a cluster, see :class:`service.storage.matches.Store`):

``tt:lanes:<kind>``        sorted set: tenant -> when a job of that kind was last queued for it.  The
                           workers serving ``kind`` listen to the queue of every tenant touched within
                           the retention; a tenant older than that, with an empty queue, is forgotten.
``tt:lanes:<kind>:tags``   hash: tenant -> its finish tag, in seconds of worker time (start-time fair
                           queueing, see :meth:`LaneStore.served`).
``tt:lanes:<kind>:clock``  the lane's virtual clock: the largest start tag served so far.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import redis

from service.storage.lua import script


@dataclass(frozen=True)
class Lane:
    """One kind's tenants as its workers order them: the lane's clock, each tenant's finish tag."""

    clock: float
    tags: dict[str, float]

    def start(self, tenant: str) -> float:
        """When ``tenant``'s next job would start on the lane's clock (its tag, or the clock if later)."""
        return max(self.tags.get(tenant, 0.0), self.clock)


def _tenants_key(kind: str) -> str:
    return f"tt:lanes:{kind}"


def _tags_key(kind: str) -> str:
    return f"tt:lanes:{kind}:tags"


def _clock_key(kind: str) -> str:
    return f"tt:lanes:{kind}:clock"


class LaneStore:
    """The tenants of each kind of work and their recent use of its lane, over the queue Redis."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._touch = script(client, "lane_touch")
        self._served = script(client, "lane_served")
        self._forget = script(client, "lane_forget")

    def touch(self, kind: str, tenant: str, at: float, retention: float) -> bool:
        """Note that ``tenant`` has a job of ``kind`` queued at ``at``; whether the workers were not
        listening to its queue (new, or untouched for ``retention`` seconds): then they must be told."""
        return bool(self._touch(keys=[_tenants_key(kind)], args=[tenant, at, at - retention]))

    def tenants(self, kinds: list[str], at: float, retention: float) -> dict[str, Lane]:
        """The tenants of each of ``kinds`` touched within ``retention`` seconds of ``at``, with their
        tags and the lane's clock, in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for kind in kinds:
            pipe.zrangebyscore(_tenants_key(kind), at - retention, "+inf")
            pipe.hgetall(_tags_key(kind))
            pipe.get(_clock_key(kind))
        rows = pipe.execute()
        found: dict[str, Lane] = {}
        for i, kind in enumerate(kinds):
            tenants, tags, clock = rows[3 * i : 3 * i + 3]
            listened = {t.decode(): float(tags.get(t, 0.0)) for t in tenants}
            found[kind] = Lane(float(clock or 0.0), listened)
        return found

    def served(self, kind: str, tenant: str, seconds: float) -> None:
        """Count a job of ``tenant``'s that took ``seconds`` of a ``kind`` worker's time (start-time fair
        queueing: the next job goes to the tenant whose next start is earliest, :meth:`Lane.start`;
        atomic, so several workers finishing jobs at once all count)."""
        self._served(keys=[_tags_key(kind), _clock_key(kind)], args=[tenant, seconds])

    def forget(self, kind: str, at: float, retention: float, queue_key: Callable[[str], str]) -> list[str]:
        """Drop the tenants of ``kind`` untouched for ``retention`` seconds whose queue (the RQ list
        ``queue_key(tenant)``) is empty; the tenants dropped (a tenant that comes back starts at the
        lane's clock, as after any idle time)."""
        before = at - retention
        rows = self.redis.zrangebyscore(_tenants_key(kind), "-inf", f"({before}")
        stale = [t.decode() if isinstance(t, bytes) else str(t) for t in rows]
        keys = [_tenants_key(kind), _tags_key(kind)]
        return [t for t in stale if self._forget(keys=[*keys, queue_key(t)], args=[t, before])]

    # -- RQ's keys, where RQ's API has no read of its own ---------------------------------------------

    def in_rq_list(self, key: str, job_id: str) -> bool:
        """Whether RQ's list ``key`` (a queue, or a queue's hand-over list) holds ``job_id``."""
        return self.redis.lpos(key, job_id) is not None

    def last_heartbeats(self, worker_keys: list[str]) -> list[str | None]:
        """The last heartbeat RQ recorded in each worker registration of ``worker_keys`` (``None``: the
        registration is gone), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for key in worker_keys:
            pipe.hget(key, "last_heartbeat")
        return [None if beat is None else beat.decode() for beat in pipe.execute()]
