"""A match's life through the API (real Redis, the High Card fixture game): open seats and joining,
private invites, cancel, resign, rematch; and the clocks, driven by an injected time.

Each lifecycle call is a compare-and-set commit of its own: it bumps the version and leaves its events
in the feed, so these tests read both."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.identity import Caller
from service.domain.matches.operations import Matches
from service.storage.matches import Store
from service.wiring import build
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config
from workers import jobs


def events(client: FlaskClient, match_id: str, token: str | None = None) -> list[dict[str, Any]]:
    resp = client.get(f"/v1/matches/{match_id}/events", headers=bearer(token) if token else {})
    assert resp.status_code == 200, resp.json
    return resp.json["events"]


def open_match(client: FlaskClient, *, players: int = 3, open_seats: int = 2, **body: Any) -> Table:
    seats = (
        [{"name": "host"}]
        + [{"kind": "open"}] * open_seats
        + [{"name": f"bot{i}", "kind": "bot", "level": "random"} for i in range(players - 1 - open_seats)]
    )
    return Table(client, seats=seats, seed=3, **body)


def join(client: FlaskClient, match_id: str, **body: Any) -> Any:
    return client.post(f"/v1/matches/{match_id}/join", json={"name": "joiner", **body})


def play_out(table: Table) -> dict[str, Any]:
    """Every human seat plays its first legal action until the match is over."""
    while True:
        doc = table.get(0).json
        if doc["status"] != "active":
            return doc
        seat = doc["to_move"]
        resp = table.move(seat, table.legal(seat)[0], doc["version"])
        assert resp.status_code == 200, resp.json


def test_open_seats_wait_until_every_seat_is_taken_then_the_match_starts(client: FlaskClient) -> None:
    table = open_match(client)
    created = table.created.json
    assert created["status"] == "waiting" and created["open_seats"] == [1, 2]
    assert [s["kind"] for s in created["seats"]] == ["human", "open", "open"]
    assert created["creator_token"] and created["invites"] == []  # public: no invite codes
    listed = client.get("/v1/matches?status=waiting&game=high_card").json["matches"]
    assert [m["id"] for m in listed] == [table.id]
    # Nobody decides in a waiting match, not even the seat the engine would let start.
    assert table.get(0, "/legal-actions").json["code"] == "match_waiting"
    refused = table.move(0, {"type": "play", "card": 1}, 0)
    assert refused.status_code == 409 and refused.json["code"] == "match_waiting"

    first = join(client, table.id, seat="any", name="ana")
    assert first.status_code == 200, first.json
    assert first.json["seat"] == 1 and first.json["match"]["your_seat"] == 1
    assert first.json["match"]["status"] == "waiting" and first.json["match"]["open_seats"] == [2]
    taken = join(client, table.id, seat=1, name="bo")
    assert taken.status_code == 409 and taken.json["code"] == "seat_taken"
    last = join(client, table.id, seat=2, name="cy")
    assert last.status_code == 200 and last.json["match"]["status"] == "active"
    assert last.json["match"]["seats"][2] == {
        "seat": 2, "name": "cy", "kind": "human", "decisions": 0, "stand_in": 0
    }  # fmt: skip

    # The joiners' tokens hold their seats; the feed tells who joined and when the match started.
    table.tokens.update({1: first.json["token"], 2: last.json["token"]})
    assert table.get(2).json["your_seat"] == 2
    types = [e["type"] for e in events(client, table.id)]
    assert types == ["match_created", "seat_joined", "seat_joined", "match_started"]
    assert client.get("/v1/matches?status=waiting").json["matches"] == []
    assert join(client, table.id, name="late").json["code"] == "not_waiting"
    assert play_out(table)["status"] == "finished"


def test_private_match_is_unlisted_and_each_invite_joins_its_seat_once(client: FlaskClient) -> None:
    table = open_match(client, visibility="private")
    invites = {i["seat"]: i["code"] for i in table.created.json["invites"]}
    assert sorted(invites) == [1, 2] and table.created.json["visibility"] == "private"
    assert client.get("/v1/matches").json["matches"] == []  # not listed, whatever the filter
    assert client.get("/v1/matches?status=waiting").json["matches"] == []
    no_code = join(client, table.id)
    assert no_code.status_code == 403 and no_code.json["code"] == "invite_required"
    wrong_seat = join(client, table.id, seat=1, invite=invites[2])
    assert wrong_seat.status_code == 422
    ok = join(client, table.id, invite=invites[2])
    assert ok.status_code == 200 and ok.json["seat"] == 2
    again = join(client, table.id, invite=invites[2])
    assert again.status_code == 403  # used


def test_two_clients_racing_for_the_last_seat_one_wins_the_other_gets_409(app: Flask) -> None:
    for _ in range(5):
        table = open_match(app.test_client(), open_seats=1, players=2)
        answers: list[Any] = []
        start = threading.Barrier(2)

        def racer(name: str, table: Table, start: threading.Barrier, answers: list[Any]) -> None:
            c = app.test_client()
            start.wait()
            answers.append(join(c, table.id, seat="any", name=name))

        threads = [threading.Thread(target=racer, args=(n, table, start, answers)) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(r.status_code for r in answers) == [200, 409]
        loser = next(r for r in answers if r.status_code == 409)
        assert loser.json["code"] in ("not_waiting", "no_open_seat")
        doc = table.get(0).json
        assert doc["status"] == "active" and sum(s["kind"] == "human" for s in doc["seats"]) == 2


def test_creator_cancels_a_waiting_match_and_nobody_else_can(client: FlaskClient) -> None:
    table = open_match(client)
    url = f"/v1/matches/{table.id}/cancel"
    assert client.post(url).status_code == 401
    assert client.post(url, headers=bearer(table.tokens[0])).status_code == 401  # a seat token is not it
    resp = client.post(url, headers=bearer(table.created.json["creator_token"]))
    assert resp.status_code == 200 and resp.json["status"] == "aborted"
    assert events(client, table.id)[-1] == {
        "id": events(client, table.id)[-1]["id"],
        "type": "match_over",
        "status": "aborted",
        "reason": "cancelled",
        "result": None,
    }
    page = client.get(f"/v1/matches/{table.id}/events").json
    assert page["status"] == "aborted"
    assert join(client, table.id).json["code"] == "not_waiting"
    again = client.post(url, headers=bearer(table.created.json["creator_token"]))
    assert again.status_code == 409


def test_an_active_match_cannot_be_cancelled(client: FlaskClient) -> None:
    table = Table(client, seed=1)
    resp = client.post(f"/v1/matches/{table.id}/cancel", headers=bearer(table.created.json["creator_token"]))
    assert resp.status_code == 409 and resp.json["code"] == "not_waiting"


def test_leaving_before_the_start_opens_the_seat_again(client: FlaskClient) -> None:
    table = open_match(client)
    joined = join(client, table.id, seat=1).json
    resp = client.post(f"/v1/matches/{table.id}/resign", headers=bearer(joined["token"]))
    assert resp.status_code == 200 and resp.json["open_seats"] == [1, 2] and resp.json["your_seat"] is None
    assert client.get(table.url(), headers=bearer(joined["token"])).status_code == 401  # token let go


def test_resign_mid_match_a_bot_takes_the_seat_and_the_result_says_who_resigned(client: FlaskClient) -> None:
    table = Table(client, seed=5, on_leave={"then": "bot", "level": "random"})
    resp = client.post(table.url("/resign"), headers=bearer(table.tokens[1]))
    assert resp.status_code == 200, resp.json
    seat1 = resp.json["seats"][1]
    assert seat1["kind"] == "bot" and seat1["level"] == "random" and seat1["name"] == "p1"
    assert resp.json["resigned"] == [1] and resp.json["your_seat"] == 1
    assert events(client, table.id)[-1]["type"] == "resigned"
    twice = client.post(table.url("/resign"), headers=bearer(table.tokens[1]))
    assert twice.status_code == 409 and twice.json["code"] == "seat_left"
    doc = table.get(1).json
    if doc["to_move"] == 1:  # the token still reads the seat's view, but a bot decides now
        refused = table.move(1, {"type": "play", "card": 1}, doc["version"])
        assert refused.status_code == 403 and refused.json["code"] == "seat_left"


def test_resign_with_abort_ends_the_match_when_no_human_is_left(client: FlaskClient) -> None:
    table = Table(client, seed=5, on_leave={"then": "abort"})
    first = client.post(table.url("/resign"), headers=bearer(table.tokens[0]))
    assert first.json["status"] == "active"  # one human still plays (against the bot that took seat 0)
    last = client.post(table.url("/resign"), headers=bearer(table.tokens[1]))
    assert last.json["status"] == "aborted" and last.json["resigned"] == [0, 1]
    assert events(client, table.id)[-1]["reason"] == "abandoned"
    assert client.get(table.url("/log")).json["complete"] is True


def test_rematch_rotates_the_seats_and_starts_when_every_player_has_asked(client: FlaskClient) -> None:
    table = Table(client, seed=9)
    assert client.post(table.url("/rematch"), headers=bearer(table.tokens[0])).json["code"] == "not_finished"
    finished = play_out(table)
    assert finished["status"] == "finished"
    first = client.post(table.url("/rematch"), headers=bearer(table.tokens[1]))
    assert first.status_code == 200, first.json
    new_id = first.json["match_id"]
    assert first.json["seat"] == 0 and first.json["status"] == "waiting"  # old seat 1 sits first now
    assert table.get(0).json["rematch"] == new_id
    # Its seats are kept for the old players: no one else may join, and it is not listed.
    assert join(client, new_id).status_code == 403
    assert client.get("/v1/matches?status=waiting").json["matches"] == []
    second = client.post(table.url("/rematch"), headers=bearer(table.tokens[0]))
    assert (
        second.json["match_id"] == new_id and second.json["seat"] == 1 and second.json["status"] == "active"
    )
    again = client.post(table.url("/rematch"), headers=bearer(table.tokens[0]))
    assert again.status_code == 409 and again.json["code"] == "rematch_joined"
    new = client.get(f"/v1/matches/{new_id}", headers=bearer(second.json["token"])).json
    assert new["your_seat"] == 1 and [s["name"] for s in new["seats"]] == ["p1", "p0"]
    assert new["options"] == finished["options"] and new["version"] == 2
    log = client.get(f"/v1/matches/{new_id}/log", headers=bearer(second.json["token"])).json
    assert log["seed"] is None  # a new seed, not shown yet (a rematch is private: a seat's token reads)


# -- clocks ---------------------------------------------------------------------------------------


class FakeTime:
    def __init__(self) -> None:
        self.t = 1_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def timed(redis_client: redis.Redis, redis_url: str) -> tuple[Matches, FakeTime]:
    clock = FakeTime()
    return build(
        make_config(redis_url), store=Store(redis_client), games=TEST_GAMES, clock=clock
    ).matches, clock


def create(matches: Matches, **body: Any) -> dict[str, Any]:
    seats = body.pop("seats", [{"name": "a", "kind": "human"}, {"name": "b", "kind": "human"}])
    # No swaps (R4): every decision ends the seat's turn, so the clock passes to the other seat.
    return matches.create(
        {"game": "high_card", "seats": seats, "options": {"swaps": False}, "seed": 4, **body}
    )


def test_no_clock_unless_asked_for(timed: tuple[Matches, FakeTime]) -> None:
    matches, _ = timed
    assert create(matches)["clock"] is None
    assert matches.store.clocks.deadline_count() == 0


def test_per_move_limit_a_bot_plays_for_a_seat_out_of_time(timed: tuple[Matches, FakeTime]) -> None:
    matches, clock = timed
    doc = create(matches, time_control={"per_move_seconds": 10, "on_timeout": "random", "max_timeouts": 2})
    mid, start = doc["id"], clock.t
    assert doc["clock"]["deadline"] == start + 10 and doc["clock"]["timeouts"] == [0, 0]
    seat = doc["to_move"]
    assert matches.store.clocks.claim_due(start + 9, 10, 30) == []  # not due yet
    clock.t = start + 10.5
    assert matches.store.clocks.claim_due(clock.t, 10, 30) == [mid]
    assert jobs.time_out(matches, mid, at=clock.t) == jobs.MOVED
    meta, _ = matches.meta_and_state(mid)
    assert meta.version == 1 and meta.clock is not None and meta.clock["timeouts"][seat] == 1
    assert meta.to_move != seat and meta.clock["deadline"] == clock.t + 10  # the next seat's decision
    feed = matches.store.events_after(mid, "0-0")
    timeout = next(e.event for e in feed if e.event["type"] == "timeout")
    assert timeout == {
        "type": "timeout",
        "visible_to": "all",
        "seat": seat,
        "level": "random",
        "bot_keeps_seat": False,
    }
    assert any(e.event["type"] == "action" and e.event["seat"] == seat for e in feed)
    # A claim that finds the deadline moved on puts it back rather than playing.
    assert jobs.time_out(matches, mid, at=clock.t) == jobs.NOT_DUE


def test_after_max_timeouts_a_bot_plays_the_seat_while_its_player_is_away(
    timed: tuple[Matches, FakeTime],
) -> None:
    matches, clock = timed
    doc = create(matches, time_control={"per_move_seconds": 5, "on_timeout": "random", "max_timeouts": 1})
    seat = doc["to_move"]
    clock.t += 6
    assert jobs.time_out(matches, doc["id"], at=clock.t) == jobs.MOVED
    meta, _ = matches.meta_and_state(doc["id"])
    assert meta.seats[seat]["kind"] == "bot" and meta.seats[seat]["level"] == "random"
    assert meta.seats[seat]["away"] is True  # the player's again when they act (test_lifecycle_dead_ends)
    last = matches.store.events_after(doc["id"], "0-0")
    assert any(e.event["type"] == "timeout" and e.event["bot_keeps_seat"] for e in last)


def test_budget_is_charged_only_while_the_seat_decides_and_gets_its_increment(
    timed: tuple[Matches, FakeTime],
) -> None:
    matches, clock = timed
    doc = create(matches, time_control={"budget_seconds": 60, "increment_seconds": 2})
    mid, seat = doc["id"], doc["to_move"]
    assert doc["clock"]["remaining_seconds"] == [60.0, 60.0] and doc["clock"]["deadline"] == clock.t + 60
    clock.t += 15
    meta, state = matches.meta_and_state(mid)
    shown = matches.document(meta, state, None)["clock"]["remaining_seconds"]
    assert shown[seat] == 45.0 and shown[1 - seat] == 60.0  # counting down for the seat deciding only
    action = matches.games["high_card"].legal_actions(state)[0]
    played = matches.seat_move(meta, state, seat, action)
    assert played.meta is not None and played.meta.clock is not None
    assert played.meta.clock["remaining"][seat] == 47.0  # 60 - 15 + 2
    assert played.meta.clock["deadline"] == clock.t + 60  # the other seat's full budget


def test_time_waiting_for_a_bot_never_counts_against_a_human(timed: tuple[Matches, FakeTime]) -> None:
    matches, clock = timed
    seats = [{"name": "bot", "kind": "bot", "level": "random"}, {"name": "h", "kind": "human"}]
    doc = create(matches, seats=seats, time_control={"budget_seconds": 30})
    assert doc["clock"]["remaining_seconds"] == [None, 30.0]
    if doc["to_move"] == 0:
        assert doc["clock"]["deadline"] is None and matches.store.clocks.deadline_count() == 0
        clock.t += 1000  # the bot is slow: no deadline runs meanwhile
        meta, state = matches.meta_and_state(doc["id"])
        assert matches.document(meta, state, 1)["clock"]["remaining_seconds"] == [None, 30.0]


def test_a_waiting_match_runs_no_clock_until_it_starts(timed: tuple[Matches, FakeTime]) -> None:

    matches, clock = timed
    doc = create(
        matches,
        seats=[{"name": "a", "kind": "human"}, {"kind": "open"}],
        time_control={"per_move_seconds": 20},
    )
    assert doc["status"] == "waiting" and doc["clock"]["deadline"] is None
    clock.t += 500
    joined = matches.join(doc["id"], "any", "b", None, Caller())
    assert joined["match"]["status"] == "active" and joined["match"]["clock"]["deadline"] == clock.t + 20
    assert matches.store.clocks.claim_due(clock.t + 21, 5, 30) == [doc["id"]]


def test_sweep_restores_a_lost_deadline(timed: tuple[Matches, FakeTime]) -> None:
    matches, clock = timed
    doc = create(matches, time_control={"per_move_seconds": 5})
    matches.store.clocks.set_deadline(doc["id"], None)  # as if the process died between commit and index
    jobs.sweep_matches(matches)
    assert matches.store.clocks.claim_due(clock.t + 6, 5, 30) == [doc["id"]]


def test_a_rematch_exists_before_the_finished_match_names_it(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whoever reads the finished match's link (its ``rematch`` event, its document) finds the rematch:
    it is made first, then linked (a page that read it in between took a 404 for an expired offer)."""
    table = Table(app.test_client(), seed=9)
    play_out(table)
    lifecycle = app.extensions["tabletop"].matches.lifecycle
    link = lifecycle._link
    existed: list[bool] = []

    def linking(meta: Any, proposed: str) -> str:
        existed.append(lifecycle.store.exists(proposed))
        return link(meta, proposed)

    monkeypatch.setattr(lifecycle, "_link", linking)
    answer = app.test_client().post(table.url("/rematch"), headers=bearer(table.tokens[0]))
    assert answer.status_code == 200 and existed == [True]
    assert table.get(0).json["rematch"] == answer.json["match_id"]


