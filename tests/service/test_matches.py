"""POST /v1/matches, GET /v1/matches, GET /v1/matches/{id}, GET .../legal-actions."""

import pytest
from rq import Queue

from service.domain.matches import bots
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config
from tests.service.high_card import GAME as HIGH_CARD


def test_create_returns_201_the_spectator_view_and_each_human_token_once(client):
    t = Table(client, seed=3)
    resp = t.created
    assert resp.headers["Location"] == f"/v1/matches/{t.id}"
    assert resp.headers["ETag"] == '"0"'
    doc = resp.json
    assert doc["version"] == 0 and doc["status"] == "active" and doc["your_seat"] is None
    assert doc["options"] == {"rounds": 3, "swaps": True}  # defaults filled in
    state = HIGH_CARD.setup(2, {}, seed=3)
    assert doc["view"] == HIGH_CARD.view(state, None)
    assert sorted(t.tokens) == [0, 1] and len(set(t.tokens.values())) == 2
    assert all(len(tok) >= 43 for tok in t.tokens.values())  # 256 bits, base64url
    again = client.get(t.url(), headers=bearer(t.tokens[0])).json
    assert "tokens" not in again and t.tokens[0] not in str(again)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game": "nope", "seats": [{"name": "a"}, {"name": "b"}]}, "game"),
        ({"game": "high_card", "seats": [{"name": "a"}]}, "seats"),
        ({"game": "high_card", "seats": [{"name": str(i)} for i in range(5)]}, "seats"),
        (
            {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "options": {"rounds": 9}},
            "options.rounds",
        ),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "options": {"x": 1}}, "options.x"),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "b", "kind": "robot"}]}, "seats.1.kind"),
        ({"game": "high_card", "seats": [{"name": "a", "level": "hard"}, {"name": "b"}]}, "seats.0.level"),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "seed": "1"}, "seed"),
        ({"seats": [{"name": "a"}, {"name": "b"}]}, "game"),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}], "extra": 1}, "extra"),
        # Seat names are shown to everyone: printable text only.
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "b\nadmin: ok"}]}, "seats.1.name"),
        ({"game": "high_card", "seats": [{"name": "\x1b[2J"}, {"name": "b"}]}, "seats.0.name"),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "\ud800"}]}, "seats.1.name"),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "   "}]}, "seats.1.name"),
        ({"game": "high_card", "seats": [{"name": "a"}, {"name": "b\n"}]}, "seats.1.name"),
    ],
)
def test_bad_creation_requests_are_422_naming_the_field(client, body, field):
    resp = client.post("/v1/matches", json=body)
    assert resp.status_code == 422, resp.json
    assert resp.json["details"]["field"] == field
    assert field.split(".")[0] in resp.json["message"]
    assert client.get("/v1/matches").json["matches"] == []


