"""A hint awaited in one request (issue 44 point 1): ``POST .../hint`` with ``wait`` and
``GET /v1/jobs/{id}?wait=`` answer as soon as the job is done (200), or when the wait is over (202, as
before), with a real queue and an in-process worker; the wait is a waiter like a feed's long-poll (it
counts, and leaves)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from flask import Flask

from tests.service.conftest import Table, bearer


@pytest.fixture
def table(app: Flask) -> Table:
    """Two humans at High Card (seed 7): seat 0 decides first."""
    return Table(app.test_client(), seed=7)


def waiting(app: Flask, count: int) -> None:
    live = app.extensions["tabletop"].live
    deadline = time.monotonic() + 5
    while live.waiters < count:
        assert time.monotonic() < deadline, f"{live.waiters} waiters, expected {count}"
        time.sleep(0.005)


def test_a_hint_asked_with_wait_is_answered_in_one_request_once_the_bot_has(
    app: Flask, table: Table, work: Any
) -> None:
    answers: list[Any] = []

    def ask() -> None:
        client = app.test_client()
        answers.append(
            client.post(
                table.url("/hint"), json={"level": "easy", "wait": 10}, headers=bearer(table.tokens[0])
            )
        )

    thread = threading.Thread(target=ask)
    thread.start()
    waiting(app, 1)  # the request waits, as a waiter: its job is queued, not done
    work()  # the worker answers it (in this thread: RQ's worker wants the main thread)
    thread.join(timeout=10)
    [resp] = answers
    assert resp.status_code == 200 and resp.json["status"] == "finished", resp.json
    assert resp.json["action"] in table.legal(0)
    assert resp.headers["Location"] == f"/v1/jobs/{resp.json['id']}"
    assert app.extensions["tabletop"].live.waiters == 0  # the wait let its place go


def test_a_job_read_with_wait_answers_202_when_the_wait_is_over_and_200_at_once_when_done(
    app: Flask, table: Table, work: Any
) -> None:
    asked = table.client.post(table.url("/hint"), json={"level": "easy"}, headers=bearer(table.tokens[0]))
    assert asked.status_code == 202
    location = asked.headers["Location"]
    t0 = time.monotonic()
    running = table.client.get(location, query_string={"wait": 0.3}, headers=bearer(table.tokens[0]))
    assert running.status_code == 202 and running.json["status"] == "queued"
    assert time.monotonic() - t0 >= 0.3  # it waited: no worker ran
    work()
    done = table.client.get(location, query_string={"wait": 30}, headers=bearer(table.tokens[0]))
    assert done.status_code == 200 and done.json["status"] == "finished"
    other = table.client.get(location, query_string={"wait": 1}, headers=bearer(table.tokens[1]))
    assert other.status_code == 404  # another seat's job, waited on or not
