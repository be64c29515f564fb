"""How many clients may wait: the process's cap (``max_waiters``) and the caller's *quotas*.

A quota is a (key, cap) pair the HTTP layer builds from the credential
(:func:`service.http.waiters.waiter_quotas`): by address for anonymous callers, by app and by player
with an app key or a player token, so a backend proxying its users meets its app's cap, not the one
meant for a single address.  Past a cap a waiter is refused with 429 (:class:`TooManyWaiters`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

#: What a client is told to wait after 429 (too many waiters).
RETRY_AFTER_SECONDS = 5
#: The quota key prefixes (:func:`service.http.waiters.waiter_quotas`), and the cap each one is, as a
#: 429 names it.
QUOTA_NAMES = {
    "addr": "max_waiters_per_address",
    "app": "max_waiters_per_app",
    "player": "max_waiters_per_player",
}
_QUOTA_WHAT = {"addr": "your address", "app": "your app", "player": "this player"}

#: A waiter's quotas: (key, cap) pairs, e.g. ``[("app:a1", 5000), ("player:a1:ann", 20)]``.
Quotas = Sequence[tuple[str, int]]


class TooManyWaiters(Exception):
    """A waiter refused at a cap (the process's, or one of the caller's quotas: its address, app or
    player); the HTTP layer answers 429 with ``Retry-After``: :data:`RETRY_AFTER_SECONDS`, and the
    details name the cap (``limit``, e.g. ``max_waiters_per_player``) and its value."""

    code = "too_many_waiters"
    retry_after = RETRY_AFTER_SECONDS

    def __init__(self, message: str, limit: str = "max_waiters", cap: int | None = None) -> None:
        self.message = f"{message} ({limit}); retry after {RETRY_AFTER_SECONDS} s"
        self.details: dict[str, Any] = {"retry_after": RETRY_AFTER_SECONDS, "limit": limit}
        if cap is not None:
            self.details["cap"] = cap
        super().__init__(self.message)


class WaiterCounts:
    """The waiters of a process, in all and by quota key; the hub counts under its lock."""

    def __init__(self, max_waiters: int) -> None:
        self.max_waiters = max_waiters
        self.total = 0
        self._by_quota: Counter[str] = Counter()

    def waiting(self, quota_key: str) -> int:
        """Waiters counted against ``quota_key`` (e.g. ``"app:<app>"``)."""
        return self._by_quota[quota_key]

    def admit(self, quotas: Quotas) -> None:
        """Count a new waiter, or refuse it (:class:`TooManyWaiters`) past the process's cap or any of
        its quotas, naming it."""
        if self.total >= self.max_waiters:
            raise TooManyWaiters(
                f"this server holds {self.max_waiters} waiting clients already",
                "max_waiters",
                self.max_waiters,
            )
        for key, cap in quotas:
            if self._by_quota[key] >= cap:
                kind = key.partition(":")[0]
                what = _QUOTA_WHAT.get(kind, key)
                raise TooManyWaiters(
                    f"{cap} waiting clients of {what} already", QUOTA_NAMES.get(kind, kind), cap
                )
        self.total += 1
        for key, _cap in quotas:
            self._by_quota[key] += 1

    def release(self, quotas: Quotas) -> None:
        """A waiter admitted with ``quotas`` left."""
        self.total -= 1
        for key, _cap in quotas:
            self._by_quota[key] -= 1
            if not self._by_quota[key]:
                del self._by_quota[key]
