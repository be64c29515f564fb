"""Bot seats and bot jobs as the service sees them: the RQ queues the service hands work to.

The levels and their default think budgets live in :mod:`engine.ai` (one home); this module adds the
API's limits and the jobs.  The service names jobs by their import path and never imports the workers:
``workers.jobs.play_bot_turn(match_id, version)`` plays a bot seat's pending decision (and the bots'
decisions after it, see :mod:`workers.jobs`), and ``workers.jobs.suggest_move(...)`` computes a hint for
a human seat.

Four kinds of work, each served by a lane of its own (:mod:`workers.worker` runs a worker process per
lane), so no kind can stall another:

* ``bots-quick`` (the quick lane): turns and hints of ``random`` and ``easy`` bots, a few milliseconds
  each;
* ``bots`` (the thinking lane): turns of the searching bots;
* ``timeouts`` (the timeouts lane): the move a bot plays for a human seat out of time, whatever its
  level, so a timeout never waits behind bot turns;
* ``hints`` (the hints lane): hints of the searching levels, a share of the workers no bot turn can take.

Within a lane the apps share fairly.  Each kind has a queue per tenant, ``<kind>:<tenant>``: the app of
the match (``meta.life["app"]``), or :data:`ANONYMOUS` for every match created without an app key.  A
lane's workers listen to the queue of every tenant with work of that kind (a registry,
:class:`service.storage.lanes.LaneStore`) and take each job by start-time fair queueing in worker time
(:mod:`workers.worker`): one app's flood takes turns with every other app's work, by time rather than
by job, so an app whose jobs are four times longer does not get four times the lane.  The
kind's own queue (``<kind>``, no tenant) carries the lane's chores: the sweep, and the wake-up a new
tenant's first job sends (:meth:`BotQueue._wake`) so that a worker idle in a blocking pop listens to
it at once.

Anonymous callers are one tenant, not one per address: addresses cost an attacker nothing to change,
so per-address queues would not bound a flood, only multiply the queues every worker listens to; their
hints keep the per-address bound and order below, which is what an address buys.

A bot turn's job id is ``bot-<match>-<version>``: a match has at most one job per version, so any number
of announcements of the same turn (the write that caused it, a retry, the sweep) collapse into one job.
(RQ 3 allows only letters, digits, ``_`` and ``-`` in job ids, hence dashes where the design said
``bot:<match>:<version>``; match ids are hex, so the id is still unambiguous.)
Every write that leaves a bot seat to move calls :meth:`BotQueue.turn_pending` after its commit; the
sweep calls :meth:`BotQueue.ensure_turn` for turns whose job was lost.

A hint's job id is random (``hint-<32 hex digits>``), so nobody can learn by probing ids whether, when
or at which level a seat asked for help; a seat has at most one hint running, which asking again
returns.  ``random`` and ``easy`` hints take the quick lane (they take milliseconds, like those bots'
turns); and one client (address) has at most ``TABLETOP_MAX_HINTS_PER_ADDRESS`` hints queued or running,
429 beyond, so one client's flood of long hints cannot queue ahead of every other client's; and a
client's only hint goes to the front of its queue, before the hints of clients that have several.

A timeout (a human seat out of time) can be a job too, ``timeout-<match>-<version>``, on the timeouts
lane: the API announces it when it refuses a late move, and the clock keepers for the searching levels,
whose thinking no keeper does (:meth:`BotQueue.timeout_due`); every announcement of one decision's
timeout collapses into one job.  A job of a match whose app is revoked does nothing
(:mod:`workers.jobs`).
"""

from __future__ import annotations

import contextlib
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from rq import Callback, Queue, Retry, worker_registration
from rq.exceptions import DuplicateJobError, NoSuchJobError
from rq.job import Job, JobStatus
from rq.registry import ScheduledJobRegistry
from rq.utils import utcparse

from engine.ai import DEFAULT_THINK_MS
from service.domain.errors import TooMany, invalid
from service.storage.hints import HintStore
from service.storage.lanes import LaneStore
from service.storage.matches import Store, now

DEFAULT_LEVEL = "normal"
#: The largest think budget the API's schema accepts; a deployment caps it lower with
#: ``TABLETOP_MAX_THINK_MS`` (:meth:`BotQueue.budget`).
MAX_THINK_MS = 60_000

