"""A move at the version this process's own last commit left needs no load (issue 30 point 2), and
what a client sees never depends on it: two apps on one Redis stand for two server processes, and a
third, which remembers nothing, says what the answers must be.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

import service.storage.match_cache
from service.domain.identity import SEAT, Caller
from service.domain.matches.operations import Matches, Move
from service.http.app import create_app
from service.storage.matches import Commit, Store
from tests.service.conftest import TEST_GAMES, Table, make_config
from tests.service.test_lifecycle_dead_ends import FakeTime, away_match, others_move_until, timed

__all__ = ["timed"]  # the fixture, shared with the lifecycle tests


@pytest.fixture
def other(app: Flask, redis_url: str) -> FlaskClient:
    """Another server process on the same Redis."""
    return create_app(make_config(redis_url), games=TEST_GAMES).test_client()


def calls(client: redis.Redis) -> Callable[[], dict[str, int]]:
    """A counter of Redis commands run since it was made (``INFO commandstats``)."""

    def now() -> dict[str, int]:
        stats = client.info("commandstats")
        return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}

    before = now()

    def since() -> dict[str, int]:
        return {name: n - before.get(name, 0) for name, n in now().items() if n != before.get(name, 0)}

    return since


def on(client: FlaskClient, table: Table) -> Table:
    """``table`` as seen through another process's client."""
    seen = Table.__new__(Table)
    seen.__dict__.update(table.__dict__, client=client)
    return seen


def answer(resp: Any) -> tuple[int, Any]:
    return resp.status_code, resp.json


def test_the_next_move_at_this_processs_own_commit_is_not_loaded(
    table: Table, other: FlaskClient, redis_client: redis.Redis
) -> None:
    assert table.move(0, table.legal(0)[0], 0).status_code == 200
    action = table.legal(1)[0]
    since = calls(redis_client)
    resp = table.move(1, action, 1)
    assert resp.status_code == 200, resp.json
    ran = since()
    assert "hgetall" not in ran and "get" not in ran  # neither the meta nor the state read
    assert ran["evalsha"] == 1  # the commit, which checks the version and its stamp
    # Played elsewhere, the same kind of move loads the match.
    elsewhere = on(other, table)
    since = calls(redis_client)
    seat = resp.json["to_move"]
    assert elsewhere.move(seat, elsewhere.legal(seat)[0], 2).status_code == 200
    ran = since()
    assert ran["hgetall"] >= 1 and ran["evalsha"] == 1


@pytest.mark.parametrize(
    ("seat", "pick"),
    [
        (1, lambda legal: legal[0]),  # legal at the version remembered
        (1, lambda legal: {"type": "play", "card": 999}),  # illegal there (R3: a card in hand)
        (0, lambda legal: legal[0]),  # not this seat's decision there
    ],
)
def test_a_match_moved_on_elsewhere_is_answered_as_stored(
    table: Table,
    other: FlaskClient,
    redis_url: str,
    seat: int,
    pick: Callable[[list[Any]], Any],
) -> None:
    assert table.move(0, table.legal(0)[0], 0).status_code == 200  # this process keeps version 1
    elsewhere = on(other, table)
    action = pick(table.legal(1))
    assert elsewhere.move(1, elsewhere.legal(1)[0], 1).status_code == 200  # version 2, elsewhere
    fresh = on(create_app(make_config(redis_url), games=TEST_GAMES).test_client(), table)
    expected = answer(fresh.move(seat, action, 1))
    assert expected[0] == 412 and expected[1]["details"]["current_version"] == 2
    assert answer(table.move(seat, action, 1)) == expected


def test_a_token_that_holds_no_seat_is_refused_as_after_a_load(table: Table, redis_url: str) -> None:
    assert table.move(0, table.legal(0)[0], 0).status_code == 200  # this process keeps version 1
    body, headers = {"action": table.legal(1)[0]}, {"Authorization": "Bearer nobody", "If-Match": '"1"'}
    fresh = create_app(make_config(redis_url), games=TEST_GAMES).test_client()
    expected = answer(fresh.post(table.url("/actions"), json=body, headers=headers))
    assert expected[0] == 401
    assert answer(table.client.post(table.url("/actions"), json=body, headers=headers)) == expected


def test_a_version_redis_no_longer_holds_as_this_process_wrote_it_is_never_written_on(
    table: Table, redis_client: redis.Redis
) -> None:
    # A Redis that lost this process's commit and went on from the version before holds version 1 with
    # another stamp (and, in general, another state): the commit refuses what was decided on the
    # process's copy, and the move is decided again on the match as stored.
    assert table.move(0, table.legal(0)[0], 0).status_code == 200
    meta_key = f"tt:{{m:{table.id}}}:meta"
    redis_client.hset(meta_key, "updated_at", repr(float(redis_client.hget(meta_key, "updated_at")) + 1))
    since = calls(redis_client)
    resp = table.move(1, table.legal(1)[0], 1)
    assert resp.status_code == 200, resp.json
    ran = since()
    assert ran["evalsha"] == 2 and ran["hgetall"] >= 1  # refused on the copy, then loaded and committed
    assert resp.json["version"] == 2


def test_a_commit_checks_the_stamp_of_the_version(app: Flask, table: Table) -> None:
    store: Store = app.extensions["tabletop"].matches.store
    loaded = store.load(table.id)
    assert loaded is not None
    meta, note = loaded.meta, [{"type": "x", "visible_to": "all"}]
    elsewhere = replace(meta, updated_at=meta.updated_at + 1)  # the same version, written another time
    assert store.commit(elsewhere, None, {}, note, None, 0, None) == Commit(stale=meta.version)
    assert store.commit(meta, None, {}, note, None, 0, None) == Commit(version=meta.version + 1)


def test_a_process_keeps_its_last_matches_and_none_that_is_over(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service.storage.match_cache, "RECENT_MATCHES", 2)
    store: Store = app.extensions["tabletop"].matches.store
    tables = [Table(client, seed=7 + i) for i in range(3)]
    for t in tables:
        assert t.move(0, t.legal(0)[0], 0).status_code == 200
    assert store.recent(tables[0].id, 1) is None  # the oldest gave way
    assert all(store.recent(t.id, 1) is not None for t in tables[1:])
    assert store.recent(tables[2].id, 0) is None  # only the version it committed
    t, version, status = tables[2], 1, "active"
    while status == "active":
        seat = t.get(0).json["to_move"]
        resp = t.move(seat, t.legal(seat)[0], version)
        assert resp.status_code == 200, resp.json
        version, status = resp.json["version"], resp.json["status"]
    assert store.recent(t.id, version) is None  # over: no move will come


def test_an_away_seat_moving_at_a_remembered_version_comes_back_on_the_match_as_stored(
    timed: tuple[Matches, FakeTime],
) -> None:
    # Coming back is a commit of its own: decided on the match as loaded, never on the copy.
    matches, clock = timed
    mid, seat, token = away_match(matches, clock)
    others_move_until(matches, mid, seat)
    meta, state = matches.meta_and_state(mid)
    assert matches.store.recent(mid, meta.version) is not None  # this process's own last commit
    action = matches.games[meta.game].legal_actions(state)[0]
    body = matches.move(mid, Caller(SEAT, token=token), Move(action, None, meta.version, None))
    assert body["version"] == meta.version + 2  # the return, then the move
    types = [e.event["type"] for e in matches.store.events_after(mid, f"{meta.version + 1}-0")]
    assert types[0] == "seat_returned" and "action" in types
