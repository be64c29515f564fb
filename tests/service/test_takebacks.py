"""Takebacks (issue 47 points 1 and 4) through the API and the domain, on a real Redis: asking, the
refusals and their reasons, accepting and declining, bots accepting at once, expiry with and without a
clock, a stand-in's decision, the feed entries and webhook messages, and the records and exports that
keep the takeback.

The High Card fixture declares no takeback classification, so every step of it would be blocked; these
tests play a variant that says what its steps reveal (:func:`blocker`): a face-down play (R3) reveals
nothing, a swap shows the drawn card to its drawer (R4), the last play of a round turns every card up
(R5).  The races with real processes are tests/reliability/test_takeback_races.py."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from engine.core import Action, Event
from engine.records import replay
from engine.takeback import REVEAL, Blocker
from service.domain.errors import Conflict
from service.domain.identity import SEAT, Caller
from service.domain.matches.operations import Matches
from service.http.app import create_app
from service.storage.matches import Store
from service.wiring import build
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config
from tests.service.high_card import HighCard
from tests.service.high_card import State as HighCardState
from tests.service.test_accounts import ADMIN, Backend
from workers import jobs


def blocker(
    before: HighCardState, seat: int, action: Action, after: HighCardState, events: list[Event]
) -> Blocker | None:
    """What a step of High Card shows: the drawn card to its drawer (R4), the round's cards (R5)."""
    if action["type"] == "swap":
        return Blocker(REVEAL, "R4", "the card drawn was shown to its drawer")
    if any(ev["type"] == "reveal" for ev in events):
        return Blocker(REVEAL, "R5", "the round's cards were turned up")
    return None


class TakebackHighCard(HighCard):
    rules = dataclasses.replace(HighCard.rules, takeback=blocker)


GAMES = {**TEST_GAMES, "high_card": TakebackHighCard()}


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(
        redis_url, admin_token=ADMIN, webhook_allow_http=True, webhook_allow_private=True, takeback_limit=2
    )
    return create_app(config, games=GAMES)


def takebacks(table: Table, seat: int | None = None) -> Any:
    resp = table.get(seat, "/takebacks")
    assert resp.status_code == 200, resp.json
    return resp.json


def ask(table: Table, seat: int, count: int | None = None) -> Any:
    body = None if count is None else {"count": count}
    return table.client.post(table.url("/takebacks"), json=body, headers=bearer(table.tokens[seat]))


def answer(table: Table, seat: int | None, takeback_id: str, verb: str) -> Any:
    headers = bearer(table.tokens[seat]) if seat is not None else {}
    return table.client.post(table.url(f"/takebacks/{takeback_id}/{verb}"), headers=headers)


def refusal(resp: Any) -> str:
    """The reason of a 409 ``takeback_refused``."""
    assert resp.status_code == 409 and resp.json["code"] == "takeback_refused", (resp.status_code, resp.json)
    return str(resp.json["details"]["reason"])


def play(table: Table, seat: int, kind: str = "play") -> dict[str, Any]:
    """``seat`` makes its first legal decision of ``kind``."""
    version = table.get(seat).json["version"]
    action = next(a for a in table.legal(seat) if a["type"] == kind)
    resp = table.move(seat, action, version)
    assert resp.status_code == 200, resp.json
    return dict(resp.json)


def event_types(table: Table, after: str = "0-0") -> list[str]:
    resp = table.client.get(table.url(f"/events?after={after}"))
    assert resp.status_code == 200
    return [ev["type"] for ev in resp.json["events"]]


