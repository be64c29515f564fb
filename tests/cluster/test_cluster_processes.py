"""End to end on a Redis Cluster, with real processes: the API under gunicorn and a ``tabletop
worker``, both told ``TABLETOP_REDIS_CLUSTER=true`` with the queue on a Redis of its own.  All-bot
matches of every game play to the end, a hint is answered, and a master fails over to its replica
during play, by ``CLUSTER FAILOVER`` and by SIGKILL: no acknowledged move is lost or doubled, and the
API answers 503 at worst while the cluster settles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from devtools.private_cluster import Node, PrivateCluster
from engine.registry import GAMES
from tabletop_client import Client
from tests.e2e.test_bot_matches import ROOT, WORKER_ENV
from tests.reliability.processes import ApiServer, bearer, call, stop

pytestmark = pytest.mark.timeout(600)

CLUSTER_ENV = {"redis_cluster": "true"}


@pytest.fixture(scope="module")
def stack(
    cluster: PrivateCluster, queue_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ApiServer]:
    cluster.flush()
    log = tmp_path_factory.mktemp("cluster-api") / "api.log"
    env = {
        **os.environ,
        **WORKER_ENV,
        "TABLETOP_REDIS_URL": cluster.url,
        "TABLETOP_REDIS_CLUSTER": "true",
        "TABLETOP_QUEUE_REDIS_URL": queue_url,
        "PYTHONPATH": str(ROOT),
    }
    worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT)
    try:
        with ApiServer(cluster.url, log, workers=2, queue_redis_url=queue_url, **CLUSTER_ENV) as api:
            yield api
    finally:
        stop(worker)


def wait_for(client: Client, match_id: str, done: Any, timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status, doc = call(client, "GET", f"/v1/matches/{match_id}")
        if status == 200 and done(doc):
            return doc
        assert time.monotonic() < deadline, (status, doc)
        time.sleep(0.2)


def test_all_bot_matches_of_every_game_finish_on_the_cluster(stack: ApiServer) -> None:
    client = stack.client()
    ids = []
    for game_id, game in sorted(GAMES.items()):
        seats = [{"name": f"b{i}", "kind": "bot", "level": "random"} for i in range(game.min_players)]
        status, doc = call(client, "POST", "/v1/matches", {"game": game_id, "seats": seats})
        assert status == 201, doc
        ids.append(doc["id"])
    for match_id in ids:
        done = wait_for(client, match_id, lambda d: d["status"] == "finished")
        assert done["result"] is not None
    status, page = call(client, "GET", "/v1/matches?status=finished&limit=2")
    assert status == 200 and len(page["matches"]) == 2 and page["next_cursor"]  # listing across shards


def test_a_hint_is_answered_on_the_cluster(stack: ApiServer) -> None:
    client = stack.client()
    body = {"game": "china", "seats": [{"name": "h"}, {"name": "b1", "kind": "bot", "level": "random"},
                                       {"name": "b2", "kind": "bot", "level": "random"}]}  # fmt: skip
    status, doc = call(client, "POST", "/v1/matches", body)
    assert status == 201
    token = doc["tokens"][0]["token"]
    wait_for(client, doc["id"], lambda d: d["to_move"] == 0)
    status, job = call(client, "POST", f"/v1/matches/{doc['id']}/hint", {"level": "easy"}, **bearer(token))
    # 202 while it runs; 200 when a worker answered the quick hint before the API did (the spec's 200)
    assert status in (200, 202) and job["id"].startswith("hint-"), job
    deadline = time.monotonic() + 30
    while status == 202:
        assert time.monotonic() < deadline, job
        time.sleep(0.2)
        status, job = call(client, "GET", f"/v1/jobs/{job['id']}", **bearer(token))
    assert status == 200 and job["status"] == "finished" and job["action"] is not None, job


class Player(threading.Thread):
    """Plays a two-human match as fast as it can: each move with an Idempotency-Key of its own, retried
    with the same key until answered (so a retry can never apply a move twice); records every move the
    API acknowledged (200) and every status it saw."""

    def __init__(self, api: ApiServer, match_id: str, tokens: dict[int, str]) -> None:
        super().__init__(daemon=True)
        self.api, self.match_id, self.tokens = api, match_id, tokens
        self.acked: list[tuple[int, dict[str, Any]]] = []  # (version, action)
        self.statuses: list[int] = []
        self.halt = threading.Event()

    def run(self) -> None:
        client = self.api.client()
        while not self.halt.is_set():
            status, doc = call(client, "GET", f"/v1/matches/{self.match_id}")
            self.statuses.append(status)
            if status != 200:
                time.sleep(0.1)
                continue
            if doc["status"] != "active":
                return
            token = self.tokens[doc["to_move"]]
            status, legal = call(client, "GET", f"/v1/matches/{self.match_id}/legal-actions", **bearer(token))
            self.statuses.append(status)
            if status != 200:
                time.sleep(0.1)
                continue
            action, key = legal["actions"][0], str(uuid.uuid4())
            headers = {**bearer(token), "If-Match": f'"{legal["version"]}"', "Idempotency-Key": key}
            while not self.halt.is_set():
                status, moved = call(
                    client, "POST", f"/v1/matches/{self.match_id}/actions", {"action": action}, **headers
                )
                self.statuses.append(status)
                if status == 200:
                    self.acked.append((moved["version"], action))
                if status != 503 and status != 0:
                    break
                time.sleep(0.1)


def slot_master(cluster: PrivateCluster, match_id: str) -> Node:
    slot = cluster.client().keyslot(f"tt:{{m:{match_id}}}:meta")
    for node in cluster.masters():
        for start, end, *_ in node.client().cluster("slots"):
            if start <= slot <= end and int(_[0][1]) == node.port:
                return node
    raise LookupError(slot)


def test_failover_during_play_loses_and_doubles_no_acknowledged_move(
    stack: ApiServer, cluster: PrivateCluster
) -> None:
    client = stack.client()
    players = []
    for _ in range(6):
        status, doc = call(
            client, "POST", "/v1/matches", {"game": "year_of_dragon", "seats": [{"name": "a"}, {"name": "b"}]}
        )
        assert status == 201
        players.append(Player(stack, doc["id"], {t["seat"]: t["token"] for t in doc["tokens"]}))
    for p in players:
        p.start()
    time.sleep(2)
    # A manual failover: the replica of match 0's master takes over (it catches up first).
    master = slot_master(cluster, players[0].match_id)
    cluster.replica_of(master).client().execute_command("CLUSTER", "FAILOVER")
    cluster.wait_ok()
    time.sleep(2)
    # A crash: SIGKILL the master of match 1's slot; its replica is promoted after the node timeout.
    victim = slot_master(cluster, players[1].match_id)
    victim.kill()
    time.sleep(6)
    cluster.wait_ok()
    time.sleep(2)
    for p in players:
        p.halt.set()
    for p in players:
        p.join(timeout=30)

    store = cluster.client()
    for p in players:
        log = [json.loads(row) for row in store.lrange(f"tt:{{m:{p.match_id}}}:log", 0, -1)]
        versions = [entry["version"] for entry in log]
        assert versions == list(range(1, len(log) + 1)), "a move was doubled or a version skipped"
        by_version = {entry["version"]: entry["action"] for entry in log}
        for version, action in p.acked:
            assert by_version.get(version) == action, f"acknowledged move v{version} of {p.match_id} lost"
        meta_version = int(store.hget(f"tt:{{m:{p.match_id}}}:meta", "version"))
        assert meta_version == len(log)
        assert set(p.statuses) <= {200, 503}, sorted(set(p.statuses))
        assert p.acked, "the player made no move at all"
    # The killed master comes back as its successor's replica: the cluster is whole for what follows.
    victim.start()
    deadline = time.monotonic() + 60
    while victim.role() != "slave" or victim.client().info("replication")["master_link_status"] != "up":
        assert time.monotonic() < deadline, "the old master did not rejoin as a replica"
        time.sleep(0.2)
    cluster.wait_ok()
