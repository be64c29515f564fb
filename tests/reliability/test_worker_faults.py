"""Worker faults: real workers (``tabletop worker`` with fault injection, see fault_worker.py) play
all-bot matches, each hit by one fault a few moves in:

``raising``  attempts at its turn raise: RQ retries with backoff, then the seat plays a random move;
``hanging``  an attempt hangs past the job timeout: RQ's death penalty (SIGALRM; workers fork no work
             horse) interrupts it, and RQ retries;
``killed``   the worker running its bot's search is SIGKILLed with its lanes (a replacement worker
             starts): the job's heartbeat stops, and the sweep re-enqueues the turn.

Every match must finish, and the longest pause between two of its moves must stay within what that fault
costs by design: for a lost job, the stall detection plus the sweep interval plus one think budget; for a
failing job, the retry backoff; for a hanging job, its timeout.  The last test kills the worker whose
scheduler holds a pending retry: the sweep takes the orphaned retry over once it is overdue by the stall
time.
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import redis
from rq.job import Job
from rq.registry import StartedJobRegistry
from rq.worker import Worker

from bench.procs import descendants
from service.domain.matches.bots import (
    ANONYMOUS,
    RETRY_INTERVALS,
    THINK_QUEUE,
    bot_job_id,
    job_timeout,
    queue_name,
)
from tests.reliability.fault_worker import FAULTS, FIRED
from tests.reliability.processes import ROOT, ApiServer, RedisServer, call, create_match, kill_tree

GAME = "year_of_dragon"
#: The searcher's budget: long enough to be caught searching (polled every 20 ms), short enough that a
#: match of about forty of its decisions takes seconds.
THINK_MS = 150
SWEEP_S, STALL_S = 4, 3
#: The fault hits once the match reached this version (a few moves in).
FAULT_AT = 6
#: Process start and Redis round trips on a loaded 2-core machine.
SLACK_S = 5.0
DEADLINE_S = 150
SEATS = [
    {"name": "searcher", "kind": "bot", "level": "normal", "think_ms": THINK_MS},
    {"name": "dice", "kind": "bot", "level": "random"},
]
BOUNDS = {
    "killed": SWEEP_S + STALL_S + THINK_MS / 1000 + SLACK_S,
    "raising": sum(RETRY_INTERVALS) + 3 * THINK_MS / 1000 + SLACK_S,
    "hanging": job_timeout(THINK_MS, 0.5) + RETRY_INTERVALS[0] + THINK_MS / 1000 + SLACK_S,
}


class Watch(threading.Thread):
    """Follows a match as a spectator: when each version first appeared, until it is over."""

    def __init__(self, api: ApiServer, match_id: str) -> None:
        super().__init__(daemon=True)
        self.api, self.match_id = api, match_id
        self.seen: dict[int, float] = {0: time.monotonic()}
        self.finished = False
        self.stopped = threading.Event()
        self.start()

    def run(self) -> None:
        client = self.api.client()
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline and not self.finished and not self.stopped.is_set():
            status, doc = call(client, "GET", f"/v1/matches/{self.match_id}")
            if status == 200:
                self.seen.setdefault(doc["version"], time.monotonic())
                self.finished = doc["status"] == "finished"
            time.sleep(0.05)

    @property
    def version(self) -> int:
        return max(self.seen)

    def longest_pause(self) -> float:
        """Between two moves, or since the last move when the match is not over."""
        times = sorted(self.seen.values()) + ([] if self.finished else [time.monotonic()])
        return max(b - a for a, b in itertools.pairwise(times))


def start_worker(api: ApiServer) -> subprocess.Popen[bytes]:
    """A fault-injecting worker (with its quick lane and sweep scheduler below it)."""
    env = {**api.env, "TABLETOP_SWEEP_SECONDS": str(SWEEP_S), "TABLETOP_BOT_STALL_SECONDS": str(STALL_S)}
    log = (api.log_path.parent / "workers.log").open("ab")
    return subprocess.Popen(
        [sys.executable, "-m", "tests.reliability.fault_worker"],
        env=env, cwd=ROOT, stdout=log, stderr=log,
    )  # fmt: skip


def searching_worker_pid(connection: redis.Redis, match_id: str, version: int) -> int | None:
    """The pid of the worker that runs ``match_id``'s bot turn at ``version``, if one does."""
    job_id = bot_job_id(match_id, version)
    started = StartedJobRegistry(queue_name(THINK_QUEUE, ANONYMOUS), connection=connection)
    if job_id not in started.get_job_ids(cleanup=False):
        return None
    name = Job.fetch(job_id, connection=connection).worker_name
    if not name:  # registered as started an instant before its worker is recorded
        return None
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + name, connection=connection)
    return worker.pid if worker is not None else None


