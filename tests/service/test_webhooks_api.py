"""Webhook endpoints over HTTP (issue 26 points 1, 4 and 5 at registration): every operation of
``/v1/apps/me/webhooks`` through the Flask test client against a real Redis, as an app's server calls
it.  The secret is shown once (created, rotated) and in no other answer; validation errors name their
field; the delivery log pages newest first; another app's key finds nothing (404) and learns nothing.
Delivery itself (the lane, a real receiver) is tested in tests/workers/test_webhook_delivery.py."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from standardwebhooks import Webhook

from service.domain.feeds.feed import ENTRY_TYPES
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one

BASE = "/v1/apps/me/webhooks"
#: A receiver on this machine: allowed by the settings of these tests, as in development mode.
LOCAL = "http://127.0.0.1:9/hook"
#: A public address (an IP literal: resolving it needs no DNS), for the tests with the default settings.
PUBLIC = "https://93.184.216.34/hook"
MAX_ENDPOINTS = 3


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(
        redis_url,
        admin_token=ADMIN,
        webhook_allow_http=True,
        webhook_allow_private=True,
        webhook_max_endpoints=MAX_ENDPOINTS,
    )
    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def backend(client: FlaskClient) -> Backend:
    return Backend(client, "alpha")


def create(client: FlaskClient, key: str, **body: Any) -> Any:
    return client.post(BASE, json={"url": LOCAL, **body}, headers=bearer(key))


def made(client: FlaskClient, key: str, **body: Any) -> dict[str, Any]:
    resp = create(client, key, **body)
    assert resp.status_code == 201, resp.json
    return dict(resp.json)


def field(resp: Any) -> str:
    """The field a 422 names (the schemas' and the domain's refusals say it alike)."""
    assert resp.status_code == 422, (resp.status_code, resp.json)
    assert resp.json["code"] == "invalid_request", resp.json
    return str(resp.json["details"]["field"])


# -- endpoints --------------------------------------------------------------------------------------


def test_an_endpoint_is_created_with_its_secret_shown_once(client: FlaskClient, backend: Backend) -> None:
    before = time.time()
    resp = create(client, backend.key, types=["your_turn", "match_over"], description="phone pushes")
    assert resp.status_code == 201, resp.json
    doc = resp.json
    secret = doc.pop("secret")
    assert secret.startswith("whsec_")
    Webhook(secret)  # a secret the Standard Webhooks library takes (issue 26 point 2)
    assert doc["url"] == LOCAL and doc["types"] == ["your_turn", "match_over"]
    assert doc["description"] == "phone pushes" and doc["status"] == "enabled"
    assert doc["disabled_reason"] is None and doc["failing_since"] is None
    assert doc["previous_secret_expires_at"] is None
    assert before - 1 <= doc["created_at"] <= doc["updated_at"] <= time.time() + 1
    # Never again: not in the endpoint, the list, an update, a ping's message or the delivery log.
    key = bearer(backend.key)
    answers = [
        client.get(f"{BASE}/{doc['id']}", headers=key),
        client.get(BASE, headers=key),
        client.patch(f"{BASE}/{doc['id']}", json={"description": "pushes"}, headers=key),
        client.post(f"{BASE}/{doc['id']}/ping", headers=key),
        client.get(f"{BASE}/{doc['id']}/deliveries", headers=key),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 202, 200]
    for answer in answers:
        assert secret not in answer.get_data(as_text=True)
        assert secret.removeprefix("whsec_") not in answer.get_data(as_text=True)
    assert answers[0].json == {**doc, "updated_at": answers[0].json["updated_at"]}
    assert "secret" not in answers[0].json and "secret" not in answers[1].json["webhooks"][0]


def test_without_types_an_endpoint_is_sent_every_type(client: FlaskClient, backend: Backend) -> None:
    doc = made(client, backend.key)
    assert doc["types"] == [] and doc["description"] == ""
    assert made(client, backend.key, types=list(ENTRY_TYPES))["types"] == list(ENTRY_TYPES)


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ({}, "url"),
        ({"url": ""}, "url"),
        ({"url": 42}, "url"),
        ({"url": "https://x/" + "a" * 2048}, "url"),
        ({"url": "ftp://127.0.0.1/hook"}, "url"),
        ({"url": "not a url"}, "url"),
        ({"url": "http://user:pw@127.0.0.1/hook"}, "url"),
        ({"url": LOCAL, "types": ["your_turn", "bogus"]}, "types.1"),
        ({"url": LOCAL, "types": "your_turn"}, "types"),
        ({"url": LOCAL, "description": "x" * 501}, "description"),
        ({"url": LOCAL, "secret": "whsec_mine"}, "secret"),
    ],
    ids=lambda v: json.dumps(v)[:40] if isinstance(v, dict) else v,
)
def test_a_bad_endpoint_is_refused_naming_the_field(
    client: FlaskClient, backend: Backend, body: dict[str, Any], named: str
) -> None:
    resp = client.post(BASE, json=body, headers=bearer(backend.key))
    assert field(resp) == named
    assert client.get(BASE, headers=bearer(backend.key)).json == {"webhooks": []}


def test_past_the_cap_an_app_gets_409(client: FlaskClient, backend: Backend) -> None:
    for _ in range(MAX_ENDPOINTS):
        made(client, backend.key)
    resp = create(client, backend.key)
    assert resp.status_code == 409 and resp.json["code"] == "too_many_endpoints", resp.json
    # Another app has its own cap.
    other = Backend(client, "beta")
    assert create(client, other.key).status_code == 201


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("https://127.0.0.1/hook", "loopback"),
        ("https://10.1.2.3/hook", "private"),
        ("https://192.168.0.7/hook", "private"),
        ("https://169.254.169.254/latest/meta-data", ""),  # the cloud metadata address (link-local)
        ("https://[::1]/hook", "loopback"),
        ("http://93.184.216.34/hook", "https"),
    ],
)
def test_with_the_default_settings_private_addresses_and_plain_http_are_refused(
    redis_client: redis.Redis, redis_url: str, url: str, refusal: str
) -> None:
    """Issue 26 point 5, at registration: the operator's defaults (no http, no private addresses)."""
    client = create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES).test_client()
    backend = Backend(client, "strict")
    resp = client.post(BASE, json={"url": url}, headers=bearer(backend.key))
    assert field(resp) == "url"
    assert refusal in resp.json["message"], resp.json
    ok = client.post(BASE, json={"url": PUBLIC}, headers=bearer(backend.key))
    assert ok.status_code == 201, ok.json
    patched = client.patch(f"{BASE}/{ok.json['id']}", json={"url": url}, headers=bearer(backend.key))
    assert field(patched) == "url"
    assert client.get(f"{BASE}/{ok.json['id']}", headers=bearer(backend.key)).json["url"] == PUBLIC


