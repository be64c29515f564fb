"""Player data (issue 48 points 1 and 2): ``GET /v1/players/{id}/export`` and ``DELETE /v1/players/{id}``
against a player who did everything, over the real Redis through the app.

The player ``zed-erasable`` ("Zelda Erasable") finishes a rated match against ann, is in the middle of
another against bob, has an open seek, a challenge to ann, a tournament entry, webhook deliveries, a
token and an open stream, a push subscription (with pushes queued), chat messages in both channels
(one reported by ann, one muted by bob) and a report of their own.  The export must hold every section
with the right items and no secret; the deletion must end the token and the stream, withdraw the seek
and the challenge, hand the seat in play to a bot (the match goes on), take zed off the leaderboard,
put the placeholder in the finished match and its record, leave ann's history as it was, leave zed's
chat as tombstones and drop their subscription; and afterwards no key and no value in Redis (RQ's
compressed jobs read through) may name zed (by id or name, and so by their chat's words, which name
them) but the app's audit log, which docs/api/privacy.md lists.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import zlib
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service import auth
from service.http.app import create_app
from service.live.credentials import Credential
from service.live.topics import Topic
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, new_app, play_one, put_player
from tests.service.test_push import LOCAL, BrowserKeys

ZED, ZED_NAME = "zed-erasable", "Zelda Erasable"
GAME = "high_card"
#: What zed writes in chat and in a report: their own words, which name them (erasure must drop them).
SAID, SPECTATED, REASON = f"gl all, {ZED_NAME} here", f"{ZED_NAME} watching", f"{ZED_NAME} finds this rude"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(redis_url, admin_token=ADMIN, webhook_allow_http=True, webhook_allow_private=True)
    return create_app(config, games=TEST_GAMES)


def lines(resp: Any) -> list[dict[str, Any]]:
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "application/x-ndjson"
    return [json.loads(line) for line in resp.get_data(as_text=True).splitlines()]


class World:
    """An app whose player zed did everything, beside ann and bob."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        made = new_app(client, "alpha")
        self.app_id, self.key = made["id"], made["key"]
        self.tokens: dict[str, str] = {}
        self.token_ids: dict[str, str] = {}
        for pid, name in ((ZED, ZED_NAME), ("ann", "Ann"), ("bob", "Bob")):
            assert put_player(client, self.key, pid, name).status_code == 201
            minted = client.post(f"/v1/players/{pid}/tokens", json={}, headers=self.as_app())
            assert minted.status_code == 201, minted.json
            self.tokens[pid], self.token_ids[pid] = minted.json["token"], minted.json["id"]
        hook = client.post(
            "/v1/apps/me/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=self.as_app()
        )
        assert hook.status_code == 201, hook.json
        self.webhook_secret = hook.json["secret"]
        # A browser of zed's subscribed to push (before the matches, so their notes queue pushes).
        self.browser = BrowserKeys()
        pushed = client.post(
            "/v1/me/push-subscriptions",
            json={"endpoint": LOCAL, "keys": self.browser.keys},
            headers=self.as_(ZED),
        )
        assert pushed.status_code == 201, pushed.json
        self.push_subscription = pushed.json
        # A rated match zed and ann play to its end.
        self.finished = self.match([{"player": ZED}, {"player": "ann"}], rated=True)
        while (doc := self.read(self.finished))["status"] != "finished":
            mover = doc["seats"][doc["to_move"]]["player"]
            assert play_one(client, self.finished, self.as_(mover)).status_code == 200
        self.hook = hook.json["id"]
        self.delivered = self.deliver()
        # A match under way: bob and zed, one decision each.
        self.active = self.match([{"player": "bob"}, {"player": ZED}, {"player": "ann"}])
        for _ in range(2):
            doc = self.read(self.active)
            mover = doc["seats"][doc["to_move"]]["player"]
            assert play_one(client, self.active, self.as_(mover)).status_code == 200
        assert self.read(self.active)["status"] == "active"
        # Chat: zed and bob talk in the active match's players' channel; ann reports zed's message,
        # zed reports bob's, bob mutes zed; zed watches a public match of ann and bob and says so.
        said = self.chat(self.active, ZED, SAID)
        heard = self.chat(self.active, "bob", "thanks, you too")
        self.chat_ids = [said["id"]]
        self.report(self.active, "ann", said["id"], "spam")
        self.report(self.active, ZED, heard["id"], REASON)
        muted = client.put(f"/v1/matches/{self.active}/chat/mutes/{said['author']}", headers=self.as_("bob"))
        assert muted.status_code in (200, 204), muted.json
        self.watched = self.match([{"player": "ann"}, {"player": "bob"}], visibility="public")
        spectated = self.chat(self.watched, ZED, SPECTATED, "spectators")
        assert spectated["author"].startswith("spectator:")
        self.spectator = spectated["author"]
        self.chat_ids.append(spectated["id"])
        seek = client.post("/v1/seeks", json={"game": GAME, "players": 2}, headers=self.as_(ZED))
        assert seek.status_code == 201 and seek.json["status"] == "open", seek.json
        self.seek = seek.json["id"]
        challenge = client.post(
            "/v1/challenges", json={"game": GAME, "players": ["ann"]}, headers=self.as_(ZED)
        )
        assert challenge.status_code == 201, challenge.json
        self.challenge = challenge.json["id"]
        tournament = client.post(
            "/v1/tournaments",
            json={
                "name": "Winter cup",
                "game": GAME,
                "players": 2,
                "options": {"rounds": 1, "swaps": False},
                "entrants": [{"player": ZED}, {"player": "ann"}],
                "format": "round_robin",
                "starts_at": 4_000_000_000.0,
            },
            headers=self.as_app(),
        )
        assert tournament.status_code == 201, tournament.json
        self.tournament = tournament.json["id"]

    def deliver(self) -> list[str]:
        """Play a webhook lane's part once: every message due now is delivered (200); their ids."""
        hooks = self.client.application.extensions["tabletop"].webhooks
        done = []
        now = time.time()
        for member, score in hooks.due(now, 100):
            for d in hooks.claim(member, score, now, 100):
                hooks.record(d, status=200, headers={}, latency_ms=1.0, error=None, now=now)
                done.append(d.id)
        assert done
        return done

    def chat(self, match_id: str, pid: str, text: str, channel: str = "players") -> dict[str, Any]:
        resp = self.client.post(
            f"/v1/matches/{match_id}/chat", json={"channel": channel, "text": text}, headers=self.as_(pid)
        )
        assert resp.status_code == 201, resp.json
        return dict(resp.json)

    def report(self, match_id: str, pid: str, message_id: int, reason: str) -> None:
        resp = self.client.post(
            f"/v1/matches/{match_id}/chat/reports",
            json={"message_id": message_id, "reason": reason},
            headers=self.as_(pid),
        )
        assert resp.status_code == 201, resp.json

    def deliveries(self) -> list[dict[str, Any]]:
        url = f"/v1/apps/me/webhooks/{self.hook}/deliveries"
        resp = self.client.get(url, query_string={"limit": 100}, headers=self.as_app())
        assert resp.status_code == 200, resp.json
        return list(resp.json["deliveries"])

    def as_app(self) -> dict[str, str]:
        return bearer(self.key)

    def as_(self, pid: str) -> dict[str, str]:
        return bearer(self.tokens[pid])

    def match(self, seats: list[dict[str, Any]], **body: Any) -> str:
        resp = self.client.post(
            "/v1/matches", json={"game": GAME, "seats": seats, "seed": 5, **body}, headers=self.as_app()
        )
        assert resp.status_code == 201, resp.json
        return str(resp.json["id"])

    def read(self, match_id: str) -> dict[str, Any]:
        resp = self.client.get(f"/v1/matches/{match_id}", headers=self.as_app())
        assert resp.status_code == 200, resp.json
        return dict(resp.json)

    def export(self, headers: dict[str, str] | None = None) -> Any:
        return self.client.get(f"/v1/players/{ZED}/export", headers=headers or self.as_app())

    def delete(self, headers: dict[str, str] | None = None) -> Any:
        return self.client.delete(f"/v1/players/{ZED}", headers=headers or self.as_app())


