"""Lanes shared fairly between apps, against a real Redis and real RQ workers (in process, and a real
``tabletop worker`` process where blocking matters): each app's work waits in the app's own queue of its
kind, a worker takes the next job from the app that used the lane least lately, a new app's first job
wakes a worker blocked on the queues it knew, RQ's scheduler moves a tenant queue's retries, and the
jobs of a revoked app's matches do nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rq import Queue
from rq.job import JobStatus

from service.cli import WORKER_LANES
from service.domain.identity import APP, Caller
from service.domain.matches.bots import (
    ANONYMOUS,
    HINT_QUEUE,
    LANES,
    QUICK_QUEUE,
    TENANT_RETENTION,
    THINK_QUEUE,
    TIMEOUT_QUEUE,
    bot_job_id,
    queue_name,
    timeout_job_id,
)
from service.domain.matches.operations import Matches
from service.storage.lanes import LaneStore
from workers import jobs
from workers.worker import LaneScheduler, LaneWorker, lane_queues

ROOT = Path(__file__).resolve().parents[2]
BOT = {"kind": "bot", "level": "easy"}
HUMANS = [{"name": "a", "kind": "human"}, {"name": "b", "kind": "human"}]


def new_app(matches: Matches, name: str) -> str:
    return str(matches.accounts.create_app(name)["id"])


def create(matches: Matches, app: str | None, seats: list[dict[str, Any]], seed: int = 3, **more: Any) -> str:
    """A High Card match created with ``app``'s key (``None``: anonymously); seed 3: seat 0 decides
    first, and with swaps off each decision ends the seat's turn."""
    request = {
        "game": "high_card",
        "seats": [{"kind": "human", **s} for s in seats],
        "options": {"swaps": False},
        "seed": seed,
        **more,
    }
    caller = Caller(APP, app=app) if app is not None else None
    return str(matches.create(request, caller=caller)["id"])


def bot_first(matches: Matches, app: str | None, seed: int = 3) -> str:
    return create(matches, app, [{"name": "bot", **BOT}, {"name": "h"}], seed=seed)


def queued(matches: Matches, kind: str, tenant: str) -> list[str]:
    return Queue(queue_name(kind, tenant), connection=matches.store.redis).job_ids


def moved(matches: Matches, match_ids: list[str]) -> list[str]:
    return [m for m in match_ids if matches.meta(m).version > 0]


def test_the_cli_names_every_lane():
    assert tuple(LANES) == WORKER_LANES


def test_each_tenants_work_waits_in_its_own_queue_of_its_kind(matches):
    x, y = new_app(matches, "x"), new_app(matches, "y")
    in_x, in_y, anonymous = bot_first(matches, x), bot_first(matches, y), bot_first(matches, None)
    assert queued(matches, QUICK_QUEUE, x) == [bot_job_id(in_x, 0)]
    assert queued(matches, QUICK_QUEUE, y) == [bot_job_id(in_y, 0)]
    assert queued(matches, QUICK_QUEUE, ANONYMOUS) == [bot_job_id(anonymous, 0)]
    hard = {"name": "bot", "kind": "bot", "level": "hard", "think_ms": 10}
    searching = create(matches, x, [hard, {"name": "h"}])
    assert queued(matches, THINK_QUEUE, x) == [bot_job_id(searching, 0)]
    assert matches.bots.timeout_due(in_y, 0, "easy", app=y)  # every timeout takes the timeouts lane
    assert queued(matches, TIMEOUT_QUEUE, y) == [timeout_job_id(in_y, 0)]
    two = create(matches, y, HUMANS)
    hint = matches.bots.request_hint(two, 0, 0, "normal", 10, "10.0.0.1", app=y)
    assert queued(matches, HINT_QUEUE, y) == [hint]
    # The first job of each tenant of a kind woke the lane: one wake-up waits on the kind's own queue.
    assert Queue(QUICK_QUEUE, connection=matches.store.redis).job_ids == [f"wake-{QUICK_QUEUE}"]
    assert lane_queues(matches.bots.lanes, [QUICK_QUEUE], time.time())[0] == QUICK_QUEUE
    assert set(lane_queues(matches.bots.lanes, [QUICK_QUEUE], time.time())) == {
        QUICK_QUEUE,
        *(queue_name(QUICK_QUEUE, t) for t in (x, y, ANONYMOUS)),
    }


