"""Webhook endpoints and their messages in the domain (issue 26 points 1-3), against the real Redis:
endpoints created, listed, changed, disabled, deleted, their secrets rotated and never shown but on
creation and rotation; URLs, types and descriptions checked; another app's endpoint is 404; a note is
queued once per endpoint however often it is carried, only to the endpoints that want its type; a
payload carries what the player's feed shows and no token; per-match order; the rules of an attempt's
outcome (retry with jitter and Retry-After, 410, failing for days, the retry window), leases, the
delivery log, redelivery and ping.

The lane that sends the messages over HTTP is tested in tests/workers/test_webhook_delivery.py; here
the tests play the lane's part with :meth:`Webhooks.claim` and :meth:`Webhooks.record`, on a clock of
their own."""

from __future__ import annotations

import ipaddress
import itertools
import json
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest
import redis
from standardwebhooks import Webhook

from service.config import Config
from service.domain.errors import Conflict, Invalid, NotFound
from service.domain.feeds import feed
from service.domain.identity import APP, Caller
from service.domain.webhooks.delivery import GONE_REASON, Delivery
from service.domain.webhooks.messages import message_id
from service.domain.webhooks.retries import (
    FIRST_PAUSE,
    MAX_RETRY_AFTER,
    PROBE_FRACTION,
    decide,
    retry_after_seconds,
    retry_pause,
)
from service.domain.webhooks.webhooks import Webhooks
from service.storage.matches import Store
from service.storage.webhooks import DUE, WebhookStore
from service.wiring import build
from tests.service.conftest import TEST_GAMES, make_config

PUBLIC = "93.184.216.34"
URL = "https://hooks.example.com/tabletop"


class Clock:
    """A clock the test moves (starting now: the due index is read against it)."""

    def __init__(self) -> None:
        self.t = round(time.time(), 3)

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> float:
        self.t = round(self.t + seconds, 3)
        return self.t


def resolve_public(host: str, port: int) -> list[str]:
    """Every name resolves to a public address; an address literal to itself (as getaddrinfo does)."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        return [PUBLIC]


@pytest.fixture
def config(redis_url: str) -> Config:
    return make_config(
        redis_url,
        webhook_max_endpoints=3,
        webhook_retry_seconds=600.0,
        webhook_disable_after_seconds=3600.0,
        webhook_secret_grace_seconds=100.0,
        webhook_concurrency=2,
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def hooks(redis_client: redis.Redis, config: Config, clock: Clock) -> Webhooks:
    return Webhooks(
        WebhookStore(redis_client), config, clock=clock, resolve=resolve_public, rng=random.Random(7)
    )


def note(kind: str = feed.YOUR_TURN, match: str = "m1", version: int = 1, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "match_id": match, "game": "high_card", "version": version, "seat": 0, **extra}


def deliver(
    hooks: Webhooks, clock: Clock, status: int = 200, most: int = 100, **reply: Any
) -> list[Delivery]:
    """Play a lane's part once: claim what is due now and record ``status`` for each; the claimed."""
    done = []
    for member, score in hooks.due(clock(), 100):
        for d in hooks.claim(member, score, clock(), most):
            hooks.record(
                d,
                status=status,
                headers=reply.get("headers", {}),
                latency_ms=1.0,
                error=reply.get("error"),
                now=clock(),
            )
            done.append(d)
    return done


def drain(hooks: Webhooks, clock: Clock) -> list[Delivery]:
    """:func:`deliver` until nothing more is due now (each look is capped by the endpoint's concurrency)."""
    done: list[Delivery] = []
    while sent := deliver(hooks, clock):
        done += sent
    return done


def claim_all(hooks: Webhooks, clock: Clock, most: int = 100) -> list[Delivery]:
    return [d for member, score in hooks.due(clock(), 100) for d in hooks.claim(member, score, clock(), most)]


def data(d: Delivery) -> dict[str, Any]:
    return dict(json.loads(d.body)["data"])


# -- endpoints ------------------------------------------------------------------------------------


def test_an_endpoint_is_created_with_its_secret_shown_once(hooks: Webhooks, clock: Clock) -> None:
    made = hooks.create("app1", URL, ["your_turn", "match_over"], "turns to phones")
    assert made["secret"].startswith("whsec_") and len(made["secret"]) > 40
    assert made["id"].startswith("ep_")
    assert made["url"] == URL and made["types"] == ["your_turn", "match_over"]
    assert made["description"] == "turns to phones"
    assert made["status"] == "enabled" and made["disabled_reason"] is None and made["failing_since"] is None
    assert made["created_at"] == made["updated_at"] == clock()
    assert made["previous_secret_expires_at"] is None
    shown = {k: v for k, v in made.items() if k != "secret"}
    assert hooks.endpoint("app1", made["id"]) == shown
    assert hooks.endpoints("app1") == [shown]
    # No document but the creation's shows it, wherever it hides.
    for doc in (hooks.endpoint("app1", made["id"]), hooks.endpoints("app1"), hooks.ping("app1", made["id"])):
        assert made["secret"] not in json.dumps(doc) and "secret" not in doc


