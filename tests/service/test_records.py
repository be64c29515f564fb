"""Match records over HTTP (issue 45 points 1, 2 and 6): ``GET /v1/matches/{id}/record`` from each
perspective, and the NDJSON exports of a player's, an app's and a tournament's finished matches.

Secrets are checked as the views are (tests/service/test_playthrough.py): while a match is in play,
no record a seat or a spectator reads holds a string another seat's view shows and theirs does not,
nor the seed; once it is over the full record replays through the engine (:func:`engine.records.replay`)
and validates against the committed JSON Schema.
"""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine.record_schema import RECORD_SCHEMA
from engine.records import replay
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one
from tests.service.test_playthrough import Oracle

VALIDATOR = jsonschema.Draft202012Validator(RECORD_SCHEMA)
#: One case a game (its fewest players): every game's secrets and replay, at a modest cost.
CASES = sorted((gid, TEST_GAMES[gid].min_players) for gid in TEST_GAMES)
SEED = 4_242_424_242
#: The versions at which every seat and a spectator read the record in play (each read replays it).
CHECKED = (2, 25, 90)


@pytest.fixture
def app(redis_client: Any, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


def lines(resp: Any) -> list[dict[str, Any]]:
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "application/x-ndjson"
    return [json.loads(line) for line in resp.get_data(as_text=True).splitlines()]


def play_out(client: FlaskClient, match_id: str, backend: Backend) -> None:
    """Play the match of ``backend``'s players ann and bob to its end, each seat by its player's token."""
    while True:
        doc = client.get(f"/v1/matches/{match_id}", headers=bearer(backend.key)).json
        if doc["to_move"] is None:
            assert doc["status"] == "finished"
            return
        player = doc["seats"][doc["to_move"]]["player"]
        assert play_one(client, match_id, backend.as_(player)).status_code == 200


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_records_in_play_hold_no_secret_and_the_full_record_replays(client, game_id, players):
    game = TEST_GAMES[game_id]
    table = Table(client, game=game_id, players=players, seed=SEED)
    shadow = game.setup(players, table.created.json["options"], seed=SEED)
    rng = random.Random(game_id)
    seats = list(range(players))
    version = 0
    while (mover := game.to_move(shadow)) is not None:
        action = rng.choice(game.legal_actions(shadow))
        assert table.move(mover, json.loads(json.dumps(action)), version).status_code == 200
        game.apply(shadow, action, seat=mover)
        version += 1
        if version not in CHECKED or game.to_move(shadow) is None:
            continue
        oracle = Oracle(game, shadow, seats)
        for reader in [None, *seats]:
            resp = table.get(reader, "/record", query_string={"include": "views"})
            assert resp.status_code == 200, resp.json
            record, text = resp.json, resp.get_data(as_text=True)
            assert record["perspective"] == ("spectator" if reader is None else "seat")
            assert record["seat"] == reader and record["setup"] is None
            assert len(record["decisions"]) == version
            assert record["decisions"][-1]["view"] == oracle.views[reader]
            oracle.check(reader, record["decisions"][-1]["view"], [text])
            assert str(SEED) not in text, "the seed leaked during play"
            VALIDATOR.validate(record)
        # A seat may read as a spectator, never as another seat or the full record while in play.
        assert table.get(0, "/record", query_string={"as": "spectator"}).json["perspective"] == "spectator"
        assert table.get(None, "/record", query_string={"as": "full"}).status_code == 403
        if players > 1:
            other = table.get(0, "/record", query_string={"as": "seat", "seat": 1})
            assert other.status_code == 403 and other.json["code"] == "record_in_play"
    full = table.get(None, "/record", query_string={"include": "views"}).json
    assert full["perspective"] == "full" and full["setup"] == {"seed": SEED}
    VALIDATOR.validate(full)
    replayed = replay(full, TEST_GAMES)
    assert replayed.decisions == version and replayed.same_rules
    assert all(d["at"].endswith("Z") for d in full["decisions"])
    seat_view = table.get(None, "/record", query_string={"as": "seat", "seat": players - 1}).json
    assert seat_view["perspective"] == "seat" and seat_view["setup"] is None
    VALIDATOR.validate(seat_view)


def test_bad_record_queries_are_422_naming_the_field(table):
    assert table.get(None, "/record", query_string={"as": "everyone"}).status_code == 422
    resp = table.get(None, "/record", query_string={"as": "seat"})
    assert resp.status_code == 422 and "seat" in resp.get_data(as_text=True)
    resp = table.get(0, "/record", query_string={"as": "seat", "seat": 9})
    assert resp.status_code == 422 and "seat" in resp.get_data(as_text=True)
    assert table.client.get("/v1/matches/nope/record").status_code == 404


def test_a_decision_keeps_its_time_and_the_clock_after_it(client):
    table = Table(client, seed=5, time_control={"per_move_seconds": 60})
    doc = table.get(0).json
    mover = doc["to_move"]
    assert table.move(mover, table.legal(mover)[0], doc["version"]).status_code == 200
    decision = table.get(mover, "/record").json["decisions"][0]
    assert decision["at"].endswith("Z") and decision["clock"]["per_move_seconds"] == 60
    assert table.get(mover, "/record").json["header"]["time_control"]["per_move_seconds"] == 60


def test_exports_stream_an_apps_a_players_and_a_tournaments_records_by_cursor(client):
    alpha, beta = Backend(client, "alpha"), Backend(client, "beta")
    ids = []
    for i in range(5):
        rated = i % 2 == 0
        match = alpha.match(rated=rated) if rated else alpha.match()
        play_out(client, match["id"], alpha)
        ids.append(match["id"])
    waiting = alpha.match()["id"]  # not finished: never exported
    beta_match = beta.match()
    play_out(client, beta_match["id"], beta)

    app_records = lines(client.get("/v1/apps/me/records", headers=bearer(alpha.key)))
    assert [r["header"]["match_id"] for r in app_records] == ids  # in the order they finished
    assert all(r["perspective"] == "full" and r["setup"] is not None for r in app_records)
    assert {s["player"] for s in app_records[0]["header"]["seats"]} == {"ann", "bob"}
    for record in app_records:
        VALIDATOR.validate(record)
        replay(record, TEST_GAMES)
    # By cursor, two a call: the same records, each once.
    seen, cursor = [], None
    while True:
        query = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        page = lines(client.get("/v1/apps/me/records", headers=bearer(alpha.key), query_string=query))
        if page and page[-1].get("type") == "cursor":
            cursor = page.pop()["cursor"]
            seen += [r["header"]["match_id"] for r in page]
            continue
        seen += [r["header"]["match_id"] for r in page]
        break
    assert seen == ids
    rated = lines(client.get("/v1/apps/me/records?rated=true", headers=bearer(alpha.key)))
    assert [r["header"]["match_id"] for r in rated] == ids[0::2]
    assert lines(client.get("/v1/apps/me/records?game=china", headers=bearer(alpha.key))) == []
    assert lines(client.get("/v1/apps/me/records?since=2999-01-01", headers=bearer(alpha.key))) == []
    assert (
        len(lines(client.get("/v1/apps/me/records?until=2999-01-01T00:00:00Z", headers=bearer(alpha.key))))
        == 5
    )
    # A player's: newest first; the app key names the player.
    mine = lines(client.get("/v1/me/records", headers=alpha.as_("ann")))
    assert [r["header"]["match_id"] for r in mine] == ids[::-1]
    named = lines(client.get("/v1/me/records?player=bob&limit=1", headers=bearer(alpha.key)))
    assert named[0]["header"]["match_id"] == ids[-1] and named[1]["type"] == "cursor"
    rest = lines(
        client.get(f"/v1/me/records?player=bob&cursor={named[1]['cursor']}", headers=bearer(alpha.key))
    )
    assert [r["header"]["match_id"] for r in rest] == ids[-2::-1]
    # Another app's matches are not there, and its key reads none of these.
    beta_ids = [
        r["header"]["match_id"] for r in lines(client.get("/v1/apps/me/records", headers=bearer(beta.key)))
    ]
    assert beta_ids == [beta_match["id"]] and waiting not in beta_ids
    assert (
        lines(client.get("/v1/me/records", headers=beta.as_("ann")))[0]["header"]["match_id"]
        == beta_match["id"]
    )


def test_a_tournaments_records_and_bad_exports(client):
    alpha, beta = Backend(client, "alpha"), Backend(client, "beta")
    cup = client.post(
        "/v1/tournaments",
        json={"game": "high_card", "players": 2, "entrants": [{"player": "ann"}, {"player": "bob"}]},
        headers=bearer(alpha.key),
    )
    assert cup.status_code == 201, cup.json
    tid = cup.json["id"]
    scheduler = client.application.extensions["tabletop"].tournament_scheduler
    scheduler.sweep(scheduler.now())  # as the workers' clock keeper does: it makes the matches
    match_ids = [
        m["match_id"] for m in client.get(f"/v1/tournaments/{tid}", headers=bearer(alpha.key)).json["matches"]
    ]
    for mid in match_ids:
        play_out(client, mid, alpha)
    other = alpha.match()
    play_out(client, other["id"], alpha)
    records = lines(client.get(f"/v1/tournaments/{tid}/records", headers=alpha.as_("ann")))
    assert sorted(r["header"]["match_id"] for r in records) == sorted(match_ids)
    assert all(r["header"]["tournament"] == tid for r in records)
    assert client.get(f"/v1/tournaments/{tid}/records", headers=bearer(beta.key)).status_code == 404
    assert client.get("/v1/tournaments/nope/records", headers=bearer(alpha.key)).status_code == 404
    for bad in (
        "since=yesterday",
        "until=12-12",
        "limit=0",
        "cursor=x",
        "rated=maybe",
        "since=2030-01-01&until=2020-01-01",
    ):
        resp = client.get(f"/v1/apps/me/records?{bad}", headers=bearer(alpha.key))
        assert resp.status_code == 422, (bad, resp.get_data(as_text=True))
    assert client.get("/v1/me/records?cursor=abc", headers=alpha.as_("ann")).status_code == 422
    assert client.get("/v1/me/records", headers=bearer(alpha.key)).status_code == 422  # which player?
    assert client.get("/v1/apps/me/records").status_code == 401


def test_the_record_schema_is_served(client):
    resp = client.get("/record.schema.json")
    assert resp.status_code == 200 and resp.json == RECORD_SCHEMA


def test_records_expire_with_their_matches(client, redis_client):
    alpha = Backend(client, "alpha")
    match = alpha.match()
    play_out(client, match["id"], alpha)
    retention = client.application.extensions["tabletop"].config.retention_seconds
    index = f"tt:done:{client.get('/v1/apps/me', headers=bearer(alpha.key)).json['id']}"
    assert 0 < redis_client.ttl(index) <= retention  # the index goes with the last match it names
    assert 0 < redis_client.ttl(f"tt:{{m:{match['id']}}}:log") <= retention
    for part in ("meta", "state", "events", "log", "outbox"):  # what the retention's expiry does
        redis_client.delete(f"tt:{{m:{match['id']}}}:{part}")
    assert lines(client.get("/v1/apps/me/records", headers=bearer(alpha.key))) == []
    assert redis_client.zcard(index) == 0  # the export met the gone match's name and dropped it
    assert client.get(f"/v1/matches/{match['id']}/record", headers=bearer(alpha.key)).status_code == 404
