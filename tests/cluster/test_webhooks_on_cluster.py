"""Webhooks on a Redis Cluster (issue 26; the layout is :mod:`service.storage.webhooks`'s): every key of
an app's webhooks carries the app's hash tag ``{a:<app>}``, so creating, rotating and deleting an
endpoint, queueing a note, claiming, recording an outcome and redelivering are each one script on one
slot, and the one global key, the due index ``tt:webhooks:due``, is only ever touched by scripts of its
own.  A script declaring a key it does not touch, or touching one it did not declare in another slot,
fails here (``CROSSSLOT`` or ``MOVED``) and nowhere on a single Redis.

The domain's and the API's tests of those operations run unchanged against the cluster (imported
below: pytest runs them with this module's fixtures, which are the cluster's; ``app1`` and ``app2``,
the domain tests' apps, sit on two different masters).  Then one test end to end, as deployed: the
Flask app commits a player match's moves on the cluster, a real delivery lane process started as
``tabletop worker`` starts it (:func:`workers.webhooks.spawn`, ``TABLETOP_REDIS_CLUSTER=true``) sends
the notes of two apps (on two masters) to a real receiver process; every note arrives, signed so that
``standardwebhooks.Webhook(secret).verify`` accepts it, under one ``webhook-id``, in its match's order;
and each app's webhook keys are all in its one slot."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from redis.crc import key_slot

from bench.webhook_receiver import ReceiverProcess
from devtools.private_cluster import PrivateCluster
from service.config import Config
from service.http.app import create_app
from service.storage.webhooks import wh_key
from tests.cluster.conftest import cluster_config
from tests.reliability.test_webhooks_reliability import check_deliveries, delivered, due
from tests.service import test_webhooks_api as api_tests
from tests.service import test_webhooks_domain as domain_tests
from tests.service.conftest import TEST_GAMES, bearer
from tests.service.test_accounts import ADMIN, Backend, play_one
from tests.service.test_webhooks_api import (  # noqa: F401  (run here, on the cluster)
    BASE,
    MAX_ENDPOINTS,
    backend,
    made,
    test_a_match_fills_the_log_with_what_the_player_may_see,
    test_a_ping_is_queued_logged_and_redelivered_under_the_same_id,
    test_another_app_finds_none_of_this_apps_endpoints_or_messages,
    test_endpoints_are_listed_read_updated_and_deleted,
    test_past_the_cap_an_app_gets_409,
    test_the_delivery_log_pages_newest_first,
)
from tests.service.test_webhooks_domain import (  # noqa: F401
    clock,
    hooks,
    test_410_gone_disables_the_endpoint_and_the_message_waits,
    test_a_failed_attempt_is_retried_with_the_same_id_after_a_jittered_pause,
    test_a_lease_that_ends_puts_the_message_back_under_the_same_id,
    test_a_match_s_messages_go_out_one_at_a_time_in_order,
    test_a_note_is_queued_once_per_endpoint_however_often_it_is_carried,
    test_a_rotated_secret_signs_beside_the_new_one_for_its_grace,
    test_an_app_has_at_most_the_configured_number_of_endpoints,
    test_another_apps_endpoint_is_not_found_whatever_is_asked,
    test_concurrency_per_endpoint_is_capped_across_claims,
    test_deleting_an_endpoint_drops_its_messages,
    test_redelivering_a_message_waiting_for_its_retry_makes_it_due_now,
    test_redelivery_sends_the_same_message_again,
    test_settling_re_reads_the_endpoint_when_it_drops_or_delays_it,
    test_the_delivery_log_pages_newest_first_and_filters_by_status,
    test_the_due_index_is_dropped_when_idle_and_woken_by_new_work,
    test_the_payload_is_the_players_feed_entry_and_no_token,
)
from workers.webhooks import spawn

# The two modules share a test's name: each runs here under a name of its own.
test_api_an_endpoint_is_created_with_its_secret_shown_once = (
    api_tests.test_an_endpoint_is_created_with_its_secret_shown_once
)
test_api_rotation_keeps_the_old_secret_for_the_grace_period = (
    api_tests.test_rotation_shows_a_new_secret_once_and_keeps_the_old_one_for_the_grace_period
)
test_domain_an_endpoint_is_created_with_its_secret_shown_once = (
    domain_tests.test_an_endpoint_is_created_with_its_secret_shown_once
)

__all__ = [
    "test_410_gone_disables_the_endpoint_and_the_message_waits",
    "test_a_failed_attempt_is_retried_with_the_same_id_after_a_jittered_pause",
    "test_a_lease_that_ends_puts_the_message_back_under_the_same_id",
    "test_a_match_fills_the_log_with_what_the_player_may_see",
    "test_a_match_s_messages_go_out_one_at_a_time_in_order",
    "test_a_note_is_queued_once_per_endpoint_however_often_it_is_carried",
    "test_a_ping_is_queued_logged_and_redelivered_under_the_same_id",
    "test_a_rotated_secret_signs_beside_the_new_one_for_its_grace",
    "test_an_app_has_at_most_the_configured_number_of_endpoints",
    "test_another_app_finds_none_of_this_apps_endpoints_or_messages",
    "test_another_apps_endpoint_is_not_found_whatever_is_asked",
    "test_api_an_endpoint_is_created_with_its_secret_shown_once",
    "test_api_rotation_keeps_the_old_secret_for_the_grace_period",
    "test_concurrency_per_endpoint_is_capped_across_claims",
    "test_deleting_an_endpoint_drops_its_messages",
    "test_domain_an_endpoint_is_created_with_its_secret_shown_once",
    "test_endpoints_are_listed_read_updated_and_deleted",
    "test_past_the_cap_an_app_gets_409",
    "test_redelivering_a_message_waiting_for_its_retry_makes_it_due_now",
    "test_redelivery_sends_the_same_message_again",
    "test_settling_re_reads_the_endpoint_when_it_drops_or_delays_it",
    "test_the_delivery_log_pages_newest_first",
    "test_the_delivery_log_pages_newest_first_and_filters_by_status",
    "test_the_due_index_is_dropped_when_idle_and_woken_by_new_work",
    "test_the_payload_is_the_players_feed_entry_and_no_token",
]

#: The domain tests' own settings (their ``config`` fixture's), here on the cluster.
DOMAIN_SETTINGS: dict[str, Any] = {
    "webhook_max_endpoints": 3,
    "webhook_retry_seconds": 600.0,
    "webhook_disable_after_seconds": 3600.0,
    "webhook_secret_grace_seconds": 100.0,
    "webhook_concurrency": 2,
}
#: The per-endpoint keys left once every message is delivered (``ready``, ``flight``, ``tails``: empty, gone).
ENDPOINT_PARTS = ("ep", "msgs", "body", "log", "done", "seen")
#: The service tests' games (their fixture game too), as ``create_app`` takes them.
GAMES: dict[str, Any] = TEST_GAMES
#: Seconds a lane may take to start (gevent re-exec, imports) on a loaded 2-core machine, and to send.
START_S = 25.0
SEND_S = 20.0


@pytest.fixture
def config(cluster: PrivateCluster, queue_url: str) -> Config:
    return cluster_config(cluster, queue_url, **DOMAIN_SETTINGS)


@pytest.fixture
def app(redis_client: Any, cluster: PrivateCluster, queue_url: str) -> Flask:
    """The API tests' app (loopback receivers allowed, as in development mode), on the cluster."""
    config = cluster_config(
        cluster,
        queue_url,
        admin_token=ADMIN,
        webhook_allow_http=True,
        webhook_allow_private=True,
        webhook_max_endpoints=MAX_ENDPOINTS,
    )
    return create_app(config, games=GAMES)