def test_both_players_asking_for_a_rematch_at_once_get_one_rematch(app: Flask) -> None:
    for _ in range(5):
        table = Table(app.test_client(), seed=9)
        play_out(table)
        start = threading.Barrier(2)
        answers: dict[int, Any] = {}

        def ask(seat: int, table: Table, start: threading.Barrier, answers: dict[int, Any]) -> None:
            client = app.test_client()
            start.wait()
            answers[seat] = client.post(table.url("/rematch"), headers=bearer(table.tokens[seat]))

        threads = [threading.Thread(target=ask, args=(s, table, start, answers)) for s in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert [answers[s].status_code for s in (0, 1)] == [200, 200], [answers[s].json for s in (0, 1)]
        assert answers[0].json["match_id"] == answers[1].json["match_id"] == table.get(0).json["rematch"]
        assert {answers[0].json["seat"], answers[1].json["seat"]} == {0, 1}
        rematch = (
            app.test_client()
            .get(  # a rematch is private: read with a seat's token
                f"/v1/matches/{answers[0].json['match_id']}", headers=bearer(answers[0].json["token"])
            )
            .json
        )
        assert rematch["status"] == "active" and rematch["version"] == 2
        rematch_events = [e for e in events(app.test_client(), table.id) if e["type"] == "rematch"]
        assert len(rematch_events) == 1
