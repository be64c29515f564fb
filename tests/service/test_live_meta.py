"""Issue 30: a spectator's long-poll is answered with the match's meta as the process last read it while
nothing came on the match's channel since (:meth:`service.live.cache.MetaCache.match_meta`): the spectators
of a match poll again together after each commit, and one read serves them.  Over the real Redis; the
reads are counted by Redis itself (``INFO commandstats``)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis

from service.live.hub import LiveEvents
from service.live.topics import Topic
from service.storage.matches import MatchMeta
from tests.service.conftest import Table

QUOTA = [("addr:test", 500)]


def hgetalls(client: redis.Redis) -> int:
    """How many ``HGETALL`` Redis has run (a match's meta is read with one)."""
    return int(client.info("commandstats").get("cmdstat_hgetall", {}).get("calls", 0))


@contextmanager
def followed(live: LiveEvents, match_id: str) -> Iterator[str]:
    """The process follows the match (a waiter holds it, caught up); yields its last event id."""
    with live.subscribe(Topic.match(match_id), QUOTA) as holder:
        yield holder.backlog("0-0")[-1].id


def poll(table: Table, after: str, seat: int | None = None, wait: float = 5) -> dict:
    resp = table.get(seat, "/events", query_string={"after": after, "wait": wait})
    assert resp.status_code == 200, resp.json
    return resp.json


def move(table: Table) -> dict:
    doc = table.get().json
    seat = doc["to_move"]
    resp = table.move(seat, table.legal(seat)[0], doc["version"])
    assert resp.status_code == 200, resp.json
    return resp.json


def noted(live: LiveEvents, match_id: str, generation: int) -> None:
    """Wait until the reader noted something on the match's channel after ``generation``."""
    deadline = time.monotonic() + 5
    while live.metas.generation(Topic.match(match_id).channel) == generation:
        assert time.monotonic() < deadline, "the reader never noted the commit"
        time.sleep(0.01)


def generation(live: LiveEvents, match_id: str) -> int:
    return live.metas.generation(Topic.match(match_id).channel)


def test_spectators_polling_again_read_the_match_once_per_commit(app, client, redis_client):
    table = Table(client, game="year_of_dragon", players=2, seed=31)
    live = app.extensions["tabletop"].live
    with followed(live, table.id) as first:
        # A spectator behind the match is answered at once (its page from the reader's memory).
        before = hgetalls(redis_client)
        pages = [poll(table, first) for _ in range(4)]
        assert hgetalls(redis_client) - before == 1  # the first read it; three were spared
        assert live.counts["metas_spared"] == 3
        assert all(page == pages[0] for page in pages)
        # The same page as a poll that does not wait, which reads the match every time.
        assert poll(table, first, wait=0) == pages[0]
        for _ in range(3):  # after each commit: one read again, and the page the commit made
            was = generation(live, table.id)
            moved = move(table)
            noted(live, table.id, was)
            before = hgetalls(redis_client)
            pages = [poll(table, first) for _ in range(3)]
            assert hgetalls(redis_client) - before == 1
            assert pages[0]["version"] == moved["version"] and pages[0]["to_move"] == moved["to_move"]
            assert all(page == pages[0] for page in pages)
            assert poll(table, first, wait=0) == pages[0]


def test_seats_private_matches_and_ended_matches_read_every_time(app, client, redis_client):
    live = app.extensions["tabletop"].live
    public = Table(client, game="year_of_dragon", players=2, seed=32)
    with followed(live, public.id) as first:
        before = hgetalls(redis_client)
        for _ in range(3):  # a seat's token is checked against the match as it is now
            poll(public, first, seat=0)
        assert hgetalls(redis_client) - before == 3

    private = Table(client, game="year_of_dragon", players=2, seed=33, visibility="private")
    with followed(live, private.id) as first:
        before = hgetalls(redis_client)
        for _ in range(3):  # a spectator without a pass is told it does not exist, each time by a read
            resp = private.get(None, "/events", query_string={"after": first, "wait": 5})
            assert resp.status_code == 404, resp.json
        assert hgetalls(redis_client) - before == 3

    over = Table(client, game="high_card", players=2, seed=7)
    with followed(live, over.id):
        while (doc := over.get().json)["status"] == "active":
            seat = doc["to_move"]
            assert over.move(seat, over.legal(seat)[0], doc["version"]).status_code == 200
        time.sleep(0.2)
        before = hgetalls(redis_client)
        for _ in range(3):  # its keys expire: no copy outlives them
            assert poll(over, "0-0")["status"] != "active"
        assert hgetalls(redis_client) - before == 3
    assert live.counts["metas_spared"] == 0


def test_a_lost_pubsub_connection_drops_the_copy(app, client, redis_client):
    table = Table(client, game="year_of_dragon", players=2, seed=34)
    live = app.extensions["tabletop"].live
    with followed(live, table.id) as first:
        poll(table, first)
        was = generation(live, table.id)
        assert redis_client.client_kill_filter(_type="pubsub") >= 1
        noted(live, table.id, was)  # the reader lost Redis (the copy is dropped), then came back
        deadline = time.monotonic() + 5
        while not live._feeds[Topic.match(table.id).channel].confirmed.is_set():
            assert time.monotonic() < deadline
            time.sleep(0.01)
        before = hgetalls(redis_client)
        poll(table, first)
        assert hgetalls(redis_client) - before == 1


class Reads:
    """A stand-in for the match read that counts its calls and can be held until released."""

    def __init__(self, meta: MatchMeta) -> None:
        self.meta = meta
        self.calls = 0
        self.started = threading.Event()
        self.release = threading.Event()
        self.release.set()
        self.fail = False

    def __call__(self) -> MatchMeta:
        self.calls += 1
        self.started.set()
        assert self.release.wait(5)
        if self.fail:
            raise redis.ConnectionError("the read failed")
        return self.meta


def keep_all(meta: MatchMeta) -> bool:
    return True


@pytest.fixture
def hub_and_meta(app, client):
    table = Table(client, game="year_of_dragon", players=2, seed=35)
    live = app.extensions["tabletop"].live
    meta = app.extensions["tabletop"].matches.meta(table.id)
    return live, table, meta


def test_polls_that_come_while_a_read_is_under_way_take_its_result(hub_and_meta):
    live, table, meta = hub_and_meta
    reads = Reads(meta)
    with followed(live, table.id):
        reads.release.clear()
        got: list[MatchMeta] = []
        first = threading.Thread(target=lambda: got.append(live.metas.match_meta(table.id, reads, keep_all)))
        first.start()
        assert reads.started.wait(5)
        others = [
            threading.Thread(target=lambda: got.append(live.metas.match_meta(table.id, reads, keep_all)))
            for _ in range(3)
        ]
        for t in others:
            t.start()
        time.sleep(0.1)
        reads.release.set()
        for t in [first, *others]:
            t.join(5)
        assert reads.calls == 1 and len(got) == 4 and all(m is meta for m in got)
        assert live.metas.match_meta(table.id, reads, keep_all) is meta and reads.calls == 1  # kept


def test_a_failed_read_fails_the_polls_that_joined_it_at_once_and_keeps_nothing(hub_and_meta):
    """A poll that joined a read gets its outcome, a failure too: during a Redis stall it waits for
    no more than the read it joined (which began before it came), never for a read of its own after."""
    live, table, meta = hub_and_meta
    reads = Reads(meta)
    with followed(live, table.id):
        reads.release.clear()
        reads.fail = True
        errors: list[BaseException] = []

        def poll() -> None:
            try:
                live.metas.match_meta(table.id, reads, keep_all)
            except redis.ConnectionError as exc:
                errors.append(exc)

        first = threading.Thread(target=poll)
        first.start()
        assert reads.started.wait(5)
        follower = threading.Thread(target=poll)
        follower.start()
        time.sleep(0.1)
        reads.release.set()
        first.join(5)
        follower.join(5)
        assert len(errors) == 2 and reads.calls == 1
        reads.fail = False
        assert live.metas.match_meta(table.id, reads, keep_all) is meta and reads.calls == 2


def test_no_poll_waits_on_another_match_s_read(hub_and_meta, client):
    """A read holds no lock of the hub: a poll of another match, followed or not, goes on meanwhile."""
    live, table, meta = hub_and_meta
    other = Table(client, game="year_of_dragon", players=2, seed=36)
    other_meta = live.store.load(other.id, state=False).meta
    for follow in (False, True):
        stuck = Reads(meta)
        stuck.release.clear()
        with followed(live, table.id) if follow else contextlib.nullcontext():
            reader = threading.Thread(target=live.metas.match_meta, args=(table.id, stuck, keep_all))
            reader.start()
            assert stuck.started.wait(5)
            quick = Reads(other_meta)
            began = time.monotonic()
            assert live.metas.match_meta(other.id, quick, keep_all) is other_meta
            assert time.monotonic() - began < 1.0 and reader.is_alive(), follow
            stuck.release.set()
            reader.join(5)


def test_a_commit_noted_during_a_read_keeps_it_from_being_kept(hub_and_meta):
    live, table, meta = hub_and_meta
    with followed(live, table.id):
        was = generation(live, table.id)

        def read_while_the_match_moves() -> MatchMeta:
            move(table)
            noted(live, table.id, was)  # the reader noted the commit before the read returned
            return meta

        assert live.metas.match_meta(table.id, read_while_the_match_moves, keep_all) is meta
        reads = Reads(meta)
        live.metas.match_meta(table.id, reads, keep_all)
        assert reads.calls == 1  # what was read before the commit was not kept
        live.metas.match_meta(table.id, reads, keep_all)
        assert reads.calls == 1  # what was read after it was


def test_a_match_not_followed_is_read_every_time(hub_and_meta):
    live, table, meta = hub_and_meta
    reads = Reads(meta)
    for _ in range(3):
        assert live.metas.match_meta(table.id, reads, keep_all) is meta
    assert reads.calls == 3 and live.counts["metas_spared"] == 0
