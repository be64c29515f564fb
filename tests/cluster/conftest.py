"""Fixtures of the cluster tests: one real Redis Cluster per session (three masters with one replica
each, see tests/cluster/local.py) holding the match state, and a plain Redis of its own for RQ's
queues, as ``TABLETOP_REDIS_CLUSTER`` / ``TABLETOP_QUEUE_REDIS_URL`` set them up in production.

The fixtures are named like the service tests' (``redis_url``, ``redis_client``, ``app``, ``client``),
so service test functions imported into a module here run unchanged against the cluster."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from devtools.private_cluster import PrivateCluster
from devtools.private_redis import PrivateRedis
from service.config import Config
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, make_config


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateCluster]:
    with PrivateCluster(Path(tmp_path_factory.mktemp("cluster"))) as running:
        yield running


@pytest.fixture(scope="session")
def queue_url() -> Iterator[str]:
    with PrivateRedis() as url:
        yield url


@pytest.fixture(scope="session")
def redis_url(cluster: PrivateCluster) -> str:
    return cluster.url


@pytest.fixture
def redis_client(cluster: PrivateCluster, queue_url: str) -> Any:
    cluster.flush()
    redis.Redis.from_url(queue_url).flushall()
    return cluster.client()


def cluster_config(cluster: PrivateCluster, queue_url: str, **overrides: Any) -> Config:
    return make_config(cluster.url, redis_cluster=True, queue_redis_url=queue_url, **overrides)


@pytest.fixture
def app(redis_client: Any, cluster: PrivateCluster, queue_url: str) -> Flask:
    return create_app(cluster_config(cluster, queue_url), games=TEST_GAMES)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()
