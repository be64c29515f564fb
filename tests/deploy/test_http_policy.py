"""Rate limits, CORS, security headers, request ids and proxy trust, on the app over a real Redis."""

from __future__ import annotations

import re
from typing import Any

import pytest
import redis

from service.http.app import create_app
from service.http.limits import KEY_PREFIX
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config

ORIGIN = "https://play.example.com"


@pytest.fixture
def make_client(redis_url):
    redis.Redis.from_url(redis_url).flushall()

    def build(**settings: Any):
        return create_app(make_config(redis_url, **settings), games=TEST_GAMES).test_client()

    return build


# -- rate limits ----------------------------------------------------------------------------------


def test_address_limit_answers_429_with_retry_after_in_the_error_shape(make_client):
    client = make_client(rate_limit_address="5/minute")
    assert [client.get("/v1/games").status_code for _ in range(5)] == [200] * 5
    refused = client.get("/v1/matches")  # the limit is shared by every /v1 route
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= 61
    assert refused.json["code"] == "rate_limited"
    assert set(refused.json) == {"code", "message", "details"}
    assert refused.json["details"]["retry_after"] == int(refused.headers["Retry-After"])
    # Every path a client can call shares the budget (the spec, metrics, unknown paths and methods)...
    for path in ("/openapi.json", "/metrics", "/docs", "/nowhere"):
        assert client.get(path).status_code == 429, path
    assert client.open("/healthz", method="FOOBAR").status_code == 429
    # ...but the probes: /healthz must never touch Redis, and a throttled probe restarts a healthy pod.
    assert all(client.get(path).status_code == 200 for path in ("/healthz", "/readyz"))


def test_token_limit_counts_each_seat_apart_and_stores_no_token(make_client, redis_url):
    client = make_client(rate_limit_token="3/minute")
    table = Table(client, seed=5)
    assert [table.get(0).status_code for _ in range(3)] == [200] * 3
    assert table.get(0).status_code == 429
    assert table.get(1).status_code == 200, "another seat's budget is its own"
    assert all(table.get().status_code == 200 for _ in range(5)), "spectators are not token-limited"
    keys = b" ".join(redis.Redis.from_url(redis_url).keys(f"{KEY_PREFIX}*"))
    assert keys and not any(token.encode() in keys for token in table.tokens.values())


def test_trusted_proxy_addresses_get_their_own_budget_and_untrusted_ones_do_not(make_client):
    trusting = make_client(rate_limit_address="2/minute", trusted_proxies=1)
    for ip in ("203.0.113.1", "203.0.113.2"):
        codes = [trusting.get("/v1/games", headers={"X-Forwarded-For": ip}).status_code for _ in range(3)]
        assert codes == [200, 200, 429], ip
    direct = make_client(rate_limit_address="2/minute")
    codes = [
        direct.get("/v1/games", headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(3)
    ]
    assert codes == [200, 200, 429], "a client must not pick its own address"


def test_a_malformed_limit_is_refused_at_start_up(make_client):
    with pytest.raises(ValueError, match="TABLETOP_RATE_LIMIT_TOKEN"):
        make_client(rate_limit_token="lots per minute")


def test_limits_are_off_by_default_and_touch_no_redis(make_client, redis_url):
    client = make_client()
    assert all(client.get("/v1/games").status_code == 200 for _ in range(50))
    assert redis.Redis.from_url(redis_url).keys(f"{KEY_PREFIX}*") == []


def test_every_operation_but_the_probes_documents_429(make_client):
    spec = make_client().get("/openapi.json").json
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method == "parameters":
                continue
            limited = "429" in op["responses"]
            assert limited == (path not in ("/healthz", "/readyz")), (method, path)
    headers = spec["components"]["responses"]["RATE_LIMITED"]["headers"]
    assert "Retry-After" in headers


# -- CORS -----------------------------------------------------------------------------------------


def test_cors_answers_allowed_origins_only(make_client):
    client = make_client(cors_origins=f"{ORIGIN}, https://other.example.com")
    allowed = client.get("/v1/games", headers={"Origin": ORIGIN})
    assert allowed.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "ETag" in allowed.headers["Access-Control-Expose-Headers"]
    assert "Origin" in allowed.headers["Vary"]
    foreign = client.get("/v1/games", headers={"Origin": "https://evil.example.net"})
    assert foreign.status_code == 200 and "Access-Control-Allow-Origin" not in foreign.headers
    preflight = client.options(
        "/v1/matches/x/actions",
        headers={
            "Origin": ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, if-match, idempotency-key",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == ORIGIN
    allowed_headers = preflight.headers["Access-Control-Allow-Headers"].lower()
    assert {"authorization", "if-match", "idempotency-key"} <= set(re.split(r",\s*", allowed_headers))


def test_no_cors_without_an_allow_list(make_client):
    response = make_client().get("/v1/games", headers={"Origin": ORIGIN})
    assert "Access-Control-Allow-Origin" not in response.headers


# -- headers --------------------------------------------------------------------------------------


def test_security_headers_and_caching(make_client):
    client = make_client()
    table = Table(client, seed=5)
    created = table.created
    assert created.headers["Cache-Control"] == "no-store", "the seat tokens must not be cached"
    read = table.get(0)
    assert read.headers["Cache-Control"] == "private, no-cache"
    for response in (created, read, client.get("/healthz")):
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert "Strict-Transport-Security" not in response.headers
    docs = client.get("/docs")
    assert docs.status_code == 200 and "script-src 'self'" in docs.headers["Content-Security-Policy"]


def test_hsts_only_over_https_as_reported_by_a_trusted_proxy(make_client):
    client = make_client(trusted_proxies=1)
    secure = client.get("/healthz", headers={"X-Forwarded-Proto": "https"})
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")
    assert "Strict-Transport-Security" not in client.get("/healthz").headers


def test_request_ids_are_echoed_when_tame_and_made_up_otherwise(make_client):
    client = make_client()
    assert client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["X-Request-ID"] == "abc-123"
    for sent in ("", "has space", "x" * 200, "é"):
        got = client.get("/healthz", headers={"X-Request-ID": sent}).headers["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{16}", got), sent
    table = Table(client, seed=5)
    moved = table.move(0, table.legal(0)[0], 0, **{"X-Request-ID": "move-1"})
    assert moved.status_code == 200 and moved.headers["X-Request-ID"] == "move-1"
    assert bearer(table.tokens[0])["Authorization"] not in str(moved.headers)


def test_match_creation_has_a_limit_per_address_of_its_own(make_client):
    client = make_client(rate_limit_create="2/minute")
    body = {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]}
    assert [client.post("/v1/matches", json=body).status_code for _ in range(3)] == [201, 201, 429]
    assert client.get("/v1/matches").status_code == 200  # everything else is not counted against it
    other = client.post("/v1/matches", json=body, environ_base={"REMOTE_ADDR": "198.51.100.7"})
    assert other.status_code == 201  # another address, another budget
