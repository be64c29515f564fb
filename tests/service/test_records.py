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
import time
import zlib
from dataclasses import replace
from typing import Any

import jsonschema
import pytest
from flask import Flask
from flask.testing import FlaskClient

from engine.record_schema import RECORD_SCHEMA
from engine.records import FULL, SEAT, SPECTATOR, replay
from service.domain.records.building import SERVICE_EVENT_TYPES, build
from service.domain.records.keeping import builder_id
from service.encoding import dumps_bytes
from service.http.app import create_app
from service.http.schemas.records import RecordSchema
from service.storage.matches import match_key
from service.storage.records import RecordStore
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
    assert_kept_records_are_fresh_builds(table.client, table.id, None, players, {})


# -- kept records (docs/records.md#export-speed) ----------------------------------------------------------


def fresh(flask_app: Flask, match_id: str, perspective: str, seat: int | None, viewer: str | None) -> bytes:
    """The record as ``GET /record`` answered it before records were kept: built now from the match's
    parts, dumped by the spec's schema, written by the app's JSON provider."""
    parts = RecordStore(flask_app.extensions["tabletop"].matches.store.redis).load_many(
        [match_id], SERVICE_EVENT_TYPES
    )[0]
    assert parts is not None and parts.kept is None
    record = build(TEST_GAMES[parts.meta.game], parts, perspective, seat, viewer=viewer)
    with flask_app.app_context():
        return bytes(flask_app.json.response(RecordSchema().dump(record)).get_data())


def assert_kept_records_are_fresh_builds(
    client: FlaskClient, match_id: str, viewer: str | None, players: int, headers: dict[str, str]
) -> None:
    """Every perspective of the finished match reads byte for byte as a fresh build: with its full record
    kept (as the outbox keeps it when the match finishes), built again at a read and kept again, and
    (a tampered kept record) proven to be what the reads serve."""
    redis_client = client.application.extensions["tabletop"].matches.store.redis
    kept_key = match_key(match_id, "record")
    assert redis_client.exists(kept_key), "the commit that finished the match kept its record"
    queries: list[tuple[str, int | None]] = [(FULL, None), (SPECTATOR, None)]
    queries += [(SEAT, s) for s in range(players)]
    expected = {q: fresh(client.application, match_id, *q, viewer) for q in queries}

    def read(perspective: str, seat: int | None) -> bytes:
        query = {"as": perspective, **({"seat": seat} if seat is not None else {})}
        resp = client.get(f"/v1/matches/{match_id}/record", headers=headers, query_string=query)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        assert resp.mimetype == "application/json"
        return bytes(resp.get_data())

    for rounds in ("kept", "built again", "kept again"):
        for q in queries:
            if rounds == "built again":
                redis_client.delete(kept_key)
            assert read(*q) == expected[q], (rounds, q)
            assert redis_client.exists(kept_key), (rounds, q)
    # What the reads serve is the kept record: changed in place (same stamp), every perspective shows it.
    stamp, body = redis_client.hmget(kept_key, ["stamp", "body"])
    marked = json.loads(zlib.decompress(body))
    marked["header"]["title"] = "kept"
    redis_client.hset(kept_key, "body", zlib.compress(dumps_bytes(marked)))
    assert json.loads(read(FULL, None))["header"]["title"] == "kept"
    assert json.loads(read(SEAT, 0))["header"]["title"] == "kept"
    # ... until the match changes: then it is built again (never the stale one served) and kept again.
    redis_client.hset(match_key(match_id, "meta"), "x-test", "1")
    assert json.loads(read(FULL, None))["header"]["title"] != "kept"
    assert redis_client.hget(kept_key, "stamp") != stamp
    redis_client.hdel(match_key(match_id, "meta"), "x-test")


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
        "cursor=%C2%B2",  # "²": a digit to str.isdigit, not to int (a 500 found by the contract fuzzer)
        "cursor=%D9%A3",  # "٣": a digit int reads as 3, never a cursor an export gave
        "rated=maybe",
        "since=2030-01-01&until=2020-01-01",
    ):
        resp = client.get(f"/v1/apps/me/records?{bad}", headers=bearer(alpha.key))
        assert resp.status_code == 422, (bad, resp.get_data(as_text=True))
    assert client.get("/v1/me/records?cursor=abc", headers=alpha.as_("ann")).status_code == 422
    assert client.get("/v1/me/records?cursor=%C2%B2", headers=alpha.as_("ann")).status_code == 422
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
    assert 0 < redis_client.ttl(f"tt:{{m:{match['id']}}}:record") <= retention  # kept as it finished
    for part in ("meta", "state", "events", "log", "outbox"):  # what the retention's expiry does
        redis_client.delete(f"tt:{{m:{match['id']}}}:{part}")
    assert lines(client.get("/v1/apps/me/records", headers=bearer(alpha.key))) == []
    assert redis_client.zcard(index) == 0  # the export met the gone match's name and dropped it
    assert client.get(f"/v1/matches/{match['id']}/record", headers=bearer(alpha.key)).status_code == 404


def export_lines(client: FlaskClient, key: str) -> list[bytes]:
    resp = client.get("/v1/apps/me/records", headers=bearer(key))
    assert resp.status_code == 200
    return resp.get_data().splitlines()