@pytest.fixture
def world(client: FlaskClient) -> World:
    return World(client)


def sections(export: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in export[0]["sections"]}
    for line in export[1:-1]:
        assert line["type"] == "item"
        out[line["section"]].append(line["data"])
    return out


def test_the_export_holds_everything_about_the_player_and_no_secret(world: World) -> None:
    resp = world.export()
    text = resp.get_data(as_text=True)
    export = lines(resp)
    head, end = export[0], export[-1]
    assert head["type"] == "header" and head["format"] == "tabletop-player-export/1" and head["version"] == 1
    assert head["app"] == world.app_id and head["player"] == ZED
    assert head["sections"][0] == "profile"
    found = sections(export)
    assert end == {"type": "end", "counts": {name: len(items) for name, items in found.items()}}
    assert set(head["sections"]) == {
        *("profile", "matches", "seeks", "challenges", "tournaments", "ratings", "webhook_deliveries"),
        *("feed", "chat", "push_subscriptions"),
    }
    for name in head["sections"]:
        assert found[name], f"section {name} is empty"
    (profile,) = found["profile"]
    assert profile["id"] == ZED and profile["name"] == ZED_NAME
    assert [t["id"] for t in profile["tokens"]] == [world.token_ids[ZED]]
    assert set(profile["tokens"][0]) == {"id", "scopes", "expires_at", "created_at"}
    matches = {m["match"]["id"]: m for m in found["matches"]}
    assert set(matches) == {world.finished, world.active}
    assert matches[world.finished]["record"]["perspective"] == "full"
    assert matches[world.finished]["record"]["result"] is not None
    active = matches[world.active]
    assert active["seat"] == 1 and active["record"]["perspective"] == "seat" and active["record"]["seat"] == 1
    (rating,) = found["ratings"]
    assert rating["game"] == GAME and rating["matches"] == 1
    assert [h["match_id"] for h in rating["history"]] == [world.finished]
    assert [s["id"] for s in found["seeks"]] == [world.seek] and found["seeks"][0]["status"] == "open"
    assert [c["id"] for c in found["challenges"]] == [world.challenge]
    (entry,) = found["tournaments"]
    assert entry["tournament_id"] == world.tournament and entry["entries"][0]["player"] == ZED
    # The deliveries: zed's own notes, and ann's challenge that names zed as its challenger.
    deliveries = found["webhook_deliveries"]
    mine = {
        (d["type"], d["payload"]["data"]["match_id"])
        for d in deliveries
        if d["payload"]["data"]["player"] == ZED
    }
    assert {("match_over", world.finished), ("invited", world.active)} <= mine
    (challenged,) = [d for d in deliveries if d["payload"]["data"]["player"] == "ann"]
    assert challenged["type"] == "challenge_received"
    assert challenged["payload"]["data"]["challenger"] == {"id": ZED, "name": ZED_NAME}
    assert "secret" not in json.dumps(deliveries)
    assert {e["match_id"] for e in found["feed"] if e.get("match_id")} >= {world.finished, world.active}
    # Chat: zed's messages (both channels), and the report zed made, with its reason.
    messages = [item for item in found["chat"] if "report" not in item]
    assert [(m["match_id"], m["id"], m["text"]) for m in messages] == [
        (world.active, world.chat_ids[0], SAID),
        (world.watched, world.chat_ids[1], SPECTATED),
    ]
    assert [m["channel"] for m in messages] == ["players", "spectators"]
    assert messages[0]["name"] == ZED_NAME and messages[0]["author"] == "seat:1"
    (made,) = [item for item in found["chat"] if "report" in item]
    assert made["match_id"] == world.active and made["report"]["reason"] == REASON
    assert made["report"]["message_id"] == world.chat_ids[0] + 1 and made["report"]["reporter"] == "seat:1"
    said = json.dumps(found["chat"])
    assert f"{world.app_id}:{ZED}" not in said and "_player" not in said  # stored, never shown
    # Push: the subscription as its owner lists it, never the browser's keys.
    assert found["push_subscriptions"] == [world.push_subscription]
    assert world.browser.keys["p256dh"] not in text and world.browser.keys["auth"] not in text
    # No secret: no token, no token's hash, no app key, no webhook secret.
    for secret in (*world.tokens.values(), world.key, world.webhook_secret):
        assert secret not in text
        assert auth.hash_token(secret) not in text
    assert "hash" not in json.dumps(profile)
    # The player's own token exports the same sections; nobody else's credential does.
    own = lines(world.export(world.as_(ZED)))
    assert own[0]["sections"] == head["sections"] and own[-1]["counts"] == end["counts"]
    assert world.export(world.as_("ann")).status_code == 403
    other = new_app(world.client, "beta")
    assert world.export(bearer(other["key"])).status_code == 404
    assert world.client.get(f"/v1/players/{ZED}/export").status_code == 401


