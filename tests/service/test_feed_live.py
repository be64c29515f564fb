"""A player's feed, live (``GET /v1/me/events``, service/http/api/feed.py over service/live/), against
the real Redis: entries reach the feed by the real drain path (a match's outbox, drained by
``AccountStore.drain``), and what a waiting client gets is exactly its own player's feed, at once, in
order, once, whatever the form (long-poll, NDJSON, SSE) and however it resumes; waiter caps are counted
by app and by player for credentials, by address only for anonymous callers."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.domain.identity import APP, Caller
from service.http.app import create_app
from service.storage.matches import match_key
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config

FEED = "/v1/me/events"
NDJSON = {"Accept": "application/x-ndjson"}
SSE = {"Accept": "text/event-stream"}


class Backend:
    """An app with players, and a way to put entries in their feeds through a match's outbox."""

    def __init__(self, app: Flask) -> None:
        self.flask = app
        self.services = app.extensions["tabletop"]
        self.accounts = self.services.accounts
        created = self.accounts.create_app("Backend")
        self.id: str = created["id"]
        self.key: str = created["key"]
        self.caller = Caller(kind=APP, app=self.id)
        self.versions: dict[str, int] = {}

    def player(self, player_id: str, scopes: tuple[str, ...] = ("read", "play")) -> str:
        """A new player of this app; its token."""
        self.accounts.put_player(self.caller, player_id, player_id.title(), False)
        token: str = self.accounts.mint_token(self.caller, player_id, list(scopes), None)["token"]
        return token

    def key_of(self, player_id: str) -> str:
        return f"{self.id}:{player_id}"

    def note(
        self, player_id: str, match_id: str = "m1", kind: str = "your_turn", **extra: Any
    ) -> dict[str, Any]:
        """Commit-like: an outbox entry of ``match_id`` with one note for the player, drained into its
        feed; the entry as written (without its id)."""
        version = self.versions[match_id] = self.versions.get(match_id, 0) + 1
        entry = {
            "type": kind,
            "match_id": match_id,
            "game": "high_card",
            "version": version,
            "status": "active",
            "seat": 0,
            "to_move": 0,
            "my_turn": kind == "your_turn",
            "deadline": None,
            **extra,
        }
        outbox = {"version": version, "seq": 1, "notes": [{"player": self.key_of(player_id), "entry": entry}]}
        redis = self.services.matches.store.redis
        redis.rpush(match_key(match_id, "outbox"), json.dumps(outbox))
        assert self.services.outbox.drain(match_id) == 1
        return entry


def wait_for_waiters(app: Flask, count: int) -> None:
    live = app.extensions["tabletop"].live
    deadline = time.monotonic() + 5
    while live.waiters < count:
        assert time.monotonic() < deadline, f"{live.waiters} waiters, expected {count}"
        time.sleep(0.005)


def chunks(resp: Any) -> Iterator[str]:
    """A streamed response's writes, as text (its empty strings are no bytes on the wire, PEP 3333)."""
    for chunk in resp.response:
        if chunk:
            yield chunk if isinstance(chunk, str) else chunk.decode()


def sse_frames(text: str) -> list[dict[str, str]]:
    """The events of SSE text (comments, i.e. heartbeats, dropped): their ``id``, ``event``, ``data``."""
    frames = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if not line.startswith(":"))
        if fields:
            frames.append(fields)
    return frames


@pytest.fixture
def backend(app: Flask) -> Backend:
    return Backend(app)


def test_a_long_poll_wakes_within_a_second_of_a_new_entry(
    app: Flask, client: FlaskClient, backend: Backend
) -> None:
    token = backend.player("ann")
    first = client.get(FEED, headers=bearer(token))
    assert first.status_code == 200 and first.json == {"events": [], "last_id": "0-0"}
    answers: list[tuple[float, Any]] = []

    def poll() -> None:
        resp = app.test_client().get(FEED, query_string={"wait": 5}, headers=bearer(token))
        answers.append((time.monotonic(), resp))

    thread = threading.Thread(target=poll)
    thread.start()
    wait_for_waiters(app, 1)
    time.sleep(0.1)  # the poll is waiting, not about to read
    written = time.monotonic()
    entry = backend.note("ann")
    thread.join(timeout=10)
    answered, resp = answers[0]
    assert resp.status_code == 200, resp.json
    assert answered - written < 1.0
    [got] = resp.json["events"]
    assert got == {"id": resp.json["last_id"], **entry}
    assert app.extensions["tabletop"].live.waiters == 0 and app.extensions["tabletop"].live.feeds == 0