class Stack:
    """Redis, the API and fault-injecting workers; matches of two bots, each followed by a Watch."""

    def __init__(self, tmp_path: Path) -> None:
        self.redis_server = RedisServer(tmp_path / "redis")
        self.redis_server.start()
        self.connection = redis.Redis.from_url(self.redis_server.url)
        self.workers: list[subprocess.Popen[bytes]] = []
        self.api = ApiServer(self.redis_server.url, tmp_path / "api.log", workers=1)
        self.api.start()
        self.client = self.api.client()
        self.watches: dict[str, Watch] = {}

    def add_worker(self) -> None:
        self.workers.append(start_worker(self.api))

    def start_match(self, name: str, fault: str | None = None) -> str:
        match_id = create_match(self.client, GAME, SEATS)["id"]
        if fault is not None:  # written long before the match reaches FAULT_AT
            self.connection.hset(FAULTS, match_id, f"{fault}:{FAULT_AT}")
        self.watches[name] = Watch(self.api, match_id)
        return match_id

    def kill_worker_searching(self, match_id: str) -> None:
        """SIGKILL the worker (and its lanes) while it searches the first seat's move, once the
        match is a few moves in; then start a replacement."""
        deadline = time.monotonic() + DEADLINE_S / 2
        pid = None
        while pid is None:
            assert time.monotonic() < deadline, "never caught the bot searching"
            status, doc = call(self.client, "GET", f"/v1/matches/{match_id}")
            if status == 200 and doc["version"] >= FAULT_AT and doc["to_move"] == 0:  # the searcher
                pid = searching_worker_pid(self.connection, match_id, doc["version"])
            time.sleep(0.02)
        kill_tree(next(w for w in self.workers if pid in descendants(w.pid)))  # the lane's worker
        self.add_worker()

    def wait_until_fired(self, match_id: str, times: int) -> None:
        deadline = time.monotonic() + DEADLINE_S / 2
        while int(self.connection.hget(FIRED, match_id) or 0) < times:
            assert time.monotonic() < deadline, "the fault never fired"
            time.sleep(0.02)

    def finish(self, wait_s: float = DEADLINE_S) -> dict[str, float]:
        """Wait for the watched matches; the longest pause between two moves of each."""
        for watch in self.watches.values():
            watch.join(timeout=wait_s)
        pauses = {name: round(watch.longest_pause(), 1) for name, watch in self.watches.items()}
        print(f"worker faults: longest pause between moves {pauses}, bounds {BOUNDS}")
        return pauses

    def close(self) -> None:
        for watch in self.watches.values():
            watch.stopped.set()
        for worker in self.workers:
            if worker.poll() is None:
                kill_tree(worker)
        self.api.stop()
        self.redis_server.stop()


@pytest.fixture
def stack(tmp_path):
    stack = Stack(tmp_path)
    yield stack
    stack.close()


def assert_within_bounds(stack: Stack, pauses: dict[str, float]) -> None:
    for name, watch in stack.watches.items():
        assert watch.finished, f"the {name} match did not finish"
        assert pauses[name] <= BOUNDS[name], (name, pauses[name], BOUNDS[name])


@pytest.mark.timeout(DEADLINE_S + 60)
def test_raising_and_hanging_bot_turns_are_retried_and_their_matches_finish(stack):
    stack.add_worker()
    stack.add_worker()  # one hangs for the job timeout: the other keeps every other match moving
    raising = stack.start_match("raising", "raise:3")
    hanging = stack.start_match("hanging", "hang:1")
    pauses = stack.finish()
    fired = {k.decode(): int(v) for k, v in stack.connection.hgetall(FIRED).items()}
    assert fired == {raising: 3, hanging: 1}  # raising: every attempt failed, then the random fallback
    assert_within_bounds(stack, pauses)


@pytest.mark.timeout(DEADLINE_S + 60)
def test_a_worker_killed_mid_search_loses_its_turn_to_the_sweep(stack):
    stack.add_worker()
    stack.add_worker()
    stack.kill_worker_searching(stack.start_match("killed"))
    assert_within_bounds(stack, stack.finish())


@pytest.mark.timeout(DEADLINE_S + 60)
def test_a_retry_pending_when_its_scheduler_worker_is_killed_still_runs(stack):
    stack.add_worker()  # the only worker: it holds the scheduler lock
    raising = stack.start_match("raising", "raise:1")
    stack.wait_until_fired(raising, 1)  # its retry is now scheduled, in 1 s
    kill_tree(stack.workers[0])
    stack.add_worker()
    pauses = stack.finish(wait_s=BOUNDS["killed"] + BOUNDS["raising"])
    assert_within_bounds(stack, pauses)