def test_a_takeback_asked_accepted_logged_and_recorded(client: FlaskClient) -> None:
    table = Table(client, seed=7)
    hand = table.get(0).json["view"]["players"][0]["hand"]
    play(table, 0)
    asked = ask(table, 0)
    assert asked.status_code == 201, asked.json
    request = asked.json
    assert request["status"] == "open" and request["waiting_for"] == [1] and request["versions"] == [1]
    assert request["seat"] == 0 and request["count"] == 1 and request["match_version"] == 2
    assert refusal(ask(table, 0)) == "open"  # one open request a match
    assert answer(table, 0, request["id"], "accept").json["code"] == "own_takeback"
    assert answer(table, None, request["id"], "accept").status_code == 401
    assert answer(table, 1, "99", "accept").status_code == 404
    mine, theirs, watching = takebacks(table, 0), takebacks(table, 1), takebacks(table)
    assert mine["open"]["id"] == request["id"] and mine["left"] == 1 and mine["undoable"] == 1
    assert theirs["left"] == 2 and theirs["undoable"] == 0
    assert watching["left"] is None and watching["takebacks"] == mine["takebacks"]

    accepted = answer(table, 1, request["id"], "accept")
    assert accepted.status_code == 200, accepted.json
    assert accepted.json["status"] == "accepted" and accepted.json["match_version"] == 3
    doc = table.get(0).json
    assert doc["to_move"] == 0 and doc["view"]["players"][0]["hand"] == hand  # the card is back
    assert [s["decisions"] for s in doc["seats"]] == [0, 0]
    assert event_types(table, "1-99") == ["takeback_requested", "takeback_accepted", "takeback"]
    assert answer(table, 1, request["id"], "decline").json["details"]["reason"] == "closed"
    log = table.get(0, "/log").json["entries"]
    assert [e.get("takeback") for e in log] == [None, 1] and log[1]["seat"] == 0
    mine = table.get(1, "/record").json  # in play, a seat's own record shows it too
    assert mine["format"] == "tabletop-record/2" and mine["decisions"][0]["taken_back"] is True
    assert mine["takebacks"][0]["decisions"] == [1]

    while (doc := table.get(0).json)["status"] == "active":  # to the end, without more takebacks
        play(table, doc["to_move"])
    full = table.get(0, "/log").json
    assert full["complete"] and [e["version"] for e in full["entries"] if "takeback" in e] == [3]
    record = table.get(None, "/record").json
    assert record["decisions"][0]["taken_back"] is True and "taken_back" not in record["decisions"][1]
    assert [t["seat"] for t in record["takebacks"]] == [0] and record["takebacks"][0]["decisions"] == [1]
    assert record["takebacks"][0]["requested_at"] < record["takebacks"][0]["accepted_at"]
    replay(record, games=GAMES)  # the engine replays it, the taken-back decision as it was made


def test_the_refusals_name_their_reason(client: FlaskClient) -> None:
    table = Table(client, players=3, seed=5)
    assert refusal(ask(table, 0)) == "nothing"  # no decision yet
    assert ask(table, 0, 0).status_code == 422
    play(table, 0)
    play(table, 1)
    assert refusal(ask(table, 0)) == "other_player"  # seat 1 decided since
    assert refusal(ask(table, 1, 2)) == "other_player"  # the first of two is seat 0's
    swap = play(table, 2, "swap")  # R4: the drawn card is shown to its drawer
    assert swap["to_move"] == 2
    refused = ask(table, 2)
    assert refusal(refused) == "reveal" and refused.json["details"]["rule"] == "R4"
    play(table, 2)  # the round's last play turns every card up (R5)
    refused = ask(table, 2)
    assert refusal(refused) == "reveal" and refused.json["details"]["rule"] == "R5"
    refused = ask(table, 2, 2)  # the swap and the play: the first step that reveals is named
    assert refusal(refused) == "reveal" and refused.json["details"]["rule"] == "R4"

    # A request others answer one by one; a decision made meanwhile voids it.
    table = Table(client, players=3, seed=5)
    play(table, 0)
    request = ask(table, 0).json
    partly = answer(table, 1, request["id"], "accept").json
    assert partly["status"] == "open" and partly["accepted_by"] == [1] and partly["waiting_for"] == [2]
    assert answer(table, 1, request["id"], "accept").json["code"] == "already_answered"
    play(table, 1)  # seat 1 decides after all
    assert refusal(answer(table, 2, request["id"], "accept")) == "other_player"
    assert takebacks(table)["takebacks"][0]["status"] == "void"
    # Seat 1 asks in turn; seat 2 declines, then the limit (2 in these tests) stops a third request.
    mine = ask(table, 1).json
    declined = answer(table, 2, mine["id"], "decline").json
    assert declined["status"] == "declined" and declined["declined_by"] == 2
    assert "takeback_declined" in event_types(table)
    assert refusal(answer(table, 0, mine["id"], "accept")) == "closed"
    again = ask(table, 1).json
    assert answer(table, 1, again["id"], "decline").json["status"] == "declined"  # withdrawn
    assert refusal(ask(table, 1)) == "limit"
    assert takebacks(table, 1)["left"] == 0


