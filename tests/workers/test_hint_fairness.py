"""Hints that no client can starve, over the app with a real queue and an in-process worker: ``random``
and ``easy`` hints take the quick lane, and one client address has at most
``TABLETOP_MAX_HINTS_PER_ADDRESS`` hints queued or running (2 here), 429 naming the limit beyond."""

from __future__ import annotations

import pytest
from rq import Queue

from service.config import Config
from service.domain.matches.bots import ANONYMOUS, HINT_QUEUE, QUICK_QUEUE, queue_name
from tests.service.conftest import Table, bearer, make_config

LIMIT = 2


@pytest.fixture
def config(redis_url: str) -> Config:
    return make_config(redis_url, bot_stall_seconds=2, max_hints_per_address=LIMIT)


def ask(table: Table, address: str, **body: object):
    """Ask a hint for seat 0 (High Card, seed 7: seat 0 decides first) from ``address``."""
    return table.client.post(
        table.url("/hint"), json=body, headers=bearer(table.tokens[0]), environ_base={"REMOTE_ADDR": address}
    )


def test_quick_hints_take_the_quick_lane_and_searching_ones_the_hint_queue(app, redis_client):
    easy, normal = Table(app.test_client(), seed=7), Table(app.test_client(), seed=7)
    easy_id = ask(easy, "10.0.0.1", level="easy").json["id"]
    normal_id = ask(normal, "10.0.0.1", level="normal", think_ms=10).json["id"]
    assert Queue(queue_name(QUICK_QUEUE, ANONYMOUS), connection=redis_client).job_ids == [easy_id]
    assert Queue(queue_name(HINT_QUEUE, ANONYMOUS), connection=redis_client).job_ids == [normal_id]


def test_one_address_has_at_most_its_limit_of_hints_in_flight(app, work):
    tables = [Table(app.test_client(), seed=7) for _ in range(LIMIT + 2)]
    for table in tables[:LIMIT]:
        assert ask(table, "10.0.0.1", level="hard", think_ms=10).status_code == 202
    refused = ask(tables[LIMIT], "10.0.0.1", level="hard", think_ms=10)
    assert refused.status_code == 429, refused.json
    assert (
        refused.json["code"] == "too_many_hints"
        and "TABLETOP_MAX_HINTS_PER_ADDRESS" in refused.json["message"]
    )
    assert refused.json["details"] == {"limit": LIMIT, "retry_after": 1}
    assert refused.headers["Retry-After"] == "1"
    # Asking again for a hint in flight is no new hint; another address has its own places.
    assert ask(tables[0], "10.0.0.1", level="hard", think_ms=10).status_code == 202
    assert ask(tables[LIMIT + 1], "10.0.0.2", level="hard", think_ms=10).status_code == 202
    work()  # the hints are answered: their places are free again
    assert ask(tables[LIMIT], "10.0.0.1", level="hard", think_ms=10).status_code == 202


def test_a_refused_hint_leaves_the_seat_free_to_ask_later(app, work):
    first, second = Table(app.test_client(), seed=7), Table(app.test_client(), seed=7)
    third = Table(app.test_client(), seed=7)
    ask(first, "10.0.0.3", level="normal", think_ms=10)
    ask(second, "10.0.0.3", level="normal", think_ms=10)
    assert ask(third, "10.0.0.3", level="normal", think_ms=10).status_code == 429
    work()
    again = ask(third, "10.0.0.3", level="easy")
    assert again.status_code == 202 and again.json["level"] == "easy"
    work()
    done = third.client.get(f"/v1/jobs/{again.json['id']}", headers=bearer(third.tokens[0]))
    assert done.status_code == 200 and done.json["action"] in third.legal(0)


def test_a_clients_only_hint_goes_before_the_hints_of_a_client_with_several(app, redis_client):
    """Within the bound, a flooding client's hints still queue in order; another client's only hint
    is put before them, so it waits for the hints already running, not for the whole flood."""
    flood = [Table(app.test_client(), seed=7) for _ in range(LIMIT)]
    flooded = [ask(table, "10.0.0.4", level="hard", think_ms=10).json["id"] for table in flood]
    alone = ask(Table(app.test_client(), seed=7), "10.0.0.5", level="normal", think_ms=10).json["id"]
    assert Queue(queue_name(HINT_QUEUE, ANONYMOUS), connection=redis_client).job_ids == [alone, *flooded]
