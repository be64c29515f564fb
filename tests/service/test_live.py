"""The live-event hub (service/live/hub.py) over the real Redis: what a waiting client receives is exactly the
stream, whatever races its subscription, and a lost pub/sub connection costs latency, not events."""

from __future__ import annotations

import random
import threading
import time

import pytest
import redis

from service.events import OVER
from service.live.hub import LiveEvents
from service.live.topics import Topic, event_key
from tests.service.conftest import Table, make_config

#: One test client's waiter cap (the HTTP layer builds these from the caller's credential).
QUOTA = [("addr:test", 500)]


def play_to_the_end(table: Table, pause: float = 0.0) -> None:
    """Every seat plays its first legal action until the match is over."""
    while (doc := table.get().json)["status"] == "active":
        seat = doc["to_move"]
        assert table.move(seat, table.legal(seat)[0], doc["version"]).status_code == 200
        time.sleep(pause)


def follow(live: LiveEvents, match_id: str, after: str) -> list[str]:
    """The ids a waiter subscribed at ``after`` sees, up to ``match_over``."""
    with live.subscribe(Topic.match(match_id), QUOTA) as sub:
        rows = sub.backlog(after)
        seen = [r.id for r in rows]
        deadline = time.monotonic() + 10
        while not any(r.type == OVER for r in rows):
            assert time.monotonic() < deadline, f"no match_over after {seen[-3:]}"
            rows = sub.take(1.0)  # may be empty: what the backlog had already is not handed out twice
            seen += [r.id for r in rows]
        return seen


def test_waiters_subscribing_while_moves_commit_see_every_event_once_in_order(app, client):
    table = Table(client, game="year_of_dragon", players=2, seed=11)
    live = app.extensions["tabletop"].live
    store = app.extensions["tabletop"].matches.store
    results: dict[int, tuple[str, list[str]]] = {}
    rng = random.Random(4)

    errors: list[BaseException] = []

    def waiter(i: int) -> None:
        time.sleep(rng.random() * 0.5)  # subscribe at some point of the match, racing its commits
        last = store.events_after(table.id, "0-0")[-1]
        if last.event["type"] == OVER:
            return  # the match ended before this waiter came: nothing to wait for
        after = last.id if i % 2 else "0-0"
        try:
            results[i] = (after, follow(live, table.id, after))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=waiter, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    play_to_the_end(table, pause=0.002)
    for t in threads:
        t.join(timeout=30)
    everything = [e.id for e in store.events_after(table.id, "0-0")]
    assert not errors, errors
    assert len(results) >= 8 and len(everything) > 50  # a few may come after the end
    for after, seen in results.values():
        assert seen == [i for i in everything if event_key(i) > event_key(after)], after


def test_a_killed_pubsub_connection_loses_no_event(app, client, redis_client):
    table = Table(client, game="year_of_dragon", players=2, seed=12)
    live = app.extensions["tabletop"].live
    with live.subscribe(Topic.match(table.id), QUOTA) as sub:
        seen = [r.id for r in sub.backlog("0-0")]
        killed = redis_client.client_kill_filter(_type="pubsub")
        assert killed >= 1
        for _ in range(5):
            doc = table.get().json
            seat = doc["to_move"]
            assert table.move(seat, table.legal(seat)[0], doc["version"]).status_code == 200
        deadline = time.monotonic() + 10
        expected = [e.id for e in app.extensions["tabletop"].matches.store.events_after(table.id, "0-0")]
        while seen != expected:
            assert time.monotonic() < deadline, (seen, expected)
            seen += [r.id for r in sub.take(1.0)]


def test_too_many_waiters_get_429_with_retry_after(redis_client, redis_url):
    from service.http.app import create_app
    from tests.service.conftest import TEST_GAMES

    app = create_app(make_config(redis_url, max_waiters_per_address=1, max_wait_seconds=5), games=TEST_GAMES)
    table = Table(app.test_client(), seed=7)
    holder = threading.Thread(
        target=lambda: app.test_client().get(table.url("/events"), query_string={"after": "0-1", "wait": 2})
    )
    holder.start()
    live = app.extensions["tabletop"].live
    deadline = time.monotonic() + 5
    while live.waiters < 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    refused = app.test_client().get(table.url("/events"), query_string={"after": "0-1", "wait": 2})
    assert refused.status_code == 429 and refused.json["code"] == "too_many_waiters"
    assert int(refused.headers["Retry-After"]) >= 1
    assert app.test_client().get(table.url("/events"), query_string={"after": "0-1"}).status_code == 200
    holder.join()
    assert live.waiters == 0 and live.feeds == 0