def test_a_refused_url_names_the_kind_of_address_never_the_address(
    redis_client: redis.Redis, redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 42: the 422 is no DNS oracle.  ``localhost`` resolves (for real) to a loopback address:
    the answer says so without naming 127.0.0.1 or ::1; the operator's log has the address."""
    client = create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES).test_client()
    backend = Backend(client, "oracle")
    with caplog.at_level(logging.WARNING, logger="service.domain.webhooks.urls"):
        resp = client.post(BASE, json={"url": "https://localhost:8443/hook"}, headers=bearer(backend.key))
    assert field(resp) == "url"
    assert resp.json["message"] == (
        "url: host localhost resolves to a loopback address; webhooks may only call public addresses"
    )
    body = resp.get_data(as_text=True)
    assert "127.0.0.1" not in body and "::1" not in body
    assert "localhost resolves to" in caplog.text and ("127.0.0.1" in caplog.text or "::1" in caplog.text)


def test_endpoints_are_listed_read_updated_and_deleted(client: FlaskClient, backend: Backend) -> None:
    key = bearer(backend.key)
    first = made(client, backend.key, description="one")
    second = made(client, backend.key, types=["match_over"], description="two")
    listed = client.get(BASE, headers=key).json["webhooks"]
    assert sorted(w["id"] for w in listed) == sorted([first["id"], second["id"]])
    url = f"{BASE}/{first['id']}"
    changed = client.patch(
        url,
        json={"url": "http://127.0.0.1:10/other", "types": ["your_turn"], "description": "uno"},
        headers=key,
    )
    assert changed.status_code == 200, changed.json
    assert (changed.json["url"], changed.json["types"], changed.json["description"]) == (
        "http://127.0.0.1:10/other",
        ["your_turn"],
        "uno",
    )
    assert changed.json["updated_at"] >= first["updated_at"]
    assert client.get(url, headers=key).json == changed.json
    # An empty change changes nothing (but the time of the call); a bad one is refused whole.
    same = client.patch(url, json={}, headers=key).json
    assert {**same, "updated_at": None} == {**changed.json, "updated_at": None}
    assert field(client.patch(url, json={"description": "ok", "types": ["nope"]}, headers=key)) == "types.0"
    assert field(client.patch(url, json={"enabled": "maybe"}, headers=key)) == "enabled"
    assert client.get(url, headers=key).json["description"] == "uno"
    # Deleted: gone for every operation.
    assert client.delete(url, headers=key).status_code == 204
    for method, path in [
        ("GET", url),
        ("PATCH", url),
        ("DELETE", url),
        ("POST", f"{url}/rotate"),
        ("POST", f"{url}/ping"),
        ("GET", f"{url}/deliveries"),
    ]:
        resp = client.open(path, method=method, json={} if method == "PATCH" else None, headers=key)
        assert resp.status_code == 404, (method, path, resp.json)
    assert [w["id"] for w in client.get(BASE, headers=key).json["webhooks"]] == [second["id"]]


