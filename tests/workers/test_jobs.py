"""The bot jobs against a real Redis and a real (in-process) RQ worker: enqueueing, playing through the
compare-and-set commit, chaining, the random fallback after failed retries, and the sweep."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rq import Queue
from rq.job import Job, JobStatus
from rq.registry import FailedJobRegistry

from engine import ai
from engine.ai import DEFAULT_THINK_MS
from service.domain.identity import SEAT, Caller
from service.domain.matches.bots import ANONYMOUS, QUICK_QUEUE, THINK_QUEUE, bot_job_id, queue_name
from service.domain.matches.operations import Matches, Move
from tests.service.high_card import GAME as HIGH_CARD
from workers import jobs

BOT = {"kind": "bot", "level": "easy"}


def create(matches: Matches, seats: list[dict[str, Any]], seed: int = 3, **options: Any) -> dict[str, Any]:
    """A High Card match through :meth:`Matches.create`, as the API calls it after schema loading."""
    request = {
        "game": "high_card",
        "seats": [{"kind": "human", **s} for s in seats],
        "options": options,
        "seed": seed,
    }
    return matches.create(request)


def queued(matches: Matches, kind: str = QUICK_QUEUE, tenant: str = ANONYMOUS) -> list[str]:
    """The jobs queued on ``tenant``'s queue of ``kind`` (these matches are anonymous)."""
    return Queue(queue_name(kind, tenant), connection=matches.store.redis).job_ids


def test_a_bot_to_move_is_enqueued_once_per_version(matches):
    """Creating a match whose first decision is a bot's enqueues ``bot-<match>-0``; announcing the same
    turn again does not add a second job."""
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}])
    assert doc["to_move"] == 0
    assert queued(matches) == [bot_job_id(doc["id"], 0)]
    job = Job.fetch(bot_job_id(doc["id"], 0), connection=matches.store.redis)
    assert job.func_name == "workers.jobs.play_bot_turn" and job.args == (doc["id"], 0)
    matches.bots.turn_pending(doc["id"], 0, doc["seats"][0], app=None)
    assert queued(matches) == [bot_job_id(doc["id"], 0)]


def test_a_human_move_that_leaves_a_bot_to_move_enqueues_its_turn(matches):
    doc = create(matches, [{"name": "h"}, {"name": "b", **BOT}])
    assert queued(matches) == []  # seat 0 (human) starts
    token = doc["tokens"][0]["token"]
    state = HIGH_CARD.setup(2, {}, seed=3)
    move = Move(HIGH_CARD.legal_actions(state)[0], 0, None, None)
    body = matches.move(doc["id"], Caller(SEAT, token=token), move)
    assert body["to_move"] == 1
    assert queued(matches) == [bot_job_id(doc["id"], 1)]


def test_bot_seats_default_to_their_levels_think_time(matches):
    doc = create(matches, [{"name": "n", "kind": "bot"}, {"name": "h", "kind": "bot", "level": "hard"}])
    assert [s["think_ms"] for s in doc["seats"]] == [DEFAULT_THINK_MS["normal"], DEFAULT_THINK_MS["hard"]]


def test_an_all_bot_match_plays_to_the_end_job_by_job(matches, work):
    """Each bot move is committed through the compare-and-set path and announces the next turn, so one
    burst of the worker plays the whole match; every entry of the log is a legal move of its seat."""
    doc = create(matches, [{"name": f"b{i}", **BOT, "level": lvl} for i, lvl in enumerate(LEVELS3)])
    work()
    meta = matches.meta(doc["id"])
    assert meta.status == "finished" and meta.result is not None
    log = matches.store.action_log(doc["id"])
    state = HIGH_CARD.setup(3, {}, seed=3)
    for version, entry in enumerate(log, 1):
        assert entry["version"] == version and entry["seat"] == HIGH_CARD.to_move(state)
        assert entry["action"] in HIGH_CARD.legal_actions(state)
        HIGH_CARD.apply(state, entry["action"])
    assert meta.result == {**HIGH_CARD.result(state), **counts_of(log, 3)}


