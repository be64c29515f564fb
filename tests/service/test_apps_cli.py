"""``tabletop apps`` (issue 25 point 1): the operator registers, lists, rotates and revokes apps from a
shell, against the real Redis, as a separate process; the key it prints works on the API once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import redis
from flask.testing import FlaskClient

from tests.service.conftest import bearer


def tabletop(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url}
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "apps", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_apps_cli_creates_lists_rotates_and_revokes(
    client: FlaskClient, redis_client: redis.Redis, redis_url: str
) -> None:
    made = tabletop(redis_url, "create", "Mobile backend")
    assert made.returncode == 0, made.stderr
    app = json.loads(made.stdout)
    assert app["name"] == "Mobile backend" and app["key"].startswith(f"ta.{app['id']}.")
    assert client.put("/v1/players/ann", json={"name": "Ann"}, headers=bearer(app["key"])).status_code == 201
    listed = json.loads(tabletop(redis_url, "list").stdout)
    assert [a["id"] for a in listed] == [app["id"]] and "key" not in listed[0]
    rotated = json.loads(tabletop(redis_url, "rotate", app["id"]).stdout)
    assert client.get("/v1/players/ann", headers=bearer(app["key"])).status_code == 401
    assert client.get("/v1/players/ann", headers=bearer(rotated["key"])).status_code == 200
    assert json.loads(tabletop(redis_url, "revoke", app["id"]).stdout)["status"] == "revoked"
    assert client.get("/v1/players/ann", headers=bearer(rotated["key"])).status_code == 401
    missing = tabletop(redis_url, "rotate", "nope")
    assert missing.returncode == 1 and "not found" in missing.stderr
    assert tabletop(redis_url, "create").returncode == 2  # a name is required