def test_an_endpoint_is_disabled_and_enabled_again(client: FlaskClient, backend: Backend) -> None:
    key = bearer(backend.key)
    url = f"{BASE}/{made(client, backend.key)['id']}"
    off = client.patch(url, json={"enabled": False}, headers=key).json
    assert off["status"] == "disabled" and off["disabled_reason"]
    assert client.get(BASE, headers=key).json["webhooks"][0]["status"] == "disabled"
    # Nothing is sent to a disabled endpoint: no ping, no redelivery (409 says how to resume).
    refused = client.post(f"{url}/ping", headers=key)
    assert refused.status_code == 409 and refused.json["code"] == "endpoint_disabled", refused.json
    on = client.patch(url, json={"enabled": True}, headers=key).json
    assert on["status"] == "enabled" and on["disabled_reason"] is None and on["failing_since"] is None
    ping = client.post(f"{url}/ping", headers=key).json
    assert client.patch(url, json={"enabled": False}, headers=key).status_code == 200
    again = client.post(f"{url}/deliveries/{ping['id']}/redeliver", headers=key)
    assert again.status_code == 409 and again.json["code"] == "endpoint_disabled", again.json
    assert client.get(f"{url}/deliveries", headers=key).json["deliveries"][0]["status"] == "pending"


def test_rotation_shows_a_new_secret_once_and_keeps_the_old_one_for_the_grace_period(
    client: FlaskClient, backend: Backend, app: Flask
) -> None:
    key = bearer(backend.key)
    doc = made(client, backend.key)
    before = time.time()
    resp = client.post(f"{BASE}/{doc['id']}/rotate", headers=key)
    assert resp.status_code == 200, resp.json
    rotated = resp.json
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != doc["secret"]
    grace = app.extensions["tabletop"].config.webhook_secret_grace_seconds
    assert before + grace - 1 <= rotated["previous_secret_expires_at"] <= time.time() + grace + 1
    shown = client.get(f"{BASE}/{doc['id']}", headers=key)
    assert shown.json["previous_secret_expires_at"] == rotated["previous_secret_expires_at"]
    for secret in (doc["secret"], rotated["secret"]):
        assert secret not in shown.get_data(as_text=True)
        assert secret not in client.get(BASE, headers=key).get_data(as_text=True)