def counts_of(log: list[dict[str, Any]], players: int) -> dict[str, list[int]]:
    """The result's decision counts (issue 42 point 6) the log implies: bots from the start, no stand-in."""
    return {
        "decisions": [sum(e["seat"] == s for e in log) for s in range(players)],
        "stand_in": [0] * players,
    }


LEVELS3 = ("random", "easy", "normal")


def test_a_job_for_an_old_version_or_a_human_seat_does_nothing(matches):
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}], swaps=False)
    assert jobs.take_turn(matches, doc["id"], 1) == jobs.STALE
    assert jobs.take_turn(matches, "nosuchmatch", 0) == jobs.GONE
    assert jobs.take_turn(matches, doc["id"], 0) == jobs.MOVED
    assert matches.meta(doc["id"]).version == 1
    assert jobs.take_turn(matches, doc["id"], 0) == jobs.STALE  # a duplicate run cannot move twice
    assert jobs.take_turn(matches, doc["id"], 1) == jobs.NOT_A_BOT  # the human is to move
    assert matches.meta(doc["id"]).version == 1


def test_the_bot_is_given_a_determinized_world_never_the_stored_state(matches, monkeypatch):
    """The worker hands the bot exactly what ``determinize`` made for the bot's seat."""
    made: list[tuple[int, Any]] = []
    seen: list[Any] = []
    real_determinize = HIGH_CARD.determinize

    def determinize(state, seat, rng):
        world = real_determinize(state, seat, rng)
        made.append((seat, world))
        return world

    def spy(game, state, level, rng, think_ms=None, iterations=None):
        seen.append(state)
        return game.legal_actions(state)[0]

    monkeypatch.setattr(HIGH_CARD, "determinize", determinize)
    monkeypatch.setattr(ai, "choose_action", spy)
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}])
    assert jobs.take_turn(matches, doc["id"], 0) == jobs.MOVED
    assert len(seen) == 1 and made == [(0, seen[0])]


def test_a_failing_bot_is_retried_then_plays_a_random_move(matches, work, monkeypatch):
    """Every attempt of the bot raises: RQ retries (twice here), then the failure callback plays a
    random legal move, so the match goes on; the failed job stays in RQ's failed registry."""
    calls: list[str] = []
    real = ai.choose_action

    def flaky(game, state, level, rng, think_ms=None, iterations=None):
        calls.append(level)
        if level != "random":
            raise RuntimeError("bot crashed")
        return real(game, state, level, rng, think_ms, iterations)

    monkeypatch.setattr(ai, "choose_action", flaky)
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}], swaps=False)  # R1: one move per turn
    work()
    assert calls == ["easy", "easy", "easy", "random"]
    meta = matches.meta(doc["id"])
    assert meta.version == 1 and meta.to_move == 1
    failed = FailedJobRegistry(queue_name(QUICK_QUEUE, ANONYMOUS), connection=matches.store.redis)
    assert failed.get_job_ids() == [bot_job_id(doc["id"], 0)]


def test_the_sweep_enqueues_a_lost_bot_turn_and_leaves_live_ones_alone(matches):
    lost = create(matches, [{"name": "b", **BOT}, {"name": "h"}], seed=1)
    waiting = create(matches, [{"name": "b", **BOT}, {"name": "h"}], seed=2)
    human = create(matches, [{"name": "h"}, {"name": "b", **BOT}], seed=3)
    Job.fetch(bot_job_id(lost["id"], 0), connection=matches.store.redis).delete()
    assert jobs.sweep_matches(matches, page=1) == 1  # pages through every active match
    assert sorted(queued(matches)) == sorted([bot_job_id(lost["id"], 0), bot_job_id(waiting["id"], 0)])
    assert jobs.sweep_matches(matches) == 0
    assert human["to_move"] == 0


def _start(job: Job, heartbeat: datetime) -> None:
    """Mark ``job`` as taken by a worker that last sent a heartbeat at ``heartbeat``."""
    job.set_status(JobStatus.STARTED)
    job.heartbeat(heartbeat, 60)
    Queue(job.origin, connection=job.connection).remove(job)