def test_deleting_a_player_leaves_nothing_that_names_them(
    app: Flask, world: World, redis_client: redis.Redis
) -> None:
    client = world.client
    ann_before = client.get("/v1/players/ann/ratings", headers=world.as_app()).json
    finished_before = world.read(world.finished)
    live = app.extensions["tabletop"].live
    stream = live.subscribe(
        Topic.player(f"{world.app_id}:{ZED}"),
        [("addr:test", 50)],
        Credential(world.app_id, f"{world.app_id}:{ZED}", world.token_ids[ZED]),
    )
    # Only the app's own key deletes.
    assert world.delete(world.as_(ZED)).status_code == 403
    assert world.delete(world.as_("ann")).status_code == 403
    other = new_app(client, "beta")
    assert world.delete(bearer(other["key"])).status_code == 404
    assert client.delete("/v1/players/nobody", headers=world.as_app()).status_code == 404
    try:
        resp = world.delete()
        assert resp.status_code == 200, resp.json
        placeholder = resp.json["placeholder"]
        assert resp.json["player"] == ZED and resp.json["status"] == "deleted"
        assert placeholder.startswith("deleted-") and len(placeholder) == len("deleted-") + 12
        # Tokens dead, the open stream ended.
        assert client.get("/v1/me/matches", headers=world.as_(ZED)).status_code == 401
        assert stream.revoked == "token_revoked"
    finally:
        stream.close()
    assert client.get(f"/v1/players/{ZED}", headers=world.as_app()).status_code == 404
    assert world.export().status_code == 404
    # Seek and challenge withdrawn.
    assert client.get(f"/v1/seeks/{world.seek}", headers=world.as_app()).status_code == 404
    assert client.get(f"/v1/challenges/{world.challenge}", headers=world.as_app()).status_code == 404
    # The seat in play: a bot holds it under the placeholder, and the match goes on for the others.
    active = world.read(world.active)
    assert active["status"] == "active"
    assert active["seats"][1]["kind"] == "bot" and active["seats"][1]["name"] == placeholder
    assert "player" not in active["seats"][1]
    assert [s.get("player") for s in active["seats"]] == ["bob", None, "ann"]
    if active["seats"][active["to_move"]]["kind"] == "human":
        mover = active["seats"][active["to_move"]]["player"]
        assert play_one(client, world.active, world.as_(mover)).status_code == 200
    # Off the leaderboard; ann's rating and history as they were.
    board = client.get(f"/v1/games/{GAME}/leaderboard", headers=world.as_app()).json["players"]
    assert [row["player"] for row in board] == ["ann"]
    (ann_after,) = client.get("/v1/players/ann/ratings", headers=world.as_app()).json["ratings"]
    (ann,) = ann_before["ratings"]
    assert ann_after["rank"] == 1 and ann_after["history"] == ann["history"]
    assert (ann_after["ordinal"], ann_after["matches"]) == (ann["ordinal"], ann["matches"])
    # The finished match and its record: the placeholder, the same result.
    finished = world.read(world.finished)
    assert finished["result"] == finished_before["result"]
    assert finished["seats"][0]["name"] == placeholder and "player" not in finished["seats"][0]
    assert finished["seats"][1]["player"] == "ann"
    record = client.get(f"/v1/matches/{world.finished}/record", headers=world.as_app()).json
    assert (
        record["header"]["seats"][0]["name"] == placeholder and record["header"]["seats"][0]["player"] is None
    )
    tournament = client.get(f"/v1/tournaments/{world.tournament}", headers=world.as_app()).json
    assert [e.get("player") for e in tournament["entrants"]] == [None, "ann"]
    assert tournament["entrants"][0]["name"] == placeholder
    # The delivery log: zed's delivered messages are gone, the others name the placeholder.
    log = world.deliveries()
    assert log and not set(world.delivered) & {m["id"] for m in log}
    assert any(m["status"] == "pending" and m["payload"]["data"]["player"] == placeholder for m in log)
    (challenged,) = [m for m in log if m["type"] == "challenge_received"]
    assert challenged["payload"]["data"]["challenger"] == {"id": placeholder, "name": placeholder}
    # Chat: zed's messages are tombstones in their channels (bob's stays); the app's reports hold the
    # tombstone as the reported message, and the report zed made has no reason any more.
    chat = client.get(
        f"/v1/matches/{world.active}/chat", query_string={"channel": "players"}, headers=world.as_app()
    )
    assert chat.status_code == 200, chat.json
    said, heard = chat.json["messages"]
    assert said["id"] == world.chat_ids[0] and said["erased"] is True
    assert (said["text"], said["name"]) == ("", placeholder)
    assert heard["text"] == "thanks, you too" and not heard.get("erased")
    watched = client.get(
        f"/v1/matches/{world.watched}/chat", query_string={"channel": "spectators"}, headers=world.as_app()
    )
    assert [(m["text"], m["name"]) for m in watched.json["messages"]] == [("", placeholder)]
    # The tombstone keeps zed's spectator handle, keyed with the server's secret: knowing the match
    # and zed's id is not enough to tell it was theirs (an unkeyed hash of them would be).
    assert watched.json["messages"][0]["author"] == world.spectator
    whose = f"{world.watched}\n{world.app_id}:{ZED}".encode()
    assert world.spectator != "spectator:" + hashlib.sha256(whose).hexdigest()[:16]
    secret = redis_client.get("tt:privacy:secret")
    assert isinstance(secret, bytes)
    keyed = hmac.new(secret, f"spectator\0{world.watched}\0{world.app_id}:{ZED}".encode(), hashlib.sha256)
    assert world.spectator == "spectator:" + keyed.hexdigest()[:16]
    reports = client.get("/v1/apps/me/chat-reports", headers=world.as_app()).json["reports"]
    by_reason = {r["reason"]: r for r in reports}
    assert set(by_reason) == {None, "spam"}
    assert by_reason["spam"]["message"]["text"] == "" and by_reason["spam"]["message"]["name"] == placeholder
    assert by_reason[None]["message"]["text"] == "thanks, you too"
    # Push: the subscription and its marks are gone.
    assert not list(redis_client.scan_iter(match=f"tt:{{p:{world.app_id}:{ZED}}}:push*", count=1000))
    # Nothing in Redis names zed but the audit log.
    named = naming(redis_client, (ZED.encode(), ZED_NAME.encode()))
    assert named and all(key.endswith(":audit") for key in named), "\n".join(named)
    # SCAN, not KEYS: on a cluster KEYS asks one node, which may hold no key naming the placeholder.
    assert placeholder.encode() in b"".join(dump(redis_client, k) for k in redis_client.scan_iter(count=1000))