def test_seed_is_refused_unless_the_server_allows_it(redis_client, redis_url):
    app = create_app(make_config(redis_url, allow_seed=False), games=TEST_GAMES)
    body = {"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]}
    client = app.test_client()
    resp = client.post("/v1/matches", json={**body, "seed": 1})
    assert resp.status_code == 422 and resp.json["details"]["field"] == "seed"
    assert client.post("/v1/matches", json=body).status_code == 201


def test_bot_seats_are_stored_and_a_bot_turn_job_is_queued_when_a_bot_is_to_move(client, redis_client):
    queue = Queue(bots.queue_name(bots.THINK_QUEUE, bots.ANONYMOUS), connection=redis_client)  # they think
    seats = [
        {"name": "ann"},
        {"name": "bot", "kind": "bot", "level": "hard", "think_ms": 250},
        {"name": "b2", "kind": "bot"},
    ]
    t = Table(client, seats=seats, seed=1)
    assert sorted(t.tokens) == [0]  # bots get no token
    doc = t.created.json
    none = {"decisions": 0, "stand_in": 0}  # no decision yet (issue 42 point 6)
    hard, normal = {"kind": "bot", "level": "hard"}, {"kind": "bot", "level": "normal"}
    assert doc["seats"][1] == {"seat": 1, "name": "bot", **hard, "think_ms": 250, **none}
    assert doc["seats"][2] == {"seat": 2, "name": "b2", **normal, "think_ms": 500, **none}
    assert queue.job_ids == []  # seat 0 (human) starts round 1
    resp = t.move(0, t.legal(0)[0], 0)
    assert resp.status_code == 200 and resp.json["to_move"] == 1
    assert queue.job_ids == [bots.bot_job_id(t.id, 1)]
    job = queue.fetch_job(bots.bot_job_id(t.id, 1))
    assert job.func_name == bots.PLAY_JOB and job.args == (t.id, 1)
    assert job.timeout == bots.job_timeout(250, make_config("").bot_slice_seconds)


def test_view_depends_on_the_token(client, table):
    state = HIGH_CARD.setup(2, {}, seed=7)
    for seat in (0, 1):
        resp = table.get(seat)
        assert resp.status_code == 200
        assert resp.json["your_seat"] == seat
        assert resp.json["view"] == HIGH_CARD.view(state, seat)
        assert resp.headers["ETag"] == '"0"' and "Authorization" in resp.headers["Vary"]
    assert table.get().json["view"] == HIGH_CARD.view(state, None)


@pytest.mark.parametrize("header", ["Bearer nope", "Basic abc", "Bearer", "token"])
def test_a_bad_token_is_401_not_a_spectator_view(table, header):
    resp = table.client.get(table.url(), headers={"Authorization": header})
    assert resp.status_code == 401 and resp.json["code"] == "unauthorized"
    assert "WWW-Authenticate" in resp.headers


def test_a_token_of_another_match_is_401(client, table):
    other = Table(client)
    resp = client.get(table.url(), headers=bearer(other.tokens[0]))
    assert resp.status_code == 401


def test_if_none_match_gives_304_until_the_version_moves(table):
    assert table.get(0, headers={"If-None-Match": '"0"'}).status_code == 304
    assert table.get(0, headers={"If-None-Match": '"5"'}).status_code == 200
    table.move(0, table.legal(0)[0], 0)
    resp = table.get(0, headers={"If-None-Match": '"0"'})
    assert resp.status_code == 200 and resp.headers["ETag"] == '"1"'


def test_legal_actions_only_for_the_seat_to_move(table):
    state = HIGH_CARD.setup(2, {}, seed=7)
    assert table.legal(0) == HIGH_CARD.legal_actions(state)
    resp = table.get(1, "/legal-actions")
    assert resp.status_code == 403 and resp.json["details"]["to_move"] == 0
    assert table.get(None, "/legal-actions").status_code == 401
    assert table.client.get("/v1/matches/0000/legal-actions").status_code == 404


def test_listing_filters_by_game_and_status_and_pages_with_a_cursor(client):
    tables = [Table(client, seed=i) for i in range(5)]
    finished = Table(client, seed=9, options={"rounds": 1, "swaps": False})
    for seat in (0, 1):
        finished.move(seat, finished.legal(seat)[0], seat)
    assert finished.get().json["status"] == "finished"
    page = client.get("/v1/matches?limit=2").json
    seen = [m["id"] for m in page["matches"]]
    while page["next_cursor"]:
        page = client.get(f"/v1/matches?limit=2&cursor={page['next_cursor']}").json
        seen += [m["id"] for m in page["matches"]]
    assert seen == [finished.id, *reversed([t.id for t in tables])]  # newest first, each once
    active = client.get("/v1/matches?status=active&game=high_card").json["matches"]
    assert [m["id"] for m in active] == list(reversed([t.id for t in tables]))
    done = client.get("/v1/matches?status=finished").json["matches"]
    assert [m["id"] for m in done] == [finished.id]
    assert client.get("/v1/matches?game=other").json == {"matches": [], "next_cursor": None}
    assert client.get("/v1/matches?status=paused").status_code == 422
    assert client.get("/v1/matches?limit=0").status_code == 422


def test_listing_skips_expired_matches(client, redis_client):
    keep, gone = Table(client), Table(client)
    for key in redis_client.scan_iter(match=f"tt:{{m:{gone.id}}}:*"):
        redis_client.delete(key)
    ids = [m["id"] for m in client.get("/v1/matches").json["matches"]]
    assert ids == [keep.id]
    assert all(
        gone.id.encode() not in redis_client.zrange(k, 0, -1)
        for k in redis_client.scan_iter(match="tt:idx:*")
    )
