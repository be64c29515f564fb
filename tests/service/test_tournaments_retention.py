"""A tournament that is over expires (issue 31 follow-up): a finished or cancelled tournament's record,
every key of it, expires after the retention of finished matches (``TABLETOP_RETENTION_SECONDS``), as
a finished match's keys do; the app's listing index drops its id lazily (a listing skips and removes an
id whose record is gone), and the sweep's due index holds it no more.  A running or scheduled one never
expires.

Against a real Redis with a retention of a few seconds; the test polls until Redis has expired the keys
(no fixed sleep stands for correctness)."""

from __future__ import annotations

import time

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.errors import NotFound
from service.http.app import create_app
from service.storage.tournaments import app_index_key
from tests.service.conftest import TEST_GAMES, make_config
from tests.service.test_accounts import ADMIN
from tests.service.test_tournaments import Club, run_to_end

RETENTION_S = 2
#: How long the test waits, at most, for Redis to expire what it should (it takes RETENTION_S).
WAIT_S = 60
DUE = "tt:tournaments:due"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(redis_url, admin_token=ADMIN, retention_seconds=RETENTION_S)
    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def club(client: FlaskClient) -> Club:
    return Club(client)


def keys_of(club: Club, tid: str) -> list[str]:
    """Every key of the tournament's slot that exists."""
    pattern = f"tt:{{t:{club.app_id}:{tid}}}:*"
    return sorted(k.decode() for k in club.matches.store.redis.scan_iter(pattern, count=1000))


def test_a_finished_or_cancelled_tournament_expires_and_leaves_the_listing(club: Club) -> None:
    connection = club.matches.store.redis
    bots = [{"level": "easy"}, {"level": "random"}]
    finished = club.create(name="done", entrants=bots, matches_per_pairing=1)
    run_to_end(club, finished["id"], parallel=32)
    assert club.get(finished["id"])["status"] == "finished"
    later = club.matches.now() + 3600
    cancelled = club.create(name="off", entrants=[{"level": "easy"}, {"player": "ann"}], starts_at=later)
    assert club.tournaments.cancel(cancelled["id"], club.caller)["status"] == "cancelled"
    club.sweep()  # the keeper's next look settles it (issue 42)
    running = club.create(name="on", entrants=[{"player": "ann"}, {"player": "bob"}], parallel=1)
    scheduled = club.create(name="soon", entrants=[{"level": "easy"}, {"level": "hard"}], starts_at=later)
    over = [finished["id"], cancelled["id"]]
    # Every key of one over has the retention as its time to live (gone already is fine: expired);
    # none is left without one.  The ones not over keep theirs.
    for tid in over:
        keys = keys_of(club, tid)
        assert keys, tid
        ttls = [connection.pttl(k) for k in keys]
        assert all(t == -2 or 0 < t <= RETENTION_S * 1000 for t in ttls), dict(zip(keys, ttls, strict=True))
    for tid in (running["id"], scheduled["id"]):
        assert {connection.pttl(k) for k in keys_of(club, tid)} == {-1}, tid
    deadline = time.monotonic() + WAIT_S
    while any(keys_of(club, tid) for tid in over):
        assert time.monotonic() < deadline, {tid: keys_of(club, tid) for tid in over}
        time.sleep(0.1)
    for tid in over:
        with pytest.raises(NotFound) as gone:
            club.get(tid)
        assert gone.value.code == "tournament_not_found"
        assert connection.zscore(DUE, f"{club.app_id}:{tid}") is None  # the sweep looks no more
    # The app's index still names them until a listing reads it: the listing skips and drops them.
    index = app_index_key(club.app_id)
    assert {m.decode() for m in connection.zrange(index, 0, -1)} == {*over, running["id"], scheduled["id"]}
    page, cursor = club.tournaments.list(club.caller, None, None, 10)
    assert [t["name"] for t in page] == ["soon", "on"] and cursor is None
    assert {m.decode() for m in connection.zrange(index, 0, -1)} == {running["id"], scheduled["id"]}
    # The ones not over are whole, and still run.
    assert club.get(running["id"])["status"] == "running"
    assert club.get(scheduled["id"])["status"] == "scheduled"