def test_bots_accept_at_once(client: FlaskClient) -> None:
    table = Table(client, seats=[{"name": "ann"}, {"name": "bot", "kind": "bot", "level": "random"}], seed=7)
    play(table, 0)  # no worker runs here: the bot's turn waits
    done = ask(table, 0)
    assert done.status_code == 201 and done.json["status"] == "accepted", done.json
    assert done.json["accepted_by"] == [1] and done.json["match_version"] == 2
    assert event_types(table, "1-99") == ["takeback_requested", "takeback"]  # one commit
    assert table.get(0).json["to_move"] == 0


class FakeTime:
    def __init__(self) -> None:
        self.t = 2_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def timed(redis_client: redis.Redis, redis_url: str) -> tuple[Matches, FakeTime]:
    clock = FakeTime()
    config = make_config(redis_url, takeback_seconds=60)
    return build(config, store=Store(redis_client), games=GAMES, clock=clock).matches, clock


#: Every decision ends its seat's turn (no R4 swap).
NO_SWAPS = {"swaps": False}


def seated(doc: dict[str, Any]) -> dict[int, Caller]:
    return {t["seat"]: Caller(kind=SEAT, token=t["token"]) for t in doc["tokens"]}


def first_play(matches: Matches, match_id: str) -> None:
    meta, state = matches.meta_and_state(match_id)
    assert meta.to_move is not None
    action = next(a for a in matches.game(meta.game).legal_actions(state) if a["type"] == "play")
    matches.seat_move(meta, state, meta.to_move, action)


def reason_of(call: Any) -> str:
    with pytest.raises(Conflict) as refused:
        call()
    assert refused.value.code == "takeback_refused"
    return str(refused.value.details["reason"])


def test_a_request_expires_with_the_clock_or_after_its_time(timed: tuple[Matches, FakeTime]) -> None:
    matches, clock = timed
    seats = [{"name": "a", "kind": "human"}, {"name": "b", "kind": "human"}]
    doc = matches.create({"game": "high_card", "seats": seats, "options": NO_SWAPS, "seed": 4})
    who = seated(doc)
    first_play(matches, doc["id"])
    request = matches.request_takeback(doc["id"], who[0])
    assert request["expires_at"] == clock.t + 60  # no clock: TABLETOP_TAKEBACK_SECONDS
    clock.t += 61
    assert matches.takebacks_of(doc["id"], who[1])["takebacks"][0]["status"] == "expired"
    assert reason_of(lambda: matches.accept_takeback(doc["id"], request["id"], who[1])) == "closed"
    again = matches.request_takeback(doc["id"], who[0])  # the expired one is closed: a new one may open
    assert again["id"] == "2" and again["status"] == "open"

    control = {"per_move_seconds": 30, "on_timeout": "random", "max_timeouts": 5}
    body = {"game": "high_card", "seats": seats, "options": NO_SWAPS, "seed": 4, "time_control": control}
    doc = matches.create(body)
    who, mid = seated(doc), doc["id"]
    first_play(matches, mid)
    deadline = matches.meta(mid).clock["deadline"]  # type: ignore[index]
    request = matches.request_takeback(mid, who[0])
    assert request["expires_at"] == deadline  # the pending decision's: seat 1's
    clock.t = deadline + 0.5
    assert jobs.time_out(matches, mid, at=clock.t) == jobs.MOVED  # a bot decides for seat 1
    assert reason_of(lambda: matches.accept_takeback(mid, request["id"], who[1])) == "other_player"
    # Seat 1's decision (the round's last: seat 1 opens round 2, R3) was the timeout bot's, a
    # stand-in's: its player may not take it back.
    meta = matches.meta(mid)
    assert meta.to_move == 1 and meta.stand_in == [0, 1]
    assert reason_of(lambda: matches.request_takeback(mid, who[1])) == "nothing"
    # The clock after an accepted takeback: the requester decides again, from now.
    first_play(matches, mid)
    clock.t += 5
    request = matches.request_takeback(mid, who[1])
    clock.t += 7
    done = matches.accept_takeback(mid, request["id"], who[0])
    meta = matches.meta(mid)
    assert done["status"] == "accepted" and meta.to_move == 1 and meta.decisions == [1, 1]
    assert meta.clock is not None and meta.clock["deadline"] == clock.t + 30