def test_a_worker_takes_the_next_job_from_the_tenant_whose_turn_it_is_by_worker_time(matches, redis_client):
    x, y = new_app(matches, "x"), new_app(matches, "y")
    flood = [bot_first(matches, x, seed) for seed in (3, 3, 3, 3)]
    late = [bot_first(matches, y, seed) for seed in (3, 3)]
    kinds = [QUICK_QUEUE]
    # Neither has used the lane: one job each, whichever goes first, then the other's.
    LaneWorker(kinds, connection=redis_client).work(burst=True, max_jobs=3, logging_level="WARNING")
    assert len(moved(matches, flood)) == 1 and len(moved(matches, late)) == 1  # and the wake-up
    # X's jobs have taken 10 s of the lane: Y's go first, though X's were queued long before.
    matches.bots.lanes.served(QUICK_QUEUE, x, 10.0)
    more = bot_first(matches, y)
    LaneWorker(kinds, connection=redis_client).work(burst=True, max_jobs=2, logging_level="WARNING")
    assert len(moved(matches, flood)) == 1 and moved(matches, [*late, more]) == [*late, more]
    LaneWorker(kinds, connection=redis_client).work(burst=True, logging_level="WARNING")
    assert moved(matches, flood) == flood  # work-conserving: alone, X has the lane


def test_busy_tenants_alternate_by_worker_time_and_one_back_from_idle_starts_at_the_lanes_clock(
    redis_client,
):
    """Start-time fair queueing: the next job is the tenant's whose next start (its finish tag, or the
    lane's clock if later) is earliest; the clock is the latest start served."""
    lanes = LaneStore(redis_client)
    for tenant in ("x", "y"):
        lanes.touch(THINK_QUEUE, tenant, 1000.0, TENANT_RETENTION)

    def order() -> list[str]:
        return lane_queues(lanes, [THINK_QUEUE], 1000.0)[1:]

    for _ in range(10):  # x alone, 2-s jobs: its tag 20, the clock 18 (its last start)
        lanes.served(THINK_QUEUE, "x", 2.0)
    lane = lanes.tenants([THINK_QUEUE], 1000.0, TENANT_RETENTION)[THINK_QUEUE]
    assert (lane.clock, lane.tags) == (18.0, {"x": 20.0, "y": 0.0})
    assert order() == ["bots:y", "bots:x"]  # y starts at the clock (18), before x's 20: no idle credit
    lanes.served(THINK_QUEUE, "y", 0.5)  # 18.5
    lanes.served(THINK_QUEUE, "y", 0.5)  # 19
    assert order() == ["bots:y", "bots:x"]
    lanes.served(THINK_QUEUE, "y", 1.5)  # 20.5: past x's 20, x's turn
    assert order() == ["bots:x", "bots:y"]
    lanes.served(THINK_QUEUE, "x", 2.0)  # 22
    assert order() == ["bots:y", "bots:x"]  # busy, they take the lane in turns of equal time
    assert (
        lanes.tenants([THINK_QUEUE], 1000.0 + TENANT_RETENTION + 1, TENANT_RETENTION)[THINK_QUEUE].tags == {}
    )


def test_a_tenant_idle_past_the_retention_is_forgotten_once_its_queue_is_empty(redis_client):
    lanes = LaneStore(redis_client)
    assert lanes.touch(THINK_QUEUE, "idle", 1000.0, 600) is True  # new: the workers must be told
    assert lanes.touch(THINK_QUEUE, "idle", 1100.0, 600) is False
    assert lanes.touch(THINK_QUEUE, "busy", 1000.0, 600) is True
    redis_client.rpush("rq:queue:bots:busy", "a-job")
    key = {"idle": "rq:queue:bots:idle", "busy": "rq:queue:bots:busy"}.__getitem__
    assert lanes.forget(THINK_QUEUE, 1500.0, 600, key) == []  # neither idle for 600 s yet
    assert lanes.forget(THINK_QUEUE, 1800.0, 600, key) == ["idle"]  # busy still has a job
    assert lanes.touch(THINK_QUEUE, "idle", 1900.0, 600) is True  # back: told again
    assert lanes.touch(THINK_QUEUE, "busy", 1900.0, 600) is True  # listened to again after a while


