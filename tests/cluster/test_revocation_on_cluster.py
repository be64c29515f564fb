"""Revocation on a Redis Cluster (issue 42, point 1): an announcement published on the cluster reaches
the live reader's pub/sub connection, the hub ends the waiters it covers, and the guard's read of its
waiters' credentials (apps and tokens in many slots, one pipeline) finds a revoked token and a revoked
app, with the tests of tests/service/test_revocation_live.py run unchanged against the cluster."""

from __future__ import annotations

import time
from typing import Any

from devtools.private_cluster import PrivateCluster
from service.domain.identity import APP, Caller
from service.http.app import create_app
from service.live.credentials import Credential
from service.live.topics import Topic
from tests.cluster.conftest import cluster_config
from tests.service.conftest import TEST_GAMES
from tests.service.test_revocation_live import (  # noqa: F401
    QUOTA,
    ended,
    test_a_credential_revoked_just_before_its_waiter_subscribes_is_refused,
    test_a_revocation_ends_exactly_the_waiters_it_covers,
    test_an_announcement_on_redis_reaches_the_reader,
)


def test_the_guard_reads_credentials_across_the_cluster_s_slots(
    redis_client: Any, cluster: PrivateCluster, queue_url: str
) -> None:
    app = create_app(cluster_config(cluster, queue_url, credential_check_seconds=0.5), games=TEST_GAMES)
    accounts = app.extensions["tabletop"].accounts
    live = app.extensions["tabletop"].live
    apps = [accounts.create_app(f"App {i}") for i in range(3)]
    subs = []
    for made in apps:
        caller = Caller(APP, app=made["id"])
        for player in ("ann", "bob", "cy"):
            accounts.put_player(caller, player, player.title(), False)
            token = accounts.mint_token(caller, player, ["read"], None)
            key = f"{made['id']}:{player}"
            credential = Credential(made["id"], key, token["id"], token["expires_at"])
            subs.append(
                (made["id"], player, token["id"], live.subscribe(Topic.player(key), QUOTA, credential))
            )
    try:
        first_app, _, first_token, first = subs[0]
        accounts.store.revoke_token(f"{first_app}:ann", first_token)  # unannounced: the guard finds it
        assert ended(first) == "token_revoked"
        accounts.store.update_app(apps[2]["id"], status="revoked")
        for app_id, _, _, sub in subs:
            if app_id == apps[2]["id"]:
                assert ended(sub) == "app_revoked"
        time.sleep(1.0)  # another look or two: the rest hold
        assert [sub.revoked for app_id, _, _, sub in subs[1:] if app_id != apps[2]["id"]] == [None] * 5
    finally:
        for *_, sub in subs:
            sub.close()