def test_endpoints_are_listed_oldest_first_and_per_app(hooks: Webhooks, clock: Clock) -> None:
    first = hooks.create("app1", URL, None, "")
    clock.advance(1)
    second = hooks.create("app1", URL + "/2", [], "")
    other = hooks.create("app2", URL, None, "")
    assert [e["id"] for e in hooks.endpoints("app1")] == [first["id"], second["id"]]
    assert [e["id"] for e in hooks.endpoints("app2")] == [other["id"]]
    assert first["types"] == [] and second["types"] == []  # none listed: every type


def test_another_apps_endpoint_is_not_found_whatever_is_asked(hooks: Webhooks) -> None:
    theirs = hooks.create("app2", URL, None, "")["id"]
    hooks.enqueue("app2:ann", "m1", 1000, note())
    mid = hooks.deliveries("app2", theirs, status=None, before=None, limit=5)[0][0]["id"]
    calls = [
        lambda: hooks.endpoint("app1", theirs),
        lambda: hooks.update("app1", theirs, description="mine now"),
        lambda: hooks.update("app1", theirs, enabled=False),
        lambda: hooks.delete("app1", theirs),
        lambda: hooks.rotate_secret("app1", theirs),
        lambda: hooks.ping("app1", theirs),
        lambda: hooks.deliveries("app1", theirs, status=None, before=None, limit=5),
        lambda: hooks.delivery("app1", theirs, mid),
        lambda: hooks.redeliver("app1", theirs, mid),
    ]
    for call in calls:
        with pytest.raises(NotFound):
            call()
    assert hooks.endpoint("app2", theirs)["description"] == ""
    assert hooks.endpoint("app2", theirs)["status"] == "enabled"


@pytest.mark.parametrize(
    ("url", "types", "description", "field"),
    [
        ("ftp://hooks.example.com/", None, "", "url"),
        ("http://hooks.example.com/", None, "", "url"),  # plain http: not allowed by this operator
        ("https://user:pw@hooks.example.com/", None, "", "url"),
        (URL, ["your_turn", "yuor_turn"], "", "types"),
        (URL, "your_turn", "", "types"),
        (URL, [3], "", "types"),
        (URL, None, "x" * 501, "description"),
    ],
)
def test_what_an_endpoint_is_made_of_is_checked(
    hooks: Webhooks, url: str, types: Any, description: str, field: str
) -> None:
    with pytest.raises(Invalid) as refused:
        hooks.create("app1", url, types, description)
    assert refused.value.details == {"field": field}
    assert hooks.endpoints("app1") == []


def test_urls_resolving_to_private_addresses_are_refused_unless_allowed(
    redis_client: redis.Redis, config: Config, clock: Clock
) -> None:
    """Point 5: the check at registration (the lane checks again at every delivery)."""
    inside = Webhooks(WebhookStore(redis_client), config, clock=clock, resolve=lambda h, p: ["10.1.2.3"])
    with pytest.raises(Invalid) as refused:
        inside.create("app1", URL, None, "")
    # The kind of address, never the address itself (issue 42: the check is no DNS oracle).
    assert "10.1.2.3" not in refused.value.message and "a private address" in refused.value.message
    with pytest.raises(Invalid):
        inside.create("app1", "https://127.0.0.1/hook", None, "")
    allowed = Config(**{**config.__dict__, "webhook_allow_private": True, "webhook_allow_http": True})
    lenient = Webhooks(WebhookStore(redis_client), allowed, clock=clock, resolve=lambda h, p: ["10.1.2.3"])
    assert (
        lenient.create("app1", "http://127.0.0.1:8080/hook", None, "")["url"] == "http://127.0.0.1:8080/hook"
    )


def test_an_app_has_at_most_the_configured_number_of_endpoints(hooks: Webhooks) -> None:
    made = [hooks.create("app1", f"{URL}/{i}", None, "") for i in range(3)]
    with pytest.raises(Conflict) as refused:
        hooks.create("app1", URL, None, "")
    assert refused.value.code == "too_many_endpoints" and refused.value.details == {"max_endpoints": 3}
    hooks.create("app2", URL, None, "")  # a cap per app
    hooks.delete("app1", made[0]["id"])
    hooks.create("app1", URL, None, "")


