"""The operator's view of an app's tournaments (issue 42, point 1): ``GET
/v1/admin/apps/{id}/tournaments`` lists them (an active app's or a revoked one's) and ``POST
/v1/admin/apps/{id}/tournaments/{tournament_id}/cancel`` cancels one, with the admin token only; a
revoked app's tournaments are cancelled by its revocation."""

from __future__ import annotations

import time
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config

ADMIN = "admin-secret"
AS_ADMIN = bearer(ADMIN)


@pytest.fixture
def operator(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


def new_app(client: FlaskClient, name: str) -> dict[str, Any]:
    made = client.post("/v1/admin/apps", json={"name": name}, headers=AS_ADMIN)
    assert made.status_code == 201, made.json
    return dict(made.json)


def tournament(client: FlaskClient, key: str, **extra: Any) -> dict[str, Any]:
    body = {
        "game": "high_card",
        "players": 2,
        "format": "round_robin",
        "entrants": [{"level": "random"}, {"level": "random", "name": "Random B"}],
        "matches_per_pairing": 4,
        **extra,
    }
    made = client.post("/v1/tournaments", json=body, headers=bearer(key))
    assert made.status_code == 201, made.json
    return dict(made.json)


def test_the_operator_lists_and_cancels_an_app_s_tournaments(operator: Flask) -> None:
    client = operator.test_client()
    league, other = new_app(client, "League"), new_app(client, "Other")
    first = tournament(client, league["key"])
    second = tournament(client, league["key"], starts_at=time.time() + 3600)
    tournament(client, other["key"])
    url = f"/v1/admin/apps/{league['id']}/tournaments"
    listed = client.get(url, headers=AS_ADMIN)
    assert listed.status_code == 200, listed.json
    assert [t["id"] for t in listed.json["tournaments"]] == [second["id"], first["id"]]  # newest first
    assert listed.json["next"] is None
    scheduled = client.get(url, query_string={"status": "scheduled"}, headers=AS_ADMIN).json
    assert [t["id"] for t in scheduled["tournaments"]] == [second["id"]]

    cancelled = client.post(f"{url}/{second['id']}/cancel", headers=AS_ADMIN)
    assert cancelled.status_code == 200 and cancelled.json["status"] == "cancelled", cancelled.json
    again = client.post(f"{url}/{second['id']}/cancel", headers=AS_ADMIN)
    assert again.status_code == 409 and again.json["code"] == "tournament_over"
    # Another app's tournament is not found through this app, and no key but the admin token will do.
    theirs = client.get(f"/v1/admin/apps/{other['id']}/tournaments", headers=AS_ADMIN).json["tournaments"]
    missing = client.post(f"{url}/{theirs[0]['id']}/cancel", headers=AS_ADMIN)
    assert missing.status_code == 404 and missing.json["code"] == "tournament_not_found"
    assert client.get(url, headers=bearer(league["key"])).status_code == 401
    assert client.post(f"{url}/{first['id']}/cancel", headers=bearer(league["key"])).status_code == 401
    assert client.get("/v1/admin/apps/nope/tournaments", headers=AS_ADMIN).status_code == 404
    bad = client.get(url, query_string={"status": "sideways"}, headers=AS_ADMIN)
    assert bad.status_code == 422 and bad.json["details"]["field"] == "status"


def test_revoking_an_app_cancels_its_tournaments_and_the_operator_still_sees_them(operator: Flask) -> None:
    client = operator.test_client()
    league, other = new_app(client, "League"), new_app(client, "Other")
    running = tournament(client, league["key"])
    scheduled = tournament(client, league["key"], starts_at=time.time() + 3600)
    kept = tournament(client, other["key"])
    assert client.delete(f"/v1/admin/apps/{league['id']}", headers=AS_ADMIN).status_code == 200
    listed = client.get(f"/v1/admin/apps/{league['id']}/tournaments", headers=AS_ADMIN).json["tournaments"]
    assert {t["id"]: t["status"] for t in listed} == {
        running["id"]: "cancelled",
        scheduled["id"]: "cancelled",
    }
    theirs = client.get(f"/v1/tournaments/{kept['id']}", headers=bearer(other["key"])).json
    assert theirs["status"] == "running"
