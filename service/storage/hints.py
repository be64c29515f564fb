"""Redis persistence of hints' bookkeeping: which hint job each seat asked for last, and the hint jobs
each client address has in flight (the bound ``TABLETOP_MAX_HINTS_PER_ADDRESS``).  The jobs themselves
are RQ's (:mod:`service.domain.matches.bots`).

Key layout:

``tt:{m:<id>}:hint:<seat>``  the id of the hint job the seat asked for last, with its own TTL (in the
                             match's slot, beside its other keys: :mod:`service.storage.matches`)
``tt:hints:<address>``       sorted set: the hint jobs a client address has in flight, scored by when
                             they are let go at the latest
"""

from __future__ import annotations

import redis

from service.storage.lua import script
from service.storage.matches import match_key, now


def _address_key(address: str) -> str:
    return f"tt:hints:{address}"


class HintStore:
    """Hint claims and the hints in flight per address, over the state Redis (see the module)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._claim = script(client, "hint_claim")
        self._take_place = script(client, "hint_take_place")

    def current(self, match_id: str, seat: int) -> str | None:
        """The id of the hint job ``seat`` asked for last (while it is kept)."""
        raw = self.redis.get(match_key(match_id, f"hint:{seat}"))
        return raw.decode() if raw is not None else None

    def claim(self, match_id: str, seat: int, expected: str | None, job_id: str, ttl: int) -> bool:
        """Make ``job_id`` the seat's current hint if the current one is still ``expected`` (compare and
        set: of two requests at once, one wins and the other learns the winner's job)."""
        key = match_key(match_id, f"hint:{seat}")
        return bool(self._claim(keys=[key], args=[expected or "", job_id, ttl]))

    def in_flight(self, address: str) -> list[str]:
        """The hint jobs counted against ``address`` (some may be over: the caller checks the jobs)."""
        return [job_id.decode() for job_id in self.redis.zrange(_address_key(address), 0, -1)]

    def take_place(self, address: str, job_id: str, limit: int, until: float) -> int:
        """Count ``job_id`` against ``address`` until ``until`` at the latest, unless ``address`` has
        ``limit`` hints in flight already (atomic: two requests at once cannot both take the last
        place).  The hints ``address`` has in flight with ``job_id``, or 0 if it was not counted."""
        args = [job_id, limit, now(), until]
        return int(self._take_place(keys=[_address_key(address)], args=args))

    def drop(self, address: str, job_ids: list[str]) -> None:
        """Stop counting ``job_ids`` (over, or never enqueued) against ``address``."""
        if job_ids:
            self.redis.zrem(_address_key(address), *job_ids)