def test_an_export_writes_kept_records_byte_for_byte_as_fresh_builds(client):
    """The export's lines are the full records as built now, kept (at the finish) or not (built at the
    read, and kept then); a match changed since its record was kept is built again."""
    alpha = Backend(client, "alpha")
    app_id = client.get("/v1/apps/me", headers=bearer(alpha.key)).json["id"]
    ids = []
    for game in ("year_of_dragon", "high_card"):
        match = alpha.match(game=game, visibility="public")
        play_out(client, match["id"], alpha)
        ids.append(match["id"])
    redis_client = client.application.extensions["tabletop"].matches.store.redis
    expected = [fresh(client.application, mid, FULL, None, app_id).rstrip(b"\n") for mid in ids]
    assert all(redis_client.exists(match_key(mid, "record")) for mid in ids)
    assert export_lines(client, alpha.key) == expected
    redis_client.delete(match_key(ids[0], "record"))
    assert export_lines(client, alpha.key) == expected  # the first built at the read ...
    assert redis_client.exists(match_key(ids[0], "record"))  # ... and kept for the next
    assert export_lines(client, alpha.key) == expected
    # A player's export and the match's own record read the same bytes.
    assert client.get("/v1/me/records", headers=alpha.as_("ann")).get_data().splitlines() == expected[::-1]
    assert_kept_records_are_fresh_builds(client, ids[0], app_id, 2, bearer(alpha.key))
    # A caller of no app reads its own build, never the app's kept record.
    anonymous = client.get(f"/v1/matches/{ids[1]}/record")
    assert anonymous.get_data() == fresh(client.application, ids[1], FULL, None, None)
    assert b'"player":"ann"' not in anonymous.get_data() and b'"player":"ann"' in expected[1]


def test_a_record_is_kept_only_for_the_match_as_it_was_read(client):
    """The keep is a compare-and-set on what the record was built from: a record built from a read
    before the match changed (or by another builder) is never written, nor served."""
    alpha = Backend(client, "alpha")
    match = alpha.match()
    play_out(client, match["id"], alpha)
    redis_client = client.application.extensions["tabletop"].matches.store.redis
    store, build_id = RecordStore(redis_client), builder_id(TEST_GAMES)
    redis_client.delete(match_key(match["id"], "record"))
    read = store.load_many([match["id"]], SERVICE_EVENT_TYPES, build_id)[0]
    assert read is not None and read.kept is None and read.stamp
    redis_client.hset(match_key(match["id"], "meta"), "x-test", "1")  # the match changes meanwhile
    assert store.keep(build_id, [(match["id"], read.stamp, b"{}")]) == 0
    assert not redis_client.exists(match_key(match["id"], "record"))
    again = store.load_many([match["id"]], SERVICE_EVENT_TYPES, build_id)[0]
    assert again is not None and again.stamp != read.stamp
    assert store.keep(build_id, [(match["id"], again.stamp, b"{}")]) == 1
    assert store.load_many([match["id"]], SERVICE_EVENT_TYPES, build_id)[0].kept == b"{}"
    assert store.load_many([match["id"]], SERVICE_EVENT_TYPES, "another builder")[0].kept is None
    assert store.load_many([match["id"]], SERVICE_EVENT_TYPES)[0].kept is None  # no builder: the parts


def test_kept_records_expire_with_their_matches(client):
    """A kept record's time to live is its match's (``TABLETOP_RETENTION_SECONDS``): both go together."""
    config = replace(client.application.extensions["tabletop"].config, retention_seconds=1)
    client = create_app(config, games=TEST_GAMES).test_client()
    redis_client = client.application.extensions["tabletop"].matches.store.redis
    alpha = Backend(client, "alpha")
    match = alpha.match()
    play_out(client, match["id"], alpha)
    meta, kept = match_key(match["id"], "meta"), match_key(match["id"], "record")
    assert redis_client.exists(kept)
    assert 0 < redis_client.pttl(kept) <= 1000 and abs(redis_client.pttl(kept) - redis_client.pttl(meta)) <= 5
    deadline = time.monotonic() + 10
    while redis_client.exists(meta) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not redis_client.exists(meta) and not redis_client.exists(kept)
    assert export_lines(client, alpha.key) == []


def test_an_erased_players_name_leaves_the_kept_record_too(client):
    """Erasing a player rewrites their finished matches (a commit): the record kept for each is kept
    again from the rewritten match, so the old name is in no copy (issue 48's erasure, issue 45's keep)."""
    alpha = Backend(client, "alpha")
    assert (
        client.put("/v1/players/ann", json={"name": "Annabel Q"}, headers=bearer(alpha.key)).status_code
        == 200
    )
    match = alpha.match()
    play_out(client, match["id"], alpha)
    redis_client = client.application.extensions["tabletop"].matches.store.redis
    kept = match_key(match["id"], "record")
    assert b"Annabel Q" in zlib.decompress(redis_client.hget(kept, "body"))
    assert client.delete("/v1/players/ann", headers=bearer(alpha.key)).status_code in (200, 202, 204)
    assert b"Annabel Q" not in zlib.decompress(redis_client.hget(kept, "body"))
    record = client.get(f"/v1/matches/{match['id']}/record", headers=bearer(alpha.key))
    assert record.status_code == 200 and b"Annabel Q" not in record.get_data()
