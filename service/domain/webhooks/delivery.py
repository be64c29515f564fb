"""Delivery, the lanes' side of the webhooks (issue 26, point 3; the lane is ``workers/webhooks.py``):
claiming due messages, signing them, checking before a send that they may still go, recording each
attempt's outcome by the rules of :mod:`service.domain.webhooks.retries`.

A lane claims due messages with a lease (longer than a delivery may take), at most
``webhook_concurrency`` in flight per endpoint across every lane; signs each at send time
(:mod:`service.domain.webhooks.signing`); and records the outcome.  An endpoint whose deliveries have
failed, with no success, for ``webhook_disable_after_seconds`` is disabled, and its
``disabled_reason`` says since when and the last error.

**Back after an outage** (issue 42: a match's retry came due 28 s after the receiver was back, its
``your_turn`` 47 s after the move, and a 30-s clock ran out).  Two rules bound how long a receiver
that answers again waits for its backlog:

* *the catch-up*: the first 2xx after a failing streak makes every head waiting for a retry due at
  once, the oldest queued first (heads only: each match's next still waits for its previous, so
  per-match order holds).  A head caught up once and tried only once since is left to its own pause,
  so a message the receiver refuses for itself while others pass is not retried at their pace;
* *the probe*: after a failure of an endpoint already failing, with nothing else in flight, its
  earliest waiting head is tried again within
  :data:`~service.domain.webhooks.retries.PROBE_FRACTION` of how long the endpoint has failed or that
  head has waited (at least :data:`~service.domain.webhooks.retries.FIRST_PAUSE`, at most the longest
  retry pause, never before a ``Retry-After``): a receiver back after a 20-s outage is tried within
  about 2 s, whatever pauses its messages drew.  (Not after a single failure among successes: those
  are the receiver's refusals of a message, not an outage.)

A lease that ends without an outcome (the lane was killed mid-delivery) puts the message back as it
was: it is sent again with the same id (at least once).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from service.config import Config
from service.domain.accounts import APP_REVOKED, REVOKED
from service.domain.feeds.feed import YOUR_TURN
from service.domain.identity import player_key
from service.domain.webhooks.endpoints import DISABLED, ENABLED
from service.domain.webhooks.messages import FAILED, decision_asked, iso, with_decision
from service.domain.webhooks.retries import (
    FIRST_PAUSE,
    PROBE_FRACTION,
    decide,
    longest_pause,
    retry_after_seconds,
)
from service.domain.webhooks.signing import signed_headers
from service.storage.webhooks import Claimed, WebhookStore, split_member

#: Builds a decision at send time: (player key, match id, seat) -> the seat's pending decision, or
#: ``None`` (:func:`service.domain.feeds.decisions.pending_decision`).
Decide = Callable[[str, str, int], dict[str, Any] | None]

#: A claim's lease beyond the delivery's timeout (the lane's own hard stop comes before it).
LEASE_MARGIN = 10.0
#: Why an endpoint is disabled, when a 410 did it.
GONE_REASON = "410 Gone from the receiver"
#: Seconds a lane trusts what it last read of an endpoint's and its app's status before a send (the
#: check before every send: a disabled endpoint or a revoked app is never sent to after this long).
SEND_CHECK_SECONDS = 1.0
#: Endpoints whose status a lane remembers at most (the oldest half is forgotten past it).
SEND_CHECK_ENTRIES = 10_000


def span(seconds: float) -> str:
    """A duration in words for people: ``3 days``, ``2 hours``, ``90 s``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if (seconds >= size and seconds % size == 0) or seconds >= 2 * size:
            count = round(seconds / size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} s"


@dataclass(frozen=True)
class Delivery:
    """One claimed message, with what its lane needs to send it: the endpoint's URL and the secrets
    signing it now (the current one, and the previous one during its grace)."""

    app: str
    endpoint: str
    url: str
    secrets: tuple[str, ...]
    failing_since: float | None
    message: Claimed

    @property
    def id(self) -> str:
        return self.message.id

    @property
    def body(self) -> bytes:
        return self.message.body

    @property
    def attempts(self) -> int:
        return int(self.message.state["attempts"])


