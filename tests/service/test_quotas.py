"""Quotas per integration (issue 25 point 7): rate limits keyed by app and player when a call carries an
app key or a player token, the IETF ``RateLimit`` headers, and ``GET /v1/apps/me``; on a real Redis.

The address, seat-token and creation limits of anonymous play are tested in
tests/deploy/test_http_policy.py; here, that credentials do not spend them and they still hold."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.identity import APP, Caller
from service.http.app import create_app
from service.http.limits import KEY_PREFIX
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config

LIMIT = re.compile(r'^"(?P<name>[a-z]+-\d+s)";r=(?P<r>\d+);t=(?P<t>\d+)$')
POLICY = re.compile(r'^"(?P<name>[a-z]+-\d+s)";q=(?P<q>\d+);w=(?P<w>\d+)$')
MATCH = {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]}


@dataclass
class Integration:
    """An app registered by the operator, as its server and its players call the API."""

    flask_app: Flask
    id: str
    key: str

    def caller(self) -> Caller:
        return Caller(APP, app=self.id)

    def player_token(self, player: str) -> str:
        accounts = self.flask_app.extensions["tabletop"].accounts
        accounts.put_player(self.caller(), player, player.title(), False)
        token: str = accounts.mint_token(self.caller(), player, ["read", "play"], None)["token"]
        return token


class Deployment:
    def __init__(self, redis_url: str, **settings: Any) -> None:
        self.app = create_app(make_config(redis_url, **settings), games=TEST_GAMES)
        self.client: FlaskClient = self.app.test_client()

    def register(self, name: str, limits: dict[str, Any] | None = None) -> Integration:
        created = self.app.extensions["tabletop"].accounts.create_app(name, limits)
        return Integration(self.app, created["id"], created["key"])

    def get(self, token: str | None = None, path: str = "/v1/games", **kw: Any) -> Any:
        return self.client.get(path, headers=bearer(token) if token else {}, **kw)

    def codes(self, times: int, token: str | None = None, path: str = "/v1/games") -> list[int]:
        return [self.get(token, path).status_code for _ in range(times)]


@pytest.fixture
def deploy(redis_client: redis.Redis, redis_url: str) -> Any:
    return lambda **settings: Deployment(redis_url, **settings)


def limit_header(response: Any) -> dict[str, Any]:
    found = LIMIT.match(response.headers["RateLimit"])
    assert found, response.headers["RateLimit"]
    return {"name": found["name"], "r": int(found["r"]), "t": int(found["t"])}


def assert_refused(response: Any, policy: str, limit: str) -> None:
    """A 429 naming its limit and policy, with the same wait in the body, Retry-After and RateLimit."""
    assert response.status_code == 429, response.json
    assert response.json["code"] == "rate_limited"
    details = response.json["details"]
    assert (details["policy"], details["limit"]) == (policy, limit)
    retry = int(response.headers["Retry-After"])
    assert 1 <= retry <= 61 and details["retry_after"] == retry
    assert limit_header(response) == {"name": policy, "r": 0, "t": retry}


def test_an_app_at_its_limit_gets_429_while_another_app_and_the_address_do_not(deploy):
    site = deploy(rate_limit_app="3/minute", rate_limit_address="4/minute")
    acme, other = site.register("Acme"), site.register("Other")
    assert site.codes(3, acme.key) == [200] * 3
    assert_refused(site.get(acme.key), "app-60s", "3 per 1 minute")
    assert_refused(site.get(acme.key, "/v1/matches"), "app-60s", "3 per 1 minute")  # every route
    assert site.codes(3, other.key) == [200] * 3, "another app's budget is its own"
    # The app's calls came from this address and spent none of its budget: anonymous calls have it all.
    assert site.codes(5) == [200] * 4 + [429]
    # ...and the address being spent does not stop an app calling from it.
    assert site.get(other.key).status_code == 429 and site.get(site.register("Third").key).status_code == 200


def test_an_apps_own_rate_replaces_the_default(deploy):
    site = deploy(rate_limit_app="10/minute")
    small = site.register("Small", {"rate": "2/minute"})
    broken = site.register("Broken", {"rate": "lots"})
    assert site.codes(2, small.key) == [200] * 2
    assert_refused(site.get(small.key), "app-60s", "2 per 1 minute")
    # A malformed setting of one app falls back to the default instead of failing its every call.
    assert site.codes(10, broken.key) == [200] * 10
    assert_refused(site.get(broken.key), "app-60s", "10 per 1 minute")


def test_a_player_at_its_limit_gets_429_but_its_apps_other_player_does_not(deploy):
    site = deploy(rate_limit_app="100/minute", rate_limit_player="2/minute")
    acme = site.register("Acme")
    ann, bob = acme.player_token("ann"), acme.player_token("bob")
    assert site.codes(2, ann) == [200] * 2
    assert_refused(site.get(ann), "player-60s", "2 per 1 minute")
    assert site.codes(2, bob) == [200] * 2, "another player's budget is its own"
    assert site.get(acme.key).status_code == 200, "the app key is not a player"
    # The players' calls spent their app's budget too: ann's 3 (the refused one as well: the app's limit
    # is counted before the player's), bob's 2, the key's 1 and this one.
    me = site.get(acme.key, "/v1/apps/me").json
    assert me["usage"]["rates"][0]["remaining"] == 100 - 7


def test_a_player_is_also_held_by_its_apps_limit(deploy):
    site = deploy(rate_limit_app="3/minute", rate_limit_player="10/minute")
    acme = site.register("Acme")
    ann, bob = acme.player_token("ann"), acme.player_token("bob")
    assert site.codes(2, ann) + site.codes(1, bob) == [200] * 3
    assert_refused(site.get(bob), "app-60s", "3 per 1 minute")


def test_headers_name_the_most_constrained_policy_and_count_down(deploy):
    site = deploy(rate_limit_app="5/minute", rate_limit_player="3/minute")
    acme = site.register("Acme")
    seen = []
    for _ in range(5):
        response = site.get(acme.key)
        assert response.status_code == 200
        policy = POLICY.match(response.headers["RateLimit-Policy"])
        assert policy and (policy["name"], policy["q"], policy["w"]) == ("app-60s", "5", "60")
        seen.append(limit_header(response))
    assert [h["r"] for h in seen] == [4, 3, 2, 1, 0]
    assert all(h["name"] == "app-60s" and 1 <= h["t"] <= 60 for h in seen)
    # A player's calls fall under its app's and its own limit: the one with the least left is shown.
    site = deploy(rate_limit_app="50/minute", rate_limit_player="3/minute")
    ann = site.register("Acme").player_token("ann")
    assert [limit_header(site.get(ann))["r"] for _ in range(3)] == [2, 1, 0]
    assert site.get(ann).headers["RateLimit-Policy"] == '"player-60s";q=3;w=60'


def test_no_headers_where_no_limit_applies(deploy):
    site = deploy(rate_limit_app="5/minute")
    response = site.get()  # anonymous, and no address limit
    assert response.status_code == 200
    assert "RateLimit" not in response.headers and "RateLimit-Policy" not in response.headers
    probe = deploy(rate_limit_address="5/minute").get(path="/healthz")
    assert "RateLimit" not in probe.headers


def test_a_credential_that_does_not_resolve_is_counted_by_its_address(deploy):
    site = deploy(rate_limit_address="2/minute", rate_limit_app="100/minute")
    acme = site.register("Acme")
    forged = f"ta.{acme.id}.not-the-secret"
    assert site.codes(2, forged, "/v1/apps/me") == [401, 401]
    assert_refused(site.get(forged, "/v1/apps/me"), "address-60s", "2 per 1 minute")
    assert site.get(acme.key, "/v1/apps/me").status_code == 200, "the real key is counted by its app"


def test_creations_are_counted_per_creator(deploy):
    site = deploy(rate_limit_create="1/minute")
    acme = site.register("Acme")
    ann, bob = acme.player_token("ann"), acme.player_token("bob")

    def create(token: str | None = None) -> Any:
        return site.client.post("/v1/matches", json=MATCH, headers=bearer(token) if token else {})

    assert create(ann).status_code == 201
    assert_refused(create(ann), "create-60s", "1 per 1 minute")
    assert create(bob).status_code == 201, "each player creates on its own budget"
    assert create(acme.key).status_code == 201, "and the app key on the app's"
    assert create().status_code == 201, "none of it spent the address's"
    assert create().status_code == 429
    assert site.get(ann).status_code == 200, "the creation limit counts creations only"


def test_seat_tokens_keep_their_own_limit_beside_the_address(deploy):
    site = deploy(rate_limit_token="2/minute", rate_limit_address="100/minute", rate_limit_app="100/minute")
    table = Table(site.client, seed=5)
    assert [table.get(0).status_code for _ in range(2)] == [200, 200]
    refused = table.get(0)
    assert_refused(refused, "token-60s", "2 per 1 minute")
    assert table.get(1).status_code == 200
    # A seat token's call is not an app's: the address and the token are the partitions shown.
    assert limit_header(table.get())["name"] == "address-60s"


def test_counters_are_keyed_by_ids_never_by_a_credential(deploy, redis_url):
    site = deploy(rate_limit_app="10/minute", rate_limit_player="10/minute", rate_limit_token="10/minute")
    acme = site.register("Acme")
    ann = acme.player_token("ann")
    table = Table(site.client, seed=5)
    assert site.get(acme.key).status_code == site.get(ann).status_code == table.get(0).status_code == 200
    keys = b" ".join(redis.Redis.from_url(redis_url).keys(f"{KEY_PREFIX}*")).decode()
    assert f"/{acme.id}/app/" in keys and f"/{acme.id}:ann/player/" in keys
    for secret in (acme.key, ann, table.tokens[0], acme.key.rsplit(".", 1)[1], ann.rsplit(".", 1)[1]):
        assert secret not in keys


def test_get_my_app_shows_limits_and_usage_that_follow_the_calls(deploy):
    site = deploy(
        rate_limit_app="10/minute",
        rate_limit_player="4/minute",
        rate_limit_create="5/minute",
        max_waiters_per_app=77,
        max_waiters_per_player=7,
    )
    acme = site.register("Acme", {"rate": "20/minute;100/hour"})
    first = site.get(acme.key, "/v1/apps/me")
    assert first.status_code == 200, first.json
    me = first.json
    assert (me["id"], me["name"], me["status"]) == (acme.id, "Acme", "active")
    assert me["limits"] == {
        "rates": {"app": "20/minute;100/hour", "player": "4/minute", "create": "5/minute"},
        "max_waiters_per_app": 77,
        "max_waiters_per_player": 7,
        "tournaments": {  # issue 42: the app's tournament caps (tests/service/test_tournament_cost.py)
            "max_tournaments": 10,
            "max_scheduled_matches": 20_000,
            "max_matches_per_tournament": 10_000,
        },
        "overrides": {"rate": "20/minute;100/hour"},
    }
    counters = {c["policy"]: c for c in me["usage"]["rates"]}
    assert set(counters) == {"app-60s", "app-3600s", "create-60s"}
    assert counters["app-60s"] | {"reset": 0} == {
        "scope": "app",
        "policy": "app-60s",
        "limit": "20 per 1 minute",
        "quota": 20,
        "window": 60,
        "remaining": 19,  # this call counted
        "reset": 0,
    }
    assert 1 <= counters["app-60s"]["reset"] <= 60
    assert counters["app-3600s"]["remaining"] == 99
    assert counters["create-60s"]["remaining"] == 5 and counters["create-60s"]["reset"] == 0
    assert me["usage"]["players"] == 0
    assert me["usage"]["tournaments"] == {"tournaments": 0, "matches": 0}
    assert acme.key not in first.get_data(as_text=True) and "key" not in me

    ann = acme.player_token("ann")
    site.get(ann)
    site.client.post("/v1/matches", json=MATCH, headers=bearer(acme.key))
    again = {c["policy"]: c for c in site.get(acme.key, "/v1/apps/me").json["usage"]["rates"]}
    assert again["app-60s"]["remaining"] == 19 - 3, "the player's call, the creation and this one"
    assert again["create-60s"]["remaining"] == 4
    assert site.get(acme.key, "/v1/apps/me").json["usage"]["players"] == 1


def test_get_my_app_is_the_callers_own_app_only(deploy):
    site = deploy(rate_limit_app="10/minute")
    acme, other = site.register("Acme"), site.register("Other")
    assert site.codes(5, acme.key) == [200] * 5
    seen = site.get(other.key, "/v1/apps/me")
    assert seen.json["id"] == other.id and seen.json["name"] == "Other"
    assert seen.json["usage"]["rates"][0]["remaining"] == 9, "another app's calls are not counted here"
    assert acme.id not in seen.get_data(as_text=True)
    # Only an app key: a player token, a seat token or no credential is refused.
    table = Table(site.client, seed=5)
    for token in (acme.player_token("ann"), table.tokens[0], None):
        refused = site.get(token, "/v1/apps/me")
        assert refused.status_code == 401 and refused.json["code"] == "unauthorized"


def test_get_my_app_without_any_limit_configured(deploy):
    site = deploy()
    acme = site.register("Acme")
    me = site.get(acme.key, "/v1/apps/me")
    assert me.status_code == 200 and "RateLimit" not in me.headers
    assert me.json["limits"]["rates"] == {"app": None, "player": None, "create": None}
    assert me.json["usage"]["rates"] == []


def test_a_malformed_default_is_refused_at_start_up(deploy):
    for setting in ("rate_limit_app", "rate_limit_player"):
        with pytest.raises(ValueError, match=f"TABLETOP_{setting.upper()}"):
            deploy(**{setting: "lots per minute"})


def test_the_spec_documents_the_headers_and_get_my_app(deploy):
    spec = deploy().get(path="/openapi.json").json
    limited = spec["components"]["responses"]["RATE_LIMITED"]["headers"]
    assert {"Retry-After", "RateLimit", "RateLimit-Policy"} <= set(limited)
    assert {"RateLimit", "RateLimit-Policy"} <= set(spec["components"]["headers"])
    operation = spec["paths"]["/v1/apps/me"]["get"]
    assert operation["operationId"] == "getMyApp"
    assert set(operation["responses"]["200"]["headers"]) >= {"RateLimit", "RateLimit-Policy"}
    assert {"401", "429"} <= set(operation["responses"])
    assert "RateLimit" not in spec["paths"]["/healthz"]["get"]["responses"]["200"].get("headers", {})
