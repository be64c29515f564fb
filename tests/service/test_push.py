"""Web Push (issue 48 point 3): the subscriptions API through the Flask test client against a real Redis
(registering, replacing, listing, deleting; every validation error naming its field; a player's own
only), the server's VAPID key (stable, the private half never shown), and each attempt's rules as the
push lane applies them (per-type choice, TTL and Urgency, Topic and collapse, quiet hours, the outcomes
of 2xx, 404/410, 4xx and 5xx), with messages encrypted for real and decrypted here with the browser's
keys.  The lane itself, a real RQ worker posting to a push-service stand-in, is
tests/workers/test_push_delivery.py; the browser's side tests/e2e/test_web_push.py."""

from __future__ import annotations

import base64
import json
import os
import random
import time
from datetime import UTC, datetime
from typing import Any

import http_ece
import pytest
import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from flask import Flask
from flask.testing import FlaskClient
from py_vapid import jwt
from rq.registry import ScheduledJobRegistry

from service.config import Config
from service.domain.push.delivery import (
    DEFERRED,
    DELIVERED,
    EXPIRED,
    FAILED,
    GONE,
    QUIET,
    RETRY,
    SUPERSEDED,
    UNWANTED,
    Sent,
    message_job_id,
)
from service.domain.push.messages import DAY, MAX_PAYLOAD, PUSH_TYPES, payload, rules, topic
from service.domain.push.push import Push
from service.domain.push.quiet import quiet_until
from service.domain.push.subscriptions import PushSubscriptionData
from service.domain.push.vapid import VapidKeys, raw_private, raw_public
from service.http.app import create_app
from service.storage.push import VAPID, PushStore
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one