def test_an_endpoint_is_updated_field_by_field(hooks: Webhooks, clock: Clock) -> None:
    made = hooks.create("app1", URL, ["your_turn"], "old")
    clock.advance(5)
    changed = hooks.update(
        "app1", made["id"], description="new", types=["match_over", "your_turn", "match_over"]
    )
    assert changed["description"] == "new" and changed["types"] == ["your_turn", "match_over"]
    assert (
        changed["url"] == URL
        and changed["updated_at"] == clock()
        and changed["created_at"] == made["created_at"]
    )
    moved = hooks.update("app1", made["id"], url="https://other.example.org/x?y=1")
    assert moved["url"] == "https://other.example.org/x?y=1" and moved["types"] == ["your_turn", "match_over"]
    with pytest.raises(Invalid):
        hooks.update("app1", made["id"], url="https://10.0.0.1/")
    with pytest.raises(Invalid):
        hooks.update("app1", made["id"], types=["nope"])
    assert hooks.endpoint("app1", made["id"]) == moved


def test_a_disabled_endpoint_gets_nothing_and_enabling_resumes_it(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note(version=1))
    off = hooks.update("app1", ep, enabled=False)
    assert off["status"] == "disabled" and off["disabled_reason"] == "disabled by the app"
    hooks.enqueue("app1:ann", "m1", 2000, note(version=2))  # not queued: the endpoint is off
    assert claim_all(hooks, clock) == []
    with pytest.raises(Conflict):
        hooks.ping("app1", ep)
    on = hooks.update("app1", ep, enabled=True)
    assert on["status"] == "enabled" and on["disabled_reason"] is None
    sent = deliver(hooks, clock)
    assert [data(d)["version"] for d in sent] == [1]  # queued before: it waited, and goes now


def test_deleting_an_endpoint_drops_its_messages(
    hooks: Webhooks, redis_client: redis.Redis, clock: Clock
) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    for v in range(1, 4):
        hooks.enqueue("app1:ann", "m1", v * 1000, note(version=v))
    claimed = claim_all(hooks, clock)
    hooks.delete("app1", ep)
    assert not [k for k in redis_client.scan_iter(count=1000) if ep.encode() in k]
    with pytest.raises(NotFound):
        hooks.endpoint("app1", ep)
    with pytest.raises(NotFound):
        hooks.delete("app1", ep)
    # A lane that was delivering one finds its outcome dropped, and nothing comes back to life.
    outcome = hooks.record(claimed[0], status=200, headers={}, latency_ms=1.0, error=None, now=clock())
    assert not outcome.counted
    assert not [k for k in redis_client.scan_iter(count=1000) if ep.encode() in k]
    hooks.enqueue("app1:ann", "m1", 4000, note(version=4))
    assert claim_all(hooks, clock) == [] and hooks.endpoints("app1") == []


def test_a_rotated_secret_signs_beside_the_new_one_for_its_grace(hooks: Webhooks, clock: Clock) -> None:
    made = hooks.create("app1", URL, None, "")
    old = made["secret"]
    clock.advance(1)
    rotated = hooks.rotate_secret("app1", made["id"])
    new = rotated["secret"]
    assert new != old and new.startswith("whsec_")
    assert rotated["previous_secret_expires_at"] == clock() + 100
    assert "secret" not in hooks.endpoint("app1", made["id"])
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    assert d.secrets == (new, old)
    headers = hooks.headers(d, time.time())
    assert Webhook(old).verify(d.body, headers) == json.loads(d.body)
    assert Webhook(new).verify(d.body, headers) == json.loads(d.body)
    hooks.record(d, status=200, headers={}, latency_ms=1.0, error=None, now=clock())
    # After the grace only the new one signs.
    clock.advance(101)
    hooks.enqueue("app1:ann", "m2", 1000, note(match="m2"))
    (later,) = claim_all(hooks, clock)
    assert later.secrets == (new,)
    assert hooks.endpoint("app1", made["id"])["previous_secret_expires_at"] is None
    signed = hooks.headers(later, time.time())
    Webhook(new).verify(later.body, signed)
    with pytest.raises(Exception, match="No matching signature"):
        Webhook(old).verify(later.body, signed)


# -- queueing -------------------------------------------------------------------------------------


def test_a_note_is_queued_once_per_endpoint_however_often_it_is_carried(
    hooks: Webhooks, clock: Clock
) -> None:
    a = hooks.create("app1", URL, None, "")["id"]
    b = hooks.create("app1", URL + "/b", None, "")["id"]
    for _ in range(3):  # the committer's drain, a sweep's, a drain that died before its pop...
        hooks.enqueue("app1:ann", "m1", 7001, note())
    logs = {ep: hooks.deliveries("app1", ep, status=None, before=None, limit=10)[0] for ep in (a, b)}
    assert [len(docs) for docs in logs.values()] == [1, 1]
    assert logs[a][0]["id"] == message_id(a, "app1:ann", "m1", 7001)
    assert logs[b][0]["id"] == message_id(b, "app1:ann", "m1", 7001) != logs[a][0]["id"]
    # Delivered and carried again: still once.
    assert len(deliver(hooks, clock)) == 2
    hooks.enqueue("app1:ann", "m1", 7001, note())
    assert claim_all(hooks, clock) == []
    # Another player, source or number is another message.
    hooks.enqueue("app1:bob", "m1", 7001, note())
    hooks.enqueue("app1:ann", "m2", 7001, note(match="m2"))
    hooks.enqueue("app1:ann", "m1", 7002, note())
    first = deliver(hooks, clock)  # m1's two notes share its chain: one at a time, in order
    assert len(first) == 4 and len(deliver(hooks, clock)) == 2


