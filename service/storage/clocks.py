"""Redis persistence of the clocks' indexes: which matches have a pending decision with a deadline, and
which clock warnings are still to give.  The keepers claim from them (:mod:`workers.worker`); what a
claim leads to (a timeout, a warning note) is :mod:`service.domain.matches.clocks`' and the sweep's.

Key layout (each index one global key, so a claim is one atomic script; outside the match slots:
written after the match's own commit, and rebuilt by the sweep from the matches themselves if that
write is lost):

``tt:deadlines``  sorted set: match id -> the deadline of its pending human decision (epoch seconds)
``tt:warnings``   sorted set: ``<match id>:<version>`` -> when to warn (the deadline of that version's
                  pending decision minus ``clock_warning_seconds``).  One member per version, so a
                  warning that is handled can be dropped without a race against the commit that sets
                  the next one; claimed like deadlines.
"""

from __future__ import annotations

import redis

from service.storage.lua import script

_DEADLINES = "tt:deadlines"
_WARNINGS = "tt:warnings"


class ClockStore:
    """The deadline and warning indexes over the state Redis (see the module)."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._claim_due = script(client, "clock_claim_due")

    def set_deadline(self, match_id: str, deadline: float | None, *, only_missing: bool = False) -> None:
        """Record the pending decision's deadline of a match (``None``: no deadline pending);
        ``only_missing`` leaves an entry that is there (claimed, or set by a later commit) alone."""
        if deadline is None:
            self.redis.zrem(_DEADLINES, match_id)
        else:
            self.redis.zadd(_DEADLINES, {match_id: deadline}, nx=only_missing)

    def claim_due(self, by: float, limit: int, lease_seconds: float) -> list[str]:
        """Matches whose deadline is due ``by``, at most ``limit``, each claimed for ``lease_seconds``
        (no other claimer gets it meanwhile; unless its deadline is set again, it is due again after)."""
        return [mid.decode() for mid in self._claim_due(keys=[_DEADLINES], args=[by, limit, lease_seconds])]

    def deadline_count(self) -> int:
        return int(self.redis.zcard(_DEADLINES))

    def set_warning(self, match_id: str, version: int, at: float | None) -> None:
        """After the commit of ``version``: the clock warning of its pending decision is due ``at``
        (``None``: no warning), and the previous version's, if not given yet, is void."""
        pipe = self.redis.pipeline(transaction=False)
        if version > 0:
            pipe.zrem(_WARNINGS, f"{match_id}:{version - 1}")
        if at is not None:
            pipe.zadd(_WARNINGS, {f"{match_id}:{version}": at})
        pipe.execute()

    def claim_warnings(self, by: float, limit: int, lease_seconds: float) -> list[tuple[str, int]]:
        """Clock warnings due ``by`` as ``(match id, version)``, claimed like :meth:`claim_due`."""
        claimed = self._claim_due(keys=[_WARNINGS], args=[by, limit, lease_seconds])
        return [(mid, int(version)) for mid, _, version in (m.decode().rpartition(":") for m in claimed)]

    def drop_warning(self, match_id: str, version: int) -> None:
        """The clock warning of ``version`` is given (or void)."""
        self.redis.zrem(_WARNINGS, f"{match_id}:{version}")