BASE = "/v1/me/push-subscriptions"
#: A push service on this machine: allowed by these tests' settings, as in development mode.
LOCAL = "http://127.0.0.1:9/push/abc"
MAX_SUBSCRIPTIONS = 3


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class BrowserKeys:
    """What a browser's ``PushManager.subscribe`` makes: a P-256 key pair and a 16-byte auth secret;
    the private half decrypts what the server sends it (RFC 8291), as the browser would."""

    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.keys = {"p256dh": b64url(point), "auth": b64url(self.auth)}

    def decrypt(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(body, private_key=self.private, auth_secret=self.auth, version="aes128gcm")
        doc: dict[str, Any] = json.loads(plain)
        return doc


def check_vapid(authorization: str, public_key: str, audience: str, subject: str) -> dict[str, Any]:
    """RFC 8292's header checked as a push service checks it: ``vapid t=<JWT>, k=<key>``, the key the
    server publishes, the JWT signed by it for the push service's origin, expiring within a day."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    assert parts["k"] == public_key
    claims: dict[str, Any] = jwt.decode(parts["t"], parts["k"])  # raises unless signed by that key
    assert claims["aud"] == audience and claims["sub"] == subject
    assert time.time() < claims["exp"] <= time.time() + DAY
    return claims


def settings(redis_url: str) -> Config:
    return make_config(
        redis_url,
        admin_token=ADMIN,
        webhook_allow_http=True,
        webhook_allow_private=True,
        push_max_subscriptions=MAX_SUBSCRIPTIONS,
    )


@pytest.fixture
def config(redis_url: str) -> Config:
    return settings(redis_url)


@pytest.fixture(scope="module")
def app(redis_url: str) -> Flask:
    """One app for the module (building one takes most of a second); Redis is flushed before each test
    all the same (``backend`` asks for ``redis_client``)."""
    return create_app(settings(redis_url), games=TEST_GAMES)


@pytest.fixture
def backend(redis_client: redis.Redis, client: FlaskClient) -> Backend:
    return Backend(client, "alpha")


def subscribe(client: FlaskClient, headers: dict[str, str], **body: Any) -> Any:
    return client.post(BASE, json={"endpoint": LOCAL, "keys": BrowserKeys().keys, **body}, headers=headers)


def field(resp: Any) -> str:
    assert resp.status_code == 422, (resp.status_code, resp.json)
    assert resp.json["code"] == "invalid_request", resp.json
    return str(resp.json["details"]["field"])


# -- the server's key -------------------------------------------------------------------------------------


def test_the_vapid_key_is_generated_once_and_only_its_public_half_is_shown(
    redis_client: redis.Redis, config: Config
) -> None:
    client = create_app(config, games=TEST_GAMES).test_client()
    first = client.get("/v1/push/vapid-public-key")
    assert first.status_code == 200 and set(first.json) == {"public_key"}
    public = first.json["public_key"]
    point = base64.urlsafe_b64decode(public + "=" * (-len(public) % 4))
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)  # a P-256 point, uncompressed
    assert len(point) == 65 and point[0] == 4
    stored = json.loads(redis_client.get(VAPID) or b"{}")
    assert stored["public"] == public
    # Another process (another app over the same Redis) signs with the same key.
    other = VapidKeys(PushStore(redis_client), "", config.vapid_subject)
    assert other.public_key() == public
    assert stored["private"] not in first.get_data(as_text=True)


def test_a_configured_key_is_used_and_a_bad_one_stops_the_start(
    redis_client: redis.Redis, config: Config
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    for text in (raw_private(key), pem):
        configured = Config(**{**config.__dict__, "vapid_private_key": text})
        got = create_app(configured, games=TEST_GAMES).test_client().get("/v1/push/vapid-public-key")
        assert got.json["public_key"] == raw_public(key)
    assert redis_client.get(VAPID) is None  # nothing generated, nothing stored
    other_curve = ec.generate_private_key(ec.SECP384R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    for bad in ("not a key", other_curve.decode()):
        with pytest.raises(ValueError, match="TABLETOP_VAPID_PRIVATE_KEY"):
            create_app(Config(**{**config.__dict__, "vapid_private_key": bad}), games=TEST_GAMES)
    with pytest.raises(ValueError, match="TABLETOP_VAPID_SUBJECT"):
        create_app(Config(**{**config.__dict__, "vapid_subject": "me"}), games=TEST_GAMES)


# -- subscriptions ----------------------------------------------------------------------------------------


def test_a_subscription_is_registered_replaced_listed_and_deleted(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    ann = backend.as_("ann")
    browser = BrowserKeys()
    before = time.time()
    created = client.post(BASE, json={"endpoint": LOCAL, "keys": browser.keys}, headers=ann)
    assert created.status_code == 201, created.json
    doc = created.json
    assert doc["id"].startswith("ps_") and doc["endpoint"] == LOCAL
    assert doc["types"] == list(PUSH_TYPES) and doc["quiet_hours"] is None
    assert before - 1 <= doc["created_at"] == doc["updated_at"] <= time.time() + 1
    # The same endpoint again (a page reloaded): replaced, same id, the choices changed.
    quiet = {"time_zone": "Europe/Paris", "start": "22:00", "end": "07:00"}
    again = client.post(
        BASE,
        json={"endpoint": LOCAL, "keys": browser.keys, "types": ["match_over", "your_turn"],
              "quiet_hours": quiet, "expirationTime": None},
        headers=ann,
    )  # fmt: skip
    assert again.status_code == 200, again.json
    assert again.json["id"] == doc["id"] and again.json["types"] == ["your_turn", "match_over"]
    assert again.json["quiet_hours"] == quiet and again.json["created_at"] == doc["created_at"]
    second = subscribe(client, ann, endpoint="http://127.0.0.1:9/push/other")
    assert second.status_code == 201
    listed = client.get(BASE, headers=ann)
    assert listed.status_code == 200
    assert [s["id"] for s in listed.json["subscriptions"]] == [doc["id"], second.json["id"]]
    # The keys are the browser's secrets: in no answer.
    for answer in (created, again, second, listed):
        text = answer.get_data(as_text=True)
        assert browser.keys["auth"] not in text and browser.keys["p256dh"] not in text and "keys" not in text
    # Another player sees none of ann's, and cannot delete one (404, as for none at all).
    assert client.get(BASE, headers=backend.as_("bob")).json == {"subscriptions": []}
    assert client.delete(f"{BASE}/{doc['id']}", headers=backend.as_("bob")).status_code == 404
    # The app key speaks for a player it names.
    by_app = client.get(f"{BASE}?player=ann", headers=bearer(backend.key))
    assert by_app.status_code == 200 and len(by_app.json["subscriptions"]) == 2
    assert client.delete(f"{BASE}/{doc['id']}", headers=ann).status_code == 204
    assert client.delete(f"{BASE}/{doc['id']}", headers=ann).status_code == 404
    assert [s["id"] for s in client.get(BASE, headers=ann).json["subscriptions"]] == [second.json["id"]]


def test_a_player_has_at_most_the_configured_subscriptions(client: FlaskClient, backend: Backend) -> None:
    ann = backend.as_("ann")
    for n in range(MAX_SUBSCRIPTIONS):
        assert subscribe(client, ann, endpoint=f"http://127.0.0.1:9/push/{n}").status_code == 201
    full = subscribe(client, ann, endpoint="http://127.0.0.1:9/push/one-more")
    assert full.status_code == 409 and full.json["code"] == "too_many_subscriptions"
    assert full.json["details"] == {"max_subscriptions": MAX_SUBSCRIPTIONS}
    assert subscribe(client, ann, endpoint="http://127.0.0.1:9/push/0").status_code == 200  # a replacement


def test_only_a_player_subscribes(client: FlaskClient, backend: Backend) -> None:
    seat = client.post("/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]})
    seat_token = seat.json["tokens"][0]["token"]
    assert subscribe(client, {}).status_code == 401
    assert subscribe(client, bearer(seat_token)).status_code == 401
    assert client.get(BASE, headers=bearer(seat_token)).status_code == 401
    assert subscribe(client, bearer(backend.key)).status_code == 422  # an app key names the player
    unknown = client.post(
        f"{BASE}?player=nobody",
        json={"endpoint": LOCAL, "keys": BrowserKeys().keys},
        headers=bearer(backend.key),
    )
    assert unknown.status_code == 404, unknown.json


def _point_off_the_curve() -> str:
    return b64url(b"\x04" + b"\x01" * 64)


#: Bad subscriptions and the field each refusal names.
BAD: list[tuple[dict[str, Any], str]] = [
    ({"endpoint": None}, "endpoint"),
    ({"endpoint": ""}, "endpoint"),
    ({"endpoint": "ftp://127.0.0.1/push"}, "endpoint"),
    ({"endpoint": "not a url"}, "endpoint"),
    ({"endpoint": "http://user:pw@127.0.0.1/push"}, "endpoint"),
    ({"keys": None}, "keys"),
    ({"keys": {"auth": b64url(os.urandom(16))}}, "keys.p256dh"),
    ({"keys": {"p256dh": _point_off_the_curve(), "auth": b64url(os.urandom(16))}}, "keys.p256dh"),
    ({"keys": {"p256dh": b64url(os.urandom(32)), "auth": b64url(os.urandom(16))}}, "keys.p256dh"),
    ({"keys": {"p256dh": "!!!", "auth": b64url(os.urandom(16))}}, "keys.p256dh"),
    ({"keys": {"p256dh": BrowserKeys().keys["p256dh"], "auth": b64url(os.urandom(8))}}, "keys.auth"),
    ({"keys": {"p256dh": BrowserKeys().keys["p256dh"], "auth": "@@@@"}}, "keys.auth"),
    ({"types": ["your_turn", "seat_joined"]}, "types.1"),
    ({"types": []}, "types"),
    ({"types": "your_turn"}, "types"),
    (
        {"quiet_hours": {"time_zone": "Mars/Olympus", "start": "22:00", "end": "07:00"}},
        "quiet_hours.time_zone",
    ),
    ({"quiet_hours": {"time_zone": "UTC", "start": "24:00", "end": "07:00"}}, "quiet_hours.start"),
    ({"quiet_hours": {"time_zone": "UTC", "start": "22:00", "end": "7:00"}}, "quiet_hours.end"),
    ({"quiet_hours": {"time_zone": "UTC", "start": "22:00", "end": "22:00"}}, "quiet_hours.end"),
    ({"quiet_hours": {"time_zone": "UTC", "start": "22:00"}}, "quiet_hours.end"),
    ({"quiet_hours": "22-07"}, "quiet_hours"),
    ({"secret": "x"}, "secret"),
]


def test_a_bad_subscription_is_refused_naming_its_field(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    for body, named in BAD:
        full = {"endpoint": LOCAL, "keys": BrowserKeys().keys, **body}
        resp = client.post(BASE, json=full, headers=backend.as_("ann"))
        assert field(resp) == named, (body, resp.json)
    assert client.get(BASE, headers=backend.as_("ann")).json == {"subscriptions": []}  # nothing written


def test_with_the_default_settings_only_public_https_push_services_are_taken(
    redis_client: redis.Redis, redis_url: str
) -> None:
    client = create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES).test_client()
    ann = Backend(client, "strict").as_("ann")
    plain = subscribe(client, ann, endpoint="http://push.example.com/x")
    assert field(plain) == "endpoint" and "https" in plain.json["message"]
    loopback = subscribe(client, ann, endpoint="https://127.0.0.1/x")
    assert field(loopback) == "endpoint" and "loopback" in loopback.json["message"]
    metadata = subscribe(client, ann, endpoint="https://169.254.169.254/latest")
    assert field(metadata) == "endpoint" and "metadata" in metadata.json["message"]
    assert subscribe(client, ann, endpoint="https://93.184.216.34/push/x").status_code == 201


# -- the player's data ------------------------------------------------------------------------------------


def test_the_player_data_part_exports_without_keys_and_erases(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    browser = BrowserKeys()
    created = client.post(BASE, json={"endpoint": LOCAL, "keys": browser.keys}, headers=backend.as_("ann"))
    part = PushSubscriptionData(PushStore(redis_client))
    assert part.section == "push_subscriptions"
    exported = list(part.export(backend.app["id"], "ann"))
    assert exported == [created.json]
    assert browser.keys["auth"] not in json.dumps(exported)
    assert list(part.export(backend.app["id"], "bob")) == []
    # Through the player export (contract B: the privacy domain holds the part).
    export = client.get("/v1/players/ann/export", headers=bearer(backend.key))
    assert export.status_code == 200, export.get_data(as_text=True)[:300]
    lines = [json.loads(line) for line in export.get_data(as_text=True).splitlines()]
    items = [ln["data"] for ln in lines if ln.get("section") == "push_subscriptions"]
    assert items == [created.json] and browser.keys["auth"] not in export.get_data(as_text=True)
    assert part.erase(backend.app["id"], "ann", "deleted-player") == 1
    assert part.erase(backend.app["id"], "ann", "deleted-player") == 0
    assert client.get(BASE, headers=backend.as_("ann")).json == {"subscriptions": []}


# -- each attempt, as the lane makes it -------------------------------------------------------------------


class Clock:
    def __init__(self, at: float) -> None:
        self.at = at

    def __call__(self) -> float:
        return self.at


class Outbox:
    """What the push service was sent: each POST's URL, headers and the payload decrypted."""

    def __init__(self, browser: BrowserKeys, answers: list[Sent] | None = None) -> None:
        self.browser = browser
        self.answers = answers or []
        self.sent: list[tuple[str, dict[str, str], dict[str, Any]]] = []

    def __call__(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        self.sent.append((url, headers, self.browser.decrypt(body)))
        return self.answers.pop(0) if self.answers else Sent(201, {}, None)


#: Noon, 1 June 2026, UTC.
NOON = datetime(2026, 6, 1, 12, 0, tzinfo=UTC).timestamp()


@pytest.fixture
def clock() -> Clock:
    return Clock(NOON)


@pytest.fixture
def push(redis_client: redis.Redis, config: Config, clock: Clock) -> Push:
    return Push(PushStore(redis_client), redis_client, config, clock=clock, rng=random.Random(7))


def _entry(kind: str, match_id: str = "m1", version: int = 3, **extra: Any) -> dict[str, Any]:
    return {"type": kind, "match_id": match_id, "game": "china", "version": version, "seat": 1,
            "my_turn": kind == "your_turn", "deadline": None, **extra}  # fmt: skip


def _jobs(redis_client: redis.Redis) -> list[dict[str, Any]]:
    """The messages queued on the push lane now (every tenant's queue), oldest first."""
    from rq import Queue

    found = []
    for name in sorted(k.decode() for k in redis_client.keys("rq:queue:push:*")):
        queue = Queue(name.removeprefix("rq:queue:"), connection=redis_client)
        found += [job.args[0] for job in queue.jobs]
    return found


def _scheduled(redis_client: redis.Redis) -> dict[str, float]:
    """The push lane's scheduled jobs (retries, deferrals) and when they are due."""
    from rq import Queue

    due: dict[str, float] = {}
    for name in sorted(k.decode() for k in redis_client.keys("rq:scheduled:push:*")):
        registry = ScheduledJobRegistry(name.removeprefix("rq:scheduled:"), connection=redis_client)
        for job_id in registry.get_job_ids():
            job = Queue(registry.name, connection=redis_client).fetch_job(job_id)
            assert job is not None
            due[job_id] = registry.get_scheduled_time(job).timestamp()
    return due


def test_each_type_has_its_ttl_urgency_and_topic() -> None:
    turn = rules(_entry("your_turn"), "m1", NOON)
    assert (turn.ttl, turn.urgency) == (DAY, "normal")
    warning = rules(_entry("clock_warning", deadline=NOON + 90), "m1", NOON)
    assert (warning.ttl, warning.urgency) == (90, "high")
    challenge = rules({"type": "challenge_received", "expires_at": NOON + 600}, "c:x", NOON)
    assert (challenge.ttl, challenge.urgency, challenge.topic) == (600, "normal", None)
    over = rules(_entry("match_over"), "m1", NOON)
    assert (over.ttl, over.urgency, over.topic) == (DAY, "low", None)
    # A topic per match and kind, of RFC 8030's form: at most 32 URL-safe base64 characters.
    assert turn.topic == topic("your_turn", "m1") != topic("your_turn", "m2")
    assert warning.topic is not None and warning.topic != turn.topic
    for t in (turn.topic, warning.topic):
        assert (
            t is not None
            and len(t) <= 32
            and set(t) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        )


def test_a_payload_never_holds_a_secret_and_fits(push: Push) -> None:
    doc = json.loads(payload(_entry("your_turn", token="seat-secret", note={"api_secret": 1}), "m1"))
    assert doc["type"] == "your_turn" and doc["url"] == "/play/m1" and doc["title"] == "Your turn"
    assert "seat-secret" not in json.dumps(doc) and "api_secret" not in json.dumps(doc)
    big = payload(_entry("match_over", result={"scores": ["x" * 100] * 100}), "m1")
    assert len(big) <= MAX_PAYLOAD and json.loads(big)["data"]["match_id"] == "m1"


def test_quiet_hours_follow_the_players_clock() -> None:
    paris = {"time_zone": "Europe/Paris", "start": "22:00", "end": "07:00"}
    # 1 June: Paris is UTC+2.  23:30 there is 21:30 UTC: quiet until 07:00 there, 05:00 UTC next day.
    night = datetime(2026, 6, 1, 21, 30, tzinfo=UTC).timestamp()
    assert quiet_until(paris, night) == datetime(2026, 6, 2, 5, 0, tzinfo=UTC).timestamp()
    early = datetime(2026, 6, 2, 3, 0, tzinfo=UTC).timestamp()  # 05:00 in Paris
    assert quiet_until(paris, early) == datetime(2026, 6, 2, 5, 0, tzinfo=UTC).timestamp()
    assert quiet_until(paris, NOON) is None
    assert quiet_until(paris, datetime(2026, 6, 1, 5, 0, tzinfo=UTC).timestamp()) is None  # 07:00: over
    # In winter Paris is UTC+1: the same window is an hour later in UTC.
    winter = datetime(2026, 1, 10, 22, 30, tzinfo=UTC).timestamp()
    assert quiet_until(paris, winter) == datetime(2026, 1, 11, 6, 0, tzinfo=UTC).timestamp()
    lunch = {"time_zone": "UTC", "start": "12:00", "end": "13:30"}
    assert quiet_until(lunch, NOON) == NOON + 5400
    assert quiet_until(lunch, NOON - 1) is None and quiet_until(None, NOON) is None


def test_a_message_is_encrypted_signed_and_sent_with_its_headers(
    push: Push, backend: Backend, config: Config, client: FlaskClient
) -> None:
    browser = BrowserKeys()
    key = f"{backend.app['id']}:ann"
    sub, _ = push.subscribe(key, "http://127.0.0.1:9/push/x", browser.keys)
    assert push.enqueue(key, "m1", 3000, _entry("your_turn")) == 1
    assert push.enqueue(key, "m1", 3000, _entry("your_turn")) == 0  # the same note carried again
    assert push.enqueue(key, "m1", 3001, _entry("seat_joined")) == 0  # not a pushed type
    [message] = _jobs(push.store.redis)
    sent = Outbox(browser)
    assert push.deliver(message, sent) == DELIVERED
    [(url, headers, doc)] = sent.sent
    assert url == "http://127.0.0.1:9/push/x"
    assert headers["Content-Encoding"] == "aes128gcm"
    assert headers["TTL"] == str(DAY) and headers["Urgency"] == "normal"
    assert headers["Topic"] == topic("your_turn", "m1")
    check_vapid(headers["Authorization"], push.public_key(), "http://127.0.0.1:9", config.vapid_subject)
    assert doc["type"] == "your_turn" and doc["data"]["match_id"] == "m1" and doc["tag"] == headers["Topic"]
    assert client.get("/v1/push/vapid-public-key").json["public_key"] == push.public_key()
    assert sub["id"] == message["subscription"]
    # A drain carrying the note again after its job ran and was deleted queues nothing: the mark outlives
    # the job (and is claimed before the job is queued, so two drains at once queue it once).
    for job_key in push.store.redis.keys("rq:job:*"):
        push.store.redis.delete(job_key)
    for queue_key in push.store.redis.keys("rq:queue:push:*"):
        push.store.redis.delete(queue_key)
    assert push.enqueue(key, "m1", 3000, _entry("your_turn")) == 0 and _jobs(push.store.redis) == []


def test_each_subscription_gets_only_the_types_it_chose(push: Push, backend: Backend) -> None:
    key = f"{backend.app['id']}:ann"
    turns, _ = push.subscribe(key, "http://127.0.0.1:9/a", BrowserKeys().keys, ["your_turn"])
    everything, _ = push.subscribe(key, "http://127.0.0.1:9/b", BrowserKeys().keys)
    assert push.enqueue(key, "m1", 3000, _entry("your_turn")) == 2
    assert push.enqueue(key, "m1", 4000, _entry("match_over")) == 1
    queued = [(m["subscription"], m["type"]) for m in _jobs(push.store.redis)]
    assert sorted(queued) == sorted([(turns["id"], "your_turn"), (everything["id"], "your_turn"),
                                     (everything["id"], "match_over")])  # fmt: skip
    # A choice changed after the message was queued counts at its send.
    push.subscribe(key, "http://127.0.0.1:9/b", BrowserKeys().keys, ["your_turn"])
    over = next(m for m in _jobs(push.store.redis) if m["type"] == "match_over")
    assert push.deliver(over, Outbox(BrowserKeys())) == UNWANTED


def test_a_newer_turn_of_the_match_supersedes_an_undelivered_one(push: Push, backend: Backend) -> None:
    browser = BrowserKeys()
    key = f"{backend.app['id']}:ann"
    push.subscribe(key, "http://127.0.0.1:9/x", browser.keys)
    push.enqueue(key, "m1", 3000, _entry("your_turn", version=3))
    push.enqueue(key, "m2", 3000, _entry("your_turn", match_id="m2", version=3))
    push.enqueue(key, "m1", 5000, _entry("your_turn", version=5))
    old, other, new = _jobs(push.store.redis)
    sent = Outbox(browser)
    assert push.deliver(old, sent) == SUPERSEDED  # its match moved on: nothing sent
    assert push.deliver(other, sent) == DELIVERED  # another match's turn is its own
    assert push.deliver(new, sent) == DELIVERED
    assert [doc["data"]["version"] for _, _, doc in sent.sent if doc["data"]["match_id"] == "m1"] == [5]
    # An older note carried late is not queued again.
    assert push.enqueue(key, "m1", 3000, _entry("your_turn", version=3)) == 0


def test_quiet_hours_hold_a_message_till_they_end_or_drop_one_that_would_be_stale(
    push: Push, backend: Backend, clock: Clock, redis_client: redis.Redis
) -> None:
    browser = BrowserKeys()
    key = f"{backend.app['id']}:ann"
    lunch = {"time_zone": "UTC", "start": "11:30", "end": "13:00"}
    push.subscribe(key, "http://127.0.0.1:9/x", browser.keys, quiet_hours=lunch)
    push.enqueue(key, "m1", 3000, _entry("your_turn"))
    push.enqueue(key, "m2", 3999, _entry("clock_warning", match_id="m2", deadline=NOON + 600))
    turn, warning = _jobs(redis_client)
    sent = Outbox(browser)
    assert push.deliver(turn, sent) == DEFERRED
    assert push.deliver(warning, sent) == QUIET  # its deadline comes before 13:00: dropped
    assert sent.sent == []
    deferred = {**turn, "step": 1}
    assert _scheduled(redis_client) == {message_job_id(deferred): NOON + 3600}
    clock.at = NOON + 3600
    assert push.deliver(deferred, sent) == DELIVERED
    # The TTL left is what the queue time allows: a day less the hour it waited.
    assert sent.sent[0][1]["TTL"] == str(DAY - 3600)
    clock.at = NOON + DAY + 1
    assert push.deliver(deferred, sent) == EXPIRED and len(sent.sent) == 1


def test_gone_failed_and_retried_outcomes(
    push: Push, backend: Backend, clock: Clock, redis_client: redis.Redis
) -> None:
    browser = BrowserKeys()
    key = f"{backend.app['id']}:ann"
    sub, _ = push.subscribe(key, "http://127.0.0.1:9/x", browser.keys)
    push.enqueue(key, "m1", 3000, _entry("your_turn"))
    [message] = _jobs(redis_client)
    # 500: retried after a pause of 1 to 3 s (decorrelated jitter's first draw).
    assert push.deliver(message, Outbox(browser, [Sent(500, {}, None)])) == RETRY
    [(retry_id, due)] = _scheduled(redis_client).items()
    assert retry_id == message_job_id({**message, "step": 1}) and NOON + 1 <= due <= NOON + 3
    # 429 with Retry-After: the push service's pause when longer.
    second = {**message, "step": 1, "backoff": 1.0}
    assert push.deliver(second, Outbox(browser, [Sent(429, {"retry-after": "120"}, None)])) == RETRY
    assert _scheduled(redis_client)[message_job_id({**message, "step": 2})] == NOON + 120
    # No answer at all (a timeout): retried too, but never past push_retry_seconds.
    clock.at = NOON + push.config.push_retry_seconds - 0.5
    assert push.deliver(second, Outbox(browser, [Sent(None, {}, "timeout after 5 s")])) == FAILED
    clock.at = NOON
    # 400 (a message the push service refuses): failed, not retried; the subscription stays.
    assert push.deliver(message, Outbox(browser, [Sent(400, {}, None)])) == FAILED
    assert push.subscriptions(key) == [sub]
    # 410 Gone (the browser unsubscribed): the subscription is deleted, and nothing more is sent.
    assert push.deliver(message, Outbox(browser, [Sent(410, {}, None)])) == GONE
    assert push.subscriptions(key) == []
    later = Outbox(browser)
    assert push.deliver(message, later) == GONE and later.sent == []
    # 404 too.
    push.subscribe(key, "http://127.0.0.1:9/x", browser.keys)
    assert push.deliver(message, Outbox(browser, [Sent(404, {}, None)])) == GONE
    assert push.subscriptions(key) == []


def test_a_real_move_queues_the_next_players_turn(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    match = backend.match()
    url = f"/v1/matches/{match['id']}"
    seats = {0: "ann", 1: "bob"}
    for pid in seats.values():
        subscribe(client, backend.as_(pid), endpoint=f"http://127.0.0.1:9/{pid}", types=["your_turn"])
    first = client.get(url, headers=bearer(backend.key)).json["to_move"]
    while True:  # moves until the turn passes (a seat may decide twice in a row)
        now = client.get(url, headers=bearer(backend.key)).json
        if now["to_move"] != first:
            break
        assert play_one(client, match["id"], backend.as_(seats[now["to_move"]])).status_code == 200
    queued = _jobs(redis_client)
    assert queued, "a your_turn for the player now to move"
    last = queued[-1]
    assert last["key"] == f"{backend.app['id']}:{seats[now['to_move']]}"
    assert last["type"] == "your_turn" and last["entry"]["version"] == now["version"]
    assert [
        m for m in queued if m["key"].endswith(":" + seats[first])
    ] == []  # subscribed after its turn came
