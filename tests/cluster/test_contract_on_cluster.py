"""Schemathesis against the app over a Redis Cluster (state) and a plain Redis (queue): the same
stateless and stateful runs as tests/contract/test_schemathesis.py, with the app built for the cluster."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from devtools.private_cluster import PrivateCluster
from service.http.app import create_app
from tests.cluster.conftest import cluster_config
from tests.contract.test_schemathesis import (  # noqa: F401  (fixtures and tests, run here on the cluster)
    ADMIN_TOKEN,
    api_schema,
    live_match,
    state_machine,
    test_operation_conforms,
    test_stateful_sequences_follow_the_links,
)
from tests.service.conftest import TEST_GAMES


@pytest.fixture(scope="module")
def examples() -> int:
    """Fewer cases than on one node (20): schema conformance is the same code on both; what the cluster
    adds is cross-slot access, which any valid case of an operation exercises."""
    return 5


@pytest.fixture(scope="module")
def app(cluster: PrivateCluster, queue_url: str) -> Flask:
    cluster.flush()
    config: Any = cluster_config(  # no hint bound, as in tests/contract/test_schemathesis.py
        cluster,
        queue_url,
        max_wait_seconds=0.05,
        stream_max_seconds=0.3,
        max_hints_per_address=0,
        admin_token=ADMIN_TOKEN,
    )
    return create_app(config, games=TEST_GAMES)
