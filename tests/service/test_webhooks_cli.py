"""``tabletop webhooks`` (issue 26 point 4: the delivery log and redelivery "in the CLI too"): the
operator lists an app's endpoints, reads an endpoint's delivery log, pings and redelivers, from a shell
against the real Redis, as a separate process; what it does shows on the app's own API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend

BASE = "/v1/apps/me/webhooks"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(redis_url, admin_token=ADMIN, webhook_allow_http=True, webhook_allow_private=True)
    return create_app(config, games=TEST_GAMES)


def tabletop(redis_url: str | None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    if redis_url is not None:
        env["TABLETOP_REDIS_URL"] = redis_url
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "webhooks", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def ok(done: subprocess.CompletedProcess[str]) -> Any:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_cli_lists_endpoints_reads_the_log_pings_and_redelivers(
    client: FlaskClient, redis_url: str
) -> None:
    backend = Backend(client, "alpha")
    key = bearer(backend.key)
    app_id = backend.app["id"]
    made = client.post(BASE, json={"url": "http://127.0.0.1:9/hook", "description": "pushes"}, headers=key)
    assert made.status_code == 201, made.json
    endpoint, secret = made.json["id"], made.json["secret"]

    listed = tabletop(redis_url, "list", app_id)
    assert secret not in listed.stdout and secret.removeprefix("whsec_") not in listed.stdout
    assert [(w["id"], w["description"], w["status"]) for w in ok(listed)] == [(endpoint, "pushes", "enabled")]
    assert ok(tabletop(redis_url, "deliveries", app_id, endpoint)) == {"deliveries": [], "next_cursor": None}

    pings = [ok(tabletop(redis_url, "ping", app_id, endpoint)) for _ in range(3)]
    assert all(p["type"] == "ping" and p["status"] == "pending" for p in pings)
    ids = [p["id"] for p in pings]
    # The app sees what the operator queued, and the operator what the app queues.
    api_log = client.get(f"{BASE}/{endpoint}/deliveries", headers=key).json["deliveries"]
    assert [m["id"] for m in api_log] == ids[::-1]
    fourth = client.post(f"{BASE}/{endpoint}/ping", headers=key).json["id"]
    page = ok(tabletop(redis_url, "deliveries", app_id, endpoint, "--limit", "2"))
    assert [m["id"] for m in page["deliveries"]] == [fourth, ids[2]] and page["next_cursor"]
    rest = ok(tabletop(redis_url, "deliveries", app_id, endpoint, "--before", page["next_cursor"]))
    assert [m["id"] for m in rest["deliveries"]] == ids[1::-1] and rest["next_cursor"] is None
    pending = ok(tabletop(redis_url, "deliveries", app_id, endpoint, "--status", "pending"))
    assert len(pending["deliveries"]) == 4
    assert (
        ok(tabletop(redis_url, "deliveries", app_id, endpoint, "--status", "delivered"))["deliveries"] == []
    )

    again = ok(tabletop(redis_url, "redeliver", app_id, endpoint, ids[0]))
    assert again["id"] == ids[0] and again["payload"] == pings[0]["payload"] and again["status"] == "pending"
    shown = client.get(f"{BASE}/{endpoint}/deliveries/{ids[0]}", headers=key).json
    assert shown["id"] == ids[0] and shown["status"] == "pending"


def test_the_cli_says_what_it_cannot_find(client: FlaskClient, redis_url: str) -> None:
    alpha, beta = Backend(client, "alpha"), Backend(client, "beta")
    made = client.post(BASE, json={"url": "http://127.0.0.1:9/hook"}, headers=bearer(alpha.key)).json
    assert ok(tabletop(redis_url, "list", beta.app["id"])) == []
    # Beta's id with alpha's endpoint: not found, as the API answers beta's key.
    for args in (
        ("deliveries", beta.app["id"], made["id"]),
        ("ping", beta.app["id"], made["id"]),
        ("redeliver", alpha.app["id"], made["id"], "msg_nope"),
        ("ping", alpha.app["id"], "nope"),
    ):
        done = tabletop(redis_url, *args)
        assert done.returncode == 1 and "not found" in done.stderr, (args, done.stderr)
        assert done.stdout == ""
    assert client.get(f"{BASE}/{made['id']}/deliveries", headers=bearer(alpha.key)).json["deliveries"] == []
    assert tabletop(None, "list", alpha.app["id"]).returncode == 2  # TABLETOP_REDIS_URL is needed
    assert tabletop(redis_url, "list").returncode == 2  # an app id is needed (argparse)
    assert tabletop(redis_url, "deliveries", alpha.app["id"], made["id"], "--status", "lost").returncode == 2