def test_the_scheduler_moves_a_tenant_queues_retry_when_it_is_due(matches, redis_client):
    x = new_app(matches, "x")
    match_id = bot_first(matches, x)
    queue = Queue(queue_name(QUICK_QUEUE, x), connection=redis_client)
    job = queue.fetch_job(bot_job_id(match_id, 0))
    assert job is not None
    queue.remove(job)
    queue.schedule_job(job, datetime.now(UTC) - timedelta(seconds=1))  # a retry whose time came
    scheduler = LaneScheduler([QUICK_QUEUE], connection=redis_client)
    assert queue.name in scheduler.acquire_locks()  # the tenant's queue, learnt from the registry
    try:
        scheduler.enqueue_scheduled_jobs()
    finally:
        scheduler.release_locks()
    assert queue.job_ids == [job.id] and job.get_status() == JobStatus.QUEUED


def test_the_jobs_of_a_revoked_apps_matches_do_nothing(matches, work):
    x = new_app(matches, "x")
    turn, control = bot_first(matches, x), bot_first(matches, None)
    clock = {"per_move_seconds": 30, "on_timeout": "hard", "max_timeouts": 3}
    clocked = create(matches, x, HUMANS, time_control=clock)
    deadline = matches.meta(clocked).clock["deadline"]
    assert matches.bots.timeout_due(clocked, 0, "hard", app=x)  # as the API announces a late move
    asking = create(matches, x, HUMANS)
    hint = matches.bots.request_hint(asking, 0, 0, "normal", 10, "10.0.0.1", app=x)
    matches.accounts.revoke_app(x)
    work()
    assert matches.meta(turn).version == 0 and matches.meta(control).version == 1
    assert matches.meta(clocked).version == 0
    # the keepers stop claiming it
    assert clocked not in matches.store.clocks.claim_due(deadline + 60, 100, 1.0)
    info = matches.bots.hint(hint)
    assert info is not None and info.status == "finished" and info.result["action"] is None
    assert jobs.take_turns(matches, turn, 0).outcome == jobs.REVOKED
    assert jobs.hand_over(matches, clocked, at=deadline + 1) == jobs.REVOKED
    assert jobs.sweep_matches(matches) == 0  # nor does the sweep enqueue its turn again
    assert queued(matches, QUICK_QUEUE, x) == [] and queued(matches, TIMEOUT_QUEUE, x) == []


# -- a real worker process, blocked on the queues it knew --------------------------------------------

#: ``tabletop worker --lanes quick`` whose idle workers would read the tenants again only after a minute:
#: a new tenant's job is taken at once only if its wake-up works.
SLOW_LISTENER = """
import sys
from service.config import Config
from workers import worker
worker.LISTEN_SECONDS = 60
worker.run(Config.from_env(), lanes=("quick",))
"""


@pytest.fixture
def quick_worker(redis_url: str, matches: Matches) -> Iterator[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-c", SLOW_LISTENER], env=env, cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while matches.bots.live_workers() < 1:
            assert proc.poll() is None and time.monotonic() < deadline, "the worker did not start"
            time.sleep(0.1)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def two_easy_bots(matches: Matches, app: str | None) -> str:
    """A Year of the Dragon match of two ``easy`` bots (a game the worker process knows)."""
    request = {"game": "year_of_dragon", "seats": [{"name": f"e{i}", **BOT} for i in range(2)], "options": {}}
    return str(matches.create(request, caller=Caller(APP, app=app) if app else None)["id"])


def played_within(matches: Matches, match_id: str, limit: float) -> float:
    started = time.monotonic()
    while matches.meta(match_id).version == 0:
        assert time.monotonic() - started < limit, f"match {match_id} was not played within {limit} s"
        time.sleep(0.02)
    return time.monotonic() - started


def test_a_new_tenants_first_job_wakes_a_worker_blocked_on_the_queues_it_knew(matches, quick_worker):
    time.sleep(1.0)  # the worker is blocked in its pop, listening to no tenant's queue
    waits = []
    for name in ("x", "y", "z"):
        waits.append(played_within(matches, two_easy_bots(matches, new_app(matches, name)), 20.0))
    waits.append(played_within(matches, two_easy_bots(matches, None), 20.0))  # anonymous: a tenant too
    print(f"fair lanes: a new tenant's first bot turn played after {[round(w, 2) for w in waits]} s")
    assert max(waits) < 5.0  # the wake-up, not the minute's listen (a loaded 2-core machine: margin)