def test_the_domain_tests_apps_sit_on_two_masters(redis_client: Any) -> None:
    """So the imported domain tests exercise two apps' slots on two nodes, beside the due index."""
    nodes = {redis_client.get_node_from_key(wh_key(a, "routes")).name for a in ("app1", "app2")}
    assert len(nodes) == 2


# -- end to end -------------------------------------------------------------------------------------


def wait_until(what: str, ready: Callable[[], bool], timeout: float, lane: subprocess.Popen[bytes]) -> None:
    """Poll ``ready`` until it holds; fail after ``timeout`` seconds or if the lane exited."""
    deadline = time.monotonic() + timeout
    while not ready():
        assert lane.poll() is None, f"the lane exited with {lane.returncode} while waiting for {what}"
        assert time.monotonic() < deadline, f"{what}: not within {timeout:g} s"
        time.sleep(0.05)


def apps_on_two_masters(client: FlaskClient, cluster: Any) -> list[Backend]:
    """Two apps (ann and bob each) whose webhook keys live on two different masters: app ids are
    random, so apps are made until one lands away from the first (each lands elsewhere with odds of
    two in three; thirty misses in a row would be a broken cluster)."""
    first = Backend(client, "alpha")
    home = cluster.get_node_from_key(wh_key(first.app["id"], "routes")).name
    for _ in range(30):
        other = Backend(client, "beta")
        if cluster.get_node_from_key(wh_key(other.app["id"], "routes")).name != home:
            return [first, other]
    raise AssertionError("thirty apps in a row landed on one master")


def answer(client: FlaskClient, url: str, headers: dict[str, str]) -> Any:
    """A GET's JSON document, which must be there (200)."""
    resp = client.get(url, headers=headers)
    assert resp.status_code == 200, (url, resp.status_code, resp.get_data(as_text=True))
    return resp.json


def play(client: FlaskClient, owner: Backend, match_id: str, moves: int | None) -> None:
    """Up to ``moves`` moves (``None``: to the end) of whoever is to move, each through the API."""
    done = 0
    while moves is None or done < moves:
        doc = answer(client, f"/v1/matches/{match_id}", owner.as_("ann"))
        if doc["status"] != "active":
            return
        mover = owner.as_(("ann", "bob")[doc["to_move"]])
        assert play_one(client, match_id, mover).status_code == 200
        done += 1


