"""Redis persistence of the bot lanes' tenants: which apps have a queue of each kind of work, and each one's
place in the lane's fair order (on the queue Redis, beside RQ's own keys; the only code of the feature
that talks to Redis).  What the lanes do with them is :mod:`service.matches.bots`'s and
:mod:`workers.worker`'s.

Key layout (the queue Redis is never a cluster, see :class:`service.store.Store`):

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

#: Register ARGV[1] in KEYS[1] at ARGV[2]; 1 if it was absent or last touched before ARGV[3] (the
#: workers were not listening to it), else 0.
_TOUCH = """
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if last == false or tonumber(last) < tonumber(ARGV[3]) then return 1 end
return 0
"""

#: A job of tenant ARGV[1] took ARGV[2] seconds: its start tag is its finish tag (KEYS[1]) or the lane's
#: clock (KEYS[2]) if that is later (a tenant back from idle starts now: no credit, no debt); its finish
#: tag becomes start + seconds, and the clock moves up to the start.
_SERVED = """
local clock = tonumber(redis.call('GET', KEYS[2]) or '0')
local start = math.max(tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0'), clock)
redis.call('HSET', KEYS[1], ARGV[1], string.format('%.6f', start + tonumber(ARGV[2])))
if start > clock then redis.call('SET', KEYS[2], string.format('%.6f', start)) end
return 1
"""

#: Forget tenant ARGV[1] of KEYS[1] (and its tag in KEYS[2]) if it was last touched before ARGV[2] and its
#: queue KEYS[3] is empty: checked and done at once, so a tenant touched meanwhile stays.
_FORGET = """
local last = redis.call('ZSCORE', KEYS[1], ARGV[1])
if last == false or tonumber(last) >= tonumber(ARGV[2]) then return 0 end
if redis.call('LLEN', KEYS[3]) > 0 then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
"""


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
        self._touch = client.register_script(_TOUCH)
        self._served = client.register_script(_SERVED)
        self._forget = client.register_script(_FORGET)

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
