"""Webhooks after issue 42, in the domain against the real Redis (the tests play the lane's part, on a
clock of their own, as in test_webhooks_domain.py):

- **catch-up**: when a failing endpoint answers 2xx again, every message waiting for a retry is due at
  once, oldest first, each match's still in order; a message the receiver refuses for itself (its
  other messages going through) is not retried at the pace of those successes;
- **the probe**: a failing endpoint with nothing in flight is tried again within a tenth of how long it
  has failed, whatever pauses its messages drew (and never before a ``Retry-After``);
- **revocation**: :meth:`Webhooks.disable_app` disables every endpoint of an app for good and fails what
  they had not delivered; :meth:`Webhooks.stopped` catches a claimed message whose endpoint was disabled
  or whose app was revoked just before the send.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis

from service.config import Config
from service.domain.accounts import APP_REVOKED
from service.domain.errors import Conflict
from service.domain.webhooks.delivery import Delivery
from service.domain.webhooks.endpoints import DISABLED
from service.domain.webhooks.messages import message_id
from service.domain.webhooks.retries import FIRST_PAUSE, PROBE_FRACTION
from service.domain.webhooks.webhooks import Webhooks
from service.storage.webhooks import WebhookStore
from tests.service.conftest import make_config
from tests.service.test_webhooks_domain import URL, Clock, claim_all, data, note, resolve_public

APP = "app1"


@pytest.fixture
def config(redis_url: str) -> Config:
    return make_config(
        redis_url,
        webhook_max_endpoints=3,
        webhook_retry_seconds=24 * 3600.0,  # the default window: pauses up to an hour
        webhook_disable_after_seconds=3 * 24 * 3600.0,
        webhook_concurrency=4,
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


class Statuses:
    """The apps' statuses as the lanes read them (the accounts store's, here set by the test)."""

    def __init__(self) -> None:
        self.of: dict[str, str] = {}
        self.reads = 0

    def __call__(self, app: str) -> str | None:
        self.reads += 1
        return self.of.get(app, "active")


@pytest.fixture
def statuses() -> Statuses:
    return Statuses()


@pytest.fixture
def hooks(redis_client: redis.Redis, config: Config, clock: Clock, statuses: Statuses) -> Webhooks:
    return Webhooks(
        WebhookStore(redis_client),
        config,
        clock=clock,
        resolve=resolve_public,
        rng=random.Random(11),
        app_status=statuses,
    )


def record(hooks: Webhooks, clock: Clock, d: Delivery, status: int | None, **extra: Any) -> Any:
    error = None if status is not None else "connection refused"
    headers = extra.get("headers", {})
    return hooks.record(d, status=status, headers=headers, latency_ms=1.0, error=error, now=clock())


def fail_all(hooks: Webhooks, clock: Clock) -> list[Delivery]:
    """Claim what is due and refuse every one (the receiver is down)."""
    claimed = claim_all(hooks, clock)
    for d in claimed:
        record(hooks, clock, d, None)
    return claimed


def pending(hooks: Webhooks, endpoint: str) -> list[dict[str, Any]]:
    return hooks.deliveries(APP, endpoint, status="pending", before=None, limit=1000)[0]


# -- catch-up ---------------------------------------------------------------------------------------


def test_after_an_outage_the_first_success_makes_every_waiting_message_due_in_match_order(
    hooks: Webhooks, clock: Clock
) -> None:
    """Six matches, two notes each, queued while the receiver is down: every head is tried and
    refused, and tried again as its pauses come, for 20 s.  The first 2xx (a new match's note) makes
    every waiting head due at once, oldest first; each match's second note follows its first."""
    ep = hooks.create(APP, URL, None, "")["id"]
    for n in range(6):
        hooks.enqueue(f"{APP}:ann", f"m{n}", 1000, note(match=f"m{n}", version=1))
        hooks.enqueue(f"{APP}:ann", f"m{n}", 2000, note(match=f"m{n}", version=2))
        clock.advance(0.5)
    down_until = clock() + 20
    while clock() < down_until:
        fail_all(hooks, clock)
        clock.advance(0.25)
    while fail_all(hooks, clock):  # what is due at the outage's last instant is tried too
        pass
    waiting = pending(hooks, ep)
    heads = [d for d in waiting if d["attempts"] > 0]
    assert len(heads) == 6 and all(d["next_attempt_at"] > clock() for d in heads)
    assert len(waiting) == 12  # each match's second note waits behind its first

    hooks.enqueue(f"{APP}:bob", "fresh", 1000, note(match="fresh"))
    (fresh,) = claim_all(hooks, clock)
    assert data(fresh)["match_id"] == "fresh"
    outcome = record(hooks, clock, fresh, 204)
    assert outcome.outcome == "delivered" and outcome.next_due == clock()
    assert hooks.endpoint(APP, ep)["failing_since"] is None
    assert all(d["next_attempt_at"] == clock() for d in pending(hooks, ep) if d["attempts"] > 0)

    sent: list[tuple[str, int]] = []
    while claimed := claim_all(hooks, clock):
        assert len(claimed) <= 4  # webhook_concurrency, as before
        for d in claimed:
            sent.append((data(d)["match_id"], data(d)["version"]))
            record(hooks, clock, d, 204)
    # All twelve at once (no pause waited: the clock did not move), the oldest queued first.
    assert len(sent) == 12 and pending(hooks, ep) == []
    assert [m for m, v in sent if v == 1][:4] == ["m0", "m1", "m2", "m3"]
    for n in range(6):
        assert [v for m, v in sent if m == f"m{n}"] == [1, 2]


def test_a_retry_that_succeeds_catches_the_rest_up_too(hooks: Webhooks, clock: Clock) -> None:
    """No new note needed: the probe's attempt is the first success, and the others follow."""
    ep = hooks.create(APP, URL, None, "")["id"]
    for n in range(3):
        hooks.enqueue(f"{APP}:ann", f"m{n}", 1000, note(match=f"m{n}"))
    fail_all(hooks, clock)
    for _ in range(40):  # 20 s down, tried as the pauses and the probe come
        clock.advance(0.5)
        fail_all(hooks, clock)
    soonest = min(d["next_attempt_at"] for d in pending(hooks, ep))
    clock.t = soonest
    (first,) = claim_all(hooks, clock, most=1)
    record(hooks, clock, first, 200)
    rest = claim_all(hooks, clock)
    assert len(rest) == 2 and {data(d)["match_id"] for d in rest} | {data(first)["match_id"]} == {
        "m0",
        "m1",
        "m2",
    }


def test_a_message_the_receiver_refuses_is_not_retried_at_the_pace_of_other_successes(
    hooks: Webhooks, clock: Clock
) -> None:
    """A poison message (the receiver answers 400 to it alone) on a busy endpoint: each other note
    succeeds.  A catch-up retries it at most once per two of its attempts, so its pauses still grow."""
    ep = hooks.create(APP, URL, None, "")["id"]
    hooks.enqueue(f"{APP}:ann", "poison", 1000, note(match="poison"))
    poison = message_id(ep, f"{APP}:ann", "poison", 1000)
    attempts = 0
    for n in range(600):  # ten minutes, a note of another match every second
        hooks.enqueue(f"{APP}:bob", f"m{n}", 1000, note(match=f"m{n}"))
        while claimed := claim_all(hooks, clock):
            for d in claimed:
                if d.id == poison:
                    attempts += 1
                    record(hooks, clock, d, 400)
                else:
                    record(hooks, clock, d, 204)
        clock.advance(1.0)
    # Its own pauses (1 s, growing by up to 3x) alone would make about 15-25 attempts in 600 s; a
    # catch-up after every success would make 600.
    assert 5 < attempts < 60, attempts
    assert hooks.delivery(APP, ep, poison)["status"] == "pending"


def test_enabling_an_endpoint_makes_its_waiting_messages_due_at_once(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create(APP, URL, None, "")["id"]
    hooks.enqueue(f"{APP}:ann", "m1", 1000, note())
    fail_all(hooks, clock)
    for _ in range(4):
        clock.t = pending(hooks, ep)[0]["next_attempt_at"]
        fail_all(hooks, clock)
    hooks.update(APP, ep, enabled=False)
    waiting = pending(hooks, ep)[0]
    assert waiting["next_attempt_at"] > clock()
    assert claim_all(hooks, clock) == []
    hooks.update(APP, ep, enabled=True)
    assert pending(hooks, ep)[0]["next_attempt_at"] == clock()
    assert len(claim_all(hooks, clock)) == 1


# -- the probe ----------------------------------------------------------------------------------------


def test_a_failing_endpoint_is_probed_within_a_tenth_of_its_outage(hooks: Webhooks, clock: Clock) -> None:
    """With a day's retry window a message's own pauses reach an hour; the endpoint's earliest waiting
    message is nonetheless tried within max(1 s, a tenth of the outage) of each failure."""
    ep = hooks.create(APP, URL, None, "")["id"]
    hooks.enqueue(f"{APP}:ann", "m1", 1000, note())
    start = clock()
    gaps: list[float] = []
    while clock() - start < 600:
        claimed = claim_all(hooks, clock)
        if not claimed:
            clock.t = pending(hooks, ep)[0]["next_attempt_at"]
            continue
        (d,) = claimed
        record(hooks, clock, d, 503)
        gaps.append(pending(hooks, ep)[0]["next_attempt_at"] - clock())
        assert gaps[-1] <= max(3 * FIRST_PAUSE, PROBE_FRACTION * (clock() - start)) + 0.002
    # At ten minutes down, the next try comes within a minute, not within the hour the window allows;
    # and the probe does not hammer the receiver: pauses still grow (a try a second would be 600).
    assert gaps[-1] <= 60 + 0.002 and len(gaps) < 100


def test_the_probe_never_comes_before_the_receiver_s_retry_after(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create(APP, URL, None, "")["id"]
    hooks.enqueue(f"{APP}:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    record(hooks, clock, d, 503, headers={"Retry-After": "300"})
    assert pending(hooks, ep)[0]["next_attempt_at"] == pytest.approx(clock() + 300, abs=0.01)


# -- revocation ---------------------------------------------------------------------------------------


def test_disable_app_disables_every_endpoint_for_good_and_sends_nothing_more(
    hooks: Webhooks, clock: Clock, statuses: Statuses
) -> None:
    first = hooks.create(APP, URL, None, "")["id"]
    second = hooks.create(APP, URL + "/2", None, "")["id"]
    other = hooks.create("app2", URL, None, "")["id"]
    for n in range(3):
        for v in (1, 2, 3):
            hooks.enqueue(f"{APP}:ann", f"m{n}", v * 1000, note(match=f"m{n}", version=v))
            hooks.enqueue("app2:ann", f"m{n}", v * 1000, note(match=f"m{n}", version=v))
    in_flight = [d for d in claim_all(hooks, clock) if d.app == APP]
    assert in_flight  # claimed just before the revocation

    statuses.of[APP] = "revoked"
    assert hooks.disable_app(APP, APP_REVOKED) == 2
    for ep in (first, second):
        doc = hooks.endpoint(APP, ep)
        assert (doc["status"], doc["disabled_reason"]) == ("disabled", APP_REVOKED)
        assert pending(hooks, ep) == []
        failed = hooks.deliveries(APP, ep, status="failed", before=None, limit=100)[0]
        assert len(failed) == 9
        assert all(d["error"] == "not sent: the endpoint was disabled (app_revoked)" for d in failed)
    # The deliveries claimed before: their outcomes no longer count, and the lane holds them back.
    for d in in_flight:
        assert hooks.stopped(d) == APP_REVOKED
        assert not record(hooks, clock, d, 204).counted
    # Notes after the revocation are not queued; nothing is due, now or later.
    hooks.enqueue(f"{APP}:ann", "late", 1000, note(match="late"))
    clock.advance(3600)
    assert [d for d in claim_all(hooks, clock) if d.app == APP] == []
    assert all(len(pending(hooks, ep)) == 0 for ep in (first, second))
    # For good: enabling is refused, and a second call disables nothing more.
    with pytest.raises(Conflict) as refused:
        hooks.update(APP, first, enabled=True)
    assert refused.value.code == "app_revoked"
    assert hooks.endpoint(APP, first)["status"] == "disabled"
    assert hooks.disable_app(APP, APP_REVOKED) == 0
    # Another app's endpoint is untouched.
    assert hooks.endpoint("app2", other)["status"] == "enabled"
    assert hooks.deliveries("app2", other, status="pending", before=None, limit=100)[0]


def test_disable_app_fails_a_long_backlog_in_batches(
    hooks: Webhooks, redis_client: redis.Redis, clock: Clock
) -> None:
    ep = hooks.create(APP, URL, None, "")["id"]
    for n in range(5):
        for v in range(1, 6):
            hooks.enqueue(f"{APP}:ann", f"m{n}", v * 1000, note(match=f"m{n}", version=v))
    store = hooks.store
    assert store.disable(APP, ep, APP_REVOKED, "gone", clock(), batch=2) is True
    assert pending(hooks, ep) == []
    assert len(hooks.deliveries(APP, ep, status="failed", before=None, limit=100)[0]) == 25
    assert store.disable(APP, ep, APP_REVOKED, "gone", clock(), batch=2) is False
    assert store.disable(APP, "ep_none", APP_REVOKED, "gone", clock()) is None


def test_a_message_claimed_before_its_endpoint_was_disabled_is_held_back_and_waits(
    hooks: Webhooks, clock: Clock, statuses: Statuses
) -> None:
    ep = hooks.create(APP, URL, None, "")["id"]
    hooks.enqueue(f"{APP}:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    hooks.update(APP, ep, enabled=False)
    assert hooks.stopped(d) == DISABLED
    doc = hooks.delivery(APP, ep, d.id)
    assert (doc["status"], doc["attempts"]) == ("pending", 0)  # the attempt that was not made
    assert claim_all(hooks, clock) == []
    hooks.update(APP, ep, enabled=True)
    (again,) = claim_all(hooks, clock)
    assert again.id == d.id and again.attempts == 1
    reads = statuses.reads
    assert hooks.stopped(again) is None
    assert hooks.stopped(again) is None  # the allowed send is remembered a second: no new read
    assert statuses.reads == reads + 1


def test_a_lane_finding_a_revoked_app_with_an_enabled_endpoint_disables_it(
    hooks: Webhooks, clock: Clock, statuses: Statuses
) -> None:
    """An endpoint created by a request that raced the revocation (the revocation had listed the
    app's endpoints before it existed): the check before the send finds the app revoked."""
    ep = hooks.create(APP, URL, None, "")["id"]
    hooks.enqueue(f"{APP}:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    statuses.of[APP] = "revoked"
    assert hooks.stopped(d) == APP_REVOKED
    assert hooks.endpoint(APP, ep)["disabled_reason"] == APP_REVOKED
    assert hooks.delivery(APP, ep, d.id)["status"] == "failed"
