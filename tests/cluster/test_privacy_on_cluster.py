"""A player's export and deletion (issue 48) on a Redis Cluster: the player of
:mod:`tests.service.test_privacy`, whose data lies in many slots (their own, the app's, each match's, a
seek pool's, a challenge's, the ratings'), is exported and deleted through the app as on one Redis.  A
deletion sends no command a cluster refuses (a multi-key ``DEL`` in a pipeline, a transaction across
slots): each store groups its writes by slot.  Push jobs live in the queue's own Redis here, which the
service test searches; this one searches the cluster."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from devtools.private_cluster import PrivateCluster
from service.http.app import create_app
from tests.cluster.conftest import cluster_config
from tests.service import test_privacy as on_redis  # its tests are called, not collected here
from tests.service.conftest import TEST_GAMES
from tests.service.test_accounts import ADMIN
from tests.service.test_privacy import ZED, ZED_NAME, World, naming


@pytest.fixture
def app(redis_client: Any, cluster: PrivateCluster, queue_url: str) -> Flask:
    config = cluster_config(
        cluster, queue_url, admin_token=ADMIN, webhook_allow_http=True, webhook_allow_private=True
    )
    return create_app(config, games=TEST_GAMES)


def test_a_player_spread_over_the_cluster_is_exported_and_deleted(
    app: Flask, client: FlaskClient, redis_client: Any
) -> None:
    world = World(client)
    named = naming(redis_client, (ZED.encode(), ZED_NAME.encode()))
    nodes = {redis_client.get_node_from_key(key).name for key in named}
    assert len(nodes) > 1, nodes  # the player's data is on more than one master
    on_redis.test_the_export_holds_everything_about_the_player_and_no_secret(world)
    on_redis.test_deleting_a_player_leaves_nothing_that_names_them(app, world, redis_client)