def test_a_long_poll_with_entries_already_answers_at_once_and_pages_on(
    client: FlaskClient, backend: Backend
) -> None:
    token = backend.player("ann")
    written = [backend.note("ann") for _ in range(3)]
    t0 = time.monotonic()
    page = client.get(FEED, query_string={"wait": 5}, headers=bearer(token)).json
    assert time.monotonic() - t0 < 1.0
    assert [e["version"] for e in page["events"]] == [e["version"] for e in written]
    after = client.get(FEED, query_string={"after": page["events"][0]["id"]}, headers=bearer(token)).json
    assert after["events"] == page["events"][1:] and after["last_id"] == page["last_id"]


def test_ndjson_delivers_entries_as_they_come_and_resumes_without_loss_or_duplicates(
    client: FlaskClient, backend: Backend
) -> None:
    token = backend.player("ann")
    before = [backend.note("ann") for _ in range(2)]
    resp = client.get(FEED, headers={**bearer(token), **NDJSON}, buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "application/x-ndjson"
    seen: list[dict[str, Any]] = []
    written = list(before)
    heartbeats = 0
    for chunk in chunks(resp):
        for line in chunk.splitlines():
            doc = json.loads(line)
            if doc["type"] == "heartbeat":
                heartbeats += 1
            else:
                seen.append(doc)
        if len(written) < 4 and len(seen) == len(written):
            written.append(backend.note("ann"))  # a live entry, while the stream waits
        if len(seen) == 4:
            break
    resp.close()
    assert heartbeats >= 1  # the stream opens with one, before any entry
    assert [{k: v for k, v in e.items() if k != "id"} for e in seen] == written
    ids = [e["id"] for e in seen]
    assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-")))) and len(set(ids)) == 4
    # Two more while nobody listens; resuming after the second seen loses none and repeats none.
    written += [backend.note("ann") for _ in range(2)]
    resumed = client.get(FEED, headers={**bearer(token), **NDJSON, "Last-Event-ID": ids[1]}, buffered=False)
    again: list[dict[str, Any]] = []
    for chunk in chunks(resumed):
        again += [d for d in map(json.loads, chunk.splitlines()) if d["type"] != "heartbeat"]
        if len(again) >= 4:
            break
    resumed.close()
    assert [e["id"] for e in again[:2]] == ids[2:]
    assert [{k: v for k, v in e.items() if k != "id"} for e in again] == written[2:]


def test_sse_gives_each_entry_its_id_and_resumes_from_last_event_id(
    client: FlaskClient, backend: Backend
) -> None:
    token = backend.player("ann")
    backend.note("ann", kind="invited")
    resp = client.get(FEED, headers={**bearer(token), **SSE}, buffered=False)
    assert resp.mimetype == "text/event-stream"
    text = ""
    for chunk in chunks(resp):
        text += chunk
        frames = sse_frames(text)
        if len(frames) == 1 and chunk.startswith("id: "):
            backend.note("ann", kind="match_started")
        if len(frames) == 2:
            break
    resp.close()
    assert text.startswith(": heartbeat\n\n")  # the response starts at once, before any entry
    assert [f["event"] for f in frames] == ["invited", "match_started"]
    assert all(json.loads(f["data"])["id"] == f["id"] for f in frames)
    last = frames[-1]["id"]
    backend.note("ann", kind="match_over", result={"winners": [0]})
    resumed = client.get(FEED, headers={**bearer(token), **SSE, "Last-Event-ID": last}, buffered=False)
    text = ""
    for chunk in chunks(resumed):
        text += chunk
        if sse_frames(text) or text.count(": heartbeat") >= 3:
            break
    resumed.close()
    [over] = sse_frames(text)
    assert over["event"] == "match_over" and json.loads(over["data"])["result"] == {"winners": [0]}
    # ?after wins over nothing else: the same cursor as a query parameter.
    page = client.get(FEED, query_string={"after": last}, headers=bearer(token)).json
    assert [e["id"] for e in page["events"]] == [over["id"]]


def test_a_feed_stream_outlives_a_match_over(client: FlaskClient, backend: Backend) -> None:
    """Unlike a match's stream, a feed goes on after ``match_over``: the player has other matches."""
    token = backend.player("ann")
    backend.note("ann", match_id="m1", kind="match_over", result={})
    resp = client.get(FEED, headers={**bearer(token), **NDJSON}, buffered=False)
    types = []
    for chunk in chunks(resp):
        types += [json.loads(line)["type"] for line in chunk.splitlines()]
        if types == ["heartbeat", "match_over"]:
            backend.note("ann", match_id="m2", kind="invited")
        if "invited" in types:
            break
    resp.close()
    assert types == ["heartbeat", "match_over", "invited"]


def test_one_players_feed_never_shows_anothers(app: Flask, client: FlaskClient, backend: Backend) -> None:
    ann, bob = backend.player("ann"), backend.player("bob")
    backend.note("bob", kind="invited")
    mine = backend.note("ann", kind="invited")
    page = client.get(FEED, headers=bearer(ann)).json
    assert [{k: v for k, v in e.items() if k != "id"} for e in page["events"]] == [mine]
    # Live too: while ann's stream waits, bob's entries do not reach it; ann's own does.
    resp = client.get(
        FEED, query_string={"after": page["last_id"]}, headers={**bearer(ann), **NDJSON}, buffered=False
    )
    docs: list[dict[str, Any]] = []
    beats = 0
    for chunk in chunks(resp):
        for doc in map(json.loads, chunk.splitlines()):
            beats += doc["type"] == "heartbeat"
            if doc["type"] != "heartbeat":
                docs.append(doc)
        if beats == 1:
            backend.note("bob", kind="your_turn")
        if beats == 3:  # bob's entry had two heartbeats' time to (wrongly) arrive
            backend.note("ann", kind="match_started")
        if docs:
            break
    resp.close()
    assert [d["type"] for d in docs] == ["match_started"]
    assert [e["type"] for e in client.get(FEED, headers=bearer(bob)).json["events"]] == [
        "invited",
        "your_turn",
    ]
    # A player token speaks for its own player only.
    assert client.get(FEED, query_string={"player": "bob"}, headers=bearer(ann)).status_code in (400, 422)


def test_an_app_key_reads_its_players_feed_but_no_other_apps(
    app: Flask, client: FlaskClient, backend: Backend
) -> None:
    backend.player("ann")
    entry = backend.note("ann")
    other = Backend(app)
    other.player("carol")
    other.note("carol")
    page = client.get(FEED, query_string={"player": "ann"}, headers=bearer(backend.key))
    assert page.status_code == 200
    assert [{k: v for k, v in e.items() if k != "id"} for e in page.json["events"]] == [entry]
    refused = client.get(FEED, query_string={"player": "carol"}, headers=bearer(backend.key))
    assert refused.status_code == 404 and "carol" not in json.dumps(page.json)
    # Not by waiting either, nor by streaming.
    assert (
        client.get(FEED, query_string={"player": "carol", "wait": 1}, headers=bearer(backend.key)).status_code
        == 404
    )
    streamed = client.get(FEED, query_string={"player": "carol"}, headers={**bearer(backend.key), **NDJSON})
    assert streamed.status_code == 404
    assert client.get(FEED, headers=bearer(backend.key)).status_code in (400, 422)  # which player?
    assert client.get(FEED).status_code == 401


@pytest.fixture
def capped(redis_client: Any, redis_url: str) -> Flask:
    config = make_config(
        redis_url,
        max_waiters_per_player=1,
        max_waiters_per_app=2,
        max_waiters_per_address=1,
        max_wait_seconds=5,
    )
    return create_app(config, games=TEST_GAMES)


def hold(app: Flask, url: str, token: str | None, **query: Any) -> threading.Thread:
    """A waiting long-poll (2 s) in a thread."""
    headers = bearer(token) if token else {}
    thread = threading.Thread(
        target=lambda: app.test_client().get(url, query_string={"wait": 2, **query}, headers=headers)
    )
    thread.start()
    return thread


def test_waiter_caps_per_player_and_per_app_answer_429_naming_the_cap(capped: Flask) -> None:
    backend = Backend(capped)
    ann, bob, cid = backend.player("ann"), backend.player("bob"), backend.player("cid")
    client = capped.test_client()
    holders = [hold(capped, FEED, ann)]
    wait_for_waiters(capped, 1)
    refused = client.get(FEED, query_string={"wait": 2}, headers=bearer(ann))
    assert refused.status_code == 429 and refused.json["code"] == "too_many_waiters"
    assert (
        refused.json["details"]["limit"] == "max_waiters_per_player" and refused.json["details"]["cap"] == 1
    )
    assert "max_waiters_per_player" in refused.json["message"] and int(refused.headers["Retry-After"]) >= 1
    assert client.get(FEED, headers=bearer(ann)).status_code == 200  # a poll that does not wait is no waiter
    holders.append(hold(capped, FEED, bob))  # another player of the app: its own cap
    wait_for_waiters(capped, 2)
    over_app = client.get(FEED, query_string={"wait": 2}, headers=bearer(cid))
    assert over_app.status_code == 429 and over_app.json["details"]["limit"] == "max_waiters_per_app"
    # The app's key counts against the same app cap.
    by_key = client.get(FEED, query_string={"wait": 2, "player": "cid"}, headers=bearer(backend.key))
    assert by_key.status_code == 429 and by_key.json["details"]["limit"] == "max_waiters_per_app"
    # Another app is not affected by this one's crowd.
    other = Backend(capped)
    dan = other.player("dan")
    holders.append(hold(capped, FEED, dan))
    wait_for_waiters(capped, 3)
    for thread in holders:
        thread.join()
    live = capped.extensions["tabletop"].live
    assert live.waiters == 0 and live.feeds == 0


def test_match_events_count_an_app_keys_waiters_against_the_app_not_the_address(capped: Flask) -> None:
    """A backend proxying its users from one address meets its app's cap, not the one meant for an
    anonymous address."""
    backend = Backend(capped)
    client = capped.test_client()
    table = Table(client, seed=7)
    url = table.url("/events")
    holders = [hold(capped, url, None, after="0-1")]
    wait_for_waiters(capped, 1)
    anonymous = client.get(url, query_string={"after": "0-1", "wait": 2})
    assert anonymous.status_code == 429 and anonymous.json["details"]["limit"] == "max_waiters_per_address"
    holders += [hold(capped, url, backend.key, after="0-1") for _ in range(2)]  # the app's cap is 2
    wait_for_waiters(capped, 3)
    by_key = client.get(url, query_string={"after": "0-1", "wait": 2}, headers=bearer(backend.key))
    assert by_key.status_code == 429 and by_key.json["details"]["limit"] == "max_waiters_per_app"
    for thread in holders:
        thread.join()


def test_an_events_page_says_who_is_to_move(app: Flask, client: FlaskClient) -> None:
    table = Table(client, seed=5)
    doc = table.get().json
    page = table.get(None, "/events").json
    assert page["to_move"] == doc["to_move"] and page["version"] == doc["version"]
    # A long-poll that sees a move reports who is to move after it, not before.
    seat = doc["to_move"]
    answers: list[Any] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            app.test_client()
            .get(table.url("/events"), query_string={"after": page["last_id"], "wait": 3})
            .json
        )
    )
    thread.start()
    wait_for_waiters(app, 1)
    assert table.move(seat, table.legal(seat)[0], doc["version"]).status_code == 200
    thread.join()
    after = table.get().json
    assert answers[0]["version"] == after["version"] and answers[0]["to_move"] == after["to_move"]


