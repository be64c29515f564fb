"""Faults an operator meets (issue 23: findings 1, 9 and 11a) and a contract without surprises (issue 28,
item 4), against a real Redis (the service tests' own) and, for the replicas, a real Redis Cluster.

The stall itself, with ``tabletop serve``, a worker and a stopped Redis, is tests/reliability/
test_probe_stall.py; here is what one app shows of it in process.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from devtools.private_cluster import PrivateCluster
from service.config import Config
from service.http.app import OFFLINE_REDIS_URL, create_app
from service.http.context import EXTENSION
from service.http.spec import render
from tests.service.conftest import TEST_GAMES, Table, make_config
from workers.worker import BotWorker

ROOT = Path(__file__).resolve().parents[2]


# -- issue 23, finding 1: /readyz must not lengthen the API's Redis timeout --------------------------


def test_readyz_with_a_live_worker_leaves_the_apis_redis_timeout_alone(app: Flask, redis_client):
    """RQ's ``Worker`` constructor raises its connection pool's socket timeout to minutes; ``/readyz``
    counting workers by building them did that to the API's pool."""
    worker = BotWorker(["bots"], connection=redis_client)  # its own connection, as in a worker process
    worker.register_birth()
    worker.heartbeat()
    try:
        assert app.test_client().get("/readyz").json == {"status": "ready"}
        assert app.extensions[EXTENSION].matches.bots.live_workers() == 1
    finally:
        worker.register_death()
    config = app.extensions[EXTENSION].config
    pools = {app.extensions[EXTENSION].matches.store.redis.connection_pool}
    pools.add(app.extensions[EXTENSION].matches.bots.connection.connection_pool)
    for pool in pools:
        assert pool.connection_kwargs["socket_timeout"] == config.redis_timeout_seconds


def test_every_storage_503_says_when_to_retry():
    app = create_app(Config(redis_url="unix:///nonexistent/redis.sock"), games={})
    for path in ("/readyz", "/v1/matches", "/metrics"):
        resp = app.test_client().get(path)
        assert resp.status_code == 503 and resp.json["code"] == "unavailable", (path, resp.json)
        assert resp.headers["Retry-After"] == "1", path


# -- issue 23, finding 9: a cluster with fewer replicas than writes wait for -------------------------


@pytest.fixture(scope="module")
def lone_masters(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateCluster]:
    """A Redis Cluster of three masters and no replica: what ``TABLETOP_REDIS_WAIT_REPLICAS=1`` (the
    default) cannot work with."""
    with PrivateCluster(tmp_path_factory.mktemp("lone"), masters=3, replicas=0) as cluster:
        yield cluster


def cluster_app(cluster: PrivateCluster, queue_url: str, **overrides: Any) -> Flask:
    config = make_config(cluster.url, redis_cluster=True, queue_redis_url=queue_url, **overrides)
    return create_app(config, games=TEST_GAMES)


def test_a_cluster_without_the_replicas_writes_wait_for_says_so_in_the_503_a_log_line_and_readyz(
    lone_masters, redis_url, redis_client, caplog
):
    lone_masters.flush()
    client = cluster_app(lone_masters, redis_url).test_client()
    seats = [{"name": "a"}, {"name": "b"}]
    with caplog.at_level(logging.ERROR, logger="service.http.errors"):
        answers = [client.post("/v1/matches", json={"game": "high_card", "seats": seats}) for _ in range(2)]
    for resp in answers:
        assert resp.status_code == 503 and resp.headers["Retry-After"] == "1", resp.json
        message = resp.json["message"]
        assert message.startswith("WAIT: 0 of 1 replica(s) acknowledged"), message
        assert "set TABLETOP_REDIS_WAIT_REPLICAS=0 or add replicas" in message, message
    logged = [r.getMessage() for r in caplog.records if r.name == "service.http.errors"]
    assert logged == [answers[0].json["message"]]  # once, however many writes fail
    ready = client.get("/readyz")
    assert ready.status_code == 503, ready.json
    assert "a master has 0 of the 1 replica(s)" in ready.json["message"], ready.json
    assert "TABLETOP_REDIS_WAIT_REPLICAS=0" in ready.json["message"], ready.json

    trusting = cluster_app(lone_masters, redis_url, redis_wait_replicas=0).test_client()
    assert trusting.post("/v1/matches", json={"game": "high_card", "seats": seats}).status_code == 201
    assert trusting.get("/readyz").json == {"status": "ready"}


# -- issue 23, finding 11a: If-Match is the ETag as sent -----------------------------------------------


