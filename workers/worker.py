"""``tabletop worker``: RQ workers playing bot turns, timeouts and hints, in lanes shared fairly between
apps, over a Redis that may go away.

One ``tabletop worker`` runs, by default, a process per lane (:data:`service.domain.matches.bots.LANES`):

* the quick lane (``bots-quick``): turns and hints of ``random`` and ``easy`` bots;
* the thinking lane (``bots``): turns of the searching bots;
* the timeouts lane (``timeouts``): the moves played for human seats out of time that the clock keeper
  does not play itself (searching levels, a keeper's failure, a late move the API refused);
* the hints lane (``hints``): hints of the searching levels;

so a flood of long thinking can never delay a quick bot's move, a timeout never waits behind a bot turn
(a process of its own: a shared one busy with another app's 2-s decision would land a timeout up to 2 s
late; and it serves no hints, which may think up to ``TABLETOP_MAX_THINK_MS``), and hints have a
process no bot turn can take.  The thinking and hints lanes run ``nice``
(:data:`NICE_LANES`): on a saturated machine the quick and timeouts lanes and the keeper go first.

Within a lane the apps share fairly (:class:`LaneWorker`): each kind of work has a queue per tenant
(an app, or every anonymous match together, see :mod:`service.domain.matches.bots`), the lane's workers
listen to every tenant's queue, and each time one takes a job it takes it by start-time fair queueing
(SFQ, Goyal, Vin and Cheng 1996) measured in worker time: each tenant has a finish tag, the worker
time its jobs took counted from the lane's clock when it last came back from idle; the next job is
the one of the tenant whose next job would start earliest (its tag, or the lane's clock if later),
and the clock is the latest start served.  Busy tenants get equal worker time whatever their jobs
cost (an app whose decisions take 2 s gets as many seconds, not four times as many, as one whose take
0.5 s); a tenant back from idle neither saves credit nor carries debt.  So when app X floods the
thinking lane, app Y's next bot turn is the next job a thinking worker takes: it waits at most for the
X decision in progress.
A worker learns a new tenant before each job it takes, at once when that tenant's first job wakes it
(a no-op on the kind's own queue), else within :data:`LISTEN_SECONDS`; and RQ's scheduler, which
moves retries back to their queues when due, learns the tenants' queues the same way
(:class:`LaneScheduler`).  Plus a child process enqueueing :func:`workers.jobs.sweep`
every ``sweep_seconds`` (RQ's cron scheduler), and the keeper (:mod:`workers.keeper`): a child process
that plays or hands over the timeouts due, gives the clock warnings, and runs the periodic sweeps
(outboxes, matchmaking, tournaments) behind one error wrapper.

Each lane is a :class:`LaneWorker`, a :class:`BotWorker`: RQ's non-forking worker (a forked work horse
per job cost about 20-60 ms, more than a chain of quick decisions takes), with what the fork gave kept:
a job past its timeout is interrupted (RQ's SIGALRM death penalty) and retried, then played randomly;
and a running job's heartbeat, which the sweep reads to tell a thinking bot from a dead worker, comes
from a thread.
A process that crashes outright loses its job to the sweep (``bot_stall_seconds``), as before.

When Redis goes away (restarted, failed over), RQ's work loop ends; a lane then waits with backoff until
Redis answers and works on with a new RQ worker (and its scheduler), and the sweeper does the same:
the processes live on, and the bot turns and hints queued in Redis's append-only file resume.

Several ``tabletop worker`` may run against one Redis: jobs are spread over them, their sweeps are
idempotent.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing as mp
import os
import subprocess
import threading
import time
from typing import Any

import redis
from rq import SimpleWorker
from rq.cron import CronScheduler
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.exceptions import StopRequested
from rq.job import Job
from rq.queue import Queue
from rq.scheduler import RQScheduler
from rq.worker import WorkerStatus

from service import logs
from service.config import Config
from service.domain.matches.bots import (
    LANES,
    TENANT_RETENTION,
    THINK_QUEUE,
    WORKER_TTL,
    queue_name,
    tenant_of_queue,
)
from service.storage.client import connect
from service.storage.lanes import LaneStore
from service.storage.matches import connect_store
from service.wiring import build
from workers import jobs
from workers.keeper import BACKOFF, keep, wait_for_redis

log = logging.getLogger(__name__)

#: Seconds an idle lane worker waits in its blocking pop before it reads the lane's tenants again (a new
#: tenant's first job wakes one at once; the others learn it within this much).
LISTEN_SECONDS = 5
#: The lanes whose processes run at a lower CPU priority (``nice``): their searches are bounded by wall
#: time, so on a saturated machine they think less rather than longer, while the quick lane, the
#: timeouts lane and the clock keeper, whose moves are due now, take the CPU first.  (A timeout's
#: search keeps its priority: it must land within a second of its deadline with its budget's play.)
NICE_LANES = {"think": 5, "hints": 5}
#: Seconds between the looks of a worker's command listener thread at its stop flag (the longest a
#: worker's shutdown waits for it; see :meth:`BotWorker.subscribe`).
COMMAND_LISTENER_SECONDS = 1.0

#: RQ's functions that log one INFO line per job taken or finished (a busy worker wrote 556 KB of
#: them in 6.5 minutes); :func:`_per_job_lines_at_debug` moves those lines to DEBUG.
_RQ_PER_JOB = frozenset({"dequeue_job_and_maintain_ttl", "handle_job_success", "_finalize_success"})


def _per_job_lines_at_debug(record: logging.LogRecord) -> bool:
    """Logger filter for ``rq.worker``: per-job lines become DEBUG records, shown only when DEBUG is
    on; RQ's other INFO lines (start, shutdown, maintenance) stay where they are."""
    if record.levelno == logging.INFO and record.funcName in _RQ_PER_JOB:
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger("rq.worker").isEnabledFor(logging.DEBUG)
    return True


