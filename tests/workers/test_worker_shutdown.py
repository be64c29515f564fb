"""A worker's warm shutdown does not wait out its command listener (``BotWorker.subscribe``).

RQ listens to a worker's command channel from a thread that looks at its stop flag every 60 s, and
redis-py 8.2 made stopping that thread wait for it: once the thread had read the unsubscribe reply it
slept its whole period, so ``tabletop serve`` and ``tabletop worker`` outlived a SIGTERM by up to a
minute, and every in-process burst run of the tests took as long (three CI failures in one run)."""

from __future__ import annotations

import time

import redis

from service.domain.matches.bots import LANES
from tests.service.conftest import redis_client, redis_url  # noqa: F401
from workers.worker import COMMAND_LISTENER_SECONDS, LaneWorker


def test_a_worker_unsubscribes_within_its_listeners_period_while_the_listener_sleeps(
    redis_client: redis.Redis,  # noqa: F811
) -> None:
    worker = LaneWorker(list(LANES["quick"]), connection=redis_client)
    worker.subscribe()
    thread = worker.pubsub_thread
    assert thread is not None and thread.is_alive()
    # The state the race of a shutdown can reach: the listener has read an unsubscribe reply and,
    # subscribed to nothing, sleeps its period waiting for a subscription.
    worker.pubsub.unsubscribe()
    deadline = time.monotonic() + 10
    while worker.pubsub.subscribed:
        assert time.monotonic() < deadline, "the listener never read the unsubscribe reply"
        time.sleep(0.01)
    started = time.monotonic()
    worker.unsubscribe()  # RQ's teardown step: unsubscribe, stop the listener, close
    thread.join(timeout=10)
    # RQ's own period would hold it here for up to 60 s.
    assert not thread.is_alive() and time.monotonic() - started < 10 * COMMAND_LISTENER_SECONDS
