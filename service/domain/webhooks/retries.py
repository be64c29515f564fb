"""The rules of one delivery attempt's outcome: delivered, retried after a pause, failed, or gone (pure,
so they are tested as they are; :class:`service.domain.webhooks.delivery.Dispatcher` applies them).

* a 2xx: delivered; the next message of the same source (a match's next note) becomes due;
* ``410 Gone``: the receiver asks never to be called again: the endpoint is disabled with that reason
  and the message waits, pending, for the app to enable it again;
* anything else (another status, a timeout, a refused connection): retried after a pause drawn with
  decorrelated jitter (:func:`retry_pause`: between :data:`FIRST_PAUSE` and three times the previous
  pause, at most a 24th of the retry window), longer if the receiver's ``Retry-After`` asks for it
  (up to :data:`MAX_RETRY_AFTER`), until ``webhook_retry_seconds`` after the message was queued; then
  it has failed, and its source's next message goes on.

How long an endpoint may fail before it is disabled, and how a receiver back after an outage gets its
backlog (the catch-up and the probe, the latter paced by :data:`PROBE_FRACTION`), are the dispatcher's
(:mod:`service.domain.webhooks.delivery`).
"""

from __future__ import annotations

import email.utils
import math
import random
from dataclasses import dataclass
from datetime import UTC

from service.digits import digits
from service.domain.webhooks.messages import DELIVERED, FAILED

#: Retries: the shortest pause (seconds); the longest is a 24th of the retry window, at most an hour,
#: so a day's window makes about 12 attempts ramping up, then one an hour.
FIRST_PAUSE = 1.0
MAX_PAUSE = 3600.0
#: A receiver's ``Retry-After`` is honoured up to this many seconds.
MAX_RETRY_AFTER = 3600.0
#: The probe of a failing endpoint: its earliest waiting message is tried again within this fraction of
#: how long the endpoint has failed (or that message has waited), so a receiver back after a 20-s outage
#: is noticed within about 2 s, one after an hour within 6 minutes (at most the longest retry pause).
PROBE_FRACTION = 0.1


def retry_pause(previous: float | None, window: float, rng: random.Random) -> float:
    """The pause before the next attempt: decorrelated jitter (AWS's "Exponential Backoff And Jitter"),
    uniform between :data:`FIRST_PAUSE` and three times the previous pause, capped at a 24th of the
    retry ``window`` (and :data:`MAX_PAUSE`), so retries spread over the window and many endpoints
    failing at once do not retry in step."""
    cap = longest_pause(window)
    low = FIRST_PAUSE
    high = max(low, 3 * (previous or FIRST_PAUSE))
    return min(cap, rng.uniform(low, high))


def longest_pause(window: float) -> float:
    """The longest pause between two attempts of a message (and between two probes of an endpoint)."""
    return max(FIRST_PAUSE, min(MAX_PAUSE, window / 24))


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """A ``Retry-After`` value (seconds, or an HTTP date) as seconds from ``now``, at most
    :data:`MAX_RETRY_AFTER`; ``None`` when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    seconds: float
    if digits(text):
        seconds = float(text)
    else:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - now
    if math.isnan(seconds):
        return None
    return max(0.0, min(MAX_RETRY_AFTER, seconds))


@dataclass(frozen=True)
class Decision:
    """What an attempt's outcome does to its message: ``outcome`` (delivered, retry, failed, gone), when
    it is tried next, the pause drawn (the next draw's base) and the error to log."""

    outcome: str
    next_attempt_at: float | None
    backoff: float | None
    error: str | None


def decide(
    status: int | None,
    retry_after: str | None,
    error: str | None,
    *,
    queued_at: float,
    backoff: float | None,
    now: float,
    window: float,
    rng: random.Random,
) -> Decision:
    """The rules of one attempt's outcome (see the module)."""
    if status is not None and 200 <= status < 300:
        return Decision(DELIVERED, None, None, error)  # an error after a 2xx (a body cut short) is kept
    if status == 410:
        return Decision("gone", now, backoff, error or "HTTP 410")
    reason = error or f"HTTP {status}"
    if status is not None and error:
        reason = f"HTTP {status}: {error}"
    deadline = queued_at + window
    if now >= deadline:
        return Decision(FAILED, None, backoff, reason)
    pause = retry_pause(backoff, window, rng)
    asked = retry_after_seconds(retry_after, now)
    wait = max(pause, asked) if asked is not None else pause
    # Milliseconds: the times go through Lua's numbers (14 digits), which must not round them.
    return Decision("retry", round(min(now + wait, deadline), 3), round(pause, 3), reason)
