"""Web Push end to end (issue 48 point 3): a real move in a player match queues the next player's
``your_turn``; a real ``tabletop worker --lanes push`` process (the RQ lane as production runs it) sends
it to a push-service stand-in on loopback (pytest-httpserver, threaded, in this process), which checks
the request as a push service does (``Authorization: vapid t=<JWT>, k=<key>`` against the server's
published key, ``Content-Encoding: aes128gcm``, ``TTL``, ``Urgency``, ``Topic``) and decrypts the body
with the subscription's private key and auth secret, as the browser would.  A ``500`` is retried; a
``410`` deletes the subscription.  Loopback and plain http are allowed, as in development mode."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from service.config import Config
from service.domain.push.messages import DAY, topic
from service.http.app import create_app
from tests.reliability.processes import kill_tree
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one
from tests.service.test_push import BrowserKeys, check_vapid

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Push:
    """One message the stand-in got: when, for which browser (the path), its headers, and the payload
    decrypted with that browser's keys."""

    at: float
    path: str
    headers: dict[str, str]
    payload: dict[str, Any]
    status: int


class PushService:
    """A push service on loopback: one endpoint path per subscribed browser; each POST is decrypted with
    that browser's keys (a body it cannot decrypt fails the test), and answered by ``answers`` (a list
    of statuses per path, taken in turn; ``201 Created`` once they run out)."""

    def __init__(self) -> None:
        self.server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        self.server.expect_request(re.compile(".*"), method="POST").respond_with_handler(self._handle)
        self.browsers: dict[str, BrowserKeys] = {}
        self.answers: dict[str, list[int]] = {}
        self.got: list[Push] = []
        self.errors: list[str] = []
        self.lock = threading.Lock()
        self.server.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def endpoint(self, name: str, browser: BrowserKeys) -> str:
        self.browsers[f"/push/{name}"] = browser
        return f"{self.origin}/push/{name}"

    def _handle(self, request: Request) -> Response:
        headers = {k.lower(): v for k, v in request.headers.items()}
        try:
            doc = self.browsers[request.path].decrypt(request.get_data())
        except Exception as exc:  # the test fails on it (a message nobody can read)
            with self.lock:
                self.errors.append(f"{request.path}: {exc!r}")
            return Response(status=400)
        with self.lock:
            queue = self.answers.get(request.path) or []
            status = queue.pop(0) if queue else 201
            self.got.append(Push(time.time(), request.path, headers, doc, status))
        return Response(status=status)

    def wait(self, what: Callable[[], bool], timeout: float = 30.0, message: str = "") -> None:
        deadline = time.monotonic() + timeout
        while not what():
            assert not self.errors, self.errors
            assert time.monotonic() < deadline, message or f"timed out; got {self.got}"
            time.sleep(0.05)
        assert not self.errors, self.errors

    def stop(self) -> None:
        if self.server.is_running():
            self.server.stop()


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()
    yield service
    service.stop()


@pytest.fixture
def settings(redis_url: str) -> Config:
    return make_config(
        redis_url,
        admin_token=ADMIN,
        webhook_allow_http=True,
        webhook_allow_private=True,
        webhook_timeout_seconds=2.0,
    )


def start_push_lane(config: Config) -> subprocess.Popen[bytes]:
    """``tabletop worker --lanes push`` with ``config``'s settings (its keeper and sweeper beside)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update({"TABLETOP_REDIS_URL": config.redis_url, "TABLETOP_WEBHOOK_ALLOW_HTTP": "true",
                "TABLETOP_WEBHOOK_ALLOW_PRIVATE": "true", "TABLETOP_WEBHOOK_TIMEOUT_SECONDS": "2",
                "TABLETOP_LOG_LEVEL": "WARNING", "PYTHONPATH": str(ROOT)})  # fmt: skip
    cmd = [sys.executable, "-m", "service.cli", "worker", "--lanes", "push"]
    return subprocess.Popen(cmd, env=env, cwd=ROOT)


def hand_bob_the_turn(client: FlaskClient, backend: Backend, match_id: str, seats: dict[int, str]) -> int:
    """Play (each seat its first legal action) until a move of ann's gives bob the turn; the version
    bob's turn starts at."""
    url = f"/v1/matches/{match_id}"
    for _ in range(50):
        now = client.get(url, headers=bearer(backend.key)).json
        assert now["status"] == "active", "the match ended before bob's turn came"
        mover = seats[now["to_move"]]
        assert play_one(client, match_id, backend.as_(mover)).status_code == 200
        after = client.get(url, headers=bearer(backend.key)).json
        if mover == "ann" and seats.get(after["to_move"]) == "bob":
            return int(after["version"])
    raise AssertionError("bob's turn never came")