def settled(client: FlaskClient, deliveries_url: str, key: dict[str, str]) -> Callable[[], bool]:
    """Whether the endpoint's log holds no pending message (for :func:`wait_until`)."""
    return lambda: answer(client, f"{deliveries_url}?status=pending", key)["deliveries"] == []


def stop(lane: subprocess.Popen[bytes]) -> None:
    if lane.poll() is None:
        lane.terminate()
        try:
            lane.wait(timeout=15)
        except subprocess.TimeoutExpired:
            lane.kill()
            lane.wait(timeout=10)


def test_a_real_lane_delivers_player_matches_from_the_cluster_to_a_real_receiver(
    redis_client: Any, cluster: PrivateCluster, queue_url: str, tmp_path: Path
) -> None:
    """Issue 26 points 2, 3 and 6 on the cluster: a backlog queued before the lane runs, then moves
    made while it runs; every note of both apps arrives signed, once per ``webhook-id``, in match
    order, and the delivery log says so; each app's keys are all in its slot."""
    config = cluster_config(
        cluster,
        queue_url,
        admin_token=ADMIN,
        webhook_allow_http=True,
        webhook_allow_private=True,
        webhook_retry_seconds=240.0,  # a retry (there should be none) comes within 10 s
    )
    client = create_app(config, games=GAMES).test_client()
    backends = apps_on_two_masters(client, redis_client)
    lane_log = tmp_path / "lane.log"
    with ReceiverProcess(log=tmp_path / "received.jsonl") as receiver:
        endpoints: dict[str, tuple[str, str, str]] = {}  # app -> (endpoint id, secret, receiver path)
        for b in backends:
            app_id = b.app["id"]
            doc = made(client, b.key, url=receiver.url(f"/ok/{app_id}"), description="cluster")
            endpoints[app_id] = (doc["id"], doc["secret"], f"/ok/{app_id}")
        matches = {b.app["id"]: [b.match()["id"] for _ in range(3)] for b in backends}
        for b in backends:
            for match_id in matches[b.app["id"]]:
                play(client, b, match_id, 2)  # the backlog: queued before any lane runs

        def all_delivered() -> bool:
            return all(
                delivered(receiver, path) >= set(due(redis_client, app_id, set(matches[app_id])))
                for app_id, (_, _, path) in endpoints.items()
            )

        with lane_log.open("wb") as log:
            lane = spawn(config, parent=os.getpid(), stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_until("the backlog", all_delivered, START_S, lane)
            for b in backends:
                for match_id in matches[b.app["id"]]:
                    play(client, b, match_id, None)  # to the end, while the lane runs
            wait_until("the moves made while the lane ran", all_delivered, SEND_S, lane)

            for b in backends:
                app_id = b.app["id"]
                endpoint_id, secret, path = endpoints[app_id]
                expected = due(redis_client, app_id, set(matches[app_id]))
                kinds = {note[3] for note in expected}
                assert {"invited", "match_started", "your_turn", "match_over"} <= kinds, kinds
                counts = check_deliveries(receiver, path, secret, expected)
                assert counts["messages"] == len(expected) > 20, counts
                # The delivery log agrees, once the lane has recorded the last outcomes.
                url = f"{BASE}/{endpoint_id}/deliveries"
                key = bearer(b.key)
                wait_until("the outcomes recorded", settled(client, url, key), SEND_S, lane)
                log_page = answer(client, f"{url}?status=delivered&limit=100", key)
                assert len(log_page["deliveries"]) == len(expected)
                assert {d["response_status"] for d in log_page["deliveries"]} == {204}
        finally:
            stop(lane)
    text = lane_log.read_text(errors="replace")
    assert "Traceback" not in text and "redis unavailable" not in text, text[-3000:]

    # Each app's webhook keys: all in the app's one slot (as the client and the server count it),
    # hence on one master; the two apps' on two.
    homes = set()
    for app_id, (endpoint_id, _, _) in endpoints.items():
        slot = key_slot(f"{{a:{app_id}}}".encode())
        found: dict[str, int] = {}
        for node in cluster.masters():
            server = node.client()
            for raw in server.keys(f"tt:{{a:{app_id}}}:wh:*"):
                name = raw.decode() if isinstance(raw, bytes) else str(raw)
                found[name] = node.port
                assert server.cluster("KEYSLOT", name) == slot  # the server's count
                assert key_slot(name.encode()) == slot  # redis-py's, which routes every command
        parts = {wh_key(app_id, "routes")} | {wh_key(app_id, f"{endpoint_id}:{p}") for p in ENDPOINT_PARTS}
        assert parts <= set(found), sorted(parts - set(found))
        assert len(set(found.values())) == 1
        homes.add(next(iter(found.values())))
    assert len(homes) == 2
