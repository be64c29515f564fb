"""POST /v1/matches/{id}/actions: versions, idempotency, illegal actions, retention."""

import json
import sys
from typing import Any

import pytest

from tests.service.conftest import Table, bearer
from tests.service.high_card import GAME as HIGH_CARD


def test_a_move_returns_the_new_version_the_movers_view_and_their_events(table):
    action = table.legal(0)[0]
    resp = table.move(0, action, 0)
    assert resp.status_code == 200, resp.json
    state = HIGH_CARD.setup(2, {}, seed=7)
    events = HIGH_CARD.apply(state, action)
    assert resp.headers["ETag"] == '"1"'
    body = resp.json
    assert (body["version"], body["status"], body["to_move"], body["result"]) == (1, "active", 1, None)
    assert body["view"] == HIGH_CARD.view(state, 0)
    assert body["events"] == [{"id": "1-1", "type": "action", "seat": 0, "action": action}]
    assert len(events) == 2  # the other seats' redacted copy exists but is not the mover's
    assert table.get(1).json["version"] == 1


def test_expected_version_in_the_body_works_like_if_match(table):
    resp = table.client.post(
        table.url("/actions"),
        json={"action": table.legal(0)[0], "expected_version": 0},
        headers=bearer(table.tokens[0]),
    )
    assert resp.status_code == 200 and resp.json["version"] == 1


def test_no_version_is_428(table):
    resp = table.move(0, table.legal(0)[0], None)
    assert resp.status_code == 428 and resp.json["code"] == "version_required"
    assert table.get().json["version"] == 0


def test_stale_if_match_is_412_and_stale_body_version_409_both_with_the_current_version(table):
    table.move(0, table.legal(0)[0], 0)
    action = table.legal(1)[0]
    resp = table.move(1, action, 0)
    assert resp.status_code == 412 and resp.json["details"]["current_version"] == 1
    assert resp.headers["ETag"] == '"1"'
    resp = table.client.post(
        table.url("/actions"), json={"action": action, "expected_version": 0}, headers=bearer(table.tokens[1])
    )
    assert resp.status_code == 409 and resp.json["code"] == "stale_version"
    assert table.get().json["version"] == 1


def test_header_and_body_versions_must_agree(table):
    resp = table.client.post(
        table.url("/actions"),
        json={"action": table.legal(0)[0], "expected_version": 3},
        headers={**bearer(table.tokens[0]), "If-Match": '"0"'},
    )
    assert resp.status_code == 422 and resp.json["details"]["field"] == "expected_version"


def test_not_your_decision_is_403(table):
    resp = table.move(1, {"type": "play", "card": 1}, 0)
    assert resp.status_code == 403 and resp.json["code"] == "not_your_decision"


@pytest.mark.parametrize("token", [None, "wrong"])
def test_moves_need_a_seat_token(table, token):
    headers = {"If-Match": '"0"', **(bearer(token) if token else {})}
    resp = table.client.post(table.url("/actions"), json={"action": table.legal(0)[0]}, headers=headers)
    assert resp.status_code == 401


def test_an_illegal_action_is_422_with_the_engines_rule_and_changes_nothing(table):
    """R3: a card not in the hand cannot be played (the engine's rule id reaches the client)."""
    hand = table.get(0).json["view"]["players"][0]["hand"]
    card = next(c for c in range(1, 20) if c not in hand)
    before = table.get(0).json
    resp = table.move(0, {"type": "play", "card": card}, 0)
    assert resp.status_code == 422
    assert resp.json["code"] == "illegal_action" and resp.json["rule"] == "R3"
    assert resp.json["details"]["field"] == "card"
    assert table.get(0).json == before
    assert [e["type"] for e in table.get(0, "/events").json["events"]] == ["match_created"]


@pytest.mark.parametrize(
    ("action", "field"),
    [({"type": "dance"}, "type"), ({"type": "play"}, "card"), ({"type": "play", "card": "3"}, "card")],
)
def test_a_malformed_action_is_422_rule_schema_naming_the_field(table, action, field):
    resp = table.move(0, action, 0)
    assert (
        resp.status_code == 422 and resp.json["rule"] == "schema" and resp.json["details"]["field"] == field
    )


def test_a_malformed_action_is_422_even_with_a_stale_version(table):
    """The shape is checked before the version: reloading would not make a malformed move acceptable."""
    table.move(0, table.legal(0)[0], 0)
    for action, field in [({"type": "dance"}, "type"), ({"type": "play", "card": 0}, "card")]:
        resp = table.move(1, action, 0)
        assert resp.status_code == 422, resp.json
        assert resp.json["rule"] == "schema" and resp.json["details"]["field"] == field
    assert table.move(1, table.legal(1)[0], 0).status_code == 412
    assert table.get().json["version"] == 1