def test_live_feed_entries_go_out_from_their_message_without_a_read(
    client: FlaskClient, backend: Backend
) -> None:
    """A feed write publishes the whole entry: once a stream is caught up, the reader hands each new
    entry on from its message, in order, and reads the feed again only to catch up.  (The spy counts
    our own store's reads; it changes nothing.)"""
    token = backend.player("ann")
    store = backend.services.live.accounts
    reads: list[dict[str, str]] = []
    real = store.feed_after_many

    def counted(cursors: dict[str, str], count: int) -> Any:
        reads.append(dict(cursors))
        return real(cursors, count)

    store.feed_after_many = counted  # type: ignore[method-assign]
    try:
        resp = client.get(FEED, headers={**bearer(token), **NDJSON}, buffered=False)
        seen: list[dict[str, Any]] = []
        written = [backend.note("ann")]
        reads_when_caught_up: int | None = None
        for chunk in chunks(resp):
            seen += [d for d in map(json.loads, chunk.splitlines()) if d["type"] != "heartbeat"]
            if seen and reads_when_caught_up is None:
                reads_when_caught_up = len(reads)
            if len(written) < 6 and len(seen) == len(written):
                written.append(backend.note("ann"))
            if len(seen) == 6:
                break
        resp.close()
    finally:
        del store.feed_after_many
    assert [{k: v for k, v in e.items() if k != "id"} for e in seen] == written
    assert reads_when_caught_up is not None and len(reads) == reads_when_caught_up  # 5 more, no read
