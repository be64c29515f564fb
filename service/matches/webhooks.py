"""Webhook endpoints of an app, the messages each is sent, and the rules of their delivery (issue 26,
points 1-3: storage in :mod:`service.webhooks_store`, the delivering process in ``workers/webhooks.py``).

**Endpoints.**  An app registers up to ``webhook_max_endpoints`` URLs (checked against server-side
request forgery by :mod:`service.matches.webhook_urls`), each with the feed entry types it wants
(:data:`service.matches.feed.ENTRY_TYPES`; none listed: every type) and a signing secret shown once,
on creation and on rotation.  After a rotation the previous secret signs too, beside the new one,
for ``webhook_secret_grace_seconds``, so a receiver can switch over without losing a message.

**Messages.**  Every note a player's feed gets (:class:`service.matches.outbox.Outbox`) is handed to
:meth:`Webhooks.enqueue`, which queues one message per enabled endpoint of the player's app that wants
its type.  The message id (the ``webhook-id`` receivers dedup by) is derived from the endpoint, the
player, the note's source and number, so the same note carried twice (two drains of one outbox) is
queued once, and every retry carries the same id.  The payload is the Standard Webhooks shape:
``{"type", "timestamp", "data": <the feed entry, plus the app's own player id>}``: what the player's
feed shows, never a token or a secret (keys that name one are dropped, whatever a feed entry holds).

**Delivery** (:meth:`Webhooks.claim`, :meth:`Webhooks.record`, driven by the lane).  A lane claims due
messages with a lease (longer than a delivery may take), at most ``webhook_concurrency`` in flight per
endpoint across every lane; signs each with :mod:`standardwebhooks` at send time (the receiver's
verifier refuses timestamps five minutes old, so a retry a day later is signed anew); and records the
outcome:

* a 2xx: delivered; the next message of the same source (a match's next note) becomes due;
* ``410 Gone``: the receiver asks never to be called again: the endpoint is disabled with that reason
  and the message waits, pending, for the app to enable it again;
* anything else (another status, a timeout, a refused connection): retried after a pause drawn with
  decorrelated jitter (:func:`retry_pause`: between :data:`FIRST_PAUSE` and three times the previous
  pause, at most a 24th of the retry window), longer if the receiver's ``Retry-After`` asks for it
  (up to :data:`MAX_RETRY_AFTER`), until ``webhook_retry_seconds`` after the message was queued; then
  it has failed, and its source's next message goes on;
* an endpoint whose deliveries have failed, with no success, for ``webhook_disable_after_seconds`` is
  disabled, and its ``disabled_reason`` says since when and the last error.

**Back after an outage** (issue 42: a match's retry came due 28 s after the receiver was back, its
``your_turn`` 47 s after the move, and a 30-s clock ran out).  Two rules bound how long a receiver
that answers again waits for its backlog:

* *the catch-up*: the first 2xx after a failing streak makes every head waiting for a retry due at
  once, the oldest queued first (heads only: each match's next still waits for its previous, so
  per-match order holds).  A head caught up once and tried only once since is left to its own pause,
  so a message the receiver refuses for itself while others pass is not retried at their pace;
* *the probe*: after a failure of an endpoint already failing, with nothing else in flight, its
  earliest waiting head is tried again within :data:`PROBE_FRACTION` of how long the endpoint has
  failed or that head has waited (at least :data:`FIRST_PAUSE`, at most the longest retry pause, never
  before a ``Retry-After``): a receiver back after a 20-s outage is tried within about 2 s, whatever
  pauses its messages drew.  (Not after a single failure among successes: those are the receiver's
  refusals of a message, not an outage.)

**Revocation** (:meth:`Webhooks.disable_app`): every endpoint of a revoked app is disabled with
``disabled_reason`` ``app_revoked`` (:data:`service.matches.accounts.APP_REVOKED`), for good, and its
undelivered messages fail; the lane checks before each send (:meth:`Webhooks.stopped`) that the
endpoint is still enabled and its app not revoked, so a message claimed just before is not sent either.

A lease that ends without an outcome (the lane was killed mid-delivery) puts the message back as it
was: it is sent again with the same id (at least once).
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import json
import math
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from standardwebhooks import Webhook

from service.config import Config
from service.matches import feed
from service.matches.accounts import APP_REVOKED, REVOKED
from service.matches.errors import Conflict, invalid, not_found
from service.matches.identity import split_player_key
from service.matches.webhook_urls import Resolver, check_resolved, check_url, resolve_host, split_url
from service.webhooks_store import Claimed, WebhookStore, split_member

#: The message type of :meth:`Webhooks.ping` (an endpoint receives pings whatever types it wants).
PING = "ping"
#: Message statuses, as the delivery log shows and filters them.
PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
STATUSES = (PENDING, DELIVERED, FAILED)
ENABLED, DISABLED = "enabled", "disabled"
#: The longest description an endpoint may have (characters).
MAX_DESCRIPTION = 500
#: Retries: the shortest pause (seconds); the longest is a 24th of the retry window, at most an hour,
#: so a day's window makes about 12 attempts ramping up, then one an hour.
FIRST_PAUSE = 1.0
MAX_PAUSE = 3600.0
#: A receiver's ``Retry-After`` is honoured up to this many seconds.
MAX_RETRY_AFTER = 3600.0
#: A claim's lease beyond the delivery's timeout (the lane's own hard stop comes before it).
LEASE_MARGIN = 10.0
#: Why an endpoint is disabled, when the app or a 410 did it.
DISABLED_BY_APP = "disabled by the app"
GONE_REASON = "410 Gone from the receiver"
#: The probe of a failing endpoint: its earliest waiting message is tried again within this fraction of
#: how long the endpoint has failed (or that message has waited), so a receiver back after a 20-s outage
#: is noticed within about 2 s, one after an hour within 6 minutes (at most the longest retry pause).
PROBE_FRACTION = 0.1
#: Seconds a lane trusts what it last read of an endpoint's and its app's status before a send (the
#: check before every send: a disabled endpoint or a revoked app is never sent to after this long).
SEND_CHECK_SECONDS = 1.0
#: Endpoints whose status a lane remembers at most (the oldest half is forgotten past it).
SEND_CHECK_ENTRIES = 10_000
#: Keys dropped from a payload's data wherever they occur: a feed entry never holds one, and a
#: webhook must never carry one even if a later entry did.
_SECRET_WORDS = ("token", "secret", "password")


def iso(at: float) -> str:
    """An epoch time as ISO 8601 UTC with milliseconds (``2024-05-01T12:00:00.000Z``)."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def span(seconds: float) -> str:
    """A duration in words for people: ``3 days``, ``2 hours``, ``90 s``."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if (seconds >= size and seconds % size == 0) or seconds >= 2 * size:
            count = round(seconds / size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds:g} s"


def new_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def message_id(endpoint: str, key: str, source: str, number: int) -> str:
    """The id of the message carrying note ``number`` of ``source`` for the player ``key`` to
    ``endpoint``: the same for every enqueue of that note, different for every endpoint."""
    digest = hashlib.sha256(f"{endpoint}\n{key}\n{source}\n{number}".encode()).digest()
    return "msg_" + base64.b32encode(digest[:15]).decode().lower()


def scrub(value: Any) -> Any:
    """``value`` without any mapping key naming a token, a secret or a password, at any depth."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not any(w in str(k).lower() for w in _SECRET_WORDS)}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def payload(kind: str, data: dict[str, Any], at: float) -> bytes:
    """A message's body, the bytes signed and sent (Standard Webhooks: type, timestamp, data)."""
    doc = {"type": kind, "timestamp": iso(at), "data": scrub(data)}
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


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
    if text.isdigit():
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
    """The rules of one attempt's outcome (see the module): pure, so they are tested as they are."""
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
    """What :meth:`Webhooks.record` did: the outcome, and whether it counted (``False``: the lease had
    ended and the message went back to be sent again, or the endpoint was deleted)."""

    outcome: str
    counted: bool
    next_due: float | None


