"""``POST /v1/matches/{id}/hint`` and ``GET /v1/jobs/{job_id}`` over the app, with a real queue and an
in-process worker; and ``/readyz`` checking the queue and the workers."""

from __future__ import annotations

import re

import pytest
from rq.job import Job

from service.domain.matches.bots import bot_job_id
from tests.service.conftest import Table, bearer
from workers.worker import BotWorker

HINT_ID = re.compile(r"hint-[0-9a-f]{32}\Z")


@pytest.fixture
def table(app):
    """Two humans at High Card (seed 7): seat 0 decides first."""
    return Table(app.test_client(), seed=7)


def ask(table, seat=0, **body):
    return table.client.post(table.url("/hint"), json=body, headers=bearer(table.tokens[seat]))


def test_a_hint_is_a_job_polled_until_the_bot_answers(table, work):
    resp = ask(table, level="easy")
    assert resp.status_code == 202
    job = resp.json
    assert HINT_ID.match(job["id"])  # random: nobody learns by probing ids who asked for help
    assert job == {
        "id": job["id"],
        "status": "queued",
        "match_id": table.id,
        "version": 0,
        "seat": 0,
        "level": "easy",
        "action": None,
    }
    assert resp.headers["Location"] == f"/v1/jobs/{job['id']}"
    pending = table.client.get(resp.headers["Location"], headers=bearer(table.tokens[0]))
    assert pending.status_code == 202 and pending.json["status"] == "queued"
    assert pending.headers["Retry-After"] == "1"
    work()
    done = table.client.get(resp.headers["Location"], headers=bearer(table.tokens[0]))
    assert done.status_code == 200 and done.json["status"] == "finished"
    assert done.json["action"] in table.legal(0)


def test_a_seat_has_one_hint_running_and_a_finished_one_answers_its_own_question(table, work):
    first = ask(table)
    assert first.json["level"] == "normal"
    assert ask(table).json["id"] == first.json["id"]
    running = ask(table, level="hard", think_ms=10)  # another question, while the first still runs
    assert running.json["id"] == first.json["id"] and running.json["level"] == "normal"
    work()
    assert ask(table).json["id"] == first.json["id"]  # finished: the same question, the same answer
    other = ask(table, level="easy")  # another question, none running: a new job
    assert other.json["id"] != first.json["id"] and other.json["level"] == "easy"


def test_only_the_seat_to_decide_may_ask_and_a_job_exists_only_for_its_seat(table):
    assert ask(table, seat=1).status_code == 403
    assert table.client.post(table.url("/hint"), json={}).status_code == 401
    location = ask(table).headers["Location"]
    unknown = "/v1/jobs/hint-" + "0" * 32
    # Another seat, a foreign token and no token get the same answers for this job and for none.
    for path in (location, unknown):
        other = table.client.get(path, headers=bearer(table.tokens[1]))
        assert other.status_code == 404 and other.json["code"] == "not_found"
        foreign = table.client.get(path, headers={"Authorization": "Bearer " + "x" * 43})
        assert foreign.status_code == 404
        assert table.client.get(path).status_code == 401
    assert table.client.get(location, headers=bearer(table.tokens[0])).status_code == 202


def test_think_time_past_the_servers_cap_is_422_naming_the_limit(app, table):
    cap = app.extensions["tabletop"].config.max_think_ms
    resp = ask(table, level="hard", think_ms=cap + 1)
    assert resp.status_code == 422 and resp.json["details"]["field"] == "think_ms"
    assert str(cap) in resp.json["message"] and "TABLETOP_MAX_THINK_MS" in resp.json["message"]
    seats = [{"name": "h"}, {"name": "b", "kind": "bot", "level": "hard", "think_ms": cap + 1}]
    created = table.client.post("/v1/matches", json={"game": "high_card", "seats": seats})
    assert created.status_code == 422 and created.json["details"]["field"] == "seats.1.think_ms"
    assert ask(table, level="hard", think_ms=cap).status_code == 202


@pytest.mark.parametrize(
    "body", [{"level": "grandmaster"}, {"think_ms": -1}, {"think_ms": 60_001}, {"think_ms": "5"}, {"x": 1}]
)
def test_a_malformed_hint_request_is_422_naming_the_field(table, body):
    resp = ask(table, **body)
    assert resp.status_code == 422 and resp.json["details"]["field"] == next(iter(body))


def test_unknown_jobs_and_bot_turn_jobs_are_404(app, table):
    client = table.client
    assert client.get("/v1/jobs/hint-" + "f" * 32, headers=bearer(table.tokens[0])).status_code == 404
    bots = Table(client, seats=[{"name": "b", "kind": "bot", "level": "easy"}, {"name": "h"}], seed=7)
    assert Job.exists(bot_job_id(bots.id, 0), connection=app.extensions["tabletop"].matches.store.redis)
    resp = client.get(f"/v1/jobs/{bot_job_id(bots.id, 0)}", headers=bearer(bots.tokens[1]))
    assert resp.status_code == 404  # a bot's move may hold secrets: its job is not readable


def test_a_hint_for_a_version_that_moved_on_is_409(table, work):
    location = ask(table, level="random").headers["Location"]
    assert table.move(0, table.legal(0)[0], 0).status_code == 200
    work()
    resp = table.client.get(location, headers=bearer(table.tokens[0]))
    assert resp.status_code == 409 and resp.json["code"] == "stale_version"


def test_a_failed_hint_is_reported_as_failed_and_asking_again_starts_over(table, work, monkeypatch):
    from engine import ai

    real = ai.choose_action
    monkeypatch.setattr(ai, "choose_action", lambda *a, **k: 1 / 0)
    first = ask(table, level="easy")
    work()
    resp = table.client.get(first.headers["Location"], headers=bearer(table.tokens[0]))
    assert resp.status_code == 200 and resp.json["status"] == "failed" and resp.json["action"] is None
    assert "ask again" in resp.json["error"]
    monkeypatch.setattr(ai, "choose_action", real)
    again = ask(table, level="easy")
    assert again.json["id"] != first.json["id"] and again.json["status"] == "queued"
    work()
    done = table.client.get(again.headers["Location"], headers=bearer(table.tokens[0]))
    assert done.status_code == 200 and done.json["status"] == "finished"


def test_readyz_checks_the_queue_and_needs_a_live_worker(app, redis_client):
    client = app.test_client()
    resp = client.get("/readyz")
    assert resp.status_code == 503 and "worker" in resp.json["message"]  # none has ever run
    worker = BotWorker(["bots"], connection=redis_client)
    worker.register_birth()
    worker.heartbeat()
    assert client.get("/readyz").json == {"status": "ready"}
    redis_client.set("rq:queue:bots", "not a list")  # the queue key unreadable
    resp = client.get("/readyz")
    assert resp.status_code == 503 and "queue" in resp.json["message"]
    redis_client.delete("rq:queue:bots")
    worker.register_death()  # the fleet is gone
    resp = client.get("/readyz")
    assert resp.status_code == 503 and "worker" in resp.json["message"]