#: The kinds of work (see the module).  Each is a queue per tenant, ``<kind>:<tenant>``
#: (:func:`queue_name`), besides the kind's own queue ``<kind>`` for the lane's chores.
QUICK_QUEUE = "bots-quick"
THINK_QUEUE = "bots"
HINT_QUEUE = "hints"
TIMEOUT_QUEUE = "timeouts"
#: Web Push deliveries (service/domain/push/delivery.py): a network wait each, on a lane of their own.
PUSH_QUEUE = "push"
#: The levels whose decisions take milliseconds, not a think budget: they have a lane of their own.
QUICK_LEVELS = frozenset({"random", "easy"})
#: A lane's kinds of work, in the order its workers serve them (a process per lane).
LANES: dict[str, tuple[str, ...]] = {
    "quick": (QUICK_QUEUE,),
    "think": (THINK_QUEUE,),
    "timeouts": (TIMEOUT_QUEUE,),
    "hints": (HINT_QUEUE,),
    "push": (PUSH_QUEUE,),
}
#: The tenant of every match created without an app key (app ids are hex: no app is named so).
ANONYMOUS = "anon"
#: Seconds the workers keep listening to a tenant's queue after its last job (then it is forgotten,
#: once empty; its next job wakes them again).
TENANT_RETENTION = 24 * 3600
PLAY_JOB = "workers.jobs.play_bot_turn"
HINT_JOB = "workers.jobs.suggest_move"
TIMEOUT_JOB = "workers.jobs.play_timeout"
#: A no-op on a kind's own queue: a worker blocked on the queues it knew takes it and listens anew.
WAKE_JOB = "workers.jobs.wake"
#: Run after every failed attempt of a bot turn or a timeout; once the retries are spent each plays a
#: random move.
FAILED_CALLBACK = "workers.jobs.bot_turn_failed"
TIMEOUT_FAILED_CALLBACK = "workers.jobs.timeout_failed"
#: Seconds before each retry of a failed bot turn (backoff); the failure callback covers the rest.
RETRY_INTERVALS = (1, 5)
#: Seconds a job may run beyond its think budget and time slice (loading, committing, a slow machine).
JOB_MARGIN_SECONDS = 10
#: The ``Retry-After`` of a client past ``TABLETOP_MAX_HINTS_PER_ADDRESS``: a place frees when one of its
#: hints is answered, which polling it (every second) tells.
HINT_RETRY_SECONDS = 1
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


def tenant_of(app: str | None) -> str:
    """Whose share of the lanes a match's work takes: its app, or :data:`ANONYMOUS`."""
    return ANONYMOUS if app is None else app


def queue_name(kind: str, tenant: str) -> str:
    """The queue of ``tenant``'s work of ``kind``."""
    return f"{kind}:{tenant}"


def tenant_of_queue(name: str) -> tuple[str, str | None]:
    """The kind and tenant of a queue (``None``: the kind's own queue)."""
    kind, _, tenant = name.partition(":")
    return kind, tenant or None


def is_bot(seat: dict[str, Any]) -> bool:
    return bool(seat["kind"] == "bot")


def think_budget(level: str | None = None, think_ms: int | None = None) -> tuple[str, int]:
    """A bot's level and think budget, the defaults filling in what was not asked for: the one place
    they are resolved (bot seats, hints, timeouts).  The server's cap is :meth:`BotQueue.budget`'s."""
    level = DEFAULT_LEVEL if level is None else level
    return level, DEFAULT_THINK_MS[level] if think_ms is None else think_ms


def think_ms_of(seat: dict[str, Any]) -> int:
    """The think budget of a bot seat (stored at creation; the level's default for older matches)."""
    return int(think_budget(seat["level"], seat.get("think_ms"))[1])


def lane_of(seat: dict[str, Any]) -> str:
    """The lane that plays a bot seat's turns."""
    return lane_of_level(seat["level"])


def lane_of_level(level: str) -> str:
    """The lane of a bot of ``level``: its turns and hints (every timeout takes the timeouts lane)."""
    return "quick" if level in QUICK_LEVELS else "think"