class Webhooks:
    """An app's webhook endpoints; :meth:`enqueue` queues a note for those that want it.

    ``app_status`` tells an app's status (``active``, ``revoked``; ``None``: unknown): the lanes pass it
    so that nothing is sent for a revoked app (:meth:`stopped`); without it only the endpoint's own
    status is checked before a send."""

    def __init__(
        self,
        store: WebhookStore,
        config: Config,
        clock: Callable[[], float] = time.time,
        resolve: Resolver = resolve_host,
        rng: random.Random | None = None,
        app_status: Callable[[str], str | None] | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.resolve = resolve
        self.rng = rng or random.Random()
        self.app_status = app_status
        #: (app, endpoint) -> when (monotonic) a send to it was last found allowed: :meth:`stopped`'s memory.
        self._checked: dict[tuple[str, str], float] = {}

    @property
    def lease_seconds(self) -> float:
        """How long a claimed message is a lane's: longer than any delivery may take."""
        return self.config.webhook_timeout_seconds + LEASE_MARGIN

    # -- endpoints ----------------------------------------------------------------------------------

    def create(self, app: str, url: str, types: list[str] | None, description: str) -> dict[str, Any]:
        """Register an endpoint: its document with its signing ``secret``, the only time it is shown."""
        checked = self._url(url)
        wanted = self._types(types)
        text = self._description(description)
        now = self.clock()
        endpoint = "ep_" + base64.b32encode(secrets.token_bytes(10)).decode().lower()
        secret = new_secret()
        fields = {
            "url": checked,
            "types": json.dumps(wanted),
            "types_csv": ",".join(wanted),
            "description": text,
            "status": ENABLED,
            "disabled_reason": "",
            "failing_since": "",
            "created_at": repr(now),
            "updated_at": repr(now),
            "secret": secret,
            "previous_secret": "",
            "previous_secret_expires_at": "",
        }
        cap = self.config.webhook_max_endpoints
        if not self.store.create_endpoint(app, endpoint, fields, cap):
            raise Conflict(
                "too_many_endpoints", f"an app has at most {cap} webhook endpoints", {"max_endpoints": cap}
            )
        return {**self.endpoint(app, endpoint), "secret": secret}

    def endpoints(self, app: str) -> list[dict[str, Any]]:
        """The app's endpoints, oldest first (never a secret)."""
        docs = []
        for endpoint in self.store.endpoint_ids(app):
            stored = self.store.endpoint(app, endpoint)
            if stored is not None:
                docs.append(self._doc(endpoint, stored))
        return sorted(docs, key=lambda d: (d["created_at"], d["id"]))

    def endpoint(self, app: str, endpoint_id: str) -> dict[str, Any]:
        """One endpoint of the app (404 for an id of another app's, as for one that never was)."""
        return self._doc(endpoint_id, self._stored(app, endpoint_id))

    def update(
        self,
        app: str,
        endpoint_id: str,
        *,
        url: str | None = None,
        types: list[str] | None = None,
        description: str | None = None,
        enabled: bool | None = None,
    ) -> dict[str, Any]:
        """Change what is given.  Enabling clears the reason it was disabled and its failing streak, and
        its pending messages are due at once (in per-match order); disabling stops deliveries (messages
        already queued wait).  An endpoint disabled because its app was revoked is never enabled again
        (:class:`Conflict` ``app_revoked``; the app's key is refused before it could ask anyway)."""
        self._stored(app, endpoint_id)
        now = self.clock()
        fields: dict[str, str] = {}
        if url is not None:
            fields["url"] = self._url(url)
        if types is not None:
            wanted = self._types(types)
            fields["types"] = json.dumps(wanted)
            fields["types_csv"] = ",".join(wanted)
        if description is not None:
            fields["description"] = self._description(description)
        if enabled is True:
            fields.update(status=ENABLED, disabled_reason="", failing_since="")
        elif enabled is False:
            fields.update(status=DISABLED, disabled_reason=DISABLED_BY_APP)
        fields["updated_at"] = repr(now)
        done = self.store.update_endpoint(app, endpoint_id, fields, unless_disabled_for=APP_REVOKED)
        if done == 0:
            raise not_found(f"webhook endpoint {endpoint_id!r}")
        if done == 2:
            raise Conflict("app_revoked", "this endpoint was disabled when its app was revoked", {})
        if enabled is True:
            # Its pending messages, if any, go out again now, not when their retries were due.
            self.store.catch_up(app, endpoint_id, round(now, 3))
            self.store.wake(app, endpoint_id, now)
        return self.endpoint(app, endpoint_id)

    def disable_app(self, app: str, reason: str) -> int:
        """Disable every endpoint of the app with ``reason`` (``app_revoked`` when the app is revoked)
        and fail every message they had not delivered yet, so nothing more is sent (a lane holding one
        finds its lease gone; :meth:`stopped` catches a send already under way).  How many endpoints
        this disabled (those already disabled for ``reason`` are not counted again)."""
        now = round(self.clock(), 3)
        error = f"not sent: the endpoint was disabled ({reason})"
        return sum(
            bool(self.store.disable(app, endpoint, reason, error, now))
            for endpoint in self.store.endpoint_ids(app)
        )

    def delete(self, app: str, endpoint_id: str) -> None:
        """Delete an endpoint and every message it had (queued ones are never sent)."""
        if not self.store.delete_endpoint(app, endpoint_id):
            raise not_found(f"webhook endpoint {endpoint_id!r}")

    def rotate_secret(self, app: str, endpoint_id: str) -> dict[str, Any]:
        """A new signing secret (shown once, in the answer); the old one goes on signing beside it until
        ``previous_secret_expires_at``."""
        now = self.clock()
        secret = new_secret()
        expires = now + self.config.webhook_secret_grace_seconds
        if not self.store.rotate_secret(app, endpoint_id, secret, expires, now):
            raise not_found(f"webhook endpoint {endpoint_id!r}")
        return {**self.endpoint(app, endpoint_id), "secret": secret}

    def ping(self, app: str, endpoint_id: str) -> dict[str, Any]:
        """Queue a ``ping`` message to the endpoint (its delivery shows in the log like any other)."""
        stored = self._stored(app, endpoint_id)
        if stored.get("status") != ENABLED:
            raise Conflict("endpoint_disabled", "this endpoint is disabled; enable it to ping it", {})
        now = round(self.clock(), 3)
        mid = "msg_" + base64.b32encode(secrets.token_bytes(15)).decode().lower()
        body = payload(PING, {"endpoint": endpoint_id}, now)
        self.store.enqueue(app, endpoint_id, mid, self._state(mid, PING, f"ping:{mid}", now), body, now)
        return self.delivery(app, endpoint_id, mid)

    # -- the delivery log ---------------------------------------------------------------------------

    def deliveries(
        self, app: str, endpoint_id: str, *, status: str | None, before: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The endpoint's messages, newest first, ``limit`` of them (only those in ``status`` if given),
        and the cursor of the next page (``None``: no more).  The log keeps every unfinished message and
        the newest finished ones (see :mod:`service.webhooks_store`)."""
        self._stored(app, endpoint_id)
        if status is not None and status not in STATUSES:
            raise invalid("status", f"is one of {', '.join(STATUSES)}")
        if not 1 <= limit <= 1000:
            raise invalid("limit", "is from 1 to 1000")
        cursor: int | None = None
        if before is not None:
            if not before.isdigit():
                raise invalid("before", "is the next_cursor of a previous page")
            cursor = int(before)
        found: list[tuple[dict[str, Any], int]] = []
        while len(found) <= limit:
            page = self.store.log_page(app, endpoint_id, cursor, max(limit + 1, 100))
            if not page:
                break
            rows = self.store.messages(app, endpoint_id, [mid for mid, _ in page])
            for (_, seq), row in zip(page, rows, strict=True):
                if row is not None and (status is None or row[0]["status"] == status):
                    found.append((self._message_doc(endpoint_id, *row), seq))
            cursor = page[-1][1]
        more = len(found) > limit
        found = found[:limit]
        return [doc for doc, _ in found], (str(found[-1][1]) if more and found else None)

    def delivery(self, app: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
        """One message of the endpoint's log."""
        self._stored(app, endpoint_id)
        found = self.store.message(app, endpoint_id, message_id)
        if found is None:
            raise not_found(f"message {message_id!r}")
        return self._message_doc(endpoint_id, *found)

    def redeliver(self, app: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
        """Send a past message again: the same message (same ``webhook-id``, same payload), queued
        behind its source's unfinished messages, retried like a new one.  A message still pending is
        due at once (if it was waiting for a retry)."""
        stored = self._stored(app, endpoint_id)
        if stored.get("status") != ENABLED:
            raise Conflict("endpoint_disabled", "this endpoint is disabled; enable it to redeliver", {})
        if self.store.redeliver(app, endpoint_id, message_id, self.clock()) is None:
            raise not_found(f"message {message_id!r}")
        return self.delivery(app, endpoint_id, message_id)

    # -- queueing -----------------------------------------------------------------------------------

    def enqueue(self, key: str, source: str, number: int, entry: dict[str, Any]) -> None:
        """Queue the note ``number`` of ``source`` for the player ``key`` to every endpoint of the
        player's app that wants its type, once per endpoint however often it is asked.  One round trip
        when the app has no endpoint."""
        app, player = split_player_key(key)
        routes = self.store.routes(app)
        if not routes:
            return
        kind = str(entry.get("type", ""))
        targets = [e for e, (on, types) in sorted(routes.items()) if on and (not types or kind in types)]
        if not targets:
            return
        now = round(self.clock(), 3)
        body = payload(kind, {**entry, "player": player}, now)
        for endpoint in targets:
            mid = message_id(endpoint, key, source, number)
            self.store.enqueue(app, endpoint, mid, self._state(mid, kind, source, now), body, now)

    # -- delivery (the lanes) -----------------------------------------------------------------------

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

    def headers(self, delivery: Delivery, now: float) -> dict[str, str]:
        """The Standard Webhooks headers of one attempt, signed at ``now`` with every signing secret
        (space-separated signatures: a receiver holding either secret verifies)."""
        stamp = math.floor(now)
        when = datetime.fromtimestamp(stamp, UTC)
        text = delivery.body.decode()
        signatures = " ".join(Webhook(s).sign(delivery.id, when, text) for s in delivery.secrets)
        return {
            "webhook-id": delivery.id,
            "webhook-timestamp": str(stamp),
            "webhook-signature": signatures,
        }

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
        it) by the rules of the module, and wake the lanes for what it made due."""
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

    # -- helpers ------------------------------------------------------------------------------------

    def _url(self, url: str) -> str:
        checked = check_url(url, allow_http=self.config.webhook_allow_http)
        target = split_url(checked, allow_http=self.config.webhook_allow_http)
        check_resolved(
            target.host, target.port, allow_private=self.config.webhook_allow_private, resolve=self.resolve
        )
        return checked

    @staticmethod
    def _types(types: list[str] | None) -> list[str]:
        if types is None:
            return []
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise invalid("types", "is a list of feed entry types")
        unknown = [t for t in types if t not in feed.ENTRY_TYPES]
        if unknown:
            raise invalid(
                "types", f"{', '.join(map(repr, unknown))} unknown; known: {', '.join(feed.ENTRY_TYPES)}"
            )
        return [t for t in feed.ENTRY_TYPES if t in types]  # each once, in the spec's order

    @staticmethod
    def _description(description: str | None) -> str:
        text = description or ""
        if not isinstance(text, str) or len(text) > MAX_DESCRIPTION:
            raise invalid("description", f"is text of at most {MAX_DESCRIPTION} characters")
        return text

    def _stored(self, app: str, endpoint_id: str) -> dict[str, str]:
        stored = self.store.endpoint(app, endpoint_id)
        if stored is None:
            raise not_found(f"webhook endpoint {endpoint_id!r}")
        return stored

    def _doc(self, endpoint_id: str, stored: dict[str, str]) -> dict[str, Any]:
        """An endpoint's document: never a secret."""
        expires = _float(stored.get("previous_secret_expires_at"))
        return {
            "id": endpoint_id,
            "url": stored["url"],
            "types": json.loads(stored.get("types") or "[]"),
            "description": stored.get("description", ""),
            "status": stored.get("status", ENABLED),
            "disabled_reason": stored.get("disabled_reason") or None,
            "failing_since": _float(stored.get("failing_since")),
            "created_at": float(stored["created_at"]),
            "updated_at": float(stored["updated_at"]),
            "previous_secret_expires_at": expires if expires is not None and expires > self.clock() else None,
        }

    @staticmethod
    def _state(mid: str, kind: str, source: str, now: float) -> dict[str, Any]:
        return {
            "id": mid,
            "type": kind,
            "source": source,
            "created_at": now,
            "queued_at": now,
            "status": PENDING,
            "attempts": 0,
            "next_attempt_at": now,
            "last_attempt_at": None,
            "response_status": None,
            "latency_ms": None,
            "error": None,
            "backoff": None,
        }

    @staticmethod
    def _message_doc(endpoint_id: str, state: dict[str, Any], body: bytes) -> dict[str, Any]:
        return {
            "id": state["id"],
            "endpoint": endpoint_id,
            "type": state["type"],
            "created_at": state["created_at"],
            "status": state["status"],
            "attempts": state["attempts"],
            "next_attempt_at": state.get("next_attempt_at"),
            "last_attempt_at": state.get("last_attempt_at"),
            "response_status": state.get("response_status"),
            "latency_ms": state.get("latency_ms"),
            "error": state.get("error"),
            "payload": json.loads(body) if body else None,
        }


def _float(text: str | None) -> float | None:
    return float(text) if text else None
