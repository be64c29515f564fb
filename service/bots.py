"""Bot seats and bot jobs as the service sees them: the RQ queues the service hands work to.

The levels and their default think budgets live in :mod:`engine.ai` (one home); this module adds the
API's limits and the jobs.  The service names jobs by their import path and never imports the workers:
``workers.jobs.play_bot_turn(match_id, version)`` plays a bot seat's pending decision (and the bots'
decisions after it, see :mod:`workers.jobs`), and ``workers.jobs.suggest_move(...)`` computes a hint for
a human seat.

Three queues in two lanes, so no kind of work can stall another (:mod:`workers.worker` runs a worker
process per lane):

* ``bots-quick`` (the quick lane): turns of ``random`` and ``easy`` bots, a few milliseconds each;
* ``bots`` then ``hints`` (the thinking lane): turns of the searching bots, then hints, which a worker
  takes only when no bot turn waits.

A bot turn's job id is ``bot-<match>-<version>``: a match has at most one job per version, so any number
of announcements of the same turn (the write that caused it, a retry, the sweep) collapse into one job.
(RQ 3 allows only letters, digits, ``_`` and ``-`` in job ids, hence dashes where the design said
``bot:<match>:<version>``; match ids are hex, so the id is still unambiguous.)
Every write that leaves a bot seat to move calls :meth:`BotQueue.turn_pending` after its commit; the
sweep calls :meth:`BotQueue.ensure_turn` for turns whose job was lost.

A hint's job id is random (``hint-<32 hex digits>``), so nobody can learn by probing ids whether, when
or at which level a seat asked for help; a seat has at most one hint running, which asking again
returns.
"""

from __future__ import annotations

import contextlib
import math
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import redis
from rq import Callback, Queue, Retry, Worker
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import ScheduledJobRegistry

from engine.ai import DEFAULT_THINK_MS
from service.store import Store

DEFAULT_LEVEL = "normal"
#: The largest think budget the API's schema accepts; a deployment caps it lower with
#: ``TABLETOP_MAX_THINK_MS`` (:meth:`BotQueue.check_think_ms`).
MAX_THINK_MS = 60_000

QUICK_QUEUE = "bots-quick"
THINK_QUEUE = "bots"
HINT_QUEUE = "hints"
#: The levels whose decisions take milliseconds, not a think budget: they have a lane of their own.
QUICK_LEVELS = frozenset({"random", "easy"})
#: A lane's queues, in the order its workers serve them.
LANES: dict[str, tuple[str, ...]] = {"quick": (QUICK_QUEUE,), "think": (THINK_QUEUE, HINT_QUEUE)}
PLAY_JOB = "workers.jobs.play_bot_turn"
HINT_JOB = "workers.jobs.suggest_move"
#: Runs after every failed attempt of a bot turn; once the retries are spent it plays a random move.
FAILED_CALLBACK = "workers.jobs.bot_turn_failed"
#: Seconds before each retry of a failed bot turn (backoff); the failure callback covers the rest.
RETRY_INTERVALS = (1, 5)
#: Seconds a job may run beyond its think budget and time slice (loading, committing, a slow machine).
JOB_MARGIN_SECONDS = 10
#: How long a finished hint stays readable, and how long a failed job is kept for inspection.
HINT_TTL_SECONDS = 600
FAILURE_TTL_SECONDS = 24 * 3600
#: Seconds a worker's registration lives without a heartbeat; an idle worker heartbeats every half of
#: it, so a worker silent for longer is dead (``/readyz``).
WORKER_TTL = 30

#: A job in one of these states will still run by itself.
WAITING = frozenset({JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED})
#: A hint in one of these states never will: asking again starts a new one.
DEAD = frozenset({JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED})


def is_bot(seat: dict[str, Any]) -> bool:
    return seat["kind"] == "bot"


def think_ms_of(seat: dict[str, Any]) -> int:
    """The think budget of a bot seat (stored at creation; the level's default for older matches)."""
    return int(seat.get("think_ms", DEFAULT_THINK_MS[seat["level"]]))