@pytest.mark.parametrize(("silent_for", "enqueued"), [(0, 0), (10, 1)])
def test_the_sweep_replaces_a_started_job_only_when_its_worker_fell_silent(matches, silent_for, enqueued):
    """A started job whose worker stopped heartbeating (killed) for longer than ``bot_stall_seconds``
    (2 s here) is replaced; one heartbeating is a bot still thinking and is left alone."""
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}])
    job = Job.fetch(bot_job_id(doc["id"], 0), connection=matches.store.redis)
    _start(job, datetime.now(UTC) - timedelta(seconds=silent_for))
    assert jobs.sweep_matches(matches) == enqueued
    status = Job.fetch(job.id, connection=matches.store.redis).get_status()
    assert status == (JobStatus.QUEUED if enqueued else JobStatus.STARTED)


def test_a_hint_answers_for_its_seat_and_version_only(matches, wired):
    doc = create(matches, [{"name": "h"}, {"name": "b", **BOT}])
    mid = doc["id"]
    state = HIGH_CARD.setup(2, {}, seed=3)
    jobs.bind(wired)
    answer = jobs.suggest_move(mid, 0, 0, "normal", 20)
    assert answer["action"] in HIGH_CARD.legal_actions(state)
    assert jobs.suggest_move(mid, 1, 0, "easy", 0)["action"] is None  # no such version yet
    assert jobs.suggest_move(mid, 0, 1, "easy", 0)["action"] is None  # not seat 1's decision


@pytest.mark.parametrize(("due_in", "enqueued"), [(60, 0), (-10, 1)])
def test_the_sweep_takes_over_a_retry_only_when_it_is_overdue(matches, due_in, enqueued):
    """A retry waits in RQ's scheduled registry until the worker holding the scheduler lock moves it;
    overdue by more than ``bot_stall_seconds`` (2 s here) it is presumed orphaned by a dead worker."""
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}])
    queue = Queue(queue_name(QUICK_QUEUE, ANONYMOUS), connection=matches.store.redis)
    job = queue.fetch_job(bot_job_id(doc["id"], 0))
    queue.remove(job)
    queue.schedule_job(job, datetime.now(UTC) + timedelta(seconds=due_in))
    assert job.get_status() == JobStatus.SCHEDULED and queued(matches) == []
    assert jobs.sweep_matches(matches) == enqueued
    assert queued(matches) == [bot_job_id(doc["id"], 0)] * enqueued


def test_tabletop_sweep_runs_one_sweep(matches, redis_url):
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}])
    Job.fetch(bot_job_id(doc["id"], 0), connection=matches.store.redis).delete()
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url}
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "sweep"], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "sweep: enqueued 1 bot turn(s)"
    assert queued(matches) == [bot_job_id(doc["id"], 0)]
    no_redis = {k: v for k, v in env.items() if k != "TABLETOP_REDIS_URL"}
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", "sweep"], env=no_redis, capture_output=True, text=True
    )
    assert out.returncode == 2 and "TABLETOP_REDIS_URL" in out.stderr