@pytest.mark.parametrize("sent", ['"00"', '"01"', '"+1"', '" 1"', '"1 "', '"0x1"', '"-0"'])
def test_if_match_must_be_the_version_written_as_the_etag_writes_it(table: Table, sent: str):
    seat = table.created.json["to_move"]
    resp = table.move(seat, table.legal(seat)[0], None, **{"If-Match": sent})
    assert resp.status_code == 422 and resp.json["details"]["field"] == "If-Match", resp.json
    assert resp.json["message"].startswith("If-Match: must be a version in double quotes"), resp.json
    assert table.get().json["version"] == 0


def test_a_padded_version_is_refused_with_the_canonical_form_and_that_one_is_accepted(table: Table):
    seat = table.created.json["to_move"]
    action = table.legal(seat)[0]
    refused = table.move(seat, action, None, **{"If-Match": '"00"'})
    assert 'send If-Match: "0"' in refused.json["message"], refused.json
    assert table.move(seat, action, None, **{"If-Match": '"0"'}).status_code == 200


# -- issue 28, item 4: a contract without surprises ---------------------------------------------------


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    """The spec the app serves now (the committed file is regenerated from it)."""
    return json.loads(render(create_app(Config(redis_url=OFFLINE_REDIS_URL))))


def test_every_operation_has_an_operation_id_of_its_own(spec):
    operations = [
        (method, path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in {"get", "post", "put", "patch", "delete"}
    ]
    assert [(m, p) for m, p, op in operations if "operationId" not in op] == []
    ids = [op["operationId"] for _, _, op in operations]
    assert len(ids) == len(set(ids)) and len(ids) >= 20
    assert {"listGames", "getGame", "getGameRules", "getHealth", "getReadiness", "getMetrics"} <= set(ids)


def test_status_is_one_enum_wherever_a_match_status_appears(spec):
    schemas = spec["components"]["schemas"]
    status = {"$ref": "#/components/schemas/MatchStatus"}
    assert schemas["MatchStatus"]["enum"] == ["waiting", "active", "finished", "aborted"]
    for name in ("MatchSummary", "ChinaMatch", "ChinaCreatedMatch", "ChinaMoveResult", "ChinaEventsPage"):
        assert schemas[name]["properties"]["status"] == status, name
    listing = spec["paths"]["/v1/matches"]["get"]["parameters"]
    assert next(p for p in listing if p["name"] == "status")["schema"] == status


def test_request_fields_the_server_defaults_are_optional_in_generated_types(spec):
    """openapi-typescript makes a property with a ``default`` required; the request components say
    their defaults in words instead, and a bot seat's ``kind`` has the default a Python model fills in."""
    schemas = spec["components"]["schemas"]
    human = schemas["HumanSeatRequest"]
    assert human["required"] == ["name"] and "default" not in human["properties"]["kind"]
    assert 'Default: `"human"`' in human["properties"]["kind"]["description"]
    bot = schemas["BotSeatRequest"]
    assert "kind" in bot["required"] and bot["properties"]["kind"]["default"] == "bot"
    create = schemas["ChinaCreateMatch"]["properties"]["visibility"]
    # The default depends on the caller (private with an app key or a player token): the text says so.
    assert "default" not in create and "Default: `private` for a match created with an app key" in (
        create["description"]
    )


def test_a_bare_name_is_a_human_seat_and_a_bot_seat_still_needs_its_kind(client):
    created = client.post(
        "/v1/matches", json={"game": "high_card", "seats": [{"name": "me"}, {"name": "you"}]}
    )
    assert [s["kind"] for s in created.json["seats"]] == ["human", "human"]
    no_kind = client.post(
        "/v1/matches", json={"game": "high_card", "seats": [{"name": "me"}, {"name": "b", "level": "easy"}]}
    )
    assert no_kind.status_code == 422 and no_kind.json["details"]["field"] == "seats.1.level", no_kind.json


def test_a_wait_above_the_maximum_waits_the_maximum(redis_client, redis_url):
    client = create_app(make_config(redis_url, max_wait_seconds=1.0), games=TEST_GAMES).test_client()
    table = Table(client, seed=7)
    started = time.monotonic()
    resp = table.get(suffix="/events?after=0-1&wait=31")
    seconds = time.monotonic() - started
    assert resp.status_code == 200 and resp.json["events"] == [], resp.json
    assert 0.9 < seconds < 3, seconds
    assert table.get(suffix="/events?wait=-1").status_code == 422


def test_the_demo_exits_quietly_when_its_reader_has_gone():
    """``tabletop demo | head``: the reader closes the pipe; here before the demo writes anything, so
    every write fails, as the last ones do after ``head`` has its lines."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "demo", "--game", "china"],
        stdout=write_end, stderr=subprocess.PIPE, cwd=ROOT, timeout=60,
    )  # fmt: skip
    os.close(write_end)
    assert done.returncode == 0 and done.stderr == b"", done.stderr.decode()