def test_an_endpoint_gets_only_the_types_it_wants(hooks: Webhooks, clock: Clock) -> None:
    turns = hooks.create("app1", URL, ["your_turn"], "")["id"]
    every = hooks.create("app1", URL + "/all", None, "")["id"]
    for n, kind in enumerate(feed.ENTRY_TYPES):
        hooks.enqueue("app1:ann", f"s{n}", 1000, note(kind, match=f"s{n}"))
    got: dict[str, list[str]] = {turns: [], every: []}
    for d in drain(hooks, clock):
        got[d.endpoint].append(json.loads(d.body)["type"])
    assert got[turns] == [feed.YOUR_TURN]
    assert sorted(got[every]) == sorted(feed.ENTRY_TYPES)
    hooks.update("app1", turns, types=[])  # now every type
    hooks.enqueue("app1:ann", "x", 1000, note(feed.MATCH_OVER, match="x"))
    assert sorted(d.endpoint for d in drain(hooks, clock)) == sorted([turns, every])


def test_an_app_without_endpoints_costs_one_round_trip(hooks: Webhooks, redis_client: redis.Redis) -> None:
    """Every note of every player is handed to enqueue: for the many apps with no endpoint it must
    cost next to nothing (one command, counted by the server itself)."""
    hooks.create("other", URL, None, "")
    redis_client.config_resetstat()
    for n in range(10):
        hooks.enqueue("app1:ann", "m1", n, note())
    stats = redis_client.info("commandstats")
    calls = {name: v["calls"] for name, v in stats.items() if name not in ("cmdstat_config", "cmdstat_info")}
    assert calls == {"cmdstat_hgetall": 10}


def test_the_payload_is_the_players_feed_entry_and_no_token(
    redis_client: redis.Redis, config: Config, clock: Clock
) -> None:
    """Point 2: a real commit's notes, through the outbox, become payloads carrying what the player
    may see (match, game, seat, version, who is to move, deadline...) and the app's own player id;
    nothing of the seats' hidden hands, no token of any kind."""
    hooks = Webhooks(WebhookStore(redis_client), config, clock=clock, resolve=resolve_public)
    matches = build(config, store=Store(redis_client), games=TEST_GAMES, webhooks=hooks).matches
    app = matches.accounts.create_app("Backend")
    caller = Caller(APP, app=app["id"], scopes=frozenset({"read", "play"}))
    for player in ("ann", "bob"):
        matches.accounts.put_player(caller, player, player.title(), False)
    tokens = [matches.accounts.mint_token(caller, p, ["play"], None)["token"] for p in ("ann", "bob")]
    ep = hooks.create(app["id"], URL, None, "everything")
    seats = [
        {"name": "Ann", "kind": "human", "player": "ann"},
        {"name": "Bob", "kind": "human", "player": "bob"},
    ]
    body = {"game": "high_card", "seats": seats, "options": {"swaps": False, "rounds": 2}, "seed": 3}
    created = matches.create(body, caller=caller)
    loaded = matches.store.load(created["id"])
    assert loaded is not None
    game = matches.games["high_card"]
    state = game.decode(loaded.encoded_state())
    mover = loaded.meta.to_move
    assert mover is not None
    matches.seat_move(loaded.meta, state, mover, game.legal_actions(state)[0])

    sent = drain(hooks, clock)
    assert sent, "the creation and the move were queued"
    payloads = [json.loads(d.body) for d in sent]
    texts = [d.body.decode() for d in sent]
    assert {p["type"] for p in payloads} >= {feed.INVITED, feed.MATCH_STARTED, feed.YOUR_TURN}
    secrets_seen = [*tokens, app["key"], ep["secret"], *(t["token"] for t in created.get("tokens", []))]
    for text in texts:
        for secret in secrets_seen:
            assert secret not in text
        assert "token" not in text and "secret" not in text
    # Nothing of a hand: neither seat's view (their hidden cards) is in any payload.
    hands = [json.dumps(game.view(state, seat)) for seat in (0, 1)]
    allowed = {
        "type",
        "match_id",
        "game",
        "version",
        "status",
        "seat",
        "to_move",
        "my_turn",
        "deadline",
        "player",
    }
    allowed |= {"joined_seat", "name", "result", "timed_out_seat"}
    allowed |= {"join_required", "rematch_of", "joined_player"}  # issue 42: invited, seat_joined
    for p in payloads:
        assert set(p["data"]) <= allowed, p
        assert p["data"]["match_id"] == created["id"] and p["data"]["game"] == "high_card"
        assert p["data"]["player"] in ("ann", "bob")  # the app's own id, not the internal key
        assert datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")).tzinfo is not None
        for hand in hands:
            assert hand not in json.dumps(p)
    versions = [p["data"]["version"] for p in payloads]
    assert versions == sorted(versions) == [0, 0, 0, 0, 0, 1]  # the match's notes in commit order
    turn = next(p for p in payloads if p["type"] == feed.YOUR_TURN and p["data"]["version"] == 1)
    assert turn["data"]["my_turn"] is True and turn["data"]["to_move"] == turn["data"]["seat"] == 1
    assert turn["data"]["player"] == "bob" and turn["data"]["status"] == "active"


