"""Ratings and leaderboards on a Redis Cluster (issue 27 point 6, "the cluster tests"): everything of
one app's ratings in one game shares the hash tag ``{r:<app>:<game>}``, so the compare-and-set that
rates a match, the boards' pages and the seeding of the built-in levels are each one script on one
slot; a player's ratings across games read several slots in one pipeline.  The service tests run
unchanged here against the cluster (the fixtures are the cluster's)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.domain.matches.operations import Matches
from service.http.app import create_app
from service.http.context import Services
from tests.cluster.conftest import cluster_config
from tests.service.conftest import TEST_GAMES
from tests.service.test_accounts import ADMIN
from tests.service.test_ratings import (
    Club,
    test_a_finished_rated_match_rates_its_players_once,
    test_a_players_ratings_per_game_with_recent_history,
    test_leaderboards_order_by_ordinal_share_ranks_and_page_without_gaps,
    test_recording_twice_and_from_many_threads_rates_once,
    test_the_write_is_a_compare_and_set_on_every_rating_it_read,
)

__all__ = [
    "test_a_finished_rated_match_rates_its_players_once",
    "test_a_players_ratings_per_game_with_recent_history",
    "test_leaderboards_order_by_ordinal_share_ranks_and_page_without_gaps",
    "test_recording_twice_and_from_many_threads_rates_once",
    "test_the_write_is_a_compare_and_set_on_every_rating_it_read",
]


@pytest.fixture
def app(redis_client: Any, cluster: Any, queue_url: str) -> Flask:
    return create_app(cluster_config(cluster, queue_url, admin_token=ADMIN), games=TEST_GAMES)


@pytest.fixture
def services(app: Flask) -> Services:
    found: Services = app.extensions["tabletop"]
    return found


@pytest.fixture
def matches(services: Services) -> Matches:
    return services.matches


@pytest.fixture
def club(client: FlaskClient) -> Club:
    return Club(client)
