"""``tabletop worker``: an RQ worker on the bots queue, plus the schedulers that keep bot matches moving.

One process runs:

* the RQ worker (one forked work horse per job), heartbeating a running job every quarter of
  ``bot_stall_seconds``, so the sweep can tell a thinking bot from one whose worker died;
* RQ's built-in scheduler (``with_scheduler``), which runs the delayed retries of failed bot turns
  (one worker holds its lock; the others try to take it over at each maintenance, every
  ``sweep_seconds``, and the sweep re-enqueues a retry left overdue by a dead lock holder);
* RQ's cron scheduler in a child process, enqueueing :func:`workers.jobs.sweep` every
  ``sweep_seconds``.  It stops by itself when the worker is gone, so a killed worker leaves no orphan
  sweeping forever.

Several workers may run against one Redis: jobs are spread over them, and their sweeps are idempotent.
"""

from __future__ import annotations

import multiprocessing as mp
import os

import redis
from rq import Worker
from rq.cron import CronScheduler
from rq.exceptions import StopRequested

from engine.registry import GAMES
from service import logs
from service.bots import QUEUE
from service.config import Config
from service.play import Matches
from service.store import Store
from workers import jobs


class SweepScheduler(CronScheduler):
    """RQ's cron scheduler, tied to the worker process that started it."""

    def __init__(self, connection: redis.Redis, parent: int) -> None:
        super().__init__(connection, name=f"tabletop-sweep:{os.getpid()}")
        self.parent = parent

    def heartbeat(self) -> None:
        if os.getppid() != self.parent:  # the worker died (even by SIGKILL): stop with it
            raise StopRequested()
        super().heartbeat()


def run_sweeps(redis_url: str, every_seconds: int, parent: int) -> None:
    """Child process: enqueue the sweep every ``every_seconds`` until the parent worker is gone."""
    scheduler = SweepScheduler(redis.Redis.from_url(redis_url), parent)
    scheduler.register(jobs.sweep, QUEUE, interval=every_seconds, result_ttl=0, job_timeout=600)
    scheduler.start()


def run(config: Config, *, burst: bool = False) -> None:
    """Work the bots queue until stopped (SIGTERM/SIGINT), or until it is empty with ``burst``."""
    if not config.redis_url:
        raise ValueError("TABLETOP_REDIS_URL is not set: a worker needs the API's Redis")
    logs.configure(config.log_level)  # the same JSON lines as the API's
    connection = redis.Redis.from_url(config.redis_url)
    jobs.bind(Matches(Store(connection), GAMES, config))
    sweeper = None
    if not burst:
        sweeper = mp.get_context("fork").Process(
            target=run_sweeps, args=(config.redis_url, config.sweep_seconds, os.getpid()), daemon=True
        )
        sweeper.start()
    try:
        worker = Worker(
            [QUEUE],
            connection=connection,
            job_monitoring_interval=max(1, config.bot_stall_seconds // 4),
            # Maintenance is also when a worker without RQ's scheduler lock tries to take it over (RQ's
            # default: every 10 minutes), e.g. after the worker that held it was killed.
            maintenance_interval=config.sweep_seconds,
        )
        worker.work(burst=burst, with_scheduler=True, logging_level=config.log_level)
    finally:
        if sweeper is not None:
            sweeper.terminate()
            sweeper.join(timeout=10)
