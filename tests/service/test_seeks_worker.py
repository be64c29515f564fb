"""The workers' matchmaking sweep in a real process (issue 27 points 3-5): the clock keeper of
``tabletop worker`` (:func:`workers.keeper.keep`, forked as the worker forks it) fills a seek's
seats with bots once its wait is over, expires seeks and challenges and tells their players, and makes
the match of a pairing whose poster died.  Waits poll with deadlines (the sweep runs once a second)."""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.config import Config
from service.domain.feeds import feed
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, new_app, put_player, token_for
from workers.keeper import keep

#: A game the worker knows (it runs the registered games, not the test ones).
GAME = "year_of_dragon"
DEADLINE = 20.0


@pytest.fixture
def config(redis_url: str) -> Config:
    return make_config(redis_url, admin_token=ADMIN)


@pytest.fixture
def app(redis_client: redis.Redis, config: Config) -> Flask:
    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def keeper(app: Flask, config: Config) -> Iterator[mp.process.BaseProcess]:
    """The clock keeper, a child process of this one (it stops when its parent is gone, or here)."""
    child = mp.get_context("fork").Process(target=keep, args=(config, os.getpid()), daemon=True)
    child.start()
    yield child
    child.terminate()
    child.join(10)


def until(check: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"not within {DEADLINE} s: {what}")


class Players:
    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.key = new_app(client, "worker")["key"]
        self.tokens = {}
        for pid in ("ann", "bob"):
            assert put_player(client, self.key, pid).status_code == 201
            self.tokens[pid] = token_for(client, self.key, pid, scopes=["play"])

    def as_(self, pid: str) -> dict[str, str]:
        return bearer(self.tokens[pid])

    def status(self, url: str, pid: str, wanted: str) -> dict[str, Any] | None:
        doc: dict[str, Any] = self.client.get(url, headers=self.as_(pid)).json
        return doc if doc["status"] == wanted else None

    def types(self, pid: str) -> list[str]:
        return [e["type"] for e in self.client.get("/v1/me/events", headers=self.as_(pid)).json["events"]]


def test_the_worker_fills_expires_and_finishes(client: FlaskClient, keeper: Any) -> None:
    players = Players(client)
    filled = client.post(
        "/v1/seeks",
        json={"game": GAME, "players": 3, "bots": {"allow": True, "after_seconds": 1, "level": "random"}},
        headers=players.as_("ann"),
    ).json
    lonely = client.post(
        "/v1/seeks", json={"game": GAME, "players": 2, "expires_in": 1}, headers=players.as_("bob")
    )
    assert filled["status"] == "open" and lonely.status_code == 201
    done = until(lambda: players.status(f"/v1/seeks/{filled['id']}", "ann", "matched"), "the bots' fill")
    match = client.get(f"/v1/matches/{done['match_id']}", headers=players.as_("ann")).json
    assert sorted((s["kind"], s.get("level")) for s in match["seats"]) == [
        ("bot", "random"),
        ("bot", "random"),
        ("human", None),
    ]
    until(lambda: players.status(f"/v1/seeks/{lonely.json['id']}", "bob", "expired"), "the seek's expiry")
    until(lambda: feed.SEEK_EXPIRED in players.types("bob"), "the seek_expired note")
    assert feed.SEEK_MATCHED in players.types("ann")

    challenge = client.post(
        "/v1/challenges", json={"game": GAME, "players": ["bob"], "expires_in": 1}, headers=players.as_("ann")
    ).json
    until(
        lambda: players.status(f"/v1/challenges/{challenge['id']}", "bob", "expired"),
        "the challenge's expiry",
    )
    until(lambda: feed.CHALLENGE_EXPIRED in players.types("ann"), "the challenge_expired note")

    seeks = client.application.extensions["tabletop"].seeks
    seeks.finish = lambda pool, pairing: ""  # the poster dies right after pairing
    ann = client.post("/v1/seeks", json={"game": GAME, "players": 2}, headers=players.as_("ann")).json
    bob = client.post("/v1/seeks", json={"game": GAME, "players": 2}, headers=players.as_("bob")).json
    assert bob["status"] == "pairing"
    made = until(lambda: players.status(f"/v1/seeks/{ann['id']}", "ann", "matched"), "the pairing's match")
    assert client.get(f"/v1/matches/{made['match_id']}", headers=players.as_("bob")).status_code == 200
    assert keeper.is_alive()