@pytest.mark.parametrize("body", [{}, {"action": "play"}, {"action": {}, "extra": 1}, [], "x"])
def test_a_malformed_body_is_4xx_in_the_error_shape(table, body):
    resp = table.client.post(
        table.url("/actions"), data=json.dumps(body), content_type="application/json",
        headers={**bearer(table.tokens[0]), "If-Match": '"0"'},
    )  # fmt: skip
    assert resp.status_code in (400, 422) and {"code", "message", "details"} <= set(resp.json)


def test_a_body_over_the_limit_is_413(table):
    resp = table.client.post(
        table.url("/actions"),
        json={"action": {"type": "play", "card": 1, "pad": "x" * 70_000}},
        headers={**bearer(table.tokens[0]), "If-Match": '"0"'},
    )
    assert resp.status_code == 413 and resp.json["code"] == "request_entity_too_large"


def test_a_retry_with_the_same_idempotency_key_returns_the_stored_response(table):
    action = table.legal(0)[0]
    first = table.move(0, action, 0, **{"Idempotency-Key": "k-1"})
    second = table.move(0, action, 0, **{"Idempotency-Key": "k-1"})
    assert first.status_code == second.status_code == 200
    assert second.json == first.json
    assert table.get().json["version"] == 1
    assert len(table.get(0, "/log").json["entries"]) == 1


def test_the_same_key_with_another_body_is_422(table):
    legal = table.legal(0)
    table.move(0, legal[0], 0, **{"Idempotency-Key": "k-1"})
    resp = table.move(0, legal[1], 0, **{"Idempotency-Key": "k-1"})
    assert resp.status_code == 422 and resp.json["details"]["field"] == "Idempotency-Key"
    assert table.get().json["version"] == 1


def test_keys_are_scoped_per_seat(table):
    table.move(0, table.legal(0)[0], 0, **{"Idempotency-Key": "same"})
    resp = table.move(1, table.legal(1)[0], 1, **{"Idempotency-Key": "same"})
    assert resp.status_code == 200 and resp.json["version"] == 2


def play_to_end(table):
    while (doc := table.get().json)["status"] == "active":
        seat = doc["to_move"]
        assert table.move(seat, table.legal(seat)[0], doc["version"]).status_code == 200
    return doc


def test_a_finished_match_expires_after_the_retention_and_an_active_one_never(client, redis_client):
    active = Table(client)
    active.move(0, active.legal(0)[0], 0)
    done = Table(client, options={"rounds": 1})
    doc = play_to_end(done)
    counts = {"stand_in": [0, 0], "decisions": [1, 1]}  # one round: one card each (issue 42 point 6)
    assert doc["result"] == {**HIGH_CARD.result(replay(done)), **counts}
    for key in redis_client.scan_iter(match=f"tt:{{m:{active.id}}}:*"):
        assert redis_client.ttl(key) == -1, key
    keys = [k for k in redis_client.scan_iter(match=f"tt:{{m:{done.id}}}:*") if b":idem:" not in k]
    # the match's parts, and its record, built and kept once it finished (service.domain.records.keeping)
    assert {k.rsplit(b":", 1)[1] for k in keys} == {b"meta", b"state", b"events", b"log", b"record"}
    for key in keys:
        assert 0 < redis_client.ttl(key) <= 7 * 24 * 3600
    resp = done.move(0, {"type": "play", "card": 1}, doc["version"])
    assert resp.status_code == 422 and resp.json["rule"] == "game-over"


def replay(table):
    log = table.get(None, "/log").json
    state = HIGH_CARD.setup(log["players"], log["options"], seed=log["seed"])
    for entry in log["entries"]:
        HIGH_CARD.apply(state, entry["action"], seat=entry["seat"])
    return state


@pytest.mark.parametrize("depth", [3000, 20_000])
def test_deeply_nested_json_is_400_not_a_server_error(client, table, depth):
    body = '{"action": ' + "[" * depth + "]" * depth + "}"
    for url in ("/v1/matches", table.url("/actions")):
        resp = client.post(url, data=body, content_type="application/json", headers={"If-Match": '"0"'})
        assert resp.status_code in (400, 413) and resp.json["code"] in (
            "bad_request",
            "request_entity_too_large",
        )


def test_an_integer_too_long_for_python_is_a_422_naming_its_field(table):
    """Python refuses integer literals over sys.get_int_max_str_digits() digits; webargs let that
    ValueError escape as a 500 (found by a crowd probe).  Exactly at the limit it is an ordinary value."""
    limit = sys.get_int_max_str_digits()

    def send(digits: int) -> Any:
        body = '{"action": {"type": "play", "card": [1, {"x": -' + "9" * digits + "}]}}"
        return table.client.post(
            table.url("/actions"), data=body, content_type="application/json", headers={"If-Match": '"0"'}
        )

    past = send(limit + 1)
    assert past.status_code == 422
    assert past.json["details"] == {"location": "json", "field": "action.card.1.x"}
    assert f"{limit + 1} digits" in past.json["message"]
    at_limit = send(limit)  # parsed; refused for what it is (no seat token)
    assert at_limit.status_code == 401 and "digits" not in at_limit.json["message"]