class BotWorker(SimpleWorker):
    """RQ's non-forking worker, heartbeating the job it runs from a thread (see the module)."""

    stopping = False

    def subscribe(self) -> None:
        """RQ's subscription to this worker's command channel (``rq.command``: stop, kill a job), its
        listener thread looking at its stop flag every :data:`COMMAND_LISTENER_SECONDS`, not RQ's 60.
        redis-py 8.2 made stopping that thread wait for it, and a thread that has read the unsubscribe
        reply then sleeps its whole period: every warm shutdown and every burst run of a worker took up
        to 60 s (``tabletop serve`` and ``tabletop worker`` outlived a SIGTERM by a minute)."""
        self.log.info("Worker %s: subscribing to channel %s", self.name, self.pubsub_channel_name)
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(  # type: ignore[assignment]  # RQ types it None
            sleep_time=COMMAND_LISTENER_SECONDS, daemon=True, exception_handler=self._pubsub_exception_handler
        )

    def request_stop(self, signum: Any, frame: Any) -> None:
        self.stopping = True  # a warm shutdown, not a lost Redis: do not start again
        super().request_stop(signum, frame)

    def execute_job(self, job: Job, queue: Queue) -> None:
        execution = self.prepare_execution(job)
        done = threading.Event()
        beat = threading.Thread(target=self._heartbeats, args=(job, execution, done), daemon=True)
        beat.start()
        try:
            self.perform_job(job, queue, execution)
        finally:
            done.set()
            beat.join()
        self.set_state(WorkerStatus.IDLE)

    def _heartbeats(self, job: Job, execution: Any, done: threading.Event) -> None:
        while not done.wait(self.job_monitoring_interval):
            try:
                self.maintain_heartbeats(job, execution)
            except redis.RedisError:  # the job's own commands will fail too, and say so
                return


def lane_queues(lanes: LaneStore, kinds: list[str], at: float) -> list[str]:
    """The queues a worker of ``kinds`` takes its next job from, in order: for each kind, its own queue
    (the lane's chores: the sweep, wake-ups), then its tenants' queues, the tenant whose next job would
    start earliest on the lane's clock first (start-time fair queueing, see the module; ties: the one
    with the smaller tag, then by name)."""
    found = lanes.tenants(kinds, at, TENANT_RETENTION)
    names: list[str] = []
    for kind in kinds:
        lane = found[kind]
        order = sorted(lane.tags, key=lambda t: (lane.start(t), lane.tags[t], t))
        names += [kind, *(queue_name(kind, t) for t in order)]
    return names


