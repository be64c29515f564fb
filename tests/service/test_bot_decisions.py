"""A decision delivered whole (issue 44 points 1 and 2), against a real Redis through the HTTP API: a
move's answer carries the mover's ``next_decision`` when the same seat still decides (a run of
decisions), the feed's ``your_turn`` entries carry ``decision`` with ``include=decision`` (a page, a
long-poll, an NDJSON stream), a webhook endpoint with ``include_decision`` gets it at send time, and
away seats are found (``MyMatch.away``, ``?away=true``, the ``timeout`` entry's ``away``) and taken back
in one call (``POST /v1/me/return``).  Every decision is exactly what ``GET match`` (as that seat) and
``GET legal-actions`` show, so no seat ever sees another's secrets through one.

High Card (tests/service/high_card/RULES.md) makes runs: after an R4 swap it is still the swapper's
turn."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from standardwebhooks.webhooks import Webhook

from service.domain.feeds import feed
from service.domain.feeds.decisions import pending_decision
from service.domain.identity import APP, Caller
from service.domain.webhooks.webhooks import Webhooks
from service.http.app import create_app
from service.storage.matches import Store
from service.storage.webhooks import WebhookStore
from service.wiring import build
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend
from tests.service.test_webhooks_domain import URL, Clock, claim_all, resolve_public
from workers import jobs

FEED = "/v1/me/events"
NDJSON = {"Accept": "application/x-ndjson"}
PLAYERS = ("ann", "bob")


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


@pytest.fixture
def backend(client: FlaskClient) -> Backend:
    return Backend(client)


def shown(client: FlaskClient, backend: Backend, pid: str, match_id: str) -> dict[str, Any]:
    """What the seat of ``pid`` is shown by the two reads a decision replaces: its ``view`` and
    ``legal_actions`` (with the version and seat they were read at)."""
    doc = client.get(f"/v1/matches/{match_id}", headers=backend.as_(pid)).json
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=backend.as_(pid)).json
    assert legal["version"] == doc["version"]
    return {
        "version": doc["version"],
        "seat": doc["your_seat"],
        "view": doc["view"],
        "legal_actions": legal["actions"],
    }


def only_own_secrets(decision: dict[str, Any]) -> None:
    """R2-R4: the decision's view shows its own seat's hand and face-down cards, nobody else's, and
    never the draw pile (the High Card contract's own check)."""
    for entry in decision["view"]["players"]:
        if entry["seat"] != decision["seat"]:
            assert not {"hand", "played", "discarded"} & entry.keys()
        else:
            assert "hand" in entry
    assert "deck" not in decision["view"]


def pending(events: list[dict[str, Any]], match_id: str) -> dict[str, Any] | None:
    """The latest ``your_turn`` entry's decision of ``match_id`` in a feed page, if still pending."""
    turns = [e for e in events if e["type"] == feed.YOUR_TURN and e["match_id"] == match_id]
    return turns[-1]["decision"] if turns else None


def test_a_bot_plays_a_match_with_one_request_per_decision_and_a_feed_read_per_turn(
    client: FlaskClient, backend: Backend
) -> None:
    """Two bots play a whole match from what answers carry: a feed read (``include=decision``) when
    the turn comes to them, then one move per decision, each run's next decision in the move's answer.
    Checked (outside the count) against the two reads it replaces."""
    mid = backend.match(options={"rounds": 3})["id"]
    seat_of = {0: "ann", 1: "bob"}
    held: dict[str, dict[str, Any] | None] = dict.fromkeys(PLAYERS)
    cursor = dict.fromkeys(PLAYERS, "0-0")
    mover = seat_of[client.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json["to_move"]]
    requests = decisions = feed_reads = runs = swapped = 0
    while True:
        if held[mover] is None:
            page = client.get(
                FEED, query_string={"include": "decision", "after": cursor[mover]}, headers=backend.as_(mover)
            ).json
            requests, feed_reads = requests + 1, feed_reads + 1
            cursor[mover] = page["last_id"]
            held[mover] = pending(page["events"], mid)
            assert held[mover] is not None, f"{mover}'s your_turn carries no decision"
        decision = held[mover]
        assert decision is not None
        assert decision == shown(client, backend, mover, mid)  # not counted: the reads it replaces
        only_own_secrets(decision)
        swaps = [a for a in decision["legal_actions"] if a["type"] == "swap"]
        action = swaps[0] if swaps else decision["legal_actions"][0]
        swapped += bool(swaps)
        answer = client.post(
            f"/v1/matches/{mid}/actions",
            json={"action": action},
            headers={**backend.as_(mover), "If-Match": f'"{decision["version"]}"'},
        )
        requests, decisions = requests + 1, decisions + 1
        assert answer.status_code == 200, answer.json
        body = answer.json
        held[mover] = body["next_decision"]
        if body["status"] != "active":
            assert body["next_decision"] is None
            break
        if body["to_move"] == decision["seat"]:  # R4 (a swap), R5 (a round's winner leads): a run
            runs += 1
            assert held[mover] is not None and held[mover]["version"] == body["version"]
            assert held[mover]["view"] == body["view"]
        else:
            assert held[mover] is None
            mover = seat_of[body["to_move"]]
    assert swapped == 2 and runs >= swapped  # each seat swapped once (R4) and went on from the answer
    assert requests == decisions + feed_reads
    assert feed_reads == decisions - runs  # every other decision came with a turn's first feed read


def test_a_decision_is_computed_when_served_and_null_once_the_match_moved_on(
    client: FlaskClient, backend: Backend
) -> None:
    mid = backend.match()["id"]
    first = client.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json["to_move"]
    mover, other = ("ann", "bob") if first == 0 else ("bob", "ann")
    plain = client.get(FEED, headers=backend.as_(mover)).json["events"]
    turn = next(e for e in plain if e["type"] == feed.YOUR_TURN)
    assert "decision" not in turn  # without include=decision, entries are as they were
    page = client.get(FEED, query_string={"include": "decision"}, headers=backend.as_(mover)).json
    decided = next(e for e in page["events"] if e["type"] == feed.YOUR_TURN)
    assert {k: v for k, v in decided.items() if k != "decision"} == turn
    assert decided["decision"] == shown(client, backend, mover, mid)
    others = client.get(FEED, query_string={"include": "decision"}, headers=backend.as_(other)).json["events"]
    assert all(e["type"] != feed.YOUR_TURN for e in others)  # no entry, so no decision, of another seat
    play = {"type": "play", "card": decided["decision"]["view"]["players"][first]["hand"][0]}
    moved = client.post(
        f"/v1/matches/{mid}/actions",
        json={"action": play, "expected_version": decided["version"]},
        headers=backend.as_(mover),
    )
    assert moved.status_code == 200 and moved.json["next_decision"] is None
    again = client.get(FEED, query_string={"include": "decision"}, headers=backend.as_(mover)).json["events"]
    assert next(e for e in again if e["id"] == decided["id"])["decision"] is None  # moved on


def test_a_long_poll_and_an_ndjson_stream_carry_the_decision(
    app: Flask, client: FlaskClient, backend: Backend
) -> None:
    mid = backend.match()["id"]
    first = client.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json["to_move"]
    mover, other = ("ann", "bob") if first == 0 else ("bob", "ann")
    last = client.get(FEED, headers=backend.as_(other)).json["last_id"]
    answers: list[Any] = []

    def poll() -> None:
        query = {"include": "decision", "wait": 5, "after": last}
        answers.append(app.test_client().get(FEED, query_string=query, headers=backend.as_(other)))

    thread = threading.Thread(target=poll)
    thread.start()
    deadline = time.monotonic() + 5
    while app.extensions["tabletop"].live.waiters < 1:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    legal = client.get(f"/v1/matches/{mid}/legal-actions", headers=backend.as_(mover)).json
    play = next(a for a in legal["actions"] if a["type"] == "play")
    moved = client.post(
        f"/v1/matches/{mid}/actions",
        json={"action": play, "expected_version": legal["version"]},
        headers=backend.as_(mover),
    )
    assert moved.status_code == 200
    thread.join(timeout=10)
    assert answers and answers[0].status_code == 200, answers
    decision = pending(answers[0].json["events"], mid)
    assert decision is not None and decision == shown(client, backend, other, mid)

    stream = client.get(
        FEED, query_string={"include": "decision"}, headers={**backend.as_(other), **NDJSON}, buffered=False
    )
    lines: list[dict[str, Any]] = []
    for chunk in stream.response:
        lines += [
            json.loads(line) for line in (chunk.decode() if isinstance(chunk, bytes) else chunk).splitlines()
        ]
        if any(line.get("type") == feed.YOUR_TURN for line in lines):
            break
    stream.close()
    streamed = next(line for line in lines if line.get("type") == feed.YOUR_TURN)
    assert streamed["decision"] == decision
    only_own_secrets(decision)


def test_bad_feed_and_hint_waits_are_422_naming_the_field(client: FlaskClient, backend: Backend) -> None:
    mid = backend.match()["id"]
    junk = client.get(FEED, query_string={"include": "views"}, headers=backend.as_("ann"))
    assert junk.status_code == 422 and "include" in json.dumps(junk.json)
    long = client.post(f"/v1/matches/{mid}/hint", json={"wait": 31}, headers=backend.as_("ann"))
    assert long.status_code == 422 and "wait" in json.dumps(long.json)
    negative = client.get("/v1/jobs/hint-0", query_string={"wait": -1}, headers=backend.as_("ann"))
    assert negative.status_code == 422 and "wait" in json.dumps(negative.json)


def test_a_webhook_endpoint_with_include_decision_gets_it_built_at_send_time(
    redis_client: redis.Redis, redis_url: str
) -> None:
    config = make_config(redis_url)
    clock = Clock()
    store = Store(redis_client)

    def decide(key: str, match_id: str, seat: int) -> dict[str, Any] | None:
        return pending_decision(store, TEST_GAMES, key, match_id, seat)

    hooks = Webhooks(WebhookStore(redis_client), config, clock=clock, resolve=resolve_public, decide=decide)
    matches = build(config, store=store, games=TEST_GAMES, webhooks=hooks).matches
    app = matches.accounts.create_app("Backend")["id"]
    caller = Caller(APP, app=app, scopes=frozenset({"read", "play"}))
    for player in PLAYERS:
        matches.accounts.put_player(caller, player, player.title(), False)
    whole = hooks.create(app, URL, [feed.YOUR_TURN], "bots", include_decision=True)
    plain = hooks.create(app, URL, [feed.YOUR_TURN], "phones")
    assert whole["include_decision"] is True and plain["include_decision"] is False
    assert hooks.update(app, plain["id"], include_decision=False)["include_decision"] is False
    seats = [{"kind": "human", "player": p} for p in PLAYERS]
    created = matches.create({"game": "high_card", "seats": seats, "options": {}}, caller=caller)
    sent = {d.endpoint: hooks.as_sent(d) for d in claim_all(hooks, clock)}
    with_decision = json.loads(sent[whole["id"]].body)["data"]
    without = json.loads(sent[plain["id"]].body)["data"]
    assert (
        "decision" not in without and {k: v for k, v in with_decision.items() if k != "decision"} == without
    )
    meta, state = matches.meta_and_state(created["id"])
    seat = with_decision["seat"]
    game = TEST_GAMES["high_card"]
    assert with_decision["decision"] == {
        "version": meta.version,
        "seat": seat,
        "view": game.view(state, seat),
        "legal_actions": game.legal_actions(state),
    }
    only_own_secrets(with_decision["decision"])
    # Signed as sent: the signature covers the body with its decision.
    d = sent[whole["id"]]
    verified = Webhook(whole["secret"]).verify(d.body.decode(), hooks.headers(d, time.time()))
    assert verified["data"]["decision"] == with_decision["decision"]


def test_away_seats_are_listed_flagged_and_taken_back_in_one_call(
    app: Flask, client: FlaskClient, backend: Backend
) -> None:
    clocked = {"per_move_seconds": 60, "on_timeout": "random", "max_timeouts": 1}
    mids = [backend.match(time_control=clocked)["id"] for _ in range(2)]
    matches = app.extensions["tabletop"].matches
    away: dict[str, int] = {}
    for mid in mids:
        meta = matches.meta(mid)
        away[mid] = meta.to_move
        assert jobs.time_out(matches, mid, at=time.time() + 120) == jobs.MOVED
    by_player: dict[str, set[str]] = {p: set() for p in PLAYERS}
    for mid, seat in away.items():
        by_player["ann" if seat == 0 else "bob"].add(mid)
    pid = max(by_player, key=lambda p: len(by_player[p]))
    mine = by_player[pid]
    listed = client.get("/v1/me/matches", headers=backend.as_(pid)).json["matches"]
    assert {m["id"] for m in listed if m["away"]} == mine
    only = client.get("/v1/me/matches", query_string={"away": "true"}, headers=backend.as_(pid)).json[
        "matches"
    ]
    assert {m["id"] for m in only} == mine and all(m["away"] for m in only)
    timeouts = [
        e for e in client.get(FEED, headers=backend.as_(pid)).json["events"] if e["type"] == feed.TIMED_OUT
    ]
    assert {e["match_id"] for e in timeouts if e["away"]} == mine  # the timed-out seat is away now
    returned = client.post("/v1/me/return", headers=backend.as_(pid))
    assert returned.status_code == 200, returned.json
    got = returned.json["returned"]
    assert {r["match_id"] for r in got} == mine
    for r in got:
        meta = matches.meta(r["match_id"])
        assert r["seat"] == away[r["match_id"]] and r["version"] == meta.version
        assert not meta.seats[r["seat"]].get("away")
    assert (
        client.get("/v1/me/matches", query_string={"away": "true"}, headers=backend.as_(pid)).json["matches"]
        == []
    )
    assert client.post("/v1/me/return", headers=backend.as_(pid)).json == {"returned": []}
    by_key = client.post("/v1/me/return", query_string={"player": pid}, headers=bearer(backend.key))
    assert by_key.status_code == 200 and by_key.json == {"returned": []}
    assert client.post("/v1/me/return", headers=bearer(backend.key)).status_code == 422  # which player?
