"""Staying within the server's rate limits: wait when told to, slow down before being told.

Every request the runner sends goes through one :class:`Pacer` shared by its threads, because the
limits are the player's (and its app's), not a thread's.  A 429 or a 503 closes the gate for the
``Retry-After`` seconds the answer gave (or the ``RateLimit`` header's reset, or a second) and the
request is sent again after it; an answer whose ``RateLimit`` says nothing remains closes the gate
until its reset, so the next request is not refused at all.  Every thread waits at a closed gate:
one thread's 429 holds the others back instead of letting each spend a request to learn of it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from tabletop_client.transport import ApiError, Transport

log = logging.getLogger("tabletop_client.runner")
T = TypeVar("T")

#: Statuses that mean "come back later": rate limited, or the service briefly unavailable.
RETRYABLE = frozenset({429, 503})


class Stopped(Exception):
    """The runner is stopping: a request waiting at the gate is not sent."""


class Pacer:
    """The gate the runner's requests pass, and its counts (``refused``: 429s and 503s seen,
    ``waited``: seconds spent at the gate)."""

    def __init__(self, stop: threading.Event, attempts: int = 10, fallback: float = 1.0) -> None:
        self._stop = stop
        self._attempts = attempts
        self._fallback = fallback
        self._lock = threading.Lock()
        self._open_at = 0.0
        self.refused = 0
        self.waited = 0.0

    def call(self, http: Transport, request: Callable[[], T]) -> T:
        """``request()`` (a call on a client over ``http``), sent when the gate is open and sent
        again after a 429 or a 503 (up to ``attempts`` times); raises :class:`Stopped` when the runner
        stops meanwhile."""
        for attempt in range(1, self._attempts + 1):
            self._pass()
            try:
                answer = request()
            except ApiError as exc:
                if exc.status not in RETRYABLE or attempt == self._attempts:
                    raise
                self.refused += 1
                wait = exc.retry_after
                if wait is None and exc.rate_limit is not None:
                    wait = float(exc.rate_limit.reset)
                self.close_for(wait if wait is not None else self._fallback)
                log.info("%s %s: waiting %.1f s", exc.status, exc.code, self._open_at - time.monotonic())
                continue
            limit = http.rate_limit
            if limit is not None and limit.exhausted and limit.reset > 0:
                self.close_for(float(limit.reset))
            return answer
        raise AssertionError("unreachable")

    def close_for(self, seconds: float) -> None:
        """Hold every request back ``seconds`` from now (a later reopening time wins)."""
        with self._lock:
            self._open_at = max(self._open_at, time.monotonic() + seconds)

    def _pass(self) -> None:
        while True:
            with self._lock:
                left = self._open_at - time.monotonic()
            if left <= 0:
                return
            started = time.monotonic()
            if self._stop.wait(left):
                raise Stopped
            with self._lock:
                self.waited += time.monotonic() - started