def test_players_feeds_webhooks_and_exports_carry_takebacks(client: FlaskClient) -> None:
    backend = Backend(client)
    endpoint = client.post(
        "/v1/apps/me/webhooks",
        json={"url": "http://127.0.0.1:9/hook", "types": ["takeback_requested", "takeback_accepted"]},
        headers=bearer(backend.key),
    )
    assert endpoint.status_code == 201, endpoint.json
    match = backend.match()
    mid = match["id"]

    def feed(pid: str) -> list[dict[str, Any]]:
        resp = client.get("/v1/me/events", headers=backend.as_(pid))
        assert resp.status_code == 200, resp.json
        return [e for e in resp.json["events"] if e["type"].startswith("takeback")]

    def move(pid: str) -> None:
        doc = client.get(f"/v1/matches/{mid}", headers=backend.as_(pid)).json
        action = next(
            a
            for a in client.get(f"/v1/matches/{mid}/legal-actions", headers=backend.as_(pid)).json["actions"]
            if a["type"] == "play"
        )
        resp = client.post(
            f"/v1/matches/{mid}/actions",
            json={"action": action},
            headers={**backend.as_(pid), "If-Match": f'"{doc["version"]}"'},
        )
        assert resp.status_code == 200, resp.json

    def match_doc() -> dict[str, Any]:  # a private match (an app's): its key reads it
        resp = client.get(f"/v1/matches/{mid}", headers=bearer(backend.key))
        assert resp.status_code == 200, resp.json
        return dict(resp.json)

    first = "ann" if match_doc()["to_move"] == 0 else "bob"
    other = "bob" if first == "ann" else "ann"
    move(first)
    asked = client.post(f"/v1/matches/{mid}/takebacks", headers=backend.as_(first))
    assert asked.status_code == 201, asked.json
    entry = feed(other)[-1]
    assert entry["type"] == "takeback_requested" and entry["takeback_id"] == asked.json["id"]
    assert entry["requested_by"] == asked.json["seat"] and entry["expires_at"] == asked.json["expires_at"]
    url = f"/v1/matches/{mid}/takebacks/{asked.json['id']}"
    accepted = client.post(f"{url}/accept", headers=backend.as_(other))
    assert accepted.status_code == 200, accepted.json
    done = feed(first)[-1]
    assert done["type"] == "takeback_accepted" and done["my_turn"] is True and done["count"] == 1
    deliveries = client.get(
        f"/v1/apps/me/webhooks/{endpoint.json['id']}/deliveries", headers=bearer(backend.key)
    ).json["deliveries"]
    assert sorted(d["type"] for d in deliveries) == ["takeback_accepted"] * 2 + ["takeback_requested"] * 2

    while (doc := match_doc())["status"] == "active":
        move("ann" if doc["to_move"] == 0 else "bob")
    export = client.get("/v1/apps/me/records", headers=bearer(backend.key))
    assert export.status_code == 200
    (line,) = [json.loads(x) for x in export.data.splitlines() if x.strip()]
    assert line["takebacks"][0]["decisions"] == [1] and line["decisions"][0]["taken_back"] is True