def test_a_payload_never_carries_a_key_naming_a_secret(hooks: Webhooks, clock: Clock) -> None:
    """Defence in depth: whatever a later feed entry holds, keys naming tokens and secrets are dropped."""
    hooks.create("app1", URL, None, "")
    nested = {"api_secret": "x", "keep": [{"token": "t", "k": 1}]}
    hooks.enqueue("app1:ann", "c:1", 1000, note(feed.CHALLENGE_ACCEPTED, seat_token="s", nested=nested))
    (d,) = claim_all(hooks, clock)
    assert data(d)["nested"] == {"keep": [{"k": 1}]} and "seat_token" not in data(d)


# -- order, outcomes, leases ----------------------------------------------------------------------


def test_a_match_s_messages_go_out_one_at_a_time_in_order(hooks: Webhooks, clock: Clock) -> None:
    hooks.create("app1", URL, None, "")
    for v in range(1, 4):
        hooks.enqueue("app1:ann", "m1", v * 1000, note(version=v))
    hooks.enqueue("app1:ann", "m2", 1000, note(match="m2"))
    first = claim_all(hooks, clock)
    assert sorted((data(d)["match_id"], data(d)["version"]) for d in first) == [("m1", 1), ("m2", 1)]
    assert claim_all(hooks, clock) == []  # m1's next waits for its first, though room is left
    m1 = next(d for d in first if data(d)["match_id"] == "m1")
    hooks.record(m1, status=500, headers={}, latency_ms=1.0, error=None, now=clock())
    clock.advance(3 * FIRST_PAUSE)  # the longest first pause; m2's lease still holds
    again = claim_all(hooks, clock)
    assert [d.id for d in again] == [m1.id]  # still the head: version 2 waits while 1 is retried
    hooks.record(again[0], status=204, headers={}, latency_ms=1.0, error=None, now=clock())
    nxt = claim_all(hooks, clock)
    assert [(data(d)["match_id"], data(d)["version"]) for d in nxt] == [("m1", 2)]


def test_concurrency_per_endpoint_is_capped_across_claims(hooks: Webhooks, clock: Clock) -> None:
    hooks.create("app1", URL, None, "")
    for n in range(5):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(match=f"m{n}"))
    assert len(claim_all(hooks, clock)) == 2  # webhook_concurrency
    assert claim_all(hooks, clock) == []


def test_a_failed_attempt_is_retried_with_the_same_id_after_a_jittered_pause(
    hooks: Webhooks, clock: Clock
) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    start = clock()
    outcome = hooks.record(d, status=503, headers={}, latency_ms=12.5, error=None, now=clock())
    assert outcome.outcome == "retry" and outcome.counted
    doc = hooks.delivery("app1", ep, d.id)
    assert doc["status"] == "pending" and doc["attempts"] == 1 and doc["response_status"] == 503
    assert doc["error"] == "HTTP 503" and doc["latency_ms"] == 12.5
    assert start + FIRST_PAUSE <= doc["next_attempt_at"] <= start + 3 * FIRST_PAUSE
    assert hooks.endpoint("app1", ep)["failing_since"] == start
    assert claim_all(hooks, clock) == []  # not before its time
    clock.t = doc["next_attempt_at"]
    (retry,) = claim_all(hooks, clock)
    assert retry.id == d.id and retry.body == d.body and retry.attempts == 2
    hooks.record(retry, status=200, headers={}, latency_ms=3.0, error=None, now=clock())
    done = hooks.delivery("app1", ep, d.id)
    assert done["status"] == "delivered" and done["attempts"] == 2 and done["error"] is None
    assert done["next_attempt_at"] is None
    assert hooks.endpoint("app1", ep)["failing_since"] is None