def test_a_second_delete_answers_the_same_and_both_are_audited(world: World) -> None:
    assert world.export(world.as_(ZED)).status_code == 200
    first = world.delete()
    second = world.delete()
    assert first.status_code == second.status_code == 200
    assert first.json == second.json
    log = world.client.get("/v1/apps/me/audit", headers=world.as_app())
    assert log.status_code == 200, log.json
    entries = log.json["entries"]
    assert [e["action"] for e in entries] == ["player_exported", "player_deleted", "player_deleted"]
    assert all(e["player"] == ZED for e in entries)
    assert entries[0]["by"] == {"kind": "player", "credential": world.token_ids[ZED], "player": ZED}
    assert entries[1]["by"]["kind"] == "app" and entries[1]["placeholder"] == first.json["placeholder"]
    assert entries[1]["removed"]["tokens"] == 1 and entries[1]["removed"]["seeks"] == 1
    assert entries[2]["removed"]["tokens"] == 0
    page = world.client.get("/v1/apps/me/audit", query_string={"limit": 1}, headers=world.as_app()).json
    assert [e["id"] for e in page["entries"]] == [entries[0]["id"]] and page["next_cursor"] == entries[0][
        "id"
    ]
    after = {"limit": 5, "after": page["next_cursor"]}
    assert (
        world.client.get("/v1/apps/me/audit", query_string=after, headers=world.as_app()).json["entries"]
        == entries[1:]
    )
    # Another app sees none of it; a player token reads no audit log; a bad cursor is a 422.
    other = new_app(world.client, "beta")
    assert world.client.get("/v1/apps/me/audit", headers=bearer(other["key"])).json["entries"] == []
    assert world.client.get("/v1/apps/me/audit", headers=world.as_("ann")).status_code == 401
    for after in ("x", "²-1", "1-²"):  # "²" passes str.isdigit, not int or Redis
        bad = world.client.get("/v1/apps/me/audit", query_string={"after": after}, headers=world.as_app())
        assert bad.status_code == 422, after


