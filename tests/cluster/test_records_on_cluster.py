"""Match records on a Redis Cluster (issue 45): a match's kept record lives in the match's own hash slot
(``tt:{m:<id>}:record``), so reading it, building and keeping it are each one script on one slot, and
an export reads a batch of matches one script call a match.  The service tests run unchanged here
against the cluster (the fixtures are the cluster's): kept records read byte for byte as fresh builds
from every perspective, are kept only for the match as it was read, and expire with their matches."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from service.http.app import create_app
from tests.cluster.conftest import cluster_config
from tests.service.conftest import TEST_GAMES
from tests.service.test_accounts import ADMIN
from tests.service.test_records import (
    test_a_record_is_kept_only_for_the_match_as_it_was_read,
    test_an_export_writes_kept_records_byte_for_byte_as_fresh_builds,
    test_kept_records_expire_with_their_matches,
)

__all__ = [
    "test_a_record_is_kept_only_for_the_match_as_it_was_read",
    "test_an_export_writes_kept_records_byte_for_byte_as_fresh_builds",
    "test_kept_records_expire_with_their_matches",
]


@pytest.fixture
def app(redis_client: Any, cluster: Any, queue_url: str) -> Flask:
    return create_app(cluster_config(cluster, queue_url, admin_token=ADMIN), games=TEST_GAMES)
