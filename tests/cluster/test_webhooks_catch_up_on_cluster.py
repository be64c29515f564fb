"""Issue 42's webhook scripts on a Redis Cluster: the catch-up, the probe, disabling an app's endpoints
(in batches) and putting back a claimed message not sent each touch one app's slot only (its hash tag
``{a:<app>}``); a key undeclared or in another slot fails here (``CROSSSLOT``, ``MOVED``) and nowhere on
a single Redis.  The domain tests of tests/service/test_webhooks_catch_up.py run unchanged, with this
module's cluster ``config`` (``app1`` and ``app2`` sit on two masters:
tests/cluster/test_webhooks_on_cluster.py checks it)."""

from __future__ import annotations

from typing import Any

import pytest

from devtools.private_cluster import PrivateCluster
from service.config import Config
from tests.cluster.conftest import cluster_config
from tests.service.test_webhooks_catch_up import (  # noqa: F401  (run here, on the cluster)
    clock,
    hooks,
    statuses,
    test_a_failing_endpoint_is_probed_within_a_tenth_of_its_outage,
    test_a_lane_finding_a_revoked_app_with_an_enabled_endpoint_disables_it,
    test_a_message_claimed_before_its_endpoint_was_disabled_is_held_back_and_waits,
    test_a_message_the_receiver_refuses_is_not_retried_at_the_pace_of_other_successes,
    test_a_retry_that_succeeds_catches_the_rest_up_too,
    test_after_an_outage_the_first_success_makes_every_waiting_message_due_in_match_order,
    test_disable_app_disables_every_endpoint_for_good_and_sends_nothing_more,
    test_disable_app_fails_a_long_backlog_in_batches,
    test_enabling_an_endpoint_makes_its_waiting_messages_due_at_once,
    test_the_probe_never_comes_before_the_receiver_s_retry_after,
)

#: The catch-up tests' own settings (their ``config`` fixture's), here on the cluster.
SETTINGS: dict[str, Any] = {
    "webhook_max_endpoints": 3,
    "webhook_retry_seconds": 24 * 3600.0,
    "webhook_disable_after_seconds": 3 * 24 * 3600.0,
    "webhook_concurrency": 4,
}


@pytest.fixture
def config(cluster: PrivateCluster, queue_url: str) -> Config:
    return cluster_config(cluster, queue_url, **SETTINGS)