def lane_of(seat: dict[str, Any]) -> str:
    """The lane that plays a bot seat's turns."""
    return "quick" if seat["level"] in QUICK_LEVELS else "think"


def bot_job_id(match_id: str, version: int) -> str:
    return f"bot-{match_id}-{version}"


def new_hint_job_id() -> str:
    return f"hint-{secrets.token_hex(16)}"


def job_timeout(think_ms: int, slice_seconds: float) -> int:
    """Seconds a job may run: a chain of decisions for up to ``slice_seconds``, the last of which
    may think for ``think_ms``, and a margin."""
    return math.ceil(think_ms / 1000 + slice_seconds) + JOB_MARGIN_SECONDS


@dataclass(frozen=True)
class JobInfo:
    """What the API tells about a hint job."""

    id: str
    status: str
    meta: dict[str, Any]
    result: Any


class BotQueue:
    """The bot queues over one Redis connection: enqueue bot turns and hints, read hint jobs."""

    def __init__(
        self,
        connection: redis.Redis,
        retry_intervals: tuple[int, ...] = RETRY_INTERVALS,
        stall_seconds: float = 15.0,
        slice_seconds: float = 0.5,
        max_think_ms: int = 10_000,
    ) -> None:
        self.connection = connection
        self.queues = {name: Queue(name, connection=connection) for lane in LANES.values() for name in lane}
        self.retry_intervals = retry_intervals
        #: A started job whose worker has not sent a heartbeat for this long is presumed dead.
        self.stall_seconds = stall_seconds
        #: How long a bot job goes on playing the bots' decisions that follow its own (workers.jobs).
        self.slice_seconds = slice_seconds
        self.max_think_ms = max_think_ms

    def reachable(self) -> int:
        """Jobs waiting for the thinking lane; raises ``redis.RedisError`` when it cannot be read."""
        return self.queues[THINK_QUEUE].count

    def live_workers(self) -> int:
        """Workers whose heartbeat is fresh (a dead one's registration lapses after :data:`WORKER_TTL`)."""
        now = datetime.now(UTC)
        return sum(
            1
            for worker in Worker.all(connection=self.connection)
            if worker.last_heartbeat is not None
            and (now - worker.last_heartbeat.replace(tzinfo=UTC)).total_seconds() < WORKER_TTL
        )

    def check_think_ms(self, think_ms: int) -> str | None:
        """Why ``think_ms`` is refused (over ``TABLETOP_MAX_THINK_MS``), or ``None``."""
        if think_ms > self.max_think_ms:
            return f"at most {self.max_think_ms} ms on this server (TABLETOP_MAX_THINK_MS)"
        return None

    # -- bot turns ----------------------------------------------------------------------------------

    def turn_pending(self, match_id: str, version: int, seat: dict[str, Any]) -> None:
        """Enqueue the bot turn of ``match_id`` at ``version`` unless a job for it exists already."""
        queue = self.queues[LANES[lane_of(seat)][0]]
        with contextlib.suppress(DuplicateJobError):  # announced twice: one job plays the turn
            queue.enqueue_call(
                PLAY_JOB,
                args=(match_id, version),
                job_id=bot_job_id(match_id, version),
                unique=True,
                timeout=job_timeout(think_ms_of(seat), self.slice_seconds),
                result_ttl=0,
                failure_ttl=FAILURE_TTL_SECONDS,
                retry=Retry(max=len(self.retry_intervals), interval=list(self.retry_intervals)),
                on_failure=Callback(FAILED_CALLBACK),
                description=f"bot turn of match {match_id} at version {version}",
            )

    def ensure_turn(self, match_id: str, version: int, seat: dict[str, Any]) -> bool:
        """Re-enqueue a pending bot turn whose job is gone, failed, or stalled with a dead worker (the
        sweep).  Returns whether it enqueued.  A duplicate run is harmless: only one commit can win
        the compare-and-set on ``version``."""
        job = self._fetch(bot_job_id(match_id, version))
        if job is not None:
            if self._alive(job):
                return False
            self.queues[job.origin].intermediate_queue.remove(job.id)
            job.delete()
        self.turn_pending(match_id, version, seat)
        return True

    def _alive(self, job: Job) -> bool:
        """Whether ``job`` will still run (or is running) by itself."""
        status = job.get_status()
        if status == JobStatus.SCHEDULED:
            # A retry waiting for its time.  Only a worker holding RQ's scheduler lock moves it to the
            # queue; when that worker died the lock outlives it for a minute and more, so a retry
            # overdue by the stall time is presumed orphaned.
            try:
                due = ScheduledJobRegistry(queue=self.queues[job.origin]).get_scheduled_time(job)
            except (NoSuchJobError, KeyError):
                return False
            return (datetime.now(UTC) - due).total_seconds() < self.stall_seconds
        if status == JobStatus.QUEUED:
            return self._in_line(job)
        if status in WAITING:
            return True
        if status == JobStatus.STARTED and job.last_heartbeat is not None:
            silent = (datetime.now(UTC) - job.last_heartbeat.replace(tzinfo=UTC)).total_seconds()
            return silent < self.stall_seconds
        return False

    def _in_line(self, job: Job) -> bool:
        """Whether a job that says it is queued is: in its queue, or in RQ's hand-over list (taken by a
        worker, not started yet) for less than the stall time.  A worker that lost Redis between taking
        a job and starting it leaves it there, queued in name only."""
        queue = self.queues[job.origin]
        if self.connection.lpos(queue.key, job.id) is not None:
            return True
        handing = queue.intermediate_queue
        if self.connection.lpos(handing.key, job.id) is None:
            return False  # in no list: lost
        if handing.set_first_seen(job.id):
            return True  # seen being handed over for the first time: give it the stall time
        first = handing.get_first_seen(job.id)
        return first is not None and (datetime.now(UTC) - first).total_seconds() < self.stall_seconds

    # -- hints --------------------------------------------------------------------------------------

    def request_hint(
        self, store: Store, match_id: str, version: int, seat: int, level: str, think_ms: int
    ) -> str:
        """The id of ``seat``'s hint job: the one still running, whatever it was asked for (a seat has
        one at a time), or the finished one for this very question; else a new one."""
        current = store.current_hint(match_id, seat)
        job = self._fetch(current) if current else None
        if job is not None:
            status = job.get_status()
            if status not in DEAD and status != JobStatus.FINISHED:
                return job.id
            if status == JobStatus.FINISHED and (job.meta["version"], job.meta["level"]) == (version, level):
                return job.id
        job_id = new_hint_job_id()
        if not store.claim_hint(match_id, seat, current, job_id, HINT_TTL_SECONDS):
            # Asked twice at once: the other request's job is the seat's one.
            return store.current_hint(match_id, seat) or job_id
        self.queues[HINT_QUEUE].enqueue_call(
            HINT_JOB,
            args=(match_id, version, seat, level, think_ms),
            job_id=job_id,
            timeout=job_timeout(think_ms, 0),
            result_ttl=HINT_TTL_SECONDS,
            ttl=HINT_TTL_SECONDS,
            failure_ttl=HINT_TTL_SECONDS,
            meta={"match_id": match_id, "version": version, "seat": seat, "level": level},
            description=f"hint for seat {seat} of match {match_id} at version {version}",
        )
        return job_id

    def hint(self, job_id: str) -> JobInfo | None:
        """A hint job's status, meta and (once finished) result; ``None`` if unknown or expired."""
        if not job_id.startswith("hint-"):
            return None  # bot turns are not the API's business: their actions may be secret
        job = self._fetch(job_id)
        if job is None:
            return None
        status = job.get_status()
        result = job.return_value() if status == JobStatus.FINISHED else None
        return JobInfo(job.id, status.value, job.meta, result)

    def _fetch(self, job_id: str) -> Job | None:
        try:
            return Job.fetch(job_id, connection=self.connection)
        except NoSuchJobError:
            return None
