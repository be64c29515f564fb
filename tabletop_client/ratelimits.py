"""What an answer's rate-limit headers say, read into one shape a client can act on.

The server sends the structured fields of draft-ietf-httpapi-ratelimit-headers (``RateLimit-Policy:
"player-60s";q=600;w=60`` and ``RateLimit: "player-60s";r=17;t=4``: what remains and the seconds until
more is available) on every limited answer, and ``Retry-After`` on a 429 or a 503.  Other servers in
front of it (a gateway) may send the older ``X-RateLimit-Limit/-Remaining/-Reset`` instead; both are
read here, so a caller never parses a header itself.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

from tabletop_client.digits import digits

_PARAM = re.compile(r";\s*([a-z]+)=(\d+)")
#: An ``X-RateLimit-Reset`` above this is an epoch time (a billion seconds is 31 years of waiting).
EPOCH_FROM = 10**9


@dataclass(frozen=True)
class RateLimit:
    """The most constrained limit an answer counted against: its ``policy`` name, ``remaining``
    requests, ``reset`` seconds until more are available, and the ``quota`` per ``window`` seconds
    when the policy header came too (else ``None``)."""

    policy: str | None
    remaining: int
    reset: int
    quota: int | None = None
    window: int | None = None

    @property
    def exhausted(self) -> bool:
        """Whether the next request would be refused until ``reset`` seconds have passed."""
        return self.remaining <= 0


def _fields(value: str) -> tuple[str | None, dict[str, int]]:
    """A structured field's item name (the quoted policy) and its integer parameters."""
    name = value.split(";", 1)[0].strip().strip('"') or None
    return name, {k: int(v) for k, v in _PARAM.findall(value)}


def parse_rate_limit(headers: Mapping[str, str]) -> RateLimit | None:
    """The rate limit the headers state (``headers`` keyed in lower case), or ``None`` when they state
    none."""
    if "ratelimit" in headers:
        policy, params = _fields(headers["ratelimit"])
        if "r" not in params:
            return None
        quota = window = None
        if "ratelimit-policy" in headers:
            _, declared = _fields(headers["ratelimit-policy"])
            quota, window = declared.get("q"), declared.get("w")
        return RateLimit(policy, params["r"], params.get("t", 0), quota, window)
    remaining = headers.get("x-ratelimit-remaining")
    if remaining is not None and digits(remaining.strip()):
        reset = int(headers["x-ratelimit-reset"]) if digits(headers.get("x-ratelimit-reset", "")) else 0
        if reset > EPOCH_FROM:  # some gateways send the moment of the reset, not the seconds to it
            reset = max(0, round(reset - time.time()))
        limit = headers.get("x-ratelimit-limit", "").strip()
        return RateLimit(None, int(remaining), reset, int(limit) if digits(limit) else None)
    return None


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds (the API sends delta-seconds; an HTTP date is not read)."""
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