def test_retry_after_is_honoured(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    hooks.record(d, status=429, headers={"Retry-After": "120"}, latency_ms=1.0, error=None, now=clock())
    assert hooks.delivery("app1", ep, d.id)["next_attempt_at"] == pytest.approx(clock() + 120, abs=0.01)
    clock.advance(120)
    (d,) = claim_all(hooks, clock)
    when = format_datetime(datetime.fromtimestamp(clock(), UTC) + timedelta(seconds=300), usegmt=True)
    hooks.record(d, status=503, headers={"retry-after": when}, latency_ms=1.0, error=None, now=clock())
    assert hooks.delivery("app1", ep, d.id)["next_attempt_at"] == pytest.approx(clock() + 300, abs=1.0)


def test_410_gone_disables_the_endpoint_and_the_message_waits(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    assert hooks.record(d, status=410, headers={}, latency_ms=1.0, error=None, now=clock()).outcome == "gone"
    doc = hooks.endpoint("app1", ep)
    assert doc["status"] == "disabled" and doc["disabled_reason"] == GONE_REASON
    assert hooks.delivery("app1", ep, d.id)["status"] == "pending"
    hooks.enqueue("app1:ann", "m2", 1000, note(match="m2"))
    clock.advance(3600)
    assert claim_all(hooks, clock) == []
    hooks.update("app1", ep, enabled=True)
    (again,) = claim_all(hooks, clock)
    assert again.id == d.id


def test_a_message_fails_for_good_after_the_retry_window_and_its_match_goes_on(
    hooks: Webhooks, clock: Clock
) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note(version=1))
    hooks.enqueue("app1:ann", "m1", 2000, note(version=2))
    start = clock()
    first = message_id(ep, "app1:ann", "m1", 1000)
    attempts = 0
    tried: list[float] = []
    while hooks.delivery("app1", ep, first)["status"] == "pending":
        claimed = claim_all(hooks, clock)
        if not claimed:
            clock.t = max(clock(), hooks.delivery("app1", ep, first)["next_attempt_at"])
            continue
        (d,) = claimed
        assert data(d)["version"] == 1  # the match's next note waits
        attempts += 1
        tried.append(clock())
        hooks.record(d, status=None, headers={}, latency_ms=None, error="connection refused", now=clock())
    doc = hooks.delivery("app1", ep, first)
    assert doc["status"] == "failed" and doc["error"] == "connection refused" and doc["attempts"] == attempts
    assert clock() == pytest.approx(start + 600, abs=0.01)  # the last attempt at the window's end
    # Pauses grow, capped at a 24th of the window (25 s); and, the endpoint failing with this message
    # its only one, each is at most a tenth of the time it has waited (the probe, issue 42): so
    # after an outage of t seconds the receiver hears it again within about t/10.
    pauses = [(b - a, a - start) for a, b in itertools.pairwise(tried)]
    assert all(p <= max(3 * FIRST_PAUSE, PROBE_FRACTION * waited) + 0.002 for p, waited in pauses), pauses
    assert 10 < max(p for p, _ in pauses) <= 25 + 0.002
    assert 30 < attempts < 100
    (nxt,) = claim_all(hooks, clock)  # once it failed for good, the match goes on
    assert data(nxt)["version"] == 2


def test_an_endpoint_failing_without_a_success_for_long_is_disabled_and_says_why(
    hooks: Webhooks, clock: Clock
) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    start = clock()
    for n in range(200):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(match=f"m{n}"))
        for d in claim_all(hooks, clock):
            hooks.record(d, status=502, headers={}, latency_ms=1.0, error=None, now=clock())
        if hooks.endpoint("app1", ep)["status"] == "disabled":
            break
        clock.advance(60)
    doc = hooks.endpoint("app1", ep)
    assert doc["status"] == "disabled"
    assert clock() - start >= 3600  # webhook_disable_after_seconds, not before
    started = datetime.fromtimestamp(start, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert doc["disabled_reason"] == f"failing since {started} (1 hour): last error HTTP 502"
    assert doc["failing_since"] == start


def test_one_success_resets_the_failing_streak(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    for n in range(90):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(match=f"m{n}"))
        for d in claim_all(hooks, clock):
            hooks.record(
                d, status=500 if n % 40 else 200, headers={}, latency_ms=1.0, error=None, now=clock()
            )
        clock.advance(60)
    assert hooks.endpoint("app1", ep)["status"] == "enabled"  # 90 min of failures, never 60 in a row


def test_a_lease_that_ends_puts_the_message_back_under_the_same_id(
    hooks: Webhooks, config: Config, clock: Clock
) -> None:
    """A lane killed mid-delivery: its messages go out again when their leases end, and a late outcome
    of the lost lease no longer counts."""
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (lost,) = claim_all(hooks, clock)
    clock.advance(hooks.lease_seconds - 0.5)
    assert claim_all(hooks, clock) == []
    clock.advance(1)
    (again,) = claim_all(hooks, clock)
    assert again.id == lost.id and again.body == lost.body and again.attempts == 2
    assert "lease" in hooks.delivery("app1", ep, lost.id)["error"]
    late = hooks.record(lost, status=200, headers={}, latency_ms=1.0, error=None, now=clock())
    assert not late.counted
    assert hooks.record(again, status=200, headers={}, latency_ms=1.0, error=None, now=clock()).counted
    assert hooks.delivery("app1", ep, lost.id)["status"] == "delivered"


def test_lanes_claiming_at_once_never_claim_a_message_twice(
    redis_url: str, redis_client: redis.Redis, config: Config, clock: Clock
) -> None:
    """Several lanes share the due index: claims are atomic, each message goes to one lane."""
    wide = Config(**{**config.__dict__, "webhook_concurrency": 1000})
    lanes = [
        Webhooks(WebhookStore(redis.Redis.from_url(redis_url)), wide, clock=clock, resolve=resolve_public)
        for _ in range(4)
    ]
    for e in range(3):
        lanes[0].create("app1", f"{URL}/{e}", None, "")
    for n in range(60):
        lanes[0].enqueue("app1:ann", f"m{n}", 1000, note(match=f"m{n}"))
    claimed: list[list[str]] = [[] for _ in lanes]
    go = threading.Barrier(len(lanes))

    def run(i: int) -> None:
        go.wait()
        for _ in range(30):
            for member, score in lanes[i].due(clock(), 100):
                claimed[i] += [d.id for d in lanes[i].claim(member, score, clock(), 7)]

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(lanes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    every = [mid for ids in claimed for mid in ids]
    assert len(every) == len(set(every)) == 180  # 60 notes x 3 endpoints, each claimed once
    assert sum(1 for ids in claimed if ids) > 1  # and the lanes did share the work


def test_the_due_index_is_dropped_when_idle_and_woken_by_new_work(
    hooks: Webhooks, redis_client: redis.Redis, clock: Clock
) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    deliver(hooks, clock)
    # The index still names it for when the delivery's lease would end; a lane looking then finds
    # nothing and drops it.
    clock.advance(hooks.lease_seconds)
    assert claim_all(hooks, clock) == []
    assert redis_client.zcard(DUE) == 0
    hooks.enqueue("app1:ann", "m1", 2000, note(version=2))
    assert redis_client.zscore(DUE, f"app1|{ep}") == clock()
    assert len(deliver(hooks, clock)) == 1


def test_settling_re_reads_the_endpoint_when_it_drops_or_delays_it(
    hooks: Webhooks, redis_client: redis.Redis, clock: Clock
) -> None:
    """The due index's repair: a lane that settles an endpoint later than it took it (or drops it)
    re-reads the endpoint, so work recorded meanwhile whose own wake-up changed nothing (a retry due
    after the lane's hold) is not lost from the index."""
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    member = f"app1|{ep}"
    store = hooks.store
    ((_, score),) = store.due(clock() + 3600, 10)
    taken = score + 5
    assert store.take(member, score, taken)  # lane B holds the endpoint until `taken`
    # Lane A records a retry far beyond B's hold: its wake-up (the earlier of two) changes nothing.
    hooks.record(d, status=503, headers={"Retry-After": "600"}, latency_ms=1.0, error=None, now=clock())
    assert redis_client.zscore(DUE, member) == taken
    store.settle(member, taken, None, 2)  # B settles with nothing seen: it drops, then re-reads
    assert redis_client.zscore(DUE, member) == pytest.approx(clock() + 600, abs=0.01)


# -- the delivery log, redelivery, ping -----------------------------------------------------------


def test_the_delivery_log_pages_newest_first_and_filters_by_status(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    for n in range(7):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(match=f"m{n}"))
        clock.advance(1)
    for d in claim_all(hooks, clock, most=2):
        hooks.record(d, status=200, headers={}, latency_ms=1.0, error=None, now=clock())
    seen: list[str] = []
    cursor = None
    while True:
        page, cursor = hooks.deliveries("app1", ep, status=None, before=cursor, limit=3)
        seen += [doc["payload"]["data"]["match_id"] for doc in page]
        if cursor is None:
            break
    assert seen == [f"m{n}" for n in reversed(range(7))]
    delivered, more = hooks.deliveries("app1", ep, status="delivered", before=None, limit=10)
    assert sorted(doc["payload"]["data"]["match_id"] for doc in delivered) == ["m0", "m1"] and more is None
    pending, _ = hooks.deliveries("app1", ep, status="pending", before=None, limit=2)
    assert [doc["status"] for doc in pending] == ["pending", "pending"]
    doc = delivered[0]
    assert set(doc) == {
        "id", "endpoint", "type", "created_at", "status", "attempts", "next_attempt_at",
        "last_attempt_at", "response_status", "latency_ms", "error", "payload",
    }  # fmt: skip
    assert doc["endpoint"] == ep and doc["response_status"] == 200 and doc["attempts"] == 1
    for bad in ({"status": "lost"}, {"before": "abc"}, {"limit": 0}):
        args: dict[str, Any] = {"status": None, "before": None, "limit": 5, **bad}
        with pytest.raises(Invalid):
            hooks.deliveries("app1", ep, **args)


def test_the_log_keeps_the_newest_finished_messages(
    hooks: Webhooks, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("service.storage.webhooks.KEEP_DONE", 3)
    ep = hooks.create("app1", URL, None, "")["id"]
    for n in range(6):
        hooks.enqueue("app1:ann", f"m{n}", 1000, note(match=f"m{n}"))
    hooks.enqueue("app1:ann", "m0", 2000, note(match="m0", version=2))  # waits behind m0's first
    while deliver(hooks, clock, most=1):
        pass
    docs, _ = hooks.deliveries("app1", ep, status=None, before=None, limit=100)
    assert len(docs) == 3 and all(doc["status"] == "delivered" for doc in docs)
    # The log is trimmed, the dedup memory is not: a note carried again is not sent again.
    hooks.enqueue("app1:ann", "m1", 1000, note(match="m1"))
    assert claim_all(hooks, clock) == []


def test_redelivery_sends_the_same_message_again(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (first,) = deliver(hooks, clock)
    clock.advance(30)
    doc = hooks.redeliver("app1", ep, first.id)
    assert doc["id"] == first.id and doc["status"] == "pending" and doc["next_attempt_at"] == clock()
    (again,) = claim_all(hooks, clock)
    assert again.id == first.id and again.body == first.body and again.attempts == 2
    with pytest.raises(NotFound):
        hooks.redeliver("app1", ep, "msg_nope")


def test_redelivering_a_message_waiting_for_its_retry_makes_it_due_now(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, None, "")["id"]
    hooks.enqueue("app1:ann", "m1", 1000, note())
    (d,) = claim_all(hooks, clock)
    hooks.record(d, status=429, headers={"Retry-After": "600"}, latency_ms=1.0, error=None, now=clock())
    assert hooks.redeliver("app1", ep, d.id)["next_attempt_at"] == clock()
    assert [x.id for x in claim_all(hooks, clock)] == [d.id]


def test_ping_queues_a_ping_message(hooks: Webhooks, clock: Clock) -> None:
    ep = hooks.create("app1", URL, ["your_turn"], "")["id"]
    doc = hooks.ping("app1", ep)
    assert doc["type"] == "ping" and doc["status"] == "pending" and doc["id"].startswith("msg_")
    assert doc["payload"]["type"] == "ping" and doc["payload"]["data"] == {"endpoint": ep}
    (d,) = deliver(hooks, clock)
    assert d.id == doc["id"]
    assert hooks.delivery("app1", ep, d.id)["status"] == "delivered"


# -- the rules, pure ------------------------------------------------------------------------------


def test_pauses_are_jittered_grow_and_are_capped() -> None:
    rng = random.Random(3)
    pauses = [retry_pause(None, 86400, rng) for _ in range(500)]
    assert min(pauses) >= FIRST_PAUSE and max(pauses) <= 3 * FIRST_PAUSE
    assert len({round(p, 3) for p in pauses}) > 400  # jittered: endpoints failing together spread out
    prev: float | None = None
    chain = []
    for _ in range(40):
        prev = retry_pause(prev, 86400, rng)
        chain.append(prev)
    assert max(chain) == 3600.0  # a day's window: at most an hour between attempts
    assert max(retry_pause(1e9, 240, rng) for _ in range(50)) == 10.0  # a 24th of the window


def test_retry_after_reads_seconds_and_dates_within_bounds() -> None:
    now = 1_700_000_000.0
    assert retry_after_seconds("30", now) == 30.0
    assert retry_after_seconds("999999", now) == MAX_RETRY_AFTER
    date = format_datetime(datetime.fromtimestamp(now + 90, UTC), usegmt=True)
    assert retry_after_seconds(date, now) == pytest.approx(90.0)
    past = format_datetime(datetime.fromtimestamp(now - 90, UTC), usegmt=True)
    assert retry_after_seconds(past, now) == 0.0
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None, now) is None
    assert retry_after_seconds("²", now) is None  # a digit to str.isdigit, which float refuses


def test_decide_by_status() -> None:
    rng = random.Random(1)
    args: dict[str, Any] = {"queued_at": 100.0, "backoff": None, "now": 110.0, "window": 600.0, "rng": rng}
    assert decide(200, None, None, **args).outcome == "delivered"
    assert decide(299, None, None, **args).outcome == "delivered"
    assert decide(410, None, None, **args).outcome == "gone"
    for status, error in ((301, None), (404, None), (500, None), (None, "timeout after 5 s")):
        d = decide(status, None, error, **args)
        assert d.outcome == "retry" and d.next_attempt_at is not None and 111.0 <= d.next_attempt_at <= 113.0
    assert decide(None, None, "dns: no such host", **args).error == "dns: no such host"
    assert decide(503, "60", None, **args).next_attempt_at == 170.0
    assert decide(503, "3000", None, **args).next_attempt_at == 700.0  # never past the window
    assert decide(500, None, None, **{**args, "now": 700.0}).outcome == "failed"
