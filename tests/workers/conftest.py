"""Fixtures of the worker tests: the service tests' real Redis, an app over it, and the jobs bound to the
same games and Redis, run by an in-process worker of the production class (``LaneWorker``, RQ's
non-forking worker: monkeypatches apply) on every lane's kinds of work, every tenant's queues."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from flask import Flask

from service.config import Config
from service.domain.matches.bots import LANES, BotQueue
from service.domain.matches.operations import Matches
from service.storage.matches import Store
from service.wiring import Wiring, build
from tests.service.conftest import TEST_GAMES, make_config, redis_client, redis_url  # noqa: F401
from workers import jobs
from workers.worker import LaneWorker

#: No delay between retries, so a failing bot turn is retried within one burst.
QUICK_RETRIES = (0, 0)


@pytest.fixture
def config(redis_url: str) -> Config:  # noqa: F811
    return make_config(redis_url, bot_stall_seconds=2, ready_needs_workers=True)


@pytest.fixture
def wired(redis_client: redis.Redis, config: Config, monkeypatch: pytest.MonkeyPatch) -> Wiring:  # noqa: F811
    """The objects the jobs use (bound for this test), retrying failed turns at once."""
    store = Store(redis_client)
    queue = BotQueue(
        store,
        QUICK_RETRIES,
        config.bot_stall_seconds,
        slice_seconds=config.bot_slice_seconds,
        max_think_ms=config.max_think_ms,
    )
    bound = build(config, store=store, games=TEST_GAMES, bot_queue=queue)
    monkeypatch.setattr(jobs, "_wired", bound)
    return bound


@pytest.fixture
def matches(wired: Wiring) -> Matches:
    """The match operations the jobs use."""
    return wired.matches


@pytest.fixture
def app(matches: Matches, config: Config) -> Flask:
    """The API over the same Redis (with the test games)."""
    from service.http.app import create_app

    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def work(redis_client: redis.Redis) -> Callable[[], None]:  # noqa: F811
    """Run the queues dry in this process (bot turns chain, so one call plays a bot-only match out)."""

    def run() -> None:
        kinds = [kind for lane in LANES.values() for kind in lane]
        LaneWorker(kinds, connection=redis_client).work(burst=True, logging_level="WARNING")

    return run
