"""``POST /v1/matches/{id}/hint`` and ``GET /v1/jobs/{job_id}`` over the app, with a real queue and an
in-process worker; and ``/readyz`` checking the queue."""

from __future__ import annotations

import pytest
from rq.job import Job

from service.bots import bot_job_id, hint_job_id
from tests.service.conftest import Table, bearer


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
    assert job == {
        "id": hint_job_id(table.id, 0, 0, "easy"),
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


def test_asking_again_reuses_the_job_and_the_level_defaults_to_normal(table):
    first = ask(table)
    assert first.json["level"] == "normal"
    assert ask(table).json["id"] == first.json["id"]
    assert ask(table, level="hard", think_ms=10).json["id"] == hint_job_id(table.id, 0, 0, "hard")


def test_only_the_seat_to_decide_may_ask_and_only_it_may_read_the_answer(table):
    assert ask(table, seat=1).status_code == 403
    assert table.client.post(table.url("/hint"), json={}).status_code == 401
    location = ask(table).headers["Location"]
    other = table.client.get(location, headers=bearer(table.tokens[1]))
    assert other.status_code == 403 and other.json["code"] == "not_your_job"
    assert table.client.get(location).status_code == 401


@pytest.mark.parametrize(
    "body", [{"level": "grandmaster"}, {"think_ms": -1}, {"think_ms": 60_001}, {"think_ms": "5"}, {"x": 1}]
)
def test_a_malformed_hint_request_is_422_naming_the_field(table, body):
    resp = ask(table, **body)
    assert resp.status_code == 422 and resp.json["details"]["field"] == next(iter(body))


def test_unknown_jobs_and_bot_turn_jobs_are_404(app, table):
    client = table.client
    assert client.get("/v1/jobs/hint-nosuch-0-0-easy", headers=bearer(table.tokens[0])).status_code == 404
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
    from workers import jobs

    real = jobs.choose_action
    monkeypatch.setattr(jobs, "choose_action", lambda *a, **k: 1 / 0)
    first = ask(table, level="easy")
    work()
    resp = table.client.get(first.headers["Location"], headers=bearer(table.tokens[0]))
    assert resp.status_code == 200 and resp.json["status"] == "failed" and resp.json["action"] is None
    assert "ask again" in resp.json["error"]
    monkeypatch.setattr(jobs, "choose_action", real)
    again = ask(table, level="easy")
    assert again.json["id"] == first.json["id"] and again.json["status"] == "queued"
    work()
    assert table.client.get(first.headers["Location"], headers=bearer(table.tokens[0])).status_code == 200


def test_readyz_checks_the_queue(app, redis_client):
    client = app.test_client()
    assert client.get("/readyz").json == {"status": "ready"}
    redis_client.set("rq:queue:bots", "not a list")  # the queue key unreadable
    resp = client.get("/readyz")
    assert resp.status_code == 503 and "queue" in resp.json["message"]