def sliced(matches: Matches, monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """Bot jobs chain decisions for ``seconds``."""
    monkeypatch.setattr(matches, "config", dataclasses.replace(matches.config, bot_slice_seconds=seconds))


def ran_jobs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The (match, version) of every bot-turn job the worker runs from now on."""
    seen: list[tuple[str, int]] = []
    real = jobs.play_bot_turn

    def spy(match_id: str, version: int) -> str:
        seen.append((match_id, version))
        return real(match_id, version)

    monkeypatch.setattr(jobs, "play_bot_turn", spy)
    return seen


def assert_replays(matches: Matches, match_id: str, players: int) -> None:
    """Every version is one committed decision: a log entry each, events numbered by version."""
    log = matches.store.action_log(match_id)
    state = HIGH_CARD.setup(players, {}, seed=3)
    events = matches.store.events_after(match_id, "0-0")
    for version, entry in enumerate(log, 1):
        assert entry["version"] == version and entry["action"] in HIGH_CARD.legal_actions(state)
        HIGH_CARD.apply(state, entry["action"])
        assert any(e.id.startswith(f"{version}-") and e.event["type"] == "action" for e in events)
    assert matches.meta(match_id).result == {**HIGH_CARD.result(state), **counts_of(log, players)}


def test_one_job_plays_the_bots_decisions_in_a_row_each_its_own_commit(matches, work, monkeypatch):
    sliced(matches, monkeypatch, 10.0)
    seen = ran_jobs(monkeypatch)
    doc = create(
        matches, [{"name": f"b{i}", **BOT, "level": lvl} for i, lvl in enumerate(("random", "easy"))]
    )
    work()
    meta = matches.meta(doc["id"])
    assert meta.status == "finished" and meta.version > 4
    assert seen == [(doc["id"], 0)]  # one job played the whole match
    assert_replays(matches, doc["id"], 2)


def test_a_job_hands_the_match_back_to_the_queue_when_its_slice_is_spent(matches, work, monkeypatch):
    sliced(matches, monkeypatch, 0.0)
    seen = ran_jobs(monkeypatch)
    doc = create(matches, [{"name": f"b{i}", **BOT} for i in range(2)])
    work()
    meta = matches.meta(doc["id"])
    assert meta.status == "finished"
    assert seen == [(doc["id"], v) for v in range(meta.version)]  # a job per decision: each its own
    assert_replays(matches, doc["id"], 2)


def test_a_quick_bot_hands_a_thinking_bots_turn_to_the_thinking_lane(matches, monkeypatch):
    sliced(matches, monkeypatch, 10.0)
    doc = create(
        matches, [{"name": "q", **BOT}, {"name": "t", "kind": "bot", "level": "normal", "think_ms": 10}]
    )
    assert queued(matches) == [bot_job_id(doc["id"], 0)] and queued(matches, THINK_QUEUE) == []
    assert jobs.play_bot_turn(doc["id"], 0) == jobs.MOVED  # its decisions (R4 may give it two)
    meta = matches.meta(doc["id"])
    assert meta.version >= 1 and meta.to_move == 1
    assert queued(matches, THINK_QUEUE) == [bot_job_id(doc["id"], meta.version)]


def test_a_failure_after_the_first_decision_leaves_the_turn_to_a_job_of_its_own(matches, work, monkeypatch):
    """The chain's committed decisions stand; the failing turn gets a job with its own retries."""
    sliced(matches, monkeypatch, 10.0)
    real = ai.choose_action
    calls = []

    def third_fails(game, state, level, rng, think_ms=None, iterations=None):
        calls.append(level)
        if len(calls) == 3:
            raise RuntimeError("bot crashed")
        return real(game, state, level, rng, think_ms, iterations)

    monkeypatch.setattr(ai, "choose_action", third_fails)
    seen = ran_jobs(monkeypatch)
    doc = create(matches, [{"name": f"b{i}", **BOT} for i in range(2)])
    work()
    assert matches.meta(doc["id"]).status == "finished"
    assert seen[:2] == [(doc["id"], 0), (doc["id"], 2)]  # the first job committed two decisions
    assert_replays(matches, doc["id"], 2)


def test_the_sweep_replaces_a_job_queued_in_name_only(matches):
    """A worker that lost Redis between taking a job (RQ moves it to its hand-over list) and starting it
    leaves it `queued` in no queue: the sweep gives it the stall time (2 s here), then replaces it; a
    queued job in no list at all is replaced at once."""
    doc = create(matches, [{"name": "b", **BOT}, {"name": "h"}])
    connection = matches.store.redis
    queue = Queue(queue_name(QUICK_QUEUE, ANONYMOUS), connection=connection)
    job_id = bot_job_id(doc["id"], 0)
    connection.lmove(queue.key, queue.intermediate_queue_key, "RIGHT", "LEFT")  # what a worker does
    assert Job.fetch(job_id, connection=connection).get_status() == JobStatus.QUEUED and queued(matches) == []
    assert jobs.sweep_matches(matches) == 0  # being handed over: for now
    connection.set(queue.intermediate_queue.get_first_seen_key(job_id), time.time() - 10)
    assert jobs.sweep_matches(matches) == 1
    assert queued(matches) == [job_id] and queue.intermediate_queue.get_job_ids() == []
    connection.lrem(queue.key, 1, job_id)  # lost altogether
    assert jobs.sweep_matches(matches) == 1 and queued(matches) == [job_id]
