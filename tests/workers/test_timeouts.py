"""Timeouts against a real Redis and a real (in-process) RQ worker: the clock keeper never thinks (it plays
a ``random``/``easy`` timeout itself and announces a searching level's as a job on the timeouts lane, in
the match's tenant's queue, one job per decision however often it is announced); the API refuses a move
past its deadline whether or not a keeper runs, and announces the timeout, which a worker then plays
exactly once."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rq import Queue
from rq.job import Job, JobStatus

from engine import ai
from service.domain.matches.bots import (
    ANONYMOUS,
    QUICK_QUEUE,
    THINK_QUEUE,
    TIMEOUT_QUEUE,
    queue_name,
    timeout_job_id,
)
from service.domain.matches.operations import Matches
from service.storage.matches import now
from service.wiring import build
from tests.service.conftest import Table
from workers import jobs


def clocked(matches: Matches, seconds: float, level: str, ago: float = 0.0) -> dict[str, Any]:
    """Two humans at High Card (no swaps: each decision ends the seat's turn) on a per-move clock,
    created ``ago`` seconds ago (so a deadline can be past at once, while later ones are far)."""
    control = {"per_move_seconds": seconds, "on_timeout": level, "max_timeouts": 3}
    seats = [{"name": "a", "kind": "human"}, {"name": "b", "kind": "human"}]
    request = {"game": "high_card", "seats": seats, "options": {"swaps": False}, "seed": 4}
    config, store, games, queue = matches.config, matches.store, matches.games, matches.bots
    backdated = build(config, store=store, games=games, bot_queue=queue, clock=lambda: now() - ago).matches
    return backdated.create({**request, "time_control": control})


def queued(matches: Matches, kind: str, tenant: str = ANONYMOUS) -> list[str]:
    """The jobs queued on ``tenant``'s queue of ``kind`` (these matches are anonymous)."""
    return Queue(queue_name(kind, tenant), connection=matches.store.redis).job_ids


def wait_past(deadline: float, timeout: float = 10.0) -> None:
    """Until the server's clock (``service.storage.matches.now``) is past ``deadline``."""
    give_up = time.monotonic() + timeout
    while now() <= deadline:
        assert time.monotonic() < give_up, "the clock never passed the deadline"
        time.sleep(0.02)


def timeout_events(matches: Matches, match_id: str) -> list[dict[str, Any]]:
    return [e.event for e in matches.store.events_after(match_id, "0-0") if e.event["type"] == "timeout"]


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_the_keeper_hands_a_searching_timeout_to_the_timeouts_lane_once(matches, level):
    """The keeper never thinks: it announces ``timeout-<match>-<version>`` on the timeouts lane (never
    behind bot turns), and any number of claims of the same decision (a lost reply, a keeper that died)
    collapse into that job."""
    doc = clocked(matches, 30, level)
    deadline = doc["clock"]["deadline"]
    assert jobs.hand_over(matches, doc["id"], at=deadline - 1) == jobs.NOT_DUE
    for _ in range(3):
        assert jobs.hand_over(matches, doc["id"], at=deadline + 0.1) == jobs.HANDED_OVER
    assert queued(matches, TIMEOUT_QUEUE) == [timeout_job_id(doc["id"], 0)]
    assert queued(matches, QUICK_QUEUE) == [] and queued(matches, THINK_QUEUE) == []
    assert matches.meta(doc["id"]).version == 0  # announced, not played


@pytest.mark.parametrize("level", ["random", "easy"])
def test_the_keeper_plays_a_quick_timeout_itself_once(matches, level):
    """A quick level's move costs no more than announcing a job: the keeper plays it, and a second claim
    of the same decision finds it played."""
    doc = clocked(matches, 30, level, ago=31)
    assert jobs.hand_over(matches, doc["id"]) == jobs.MOVED
    assert jobs.hand_over(matches, doc["id"]) == jobs.NOT_DUE
    assert queued(matches, TIMEOUT_QUEUE) == []
    meta = matches.meta(doc["id"])
    assert meta.version == 1 and meta.clock["timeouts"][doc["to_move"]] == 1
    assert [e["level"] for e in timeout_events(matches, doc["id"])] == [level]


def test_a_timeout_job_plays_the_decision_once(matches, work):
    doc = clocked(matches, 30, "easy", ago=31)
    assert matches.bots.timeout_due(doc["id"], 0, "easy", app=None)  # as the API announces it
    assert queued(matches, TIMEOUT_QUEUE) == [timeout_job_id(doc["id"], 0)]
    work()
    meta = matches.meta(doc["id"])
    assert meta.version == 1 and meta.clock["timeouts"][doc["to_move"]] == 1
    assert len(timeout_events(matches, doc["id"])) == 1
    assert meta.to_move != doc["to_move"] and meta.clock["deadline"] > now() + 20  # the next seat's clock
    assert matches.bots.timeout_due(doc["id"], 0, "easy", app=None)  # announced again once it ran
    work()
    assert matches.meta(doc["id"]).version == 1 and len(timeout_events(matches, doc["id"])) == 1


def test_with_no_worker_a_late_move_is_refused_and_the_timeout_is_played_once_a_worker_runs(
    app, matches, work
):
    """Nothing claims the deadline here (no keeper, no worker): the API itself judges the move late, says
    so naming the deadline, commits nothing, and announces the timeout; a worker then plays it once."""
    client = app.test_client()
    control = {"per_move_seconds": 1, "on_timeout": "random", "max_timeouts": 5}
    table = Table(client, options={"swaps": False}, seed=4, time_control=control)
    doc = table.created.json
    seat, deadline = doc["to_move"], doc["clock"]["deadline"]
    action = table.legal(seat)[0]
    wait_past(deadline)
    for _ in range(2):  # asked again: refused again, and still one job
        late = table.move(seat, action, 0)
        assert late.status_code == 409, late.json
        assert late.json["code"] == "out_of_time"
        assert late.json["details"] == {"deadline": deadline, "seat": seat, "on_timeout": "random"}
        assert (
            datetime.fromtimestamp(deadline, UTC).isoformat(timespec="milliseconds") in late.json["message"]
        )
    before = table.get(seat).json
    assert before["version"] == 0 and before["clock"]["timeouts"] == [0, 0]
    assert queued(matches, TIMEOUT_QUEUE) == [timeout_job_id(table.id, 0)]
    work()
    after = table.get(seat).json
    assert after["version"] == 1 and after["clock"]["timeouts"][seat] == 1
    assert len(timeout_events(matches, table.id)) == 1
    assert [e["seat"] for e in matches.store.action_log(table.id)] == [seat]
    stale = table.move(seat, action, 0)  # the late move, sent once more, is no move of the match's now
    assert stale.status_code in (403, 412), stale.json


def test_a_move_in_time_is_accepted_and_the_timeout_that_follows_finds_it(matches):
    doc = clocked(matches, 30, "easy", ago=10)  # the move comes 10 s into its 30
    seat = doc["to_move"]
    loaded = matches.store.load(doc["id"])
    assert loaded is not None
    action = matches.games["high_card"].legal_actions(matches.games["high_card"].decode(loaded.state))[0]
    body, commit = matches.commit(loaded, seat, action)
    assert commit.version == 1 and body["version"] == 1
    # A claim of the old deadline, late: the match moved on, so nothing is announced or played.
    assert jobs.hand_over(matches, doc["id"], at=doc["clock"]["deadline"] + 0.1) == jobs.NOT_DUE
    assert jobs.time_out(matches, doc["id"], at=doc["clock"]["deadline"] + 0.1) == jobs.NOT_DUE
    assert queued(matches, TIMEOUT_QUEUE) == [] and matches.meta(doc["id"]).version == 1


def test_a_move_checked_just_before_its_deadline_loses_to_a_timeout_committed_first(matches):
    """The race the API's check cannot close: whichever commits first on the version wins, never both."""
    doc = clocked(matches, 30, "easy")
    seat = doc["to_move"]
    loaded = matches.store.load(doc["id"])  # the move, checked in time
    assert loaded is not None
    assert jobs.time_out(matches, doc["id"], at=doc["clock"]["deadline"]) == jobs.MOVED
    action = matches.games["high_card"].legal_actions(matches.games["high_card"].decode(loaded.state))[0]
    _, commit = matches.commit(loaded, seat, action)
    assert commit.version is None and commit.stale == 1
    assert len(matches.store.action_log(doc["id"])) == 1 and len(timeout_events(matches, doc["id"])) == 1


def test_a_failing_timeout_is_retried_then_played_by_a_random_bot(matches, work, monkeypatch):
    calls: list[str] = []
    real = ai.choose_action

    def flaky(game, state, level, rng, think_ms=None, iterations=None):
        calls.append(level)
        if level != "random":
            raise RuntimeError("bot crashed")
        return real(game, state, level, rng, think_ms, iterations)

    monkeypatch.setattr(ai, "choose_action", flaky)
    doc = clocked(matches, 30, "easy", ago=31)
    assert jobs.hand_over(matches, doc["id"]) == jobs.HANDED_OVER  # the keeper's attempt failed
    work()
    assert calls == ["easy", "easy", "easy", "easy", "random"]  # the keeper's, then the job's
    meta = matches.meta(doc["id"])
    assert meta.version == 1 and meta.clock["timeouts"][doc["to_move"]] == 1


@pytest.mark.parametrize(("silent_for", "replaced"), [(0, False), (10, True)])
def test_a_timeout_job_left_by_a_dead_worker_is_replaced_by_the_next_claim(matches, silent_for, replaced):
    """A worker killed mid-timeout leaves its job started with a heartbeat that ages; once it is older
    than ``bot_stall_seconds`` (2 s here) the next claim replaces the job, else the claim leaves it."""
    doc = clocked(matches, 30, "hard")
    at = doc["clock"]["deadline"] + 0.1
    assert jobs.hand_over(matches, doc["id"], at=at) == jobs.HANDED_OVER
    job = Job.fetch(timeout_job_id(doc["id"], 0), connection=matches.store.redis)
    job.set_status(JobStatus.STARTED)
    job.heartbeat(datetime.now(UTC) - timedelta(seconds=silent_for), 60)
    Queue(job.origin, connection=job.connection).remove(job)
    assert jobs.hand_over(matches, doc["id"], at=at) == jobs.HANDED_OVER
    assert queued(matches, TIMEOUT_QUEUE) == [timeout_job_id(doc["id"], 0)] * replaced


def test_a_failed_timeout_job_does_not_block_the_next_announcement(matches):
    doc = clocked(matches, 30, "hard")
    assert jobs.hand_over(matches, doc["id"], at=doc["clock"]["deadline"] + 0.1) == jobs.HANDED_OVER
    job = Job.fetch(timeout_job_id(doc["id"], 0), connection=matches.store.redis)
    Queue(job.origin, connection=job.connection).remove(job)
    job.set_status(JobStatus.FAILED)
    assert matches.bots.timeout_due(doc["id"], 0, "hard", app=None) is True
    assert queued(matches, TIMEOUT_QUEUE) == [timeout_job_id(doc["id"], 0)]