def test_ending_all_waiters_answers_a_long_poll_at_once(app, table):
    live = app.extensions["tabletop"].live
    answer: list[float] = []

    def poll() -> None:
        t0 = time.monotonic()
        resp = table.get(1, "/events", query_string={"after": "0-1", "wait": 2})
        assert resp.status_code == 200 and resp.json["events"] == []
        answer.append(time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    while live.waiters < 1:
        time.sleep(0.01)
    live.end_all()
    thread.join()
    assert answer[0] < 1.0


def test_a_subscription_that_redis_does_not_confirm_is_a_timeout(app, table):
    """With the reader unable to reach Redis, a new waiter fails fast (the API's 503) rather than waiting."""
    from service.storage.client import connect
    from service.storage.matches import Store

    dead = Store(connect("redis://127.0.0.1:1/0", timeout=0.2))
    live = LiveEvents(dead, max_waiters=10, confirm_timeout=0.3)
    t0 = time.monotonic()
    with pytest.raises(redis.TimeoutError):
        live.subscribe(Topic.match(table.id), QUOTA)
    assert time.monotonic() - t0 < 1.0 and live.waiters == 0


def test_a_long_poll_that_polls_again_at_once_catches_up_from_memory_not_redis(app, client):
    """Issue 30: a client polling again with the last id it got costs no read of the match's events
    while the process follows the match (a stream holds it here)."""
    table = Table(client, game="year_of_dragon", players=2, seed=21)
    live = app.extensions["tabletop"].live
    with live.subscribe(Topic.match(table.id), QUOTA) as holder:
        last = holder.backlog("0-0")[-1].id
        reads = live.counts["backlog_reads"]
        for _ in range(5):
            doc = table.get().json
            seat = doc["to_move"]
            assert table.move(seat, table.legal(seat)[0], doc["version"]).status_code == 200
            page = table.get(None, "/events", query_string={"after": last, "wait": 5}).json
            assert page["events"], page  # the move's events, from the reader's memory or its wait
            assert [e["id"] for e in page["events"]] == sorted(
                (e["id"] for e in page["events"]), key=event_key
            )
            last = page["last_id"]
        assert live.counts["backlog_reads"] == reads
        expected = app.extensions["tabletop"].matches.store.events_after(table.id, "0-0")
        assert last == expected[-1].id


def test_an_id_from_the_future_does_not_blind_the_other_waiters(app, client):
    """A waiter arming a match with an ``after`` past its last event must not make the reader read
    from there: the next move's events reach every waiter."""
    table = Table(client, game="year_of_dragon", players=2, seed=22)
    live = app.extensions["tabletop"].live
    with live.subscribe(Topic.match(table.id), QUOTA) as odd:
        assert odd.backlog("999-0") == []
        with live.subscribe(Topic.match(table.id), QUOTA) as plain:
            last = plain.backlog("0-0")[-1].id
            doc = table.get().json
            seat = doc["to_move"]
            assert table.move(seat, table.legal(seat)[0], doc["version"]).status_code == 200
            deadline = time.monotonic() + 5
            got: list[str] = []
            while not got:
                assert time.monotonic() < deadline, "the move never reached the plain waiter"
                got = [r.id for r in plain.take(1.0)]
            assert event_key(got[0]) > event_key(last)


def test_a_long_poll_answer_says_who_is_to_move_after_its_last_event(app, client):
    """The commit publishes who is to move with its events; the long-poll answer's ``to_move`` and
    ``version`` are those after the last event it carries, read from the match or not."""
    table = Table(client, game="year_of_dragon", players=2, seed=23)
    store = app.extensions["tabletop"].matches.store
    last = store.events_after(table.id, "0-0")[-1].id

    def poll(after: str, into: list[dict]) -> None:
        into.append(table.get(None, "/events", query_string={"after": after, "wait": 5}).json)

    for _ in range(6):
        answer: list[dict] = []
        poller = threading.Thread(target=poll, args=(last, answer))
        poller.start()
        time.sleep(0.2)  # waiting when the move commits
        doc = table.get().json
        seat = doc["to_move"]
        moved = table.move(seat, table.legal(seat)[0], doc["version"]).json
        poller.join(10)
        page = answer[0]
        assert page["version"] == moved["version"] and page["to_move"] == moved["to_move"], (page, moved)
        last = page["last_id"]