def bot_job_id(match_id: str, version: int) -> str:
    return f"bot-{match_id}-{version}"


def timeout_job_id(match_id: str, version: int) -> str:
    return f"timeout-{match_id}-{version}"


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
    """The bot queues on the store's queue Redis: enqueue bot turns and hints, read hint jobs.  Jobs,
    queues and workers are read and written through RQ's API; what that API cannot read through the
    lanes' store, and the hints' bookkeeping through the hint store."""

    def __init__(
        self,
        store: Store,
        retry_intervals: tuple[int, ...] = RETRY_INTERVALS,
        stall_seconds: float = 15.0,
        slice_seconds: float = 0.5,
        max_think_ms: int = 10_000,
        max_hints_per_address: int = 8,
    ) -> None:
        self.store = store
        #: RQ's connection (the store's queue Redis), for RQ's API only.
        self.connection = store.queue
        #: The tenants of each kind of work, and RQ's keys RQ's API cannot read (on the queue Redis).
        self.lanes = LaneStore(self.connection)
        #: Each seat's last hint job, and the hints in flight per client address (on the state Redis).
        self.hints = HintStore(store.redis)
        #: RQ queues by name, made as they are first used (:meth:`queue`).
        self.queues: dict[str, Queue] = {}
        self.retry_intervals = retry_intervals
        #: A started job whose worker has not sent a heartbeat for this long is presumed dead.
        self.stall_seconds = stall_seconds
        #: How long a bot job goes on playing the bots' decisions that follow its own (workers.jobs).
        self.slice_seconds = slice_seconds
        self.max_think_ms = max_think_ms
        #: Hints one client address may have queued or running at once (0: no bound).
        self.max_hints_per_address = max_hints_per_address

    def queue(self, name: str) -> Queue:
        """The RQ queue ``name`` (a kind's own, or a tenant's)."""
        queue = self.queues.get(name)
        if queue is None:
            queue = self.queues[name] = Queue(name, connection=self.connection)
        return queue

    def reachable(self) -> int:
        """Jobs waiting in the thinking lane's own queue (a read of the queue Redis); raises
        ``redis.RedisError`` when it cannot be read."""
        return self.queue(THINK_QUEUE).count

    def live_workers(self) -> int:
        """Workers whose heartbeat is fresh (a dead one's registration lapses after :data:`WORKER_TTL`).

        Read from RQ's worker registry with plain commands, never by building ``rq.Worker`` objects:
        RQ's worker constructor raises its connection pool's socket timeout to its own dequeue timeout
        (minutes), and on the API's pool that turned every later Redis stall into a hung request."""
        keys = sorted(worker_registration.get_keys(connection=self.connection))
        now = datetime.now(UTC)
        return sum(
            1
            for beat in self.lanes.last_heartbeats(keys)
            if beat is not None and (now - utcparse(beat).replace(tzinfo=UTC)).total_seconds() < WORKER_TTL
        )

    def budget(self, level: str | None, think_ms: int | None, field: str) -> tuple[str, int]:
        """The level and think budget a client asked for (a bot seat, a hint), defaults filled in
        (:func:`think_budget`); 422 on ``field`` when the budget is over ``TABLETOP_MAX_THINK_MS``."""
        level, think_ms = think_budget(level, think_ms)
        if think_ms > self.max_think_ms:
            raise invalid(field, f"at most {self.max_think_ms} ms on this server (TABLETOP_MAX_THINK_MS)")
        return level, think_ms

    # -- bot turns ----------------------------------------------------------------------------------

    # -- the tenants' queues ---------------------------------------------------------------------------

    def _enqueue(self, kind: str, app: str | None, func: str, **options: Any) -> Job:
        """Enqueue ``func`` on the queue of ``app``'s work of ``kind``, registered first so the lane's
        workers listen to it; a tenant they were not listening to wakes them (:meth:`_wake`)."""
        tenant = tenant_of(app)
        new = self.lanes.touch(kind, tenant, time.time(), TENANT_RETENTION)
        try:
            return self.queue(queue_name(kind, tenant)).enqueue_call(func, **options)
        finally:
            if new:
                self._wake(kind)

    def _wake(self, kind: str) -> None:
        """Put a no-op on ``kind``'s own queue, which every worker of its lane listens to: one blocked
        on the queues it knew takes it and, like every worker before it takes a job, reads the tenants
        again.  (The others read them within :data:`workers.worker.LISTEN_SECONDS`.)"""
        with contextlib.suppress(DuplicateJobError):  # one waiting wake-up is enough
            self.queue(kind).enqueue_call(
                WAKE_JOB,
                job_id=f"wake-{kind}",
                unique=True,
                timeout=30,
                result_ttl=0,
                failure_ttl=60,
                description=f"new tenants on {kind}",
            )

    def _listened(self, name: str) -> None:
        """Keep the workers listening to queue ``name``, which holds a job that will run (the sweep
        finds it there): a tenant idle past :data:`TENANT_RETENTION` with a job still queued."""
        kind, tenant = tenant_of_queue(name)
        if tenant is not None and self.lanes.touch(kind, tenant, time.time(), TENANT_RETENTION):
            self._wake(kind)

    # -- bot turns ----------------------------------------------------------------------------------

    def turn_pending(self, match_id: str, version: int, seat: dict[str, Any], *, app: str | None) -> None:
        """Enqueue the bot turn of ``match_id`` at ``version`` unless a job for it exists already, on
        the queue of ``app`` (the match's; ``None``: anonymous) in the seat's lane."""
        with contextlib.suppress(DuplicateJobError):  # announced twice: one job plays the turn
            self._enqueue(
                LANES[lane_of(seat)][0],
                app,
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

    def ensure_turn(self, match_id: str, version: int, seat: dict[str, Any], *, app: str | None) -> bool:
        """Re-enqueue a pending bot turn whose job is gone, failed, or stalled with a dead worker (the
        sweep).  Returns whether it enqueued.  A duplicate run is harmless: only one commit can win
        the compare-and-set on ``version``."""
        return self._ensure(
            bot_job_id(match_id, version), lambda: self.turn_pending(match_id, version, seat, app=app)
        )

    def _ensure(self, job_id: str, enqueue: Callable[[], None]) -> bool:
        """``enqueue`` the job ``job_id`` unless one by that id will still run by itself; a dead one (gone,
        failed, stalled with a dead worker) is replaced.  Whether it enqueued."""
        job = self._fetch(job_id)
        if job is not None:
            if self._alive(job):
                self._listened(job.origin)
                return False
            self.queue(job.origin).intermediate_queue.remove(job.id)
            job.delete()
        enqueue()
        return True

    # -- timeouts -----------------------------------------------------------------------------------

    def timeout_due(self, match_id: str, version: int, level: str, *, app: str | None) -> bool:
        """Announce that the human decision pending at ``version`` is out of time: a job on the timeouts
        lane, in ``app``'s queue, plays it with a bot of ``level`` (the clock's ``on_timeout``), unless
        one will already.  Called by every clock keeper's claim and by the API refusing a late move, as
        often as they like: they collapse into one job per version, and a job lost with a dead worker
        is replaced.  Whether it enqueued."""
        job_id = timeout_job_id(match_id, version)
        return self._ensure(job_id, lambda: self._enqueue_timeout(match_id, version, level, app))

    def _enqueue_timeout(self, match_id: str, version: int, level: str, app: str | None) -> None:
        with contextlib.suppress(DuplicateJobError):  # announced by two at once: one job plays it
            self._enqueue(
                TIMEOUT_QUEUE,
                app,
                TIMEOUT_JOB,
                args=(match_id, version),
                job_id=timeout_job_id(match_id, version),
                unique=True,
                timeout=job_timeout(think_budget(level)[1], 0),
                result_ttl=0,
                failure_ttl=FAILURE_TTL_SECONDS,
                retry=Retry(max=len(self.retry_intervals), interval=list(self.retry_intervals)),
                on_failure=Callback(TIMEOUT_FAILED_CALLBACK),
                description=f"timeout of match {match_id} at version {version}",
            )

    def _alive(self, job: Job) -> bool:
        """Whether ``job`` will still run (or is running) by itself."""
        status = job.get_status()
        if status == JobStatus.SCHEDULED:
            # A retry waiting for its time.  Only a worker holding RQ's scheduler lock moves it to the
            # queue; when that worker died the lock outlives it for a minute and more, so a retry
            # overdue by the stall time is presumed orphaned.
            try:
                due = ScheduledJobRegistry(queue=self.queue(job.origin)).get_scheduled_time(job)
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
        queue = self.queue(job.origin)
        if self.lanes.in_rq_list(queue.key, job.id):
            return True
        handing = queue.intermediate_queue
        if not self.lanes.in_rq_list(handing.key, job.id):
            return False  # in no list: lost
        if handing.set_first_seen(job.id):
            return True  # seen being handed over for the first time: give it the stall time
        first = handing.get_first_seen(job.id)
        return first is not None and (datetime.now(UTC) - first).total_seconds() < self.stall_seconds

    # -- hints --------------------------------------------------------------------------------------

    def request_hint(
        self,
        match_id: str,
        version: int,
        seat: int,
        level: str,
        think_ms: int,
        address: str,
        *,
        app: str | None,
    ) -> str:
        """The id of ``seat``'s hint job: the one still running, whatever it was asked for (a seat has
        one at a time), or the finished one for this very question; else a new one, on the lane of
        ``level`` in ``app``'s queue (the match's), if the client at ``address`` has fewer than
        ``max_hints_per_address`` hints queued or running (a 429 naming the limit otherwise)."""
        hints = self.hints
        current = hints.current(match_id, seat)
        job = self._fetch(current) if current else None
        if job is not None:
            status = job.get_status()
            if status not in DEAD and status != JobStatus.FINISHED:
                return job.id
            if status == JobStatus.FINISHED and (job.meta["version"], job.meta["level"]) == (version, level):
                return job.id
        job_id = new_hint_job_id()
        in_flight = self._take_hint_place(address, job_id, think_ms)
        if not hints.claim(match_id, seat, current, job_id, HINT_TTL_SECONDS):
            # Asked twice at once: the other request's job is the seat's one.
            hints.drop(address, [job_id])
            return hints.current(match_id, seat) or job_id
        self._enqueue(
            QUICK_QUEUE if lane_of_level(level) == "quick" else HINT_QUEUE,
            app,
            HINT_JOB,
            args=(match_id, version, seat, level, think_ms),
            job_id=job_id,
            timeout=job_timeout(think_ms, 0),
            result_ttl=HINT_TTL_SECONDS,
            ttl=HINT_TTL_SECONDS,
            failure_ttl=HINT_TTL_SECONDS,
            meta={"match_id": match_id, "version": version, "seat": seat, "level": level},
            description=f"hint for seat {seat} of match {match_id} at version {version}",
            at_front=in_flight == 1,  # a client's only hint goes before the hints of those with more
        )
        return job_id

    def _take_hint_place(self, address: str, job_id: str, think_ms: int) -> int:
        """Count ``job_id`` among the hints of ``address`` in flight, and return how many it has now;
        or raise 429 when it has its fill.  The hints it had that are over (answered, failed, expired)
        are let go first: the count is checked against the jobs themselves, so a hint lost with a
        worker frees its place too once RQ marks it failed, and at the latest when it would have
        expired.  (0: no bound, nothing counted.)"""
        if not self.max_hints_per_address:
            return 0
        hints = self.hints
        held = hints.in_flight(address)
        jobs = Job.fetch_many(held, connection=self.connection) if held else []
        over = [
            held_id
            for held_id, job in zip(held, jobs, strict=True)
            if job is None or job.get_status(refresh=False) in DEAD | {JobStatus.FINISHED}
        ]
        hints.drop(address, over)
        until = now() + HINT_TTL_SECONDS + job_timeout(think_ms, 0)
        in_flight = hints.take_place(address, job_id, self.max_hints_per_address, until)
        if not in_flight:
            limit = self.max_hints_per_address
            raise TooMany(
                "too_many_hints",
                f"this client has {limit} hints queued or running, the most one client may "
                f"(TABLETOP_MAX_HINTS_PER_ADDRESS); poll them, then ask again",
                {"limit": limit, "retry_after": HINT_RETRY_SECONDS},
                HINT_RETRY_SECONDS,
            )
        return in_flight

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