def play_to_the_end(client: FlaskClient, backend: Backend, match_id: str, seats: dict[int, str]) -> None:
    url = f"/v1/matches/{match_id}"
    while (now := client.get(url, headers=bearer(backend.key)).json)["status"] == "active":
        assert play_one(client, match_id, backend.as_(seats[now["to_move"]])).status_code == 200


def test_a_real_turn_is_pushed_encrypted_and_signed_retried_after_a_500_and_a_410_ends_it(
    redis_client: redis.Redis,
    settings: Config,
    push_service: PushService,
) -> None:
    client = create_app(settings, games=TEST_GAMES).test_client()
    backend = Backend(client, "pushing")
    match = backend.match(options={"rounds": 4, "swaps": False})
    seats = {0: "ann", 1: "bob"}
    public_key = client.get("/v1/push/vapid-public-key").json["public_key"]
    browser = BrowserKeys()
    endpoint = push_service.endpoint("bob", browser)
    sub = client.post("/v1/me/push-subscriptions", json={"endpoint": endpoint, "keys": browser.keys},
                      headers=backend.as_("bob"))  # fmt: skip
    assert sub.status_code == 201, sub.json
    lane = start_push_lane(settings)
    try:
        # 1. A real move of ann's gives bob the turn: the lane pushes it, signed and encrypted for bob.
        version = hand_bob_the_turn(client, backend, match["id"], seats)
        push_service.wait(lambda: any(p.payload["data"]["version"] == version for p in push_service.got))
        first = next(p for p in push_service.got if p.payload["data"]["version"] == version)
        check_vapid(first.headers["authorization"], public_key, push_service.origin, settings.vapid_subject)
        assert first.headers["content-encoding"] == "aes128gcm"
        assert first.headers["content-type"] == "application/octet-stream"
        assert 0 < int(first.headers["ttl"]) <= DAY and first.headers["urgency"] == "normal"
        assert first.headers["topic"] == topic("your_turn", match["id"])
        doc = first.payload
        assert (
            doc["type"] == "your_turn"
            and doc["title"] == "Your turn"
            and doc["url"] == f"/play/{match['id']}"
        )
        assert doc["data"]["match_id"] == match["id"] and doc["data"]["my_turn"] is True
        assert not any("token" in k for k in doc["data"])
        # 2. The push service fails once (500): the same message comes again, and is delivered.
        push_service.answers["/push/bob"] = [500]
        seen = len(push_service.got)
        version = hand_bob_the_turn(client, backend, match["id"], seats)
        push_service.wait(lambda: sum(p.payload["data"]["version"] == version for p in push_service.got) >= 2)
        tries = [p for p in push_service.got[seen:] if p.payload["data"]["version"] == version]
        assert [p.status for p in tries[:2]] == [500, 201]
        assert tries[0].payload == tries[1].payload and 0.9 <= tries[1].at - tries[0].at < 15
        # 3. The browser unsubscribed (410 Gone): the subscription is deleted, nothing more is sent.
        push_service.answers["/push/bob"] = [410]
        seen = len(push_service.got)
        play_to_the_end(client, backend, match["id"], seats)  # bob's turns, and the match's end
        mine = backend.as_("bob")
        push_service.wait(
            lambda: client.get("/v1/me/push-subscriptions", headers=mine).json["subscriptions"] == []
        )
        time.sleep(0.5)  # anything queued before the deletion finds no subscription
        assert [p.status for p in push_service.got[seen:]] == [410]
    finally:
        kill_tree(lane)