def dump(client: redis.Redis, key: bytes) -> bytes:
    """Everything a key holds, whatever its type, as bytes."""
    kind = client.type(key)
    if kind == b"string":
        return client.get(key) or b""
    if kind == b"hash":
        return b"\n".join(k + b"=" + unpacked(v) for k, v in client.hgetall(key).items())
    if kind == b"list":
        return b"\n".join(client.lrange(key, 0, -1))
    if kind == b"set":
        return b"\n".join(client.smembers(key))
    if kind == b"zset":
        return b"\n".join(m for m, _ in client.zrange(key, 0, -1, withscores=True))
    if kind == b"stream":
        return b"\n".join(b" ".join(k + b"=" + v for k, v in f.items()) for _, f in client.xrange(key))
    return b""


def unpacked(value: bytes) -> bytes:
    """A value as it reads: RQ keeps a job's call (its arguments: a push message names its player) and
    its error zlib-compressed, which a plain search would not see through."""
    try:
        return zlib.decompress(value)
    except zlib.error:
        return value


def naming(client: redis.Redis, needles: tuple[bytes, ...]) -> list[str]:
    """The keys whose name or value holds any of ``needles``."""
    found = []
    for key in client.scan_iter(count=1000):
        value = key + b"\n" + dump(client, key)
        if any(n in value for n in needles):
            found.append(key.decode())
    return sorted(found)
