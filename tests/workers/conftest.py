"""Fixtures of the worker tests: the service tests' real Redis, an app over it, and the jobs bound to the
same games and Redis, run by an in-process RQ worker (``SimpleWorker``: no fork, so monkeypatches apply)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import redis
from flask import Flask
from rq import SimpleWorker

from service.bots import QUEUE, BotQueue
from service.config import Config
from service.play import Matches
from service.store import Store
from tests.service.conftest import TEST_GAMES, make_config, redis_client, redis_url  # noqa: F401
from workers import jobs

#: No delay between retries, so a failing bot turn is retried within one burst.
QUICK_RETRIES = (0, 0)


@pytest.fixture
def config(redis_url: str) -> Config:  # noqa: F811
    return make_config(redis_url, bot_stall_seconds=2)


@pytest.fixture
def matches(redis_client: redis.Redis, config: Config, monkeypatch: pytest.MonkeyPatch) -> Matches:  # noqa: F811
    """The match operations the jobs use (bound for this test), retrying failed turns at once."""
    store = Store(redis_client)
    bound = Matches(
        store, TEST_GAMES, config, BotQueue(redis_client, QUICK_RETRIES, config.bot_stall_seconds)
    )
    monkeypatch.setattr(jobs, "_matches", bound)
    return bound


@pytest.fixture
def app(matches: Matches, config: Config) -> Flask:
    """The API over the same Redis (with the test games)."""
    from service.app import create_app

    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def work(redis_client: redis.Redis) -> Callable[[], None]:  # noqa: F811
    """Run the queue dry in this process (bot turns chain, so one call plays a bot-only match out)."""

    def run() -> None:
        SimpleWorker([QUEUE], connection=redis_client).work(burst=True, logging_level="WARNING")

    return run