# -- messages: ping, the delivery log, redelivery ---------------------------------------------------


def test_a_ping_is_queued_logged_and_redelivered_under_the_same_id(
    client: FlaskClient, backend: Backend
) -> None:
    key = bearer(backend.key)
    endpoint = made(client, backend.key, types=["match_over"])  # a ping goes whatever the types
    url = f"{BASE}/{endpoint['id']}"
    resp = client.post(f"{url}/ping", headers=key)
    assert resp.status_code == 202, resp.json
    ping = resp.json
    assert ping["id"].startswith("msg_") and ping["endpoint"] == endpoint["id"]
    assert ping["type"] == "ping" and ping["status"] == "pending" and ping["attempts"] == 0
    assert ping["payload"]["type"] == "ping" and "timestamp" in ping["payload"]
    assert ping["response_status"] is None and ping["error"] is None
    assert client.get(f"{url}/deliveries/{ping['id']}", headers=key).json == ping
    log = client.get(f"{url}/deliveries", headers=key).json
    assert log == {"deliveries": [ping], "next_cursor": None}
    again = client.post(f"{url}/deliveries/{ping['id']}/redeliver", headers=key)
    assert again.status_code == 202, again.json
    assert again.json["id"] == ping["id"] and again.json["payload"] == ping["payload"]
    assert again.json["status"] == "pending"
    assert [m["id"] for m in client.get(f"{url}/deliveries", headers=key).json["deliveries"]] == [ping["id"]]
    for path in (f"{url}/deliveries/msg_nope", f"{url}/deliveries/msg_nope/redeliver"):
        resp = client.open(path, method="GET" if path.endswith("nope") else "POST", headers=key)
        assert resp.status_code == 404, resp.json


def test_the_delivery_log_pages_newest_first(client: FlaskClient, backend: Backend) -> None:
    key = bearer(backend.key)
    url = f"{BASE}/{made(client, backend.key)['id']}"
    sent = [client.post(f"{url}/ping", headers=key).json["id"] for _ in range(5)]
    pages, cursor = [], None
    while True:
        query = "limit=2" + (f"&before={cursor}" if cursor else "")
        resp = client.get(f"{url}/deliveries?{query}", headers=key)
        assert resp.status_code == 200, resp.json
        assert len(resp.json["deliveries"]) <= 2
        pages.append([m["id"] for m in resp.json["deliveries"]])
        cursor = resp.json["next_cursor"]
        if cursor is None:
            break
        assert len(pages) < 10, pages
    assert [m for page in pages for m in page] == sent[::-1]
    assert [len(p) for p in pages if p] == [2, 2, 1]
    assert client.get(f"{url}/deliveries?status=pending", headers=key).json["deliveries"][0]["id"] == sent[-1]
    assert client.get(f"{url}/deliveries?status=delivered", headers=key).json["deliveries"] == []
    assert field(client.get(f"{url}/deliveries?status=lost", headers=key)) == "status"
    assert field(client.get(f"{url}/deliveries?limit=0", headers=key)) == "limit"
    assert field(client.get(f"{url}/deliveries?limit=101", headers=key)) == "limit"
    assert field(client.get(f"{url}/deliveries?before=abc", headers=key)) == "before"
    assert field(client.get(f"{url}/deliveries?before=%C2%B2", headers=key)) == "before"  # "²"