class LaneWorker(BotWorker):
    """A lane's worker, fair between apps (see the module): before each job it reads the tenants of its
    kinds and orders their queues (:func:`lane_queues`; RQ's blocking pop takes from the first queue
    that has a job); after each job it counts the job's time against its tenant.  Built on the kinds'
    own queues; the tenants' are added as they come."""

    #: The ``tabletop worker`` process that forked this lane's, if any: the lane stops once it is gone
    #: (killed outright, it could not stop its lanes), as the sweeper and the keeper do.
    parent: int | None = None

    def __init__(self, kinds: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(list(kinds), *args, **kwargs)
        self.kinds = list(kinds)
        self.lanes = LaneStore(self.connection)
        self._known: dict[str, Queue] = {q.name: q for q in self.queues}

    def listen(self) -> None:
        """Read the tenants and order the queues for the next pop; with Redis unreachable keep the
        order held (RQ's pop waits for Redis itself)."""
        try:
            names = lane_queues(self.lanes, self.kinds, time.time())
        except redis.RedisError as exc:
            log.warning("worker %s: tenants unreadable (%s); keeping the queues known", self.name, exc)
            return
        self.queues = [self._queue(name) for name in names]
        self._ordered_queues = self.queues[:]

    def _queue(self, name: str) -> Queue:
        queue = self._known.get(name)
        if queue is None:
            queue = self._known[name] = self.queue_class(
                name=name,
                connection=self.connection,
                job_class=self.job_class,
                serializer=self.serializer,
                death_penalty_class=self.death_penalty_class,
            )
        return queue

    def dequeue_job_and_maintain_ttl(
        self, timeout: int | None, max_idle_time: int | None = None
    ) -> tuple[Job, Queue] | None:
        """RQ's pop, on the queues :meth:`listen` ordered; an idle worker listens anew every
        :data:`LISTEN_SECONDS` (RQ's pop returns nothing once idle for ``max_idle_time``), and stops
        there once its :attr:`parent` is gone."""
        while True:
            if self.parent is not None and os.getppid() != self.parent:
                self.stopping = True  # as a warm shutdown: serve_lane does not start again
                raise StopRequested()
            self.listen()
            if timeout is None:  # burst: one look at every queue
                return super().dequeue_job_and_maintain_ttl(None, max_idle_time)
            result = super().dequeue_job_and_maintain_ttl(min(timeout, LISTEN_SECONDS), LISTEN_SECONDS)
            if result is not None:
                return result

    def execute_job(self, job: Job, queue: Queue) -> None:
        started = time.monotonic()
        try:
            super().execute_job(job, queue)
        finally:
            kind, tenant = tenant_of_queue(queue.name)
            if tenant is not None:
                with contextlib.suppress(redis.RedisError):  # the share is approximate; the job is done
                    self.lanes.served(kind, tenant, time.monotonic() - started)

    def run_maintenance_tasks(self) -> None:
        """RQ's, then forget the tenants idle past :data:`TENANT_RETENTION` whose queues are empty."""
        super().run_maintenance_tasks()
        for kind in self.kinds:

            def key(tenant: str, kind: str = kind) -> str:
                return str(self._queue(queue_name(kind, tenant)).key)

            with contextlib.suppress(redis.RedisError):
                self.lanes.forget(kind, time.time(), TENANT_RETENTION, key)

    def _start_scheduler(
        self,
        burst: bool = False,
        logging_level: str | None = "INFO",
        date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
        log_format: str = DEFAULT_LOGGING_FORMAT,
    ) -> None:
        """RQ's, with a :class:`LaneScheduler` in place of RQ's scheduler."""
        self.scheduler = LaneScheduler(
            self.kinds,
            connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format,
            log_format=log_format,
            serializer=self.serializer,
        )
        self.scheduler.acquire_locks()
        if self.scheduler.acquired_locks:
            if burst:
                try:
                    self.scheduler.register_birth()
                    self.scheduler.enqueue_scheduled_jobs()
                finally:
                    self.scheduler.release_locks()
                    self.scheduler.register_death()
            else:
                self.scheduler.start()


class LaneScheduler(RQScheduler):
    """RQ's scheduler (it moves jobs whose time came, the retries, back to their queues: those of the
    queues whose lock it holds), over the kinds' own queues and every tenant's, read again each second
    so a new tenant's retries are moved too."""

    def __init__(self, kinds: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(list(kinds), *args, **kwargs)
        self.kinds = list(kinds)
        self._lanes: LaneStore | None = None
        self._forked_by: int | None = None

    def start(self) -> Any:
        self._forked_by = os.getpid()  # the lane's process, which the scheduler's own process outlives if
        return super().start()  # it is killed outright

    def heartbeat(self) -> None:
        """RQ's, once a loop (a second); with the lane's process gone (killed: it could not stop this
        one) the scheduler stops instead, at the loop's next turn, its locks released."""
        if self._forked_by is not None and os.getppid() != self._forked_by:
            self.request_stop()
            return
        super().heartbeat()

    def _listen(self) -> bool:
        """Read the queues of the kinds; whether one is new."""
        if self._lanes is None or self._lanes.redis is not self.connection:  # a fork has its own connection
            self._lanes = LaneStore(self.connection)
        try:
            names = set(lane_queues(self._lanes, self.kinds, time.time()))
        except redis.RedisError:
            return False
        fresh = bool(names - self._queue_names)
        self._queue_names = names
        return fresh

    @property
    def should_reacquire_locks(self) -> bool:
        return self._listen() or bool(super().should_reacquire_locks)

    def acquire_locks(self, auto_start: bool = False) -> set[str]:
        self._listen()
        return set(super().acquire_locks(auto_start))


def serve_lane(config: Config, lane: str, *, burst: bool = False, parent: int | None = None) -> None:
    """Work ``lane``'s queues until stopped (SIGTERM/SIGINT), or until they are empty with ``burst``, or
    until the process ``parent`` (the ``tabletop worker`` that forked this one) is gone, starting over
    whenever Redis goes away.  A lane of :data:`NICE_LANES` lowers its CPU priority."""
    if lane in NICE_LANES:
        os.nice(NICE_LANES[lane])
    jobs.bind(build(config, store=connect_store(config, timeout=config.redis_timeout_seconds)))
    delay = BACKOFF[0]
    while parent is None or os.getppid() == parent:
        # The blocking dequeue waits up to WORKER_TTL - 15 s: a read timeout beyond that one.
        connection = connect(config.queue_url, timeout=WORKER_TTL + 5)
        try:
            connection.ping()
        except redis.RedisError as exc:
            delay = wait_for_redis(f"worker ({lane} lane)", exc, delay)
            continue
        delay = BACKOFF[0]
        worker = LaneWorker(
            list(LANES[lane]),
            connection=connection,
            name=f"{lane}-{os.getpid()}-{time.time_ns()}",
            worker_ttl=WORKER_TTL,
            job_monitoring_interval=max(1, config.bot_stall_seconds // 4),
            # Maintenance is also when a worker without RQ's scheduler lock tries to take it over (RQ's
            # default: every 10 minutes), e.g. after the worker that held it was killed.
            maintenance_interval=config.sweep_seconds,
        )
        worker.parent = parent
        try:
            worker.work(burst=burst, with_scheduler=True, logging_level=config.log_level)
        except redis.RedisError as exc:  # RQ's own teardown talks to the Redis that just went away
            log.warning("worker (%s lane): redis lost while stopping its work loop (%s)", lane, exc)
        if burst or worker.stopping:
            return
        log.warning("worker (%s lane): the work loop ended (Redis lost?); starting over", lane)
        time.sleep(delay)


class SweepScheduler(CronScheduler):
    """RQ's cron scheduler, tied to the worker process that started it."""

    def __init__(self, connection: redis.Redis, parent: int) -> None:
        super().__init__(connection, name=f"tabletop-sweep:{os.getpid()}:{time.time_ns()}")
        self.parent = parent

    def heartbeat(self) -> None:
        if os.getppid() != self.parent:  # the worker died (even by SIGKILL): stop with it
            raise StopRequested()
        super().heartbeat()


def run_sweeps(redis_url: str, every_seconds: int, parent: int) -> None:
    """Child process: enqueue the sweep every ``every_seconds`` until the parent worker is gone, starting
    over whenever Redis goes away."""
    delay = BACKOFF[0]
    while os.getppid() == parent:
        try:
            scheduler = SweepScheduler(connect(redis_url, timeout=WORKER_TTL + 5), parent)
            scheduler.register(jobs.sweep, THINK_QUEUE, interval=every_seconds, result_ttl=0, job_timeout=600)
            scheduler.start()
            return  # stopped: the parent is gone
        except redis.RedisError as exc:
            delay = wait_for_redis("sweeper", exc, delay)


def run(config: Config, *, burst: bool = False, lanes: tuple[str, ...] = tuple(LANES)) -> None:
    """Work ``lanes`` (a process each; the last in this one) until stopped, with the sweeper beside, and
    the webhook delivery lane (:mod:`workers.webhooks`: a fresh interpreter, gevent patching it first).
    Every child stops with this process even if it is killed (a lane within :data:`LISTEN_SECONDS` of
    its idle pop, or when its job in progress ends)."""
    if not config.redis_url:
        raise ValueError("TABLETOP_REDIS_URL is not set: a worker needs the API's Redis")
    logs.configure(config.log_level)  # the same JSON lines as the API's
    logging.getLogger("rq.worker").addFilter(_per_job_lines_at_debug)
    fork = mp.get_context("fork")
    children = []
    if not burst:
        children.append(
            fork.Process(
                target=run_sweeps, args=(config.queue_url, config.sweep_seconds, os.getpid()), daemon=True
            )
        )
        children.append(fork.Process(target=keep, args=(config, os.getpid()), daemon=True))
    children += [
        fork.Process(target=serve_lane, args=(config, lane), kwargs={"burst": burst, "parent": os.getpid()})
        for lane in lanes[:-1]
    ]
    for child in children:
        child.start()
    deliveries = None
    if not burst:
        from workers.webhooks import spawn as spawn_webhook_lane  # gevent stays out of this process

        deliveries = spawn_webhook_lane(config, parent=os.getpid())
    try:
        serve_lane(config, lanes[-1], burst=burst)
    finally:
        if deliveries is not None:
            deliveries.terminate()  # SIGTERM: its deliveries in flight finish first
        for child in children:
            child.terminate()  # SIGTERM: a lane finishes its job first
        for child in children:
            child.join(timeout=60)
        if deliveries is not None:
            try:
                deliveries.wait(timeout=30)
            except subprocess.TimeoutExpired:
                deliveries.kill()