@dataclass(frozen=True)
class Recorded:
    """What :meth:`Dispatcher.record` did: the outcome, and whether it counted (``False``: the lease had
    ended and the message went back to be sent again, or the endpoint was deleted)."""

    outcome: str
    counted: bool
    next_due: float | None


class Dispatcher:
    """What the lanes do with the messages of every endpoint over one store.

    ``app_status`` tells an app's status (``active``, ``revoked``; ``None``: unknown): the lanes pass it
    so that nothing is sent for a revoked app (:meth:`stopped`); without it only the endpoint's own
    status is checked before a send.  ``disable_app`` disables every endpoint of an app
    (:meth:`service.domain.webhooks.endpoints.EndpointRegistry.disable_app`)."""

    def __init__(
        self,
        store: WebhookStore,
        config: Config,
        clock: Callable[[], float],
        rng: random.Random,
        app_status: Callable[[str], str | None] | None,
        disable_app: Callable[[str, str], int],
        decide: Decide | None = None,
    ) -> None:
        self.store = store
        #: The lanes' builder of a ``your_turn`` message's decision (``None``: messages go as queued).
        self.decide = decide
        self.config = config
        self.clock = clock
        self.rng = rng
        self.app_status = app_status
        self.disable_app = disable_app
        #: (app, endpoint) -> when (monotonic) a send to it was last found allowed: :meth:`stopped`'s memory.
        self._checked: dict[tuple[str, str], float] = {}

    @property
    def lease_seconds(self) -> float:
        """How long a claimed message is a lane's: longer than any delivery may take."""
        return self.config.webhook_timeout_seconds + LEASE_MARGIN

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        """Endpoints that may have messages due by ``now`` (``<app>|<endpoint>``, and the due time)."""
        return self.store.due(now, limit)

    def claim(self, member: str, score: float, now: float, most: int) -> list[Delivery]:
        """Take the endpoint ``member`` of the due index (as read with ``score``) and claim up to
        ``most`` of its due messages, each with a lease; ``[]`` if another lane took it first or
        nothing is due.  The endpoint's due time is settled before returning (see the store)."""
        now = round(now, 3)  # times pass through Lua's numbers, 14 digits: milliseconds fit
        taken = now + self.lease_seconds
        if not self.store.take(member, score, taken):
            return []
        app, endpoint = split_member(member)
        concurrency = self.config.webhook_concurrency
        claim = self.store.claim(app, endpoint, now, self.lease_seconds, concurrency, most)
        self.store.settle(member, taken, claim.next_due, concurrency)
        if not claim.enabled:
            return []
        signing = [claim.secret]
        expires = claim.previous_secret_expires_at
        if claim.previous_secret and expires is not None and expires > now:
            signing.append(claim.previous_secret)
        return [
            Delivery(app, endpoint, claim.url, tuple(signing), claim.failing_since, message)
            for message in claim.messages
        ]

    def as_sent(self, delivery: Delivery) -> Delivery:
        """The delivery as it goes out now: a ``your_turn`` message to an endpoint created or updated
        with ``include_decision`` carries the decision as it stands at this attempt
        (:func:`~service.domain.webhooks.messages.with_decision`); any other as queued.  Signed after."""
        if self.decide is None or delivery.message.state.get("type") != YOUR_TURN:
            return delivery
        endpoint = self.store.endpoint(delivery.app, delivery.endpoint)
        if endpoint is None or not decision_asked(delivery.message.state, endpoint):
            return delivery
        data = json.loads(delivery.body)["data"]
        decision = self.decide(player_key(delivery.app, data["player"]), data["match_id"], data["seat"])
        return replace(
            delivery, message=replace(delivery.message, body=with_decision(delivery.body, decision))
        )

    def headers(self, delivery: Delivery, now: float) -> dict[str, str]:
        """The Standard Webhooks headers of one attempt, signed at ``now`` with every signing secret."""
        return signed_headers(delivery.id, delivery.body, delivery.secrets, now)

    def record(
        self,
        delivery: Delivery,
        *,
        status: int | None,
        headers: dict[str, str],
        latency_ms: float | None,
        error: str | None,
        now: float,
    ) -> Recorded:
        """Record one attempt (the receiver's ``status`` and ``headers``, or the ``error`` that stopped
        it) by the rules of :mod:`service.domain.webhooks.retries` and of the module, and wake the
        lanes for what it made due."""
        now = round(now, 3)
        retry_after = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
        state = delivery.message.state
        window = self.config.webhook_retry_seconds
        decision = decide(
            status,
            retry_after,
            error,
            queued_at=float(state.get("queued_at") or state["created_at"]),
            backoff=state.get("backoff"),
            now=now,
            window=window,
            rng=self.rng,
        )
        disable_after = self.config.webhook_disable_after_seconds
        reason = ""
        since = delivery.failing_since
        if decision.outcome in ("retry", FAILED) and since is not None and now - since >= disable_after:
            reason = f"failing since {iso(since)} ({span(disable_after)}): last error {decision.error}"
        asked = retry_after_seconds(retry_after, now)
        probe = (PROBE_FRACTION, FIRST_PAUSE, longest_pause(window), None if asked is None else now + asked)
        counted, next_due, recovered = self.store.record(
            delivery.app,
            delivery.endpoint,
            delivery.message,
            now=now,
            outcome=decision.outcome,
            next_attempt_at=decision.next_attempt_at,
            response_status=status,
            latency_ms=latency_ms,
            error=decision.error,
            backoff=decision.backoff,
            disable_reason=reason,
            failing_before=now - disable_after,
            concurrency=self.config.webhook_concurrency,
            gone_reason=GONE_REASON,
            probe=probe,
        )
        if recovered and self.store.catch_up(delivery.app, delivery.endpoint, now):
            # The receiver answers again: what waited for a retry goes now, not when its pause ends.
            next_due = now if next_due is None else min(next_due, now)
        if counted and next_due is not None:
            self.store.wake_by(delivery.app, delivery.endpoint, next_due)
        return Recorded(decision.outcome, counted, next_due)

    def stopped(self, delivery: Delivery) -> str | None:
        """Why ``delivery`` must not be sent now (``None``: send it), checked just before the send: the
        endpoint was disabled or deleted, or its app revoked, since the message was claimed.  What was
        read to allow a send is trusted for :data:`SEND_CHECK_SECONDS` (a refusal is never remembered: the
        endpoint may be enabled again the next moment).  A message not sent is dealt with here: back to
        wait for an endpoint merely disabled, failed with every endpoint of a revoked app."""
        key = (delivery.app, delivery.endpoint)
        read_at = time.monotonic()
        allowed_at = self._checked.get(key)
        if allowed_at is not None and read_at - allowed_at < SEND_CHECK_SECONDS:
            return None
        why = self._why_not(delivery.app, delivery.endpoint)
        if why is None:
            if len(self._checked) >= SEND_CHECK_ENTRIES:
                for old in list(self._checked)[: SEND_CHECK_ENTRIES // 2]:
                    del self._checked[old]
            self._checked[key] = read_at
            return None
        self._checked.pop(key, None)
        if why == APP_REVOKED:
            self.disable_app(delivery.app, APP_REVOKED)  # an endpoint the revocation missed, if any
        elif why == DISABLED:
            self.store.release(delivery.app, delivery.endpoint, delivery.message, round(self.clock(), 3))
        return why

    def _why_not(self, app: str, endpoint: str) -> str | None:
        if self.app_status is not None and self.app_status(app) == REVOKED:
            return APP_REVOKED
        status = self.store.status(app, endpoint)
        if status is None:
            return "deleted"
        return None if status == ENABLED else DISABLED

    def wake(self, app: str, endpoint_id: str) -> None:
        """Have the lanes look at the endpoint now."""
        self.store.wake(app, endpoint_id, self.clock())
