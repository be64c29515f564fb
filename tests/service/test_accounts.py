"""Apps, players and player tokens (issue 25 points 1-4, 6 and 8): identities that outlive a match.

Against a real Redis, through the HTTP API as an integrator calls it: the operator registers apps
with the admin token, an app names its players and mints their tokens, matches seat players, and a
player token acts for its seat everywhere.  The feed's delivery is tested in test_feed_live.py and
tests/workers; here only which entries a commit writes."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config

ADMIN = "admin-secret-for-tests"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


def new_app(client: FlaskClient, name: str = "backend") -> dict[str, Any]:
    resp = client.post("/v1/admin/apps", json={"name": name}, headers=bearer(ADMIN))
    assert resp.status_code == 201, resp.json
    return resp.json


def put_player(client: FlaskClient, key: str, pid: str, name: str | None = None, **body: Any) -> Any:
    return client.put(f"/v1/players/{pid}", json={"name": name or pid.title(), **body}, headers=bearer(key))


def token_for(client: FlaskClient, key: str, pid: str, **body: Any) -> str:
    resp = client.post(f"/v1/players/{pid}/tokens", json=body, headers=bearer(key))
    assert resp.status_code == 201, resp.json
    return str(resp.json["token"])


class Backend:
    """An app with two players, ann and bob, and a token each."""

    def __init__(self, client: FlaskClient, name: str = "backend") -> None:
        self.client = client
        self.app = new_app(client, name)
        self.key = self.app["key"]
        for pid in ("ann", "bob"):
            assert put_player(client, self.key, pid).status_code == 201
        self.tokens = {pid: token_for(client, self.key, pid) for pid in ("ann", "bob")}

    def match(self, **body: Any) -> dict[str, Any]:
        seats = body.pop("seats", [{"player": "ann"}, {"player": "bob"}])
        resp = self.client.post(
            "/v1/matches",
            json={"game": "high_card", "seats": seats, "seed": 3, **body},
            headers=bearer(self.key),
        )
        assert resp.status_code == 201, resp.json
        return resp.json

    def as_(self, pid: str) -> dict[str, str]:
        return bearer(self.tokens[pid])


@pytest.fixture
def backend(client: FlaskClient) -> Backend:
    return Backend(client)


def play_one(client: FlaskClient, match_id: str, headers: dict[str, str]) -> Any:
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=headers)
    assert legal.status_code == 200, legal.json
    return client.post(
        f"/v1/matches/{match_id}/actions",
        json={"action": legal.json["actions"][0]},
        headers={**headers, "If-Match": f'"{legal.json["version"]}"'},
    )


# -- apps: the operator's ---------------------------------------------------------------------------------


def test_an_app_key_is_shown_once_stored_hashed_and_rotates_and_revokes(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    created = new_app(client)
    key = created["key"]
    assert key.startswith(f"ta.{created['id']}.")
    listed = client.get("/v1/admin/apps", headers=bearer(ADMIN)).json["apps"]
    assert [a["id"] for a in listed] == [created["id"]] and "key" not in listed[0]
    dump = b"".join(
        v
        for k in redis_client.keys("*")
        if redis_client.type(k) == b"hash"
        for v in redis_client.hgetall(k).values()
    )
    assert key.encode() not in dump  # only its hash is kept
    assert put_player(client, key, "ann").status_code == 201
    rotated = client.post(f"/v1/admin/apps/{created['id']}/rotate", headers=bearer(ADMIN))
    assert rotated.status_code == 200 and rotated.json["key"] != key
    old = put_player(client, key, "bob")
    assert old.status_code == 401 and old.json["code"] == "unauthorized"
    assert put_player(client, rotated.json["key"], "bob").status_code == 201
    token = token_for(client, rotated.json["key"], "bob")
    assert client.get("/v1/me", headers=bearer(token)).json["id"] == "bob"
    revoked = client.delete(f"/v1/admin/apps/{created['id']}", headers=bearer(ADMIN))
    assert revoked.status_code == 200 and revoked.json["status"] == "revoked"
    assert put_player(client, rotated.json["key"], "cy").status_code == 401
    assert client.get("/v1/me", headers=bearer(token)).status_code == 401  # its players' tokens too


def test_the_admin_api_needs_the_admin_token_and_is_off_without_one(
    client: FlaskClient, redis_url: str
) -> None:
    assert client.post("/v1/admin/apps", json={"name": "x"}).status_code == 401
    wrong = client.post("/v1/admin/apps", json={"name": "x"}, headers=bearer("not-the-admin"))
    assert wrong.status_code == 401
    app_key = new_app(client)["key"]
    assert client.get("/v1/admin/apps", headers=bearer(app_key)).status_code == 401  # an app is no admin
    off = create_app(make_config(redis_url), games=TEST_GAMES).test_client()
    refused = off.post("/v1/admin/apps", json={"name": "x"}, headers=bearer(ADMIN))
    assert refused.status_code == 404 and refused.json["code"] == "admin_disabled"


# -- players and tokens -------------------------------------------------------------------------------


def test_putting_a_player_is_idempotent_and_validated(client: FlaskClient) -> None:
    key = new_app(client)["key"]
    first = put_player(client, key, "u-1@x", "Ann", bot=True)
    assert first.status_code == 201 and first.json["bot"] is True and first.json["name"] == "Ann"
    again = put_player(client, key, "u-1@x", "Ann B.")
    assert again.status_code == 200 and again.json["name"] == "Ann B." and again.json["bot"] is False
    assert again.json["created_at"] == first.json["created_at"]
    assert put_player(client, key, "bad id!").status_code in (404, 422)
    assert put_player(client, key, "x", "\u202e").status_code == 422
    listed = client.get("/v1/players?limit=1", headers=bearer(key)).json
    assert [p["id"] for p in listed["players"]] == ["u-1@x"] and listed["next_cursor"] is None
    assert put_player(client, "not-a-key", "x").status_code == 401  # a seat token is no app key


def test_player_tokens_expire_have_scopes_and_are_revoked(client: FlaskClient, backend: Backend) -> None:
    key, c = backend.key, client
    read_only = token_for(c, key, "ann", scopes=["read"])
    match = backend.match()
    mid = match["id"]
    assert c.get(f"/v1/matches/{mid}", headers=bearer(read_only)).json["your_seat"] == 0
    refused = play_one(c, mid, bearer(read_only))
    assert refused.status_code == 403 and refused.json["code"] == "insufficient_scope"
    listed = c.get("/v1/players/ann/tokens", headers=bearer(key)).json["tokens"]
    assert len(listed) == 2 and all("token" not in t and "hash" not in t for t in listed)
    ro = next(t for t in listed if t["scopes"] == ["read"])
    assert c.delete(f"/v1/players/ann/tokens/{ro['id']}", headers=bearer(key)).status_code == 204
    assert c.get(f"/v1/matches/{mid}", headers=bearer(read_only)).status_code == 401
    assert c.delete("/v1/players/ann/tokens", headers=bearer(key)).json == {"revoked": 1}
    assert c.get("/v1/me", headers=backend.as_("ann")).status_code == 401
    short = token_for(c, key, "bob", expires_in=1)
    assert c.get("/v1/me", headers=bearer(short)).status_code == 200
    svc = c.application.extensions["tabletop"]
    svc.accounts.now = lambda: 10**12  # a token past its expiry is refused, whatever Redis holds
    assert c.get("/v1/me", headers=bearer(short)).status_code == 401
    bad = c.post("/v1/players/bob/tokens", json={"scopes": ["admin"]}, headers=bearer(key))
    assert bad.status_code == 422


# -- seats bound to players --------------------------------------------------------------------------


def test_a_player_token_acts_for_its_seat_on_every_match_endpoint(
    client: FlaskClient, backend: Backend
) -> None:
    match = backend.match(visibility="public")
    mid, c = match["id"], client
    assert match["tokens"] == []  # seats of players get no seat tokens
    assert [s["name"] for s in match["seats"]] == ["Ann", "Bob"]
    for pid, seat in (("ann", 0), ("bob", 1)):
        assert c.get(f"/v1/matches/{mid}", headers=backend.as_(pid)).json["your_seat"] == seat
    doc = c.get(f"/v1/matches/{mid}").json
    mover = "ann" if doc["to_move"] == 0 else "bob"
    other = "bob" if mover == "ann" else "ann"
    refused = c.get(f"/v1/matches/{mid}/legal-actions", headers=backend.as_(other))
    assert refused.status_code == 403 and refused.json["code"] == "not_your_decision"
    hint = c.post(f"/v1/matches/{mid}/hint", json={"level": "random"}, headers=backend.as_(mover))
    assert hint.status_code == 202, hint.json
    assert c.get(f"/v1/jobs/{hint.json['id']}", headers=backend.as_(mover)).status_code in (200, 202)
    assert c.get(f"/v1/jobs/{hint.json['id']}", headers=backend.as_(other)).status_code == 404
    moved = play_one(c, mid, backend.as_(mover))
    assert moved.status_code == 200, moved.json
    events = c.get(f"/v1/matches/{mid}/events", headers=backend.as_(other))
    assert events.status_code == 200 and events.json["events"]
    assert c.get(f"/v1/matches/{mid}/log", headers=backend.as_(other)).status_code == 200
    resigned = c.post(f"/v1/matches/{mid}/resign", headers=backend.as_(other))
    assert resigned.status_code == 200 and resigned.json["resigned"] == [1 if other == "bob" else 0]


def test_a_player_joins_an_open_seat_kept_for_it_and_a_rematch_keeps_players(
    client: FlaskClient, backend: Backend
) -> None:
    c = client
    match = backend.match(seats=[{"player": "ann"}, {"kind": "open", "player": "bob"}])
    mid = match["id"]
    assert match["status"] == "waiting" and match["invites"] == []
    stranger = c.post(f"/v1/matches/{mid}/join", json={"name": "eve"})
    assert stranger.status_code in (403, 409)
    joined = c.post(f"/v1/matches/{mid}/join", json={}, headers=backend.as_("bob"))
    assert joined.status_code == 200, joined.json
    assert joined.json["token"] is None and joined.json["seat"] == 1
    assert joined.json["match"]["status"] == "active" and joined.json["match"]["seats"][1]["name"] == "Bob"
    again = c.post(f"/v1/matches/{mid}/join", json={}, headers=backend.as_("bob"))
    assert again.status_code == 409
    while (doc := c.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json)["status"] == "active":
        mover = "ann" if doc["to_move"] == 0 else "bob"
        assert play_one(c, mid, backend.as_(mover)).status_code == 200
    offer = c.post(f"/v1/matches/{mid}/rematch", headers=backend.as_("bob"))
    assert offer.status_code == 200 and offer.json["token"] is None
    taken = c.post(f"/v1/matches/{mid}/rematch", headers=backend.as_("ann"))
    assert taken.status_code == 200 and taken.json["status"] == "active"
    rematch = c.get(f"/v1/matches/{offer.json['match_id']}", headers=backend.as_("ann")).json
    assert rematch["your_seat"] == taken.json["seat"] and rematch["visibility"] == "private"


def test_naming_players_needs_their_app(client: FlaskClient, backend: Backend) -> None:
    other = Backend(client, "rival")
    seats = [{"player": "ann"}, {"player": "zed"}]
    resp = client.post("/v1/matches", json={"game": "high_card", "seats": seats}, headers=bearer(backend.key))
    assert resp.status_code == 422 and resp.json["details"]["field"] == "seats.1.player"
    anon = client.post("/v1/matches", json={"game": "high_card", "seats": [{"player": "ann"}, {"name": "x"}]})
    assert anon.status_code == 422
    # A player token names only itself; another app's player is unknown to this app.
    mine = client.post(
        "/v1/matches",
        json={"game": "high_card", "seats": [{"player": "ann"}, {"player": "bob"}]},
        headers=backend.as_("ann"),
    )
    assert mine.status_code == 422
    foreign = client.post(
        "/v1/matches",
        json={"game": "high_card", "seats": [{"player": "ann"}, {"name": "x"}]},
        headers=bearer(other.key),
    )
    assert foreign.status_code == 201  # its own ann: same id, another app, another player
    assert foreign.json["seats"][0]["name"] == "Ann"


# -- visibility ------------------------------------------------------------------------------------------


def test_a_private_match_is_read_only_by_its_players_its_app_and_its_token_holders(
    client: FlaskClient, backend: Backend
) -> None:
    c = client
    match = backend.match(seats=[{"player": "ann"}, {"name": "Guest"}])
    mid = match["id"]
    assert match["visibility"] == "private"  # the default for an app's matches
    guest = match["tokens"][0]["token"]
    rival = Backend(c, "rival")
    for headers in ({}, bearer(rival.key), rival.as_("ann"), backend.as_("bob")):
        for path in ("", "/events", "/log", "/legal-actions"):
            resp = c.get(f"/v1/matches/{mid}{path}", headers=headers)
            assert resp.status_code in (401, 403, 404), (path, resp.status_code)
            assert resp.status_code == 404 or path == "/legal-actions", (path, resp.json)
    for headers in (backend.as_("ann"), bearer(guest), bearer(backend.key)):
        assert c.get(f"/v1/matches/{mid}", headers=headers).status_code == 200
    assert mid not in [m["id"] for m in c.get("/v1/matches").json["matches"]]
    public = backend.match(visibility="public")
    assert c.get(f"/v1/matches/{public['id']}").status_code == 200
    anonymous = c.post("/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]})
    assert anonymous.json["visibility"] == "public"  # anonymous play as before


def test_nothing_of_one_app_is_visible_to_another_apps_key(client: FlaskClient, backend: Backend) -> None:
    c = client
    rival = Backend(c, "rival")
    token_id = c.get("/v1/players/ann/tokens", headers=bearer(backend.key)).json["tokens"][0]["id"]
    probes = [
        ("GET", "/v1/players/ann"),  # rival has its own ann: must be its own
        ("GET", "/v1/players/ann/tokens"),
        ("DELETE", f"/v1/players/ann/tokens/{token_id}"),
        ("GET", "/v1/me/matches?player=ann"),
    ]
    match = backend.match()
    for method, path in probes:
        resp = c.open(path, method=method, headers=bearer(rival.key))
        body = resp.get_json(silent=True) or {}
        assert backend.app["id"] not in str(body) and backend.tokens["ann"] not in str(body)
        assert match["id"] not in str(body)
    # The token was rival's own ann's namesake call: backend's ann still works.
    assert c.get("/v1/me", headers=backend.as_("ann")).status_code == 200
    assert (
        c.get("/v1/players", headers=bearer(rival.key)).json["players"][0]["created_at"]
        != (c.get("/v1/players", headers=bearer(backend.key)).json["players"][0]["created_at"])
    )
    assert c.get("/v1/admin/apps", headers=bearer(rival.key)).status_code == 401
    assert (
        c.get("/v1/me/matches", headers=bearer(rival.key), query_string={"player": "nobody"}).status_code
        == 404
    )


# -- my matches ---------------------------------------------------------------------------------------------


def test_my_matches_lists_seat_turn_deadline_and_result_filtered_and_paged(
    client: FlaskClient, backend: Backend
) -> None:
    c = client
    ids = [backend.match(time_control={"per_move_seconds": 600})["id"] for _ in range(3)]
    waiting = backend.match(seats=[{"player": "ann"}, {"kind": "open"}])["id"]
    mine = c.get("/v1/me/matches", headers=backend.as_("ann")).json
    assert [m["id"] for m in mine["matches"]] == [waiting, *reversed(ids)]
    assert mine["next_cursor"] is None
    first = mine["matches"][1]
    assert first["seat"] == 0 and first["status"] == "active" and first["invited"] is False
    assert first["my_turn"] == (first["to_move"] == 0)
    assert (first["deadline"] is not None) == first["my_turn"]
    turn = c.get("/v1/me/matches?my_turn=true", headers=backend.as_("ann")).json["matches"]
    assert all(m["my_turn"] for m in turn)
    bob_turn = c.get("/v1/me/matches?my_turn=true", headers=backend.as_("bob")).json["matches"]
    assert {m["id"] for m in turn} | {m["id"] for m in bob_turn} == set(ids)
    assert {
        m["id"] for m in c.get("/v1/me/matches?status=waiting", headers=backend.as_("ann")).json["matches"]
    } == {waiting}
    page = c.get("/v1/me/matches?limit=2", headers=backend.as_("ann")).json
    rest = c.get(f"/v1/me/matches?limit=2&cursor={page['next_cursor']}", headers=backend.as_("ann")).json
    assert [m["id"] for m in page["matches"] + rest["matches"]] == [waiting, *reversed(ids)]
    by_app = c.get("/v1/me/matches?player=bob", headers=bearer(backend.key)).json["matches"]
    assert {m["id"] for m in by_app} == set(ids)
    # Played out: the summary carries the result.
    mid = ids[0]
    while (doc := c.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json)["status"] == "active":
        assert play_one(c, mid, backend.as_("ann" if doc["to_move"] == 0 else "bob")).status_code == 200
    done = c.get("/v1/me/matches?status=finished", headers=backend.as_("bob")).json["matches"]
    assert [m["id"] for m in done] == [mid] and done[0]["result"]["winners"] is not None
    assert c.get("/v1/me/matches").status_code == 401


def test_commits_write_the_players_feeds(
    client: FlaskClient, backend: Backend, redis_client: redis.Redis
) -> None:
    """Which entries reach a feed (their delivery as long-poll and streams is test_feed_live.py's)."""
    c = client
    svc = c.application.extensions["tabletop"]
    match = backend.match(seats=[{"player": "ann"}, {"kind": "open", "player": "bob"}])
    mid = match["id"]
    c.post(f"/v1/matches/{mid}/join", json={}, headers=backend.as_("bob"))
    doc = c.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json
    feeds = {
        pid: [e.entry for e in svc.accounts.store.feed_after(f"{backend.app['id']}:{pid}", "0-0")]
        for pid in ("ann", "bob")
    }
    assert [e["type"] for e in feeds["bob"]][:3] == ["invited", "seat_joined", "match_started"]
    mover = "ann" if doc["to_move"] == 0 else "bob"
    assert feeds[mover][-1]["type"] == "your_turn" and feeds[mover][-1]["my_turn"] is True
    assert all(
        e["match_id"] == mid and e["seat"] == (0 if pid == "ann" else 1) for pid in feeds for e in feeds[pid]
    )
    assert redis_client.llen(f"tt:{{m:{mid}}}:outbox") == 0  # drained by the committer
    while (doc := c.get(f"/v1/matches/{mid}", headers=backend.as_("ann")).json)["status"] == "active":
        assert play_one(c, mid, backend.as_("ann" if doc["to_move"] == 0 else "bob")).status_code == 200
    last = svc.accounts.store.feed_after(f"{backend.app['id']}:ann", "0-0")[-1].entry
    assert last["type"] == "match_over" and last["result"] == doc["result"]


def test_anonymous_creation_can_be_turned_off(redis_client: redis.Redis, redis_url: str) -> None:
    c = create_app(make_config(redis_url, anonymous=False, admin_token=ADMIN), games=TEST_GAMES).test_client()
    refused = c.post("/v1/matches", json={"game": "high_card", "seats": [{"name": "a"}, {"name": "b"}]})
    assert refused.status_code == 401 and "TABLETOP_ANONYMOUS" in refused.json["message"]
    backend = Backend(c)
    made = backend.match(seats=[{"player": "ann"}, {"kind": "open"}], visibility="public")
    joined = c.post(f"/v1/matches/{made['id']}/join", json={"name": "walk-in"})
    assert joined.status_code == 200  # joining and seat tokens work either way


def test_passes_read_a_private_match_and_decide_nothing(client: FlaskClient) -> None:
    """The creator's token and an invite code read a private match as a spectator (an invited page
    shows the match before joining); neither acts for a seat, and any other token is refused."""
    body = {"game": "high_card", "seats": [{"name": "a"}, {"kind": "open"}], "visibility": "private"}
    made = client.post("/v1/matches", json=body).json
    mid = made["id"]
    for pass_ in (made["creator_token"], made["invites"][0]["code"]):
        seen = client.get(f"/v1/matches/{mid}", headers=bearer(pass_))
        assert seen.status_code == 200 and seen.json["your_seat"] is None
        assert client.post(f"/v1/matches/{mid}/resign", headers=bearer(pass_)).status_code == 401
    assert client.get(f"/v1/matches/{mid}").status_code == 404
    assert client.get(f"/v1/matches/{mid}", headers=bearer("not-a-pass")).status_code == 401