def test_a_match_fills_the_log_with_what_the_player_may_see(client: FlaskClient, backend: Backend) -> None:
    """The payload of a real commit's note: the feed entry and the app's own player id, never a token."""
    key = bearer(backend.key)
    url = f"{BASE}/{made(client, backend.key, types=['your_turn', 'match_over'])['id']}"
    match = backend.match()
    mover = backend.as_(("ann", "bob")[match["to_move"]])
    assert play_one(client, match["id"], mover).status_code == 200
    log = client.get(f"{url}/deliveries?limit=100", headers=key).json["deliveries"]
    assert log and {m["type"] for m in log} <= {"your_turn", "match_over"}
    for message in log:
        payload = message["payload"]
        assert payload["type"] == message["type"]
        data = payload["data"]
        assert data["match_id"] == match["id"] and data["player"] in ("ann", "bob")
        assert data["game"] == "high_card" and isinstance(data["version"], int)
        text = json.dumps(payload)
        for secret in (backend.key, *backend.tokens.values()):
            assert secret not in text
        assert "token" not in text and "state" not in data and "hand" not in text


# -- who may call -----------------------------------------------------------------------------------


def test_only_the_app_key_may_call(client: FlaskClient, backend: Backend) -> None:
    endpoint = made(client, backend.key)
    seat = client.post("/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]})
    credentials = {
        "none": {},
        "player token": backend.as_("ann"),
        "seat token": bearer(seat.json["tokens"][0]["token"]),
        "admin token": bearer(ADMIN),
        "bad app key": bearer(backend.key[:-2] + "xx"),
    }
    url = f"{BASE}/{endpoint['id']}"
    for name, headers in credentials.items():
        for method, path in [
            ("POST", BASE),
            ("GET", BASE),
            ("GET", url),
            ("PATCH", url),
            ("DELETE", url),
            ("POST", f"{url}/rotate"),
            ("POST", f"{url}/ping"),
            ("GET", f"{url}/deliveries"),
        ]:
            body = {"url": LOCAL} if path == BASE and method == "POST" else {} if method == "PATCH" else None
            resp = client.open(path, method=method, json=body, headers=headers)
            assert resp.status_code == 401 and resp.json["code"] == "unauthorized", (name, method, path)
    assert client.get(url, headers=bearer(backend.key)).json["status"] == "enabled"  # untouched


def test_another_app_finds_none_of_this_apps_endpoints_or_messages(
    client: FlaskClient, backend: Backend
) -> None:
    endpoint = made(client, backend.key, description="alpha's own")
    ping = client.post(f"{BASE}/{endpoint['id']}/ping", headers=bearer(backend.key)).json
    other = Backend(client, "beta")
    mine = made(client, other.key, description="beta's")
    key = bearer(other.key)
    assert [w["id"] for w in client.get(BASE, headers=key).json["webhooks"]] == [mine["id"]]
    url = f"{BASE}/{endpoint['id']}"
    message = f"{url}/deliveries/{ping['id']}"
    # Beta's own endpoint id with alpha's message id: no message of beta's either.
    crossed = f"{BASE}/{mine['id']}/deliveries/{ping['id']}"
    for method, path in [
        ("GET", url),
        ("PATCH", url),
        ("DELETE", url),
        ("POST", f"{url}/rotate"),
        ("POST", f"{url}/ping"),
        ("GET", f"{url}/deliveries"),
        ("GET", message),
        ("POST", f"{message}/redeliver"),
        ("GET", crossed),
        ("POST", f"{crossed}/redeliver"),
    ]:
        resp = client.open(
            path, method=method, json={"enabled": False} if method == "PATCH" else None, headers=key
        )
        assert resp.status_code == 404, (method, path, resp.json)
        text = resp.get_data(as_text=True)
        assert "alpha's own" not in text and endpoint["secret"] not in text and LOCAL not in text
    # Alpha's endpoint is as it was, with its one message.
    shown = client.get(url, headers=bearer(backend.key)).json
    assert shown["status"] == "enabled" and shown["previous_secret_expires_at"] is None
    log = client.get(f"{url}/deliveries", headers=bearer(backend.key)).json["deliveries"]
    assert [m["id"] for m in log] == [ping["id"]]
