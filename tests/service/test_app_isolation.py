"""Nothing of one app is visible to another app's key or players (issue 25 point 2), on every
operation of the spec: the operations are read from the served OpenAPI document, so an operation
added later is probed too.

App A has a private match between its players, a hint job, a token; app B probes each operation with
its key and with its player's token, aimed at A's things.  B gets no 2xx on what is A's, and no
answer (of any status) names anything of A's that B did not send itself."""

from __future__ import annotations

import re
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, play_one, put_player, token_for
from tests.service.test_push import BrowserKeys

#: Operations open to everyone (or only about the caller itself): a 2xx is fine, A's ids still are not.
OPEN = {
    "listGames",
    "getGame",
    "getGameRules",
    "listMatches",
    "getHealth",
    "getReadiness",
    "getMetrics",
    "getMyApp",
    "getMe",
    "getMyEvents",
    "listMyMatches",
    "returnEverywhere",  # the caller's own away seats (B's: none)
    "getLeaderboard",
    "createSeek",
    "listChallenges",
    "listPlayers",
    "putPlayer",
    "createMatch",
    "createWebhook",
    "listWebhooks",
    "listTournaments",
    "exportMyRecords",  # the caller's own player's records (B's: none of A's)
    "exportAppRecords",  # the caller's own app's records
    "getAppAudit",  # the caller's own app's audit log (B's: none of A's)
    "listChatReports",  # the caller's own app's chat reports (B's: none of A's)
    "getVapidPublicKey",  # the server's public key, the same for everyone
    "listPushSubscriptions",  # the caller's own player's subscriptions (B's ann: none)
}
BODIES: dict[str, Any] = {
    "createMatch": {"game": "high_card", "seats": [{"player": "zoe"}, {"name": "x"}]},
    "joinMatch": {"name": "intruder"},
    "submitAction": {"action": {"type": "play"}, "expected_version": 1},
    "requestHint": {"level": "random"},
    "createApp": {"name": "intruder"},
    "putPlayer": {"name": "Intruder"},
    "createPlayerToken": {"scopes": ["read"]},
    "createSeek": {"game": "high_card", "players": 3},
    "createChallenge": {"game": "high_card", "players": ["zoe"]},
    "createWebhook": {"url": "https://93.184.216.34/intruder"},
    "updateWebhook": {"enabled": False, "url": "https://93.184.216.34/intruder"},
    "createTournament": {
        "game": "high_card",
        "players": 2,
        "entrants": [{"player": "zoe"}, {"level": "easy"}],
    },
}
#: A's tournament's name, A's alone.
CUP = "Alpha-Only Cup"
#: A chat message in A's match, and a report of it (A's app-wide list of reports holds both), A's alone.
CHAT, REPORT = "Alpha-Only chat line", "Alpha-Only report"
#: A's webhook endpoint: a public address (an IP literal, so no DNS is asked), named A's alone.
HOOK = "https://93.184.216.34/alpha-only-hook"
#: Zoe's browser's push service address, A's alone.
PUSH = "https://93.184.216.34/alpha-only-push"


class World:
    def __init__(self, client: FlaskClient) -> None:
        self.a = Backend(client, "alpha")
        assert put_player(client, self.a.key, "zoe", "Zoe Alpha-Only").status_code == 201
        self.zoe = token_for(client, self.a.key, "zoe")
        match = self.a.match(seats=[{"player": "zoe"}, {"player": "ann"}])
        self.match_id = match["id"]
        doc = client.get(f"/v1/matches/{self.match_id}", headers=bearer(self.zoe)).json
        mover = bearer(self.zoe) if doc["to_move"] == 0 else self.a.as_("ann")
        hint = client.post(f"/v1/matches/{self.match_id}/hint", json={"level": "random"}, headers=mover)
        assert hint.status_code == 202, hint.json
        self.job_id = hint.json["id"]
        assert play_one(client, self.match_id, mover).status_code == 200
        said = client.post(
            f"/v1/matches/{self.match_id}/chat",
            json={"channel": "players", "text": CHAT},
            headers=bearer(self.zoe),
        )
        assert said.status_code == 201, said.json
        reported = client.post(
            f"/v1/matches/{self.match_id}/chat/reports",
            json={"message_id": said.json["id"], "reason": REPORT},
            headers=self.a.as_("ann"),
        )
        assert reported.status_code == 201, reported.json
        subscribed = client.post(
            "/v1/me/push-subscriptions",
            json={"endpoint": PUSH, "keys": BrowserKeys().keys},
            headers=bearer(self.zoe),
        )
        assert subscribed.status_code == 201, subscribed.json
        self.subscription_id = subscribed.json["id"]
        self.token_id = client.get("/v1/players/zoe/tokens", headers=bearer(self.a.key)).json["tokens"][0][
            "id"
        ]
        seek = client.post("/v1/seeks", json={"game": "high_card", "players": 3}, headers=bearer(self.zoe))
        assert seek.status_code == 201, seek.json
        self.seek_id = seek.json["id"]
        challenge = client.post(
            "/v1/challenges", json={"game": "high_card", "players": ["ann"]}, headers=bearer(self.zoe)
        )
        assert challenge.status_code == 201, challenge.json
        self.challenge_id = challenge.json["id"]
        # (Before the webhook endpoint: its matches' feed entries would be messages of it.)
        cup = client.post(
            "/v1/tournaments",
            json={
                "name": CUP,
                "game": "high_card",
                "players": 2,
                "entrants": [{"player": "zoe"}, {"player": "ann"}],
            },
            headers=bearer(self.a.key),
        )
        assert cup.status_code == 201, cup.json
        self.tournament_id = cup.json["id"]
        hook = client.post(
            "/v1/apps/me/webhooks",
            json={"url": HOOK, "description": "Alpha-Only"},
            headers=bearer(self.a.key),
        )
        assert hook.status_code == 201, hook.json
        self.endpoint_id, self.hook_secret = hook.json["id"], hook.json["secret"]
        ping = client.post(f"/v1/apps/me/webhooks/{self.endpoint_id}/ping", headers=bearer(self.a.key))
        assert ping.status_code == 202, ping.json
        self.message_id = ping.json["id"]
        self.b = Backend(client, "beta")  # has its own ann and bob, no zoe

    def params(self) -> dict[str, str]:
        return {
            "match_id": self.match_id,
            "job_id": self.job_id,
            "app_id": self.a.app["id"],
            "player_id": "zoe",
            "token_id": self.token_id,
            "game_id": "high_card",
            "seek_id": self.seek_id,
            "challenge_id": self.challenge_id,
            "endpoint_id": self.endpoint_id,
            "message_id": self.message_id,
            "tournament_id": self.tournament_id,
            "author": "seat:0",  # a chat author handle (zoe's in A's match)
            "takeback_id": "1",  # a takeback's id: its number in A's match
            "subscription_id": self.subscription_id,
        }

    def secrets(self) -> list[str]:
        """What names A and only A: never in an answer to B, whatever B sent."""
        return [
            self.a.key,
            self.zoe,
            self.a.tokens["ann"],
            "Zoe Alpha-Only",
            self.hook_secret,
            HOOK,
            CUP,
            CHAT,
            REPORT,
            PUSH,
        ]

    def ids(self) -> list[str]:
        return [
            self.match_id,
            self.job_id,
            self.a.app["id"],
            self.token_id,
            self.seek_id,
            self.challenge_id,
            self.endpoint_id,
            self.message_id,
            self.tournament_id,
            self.subscription_id,
        ]


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


def operations() -> list[tuple[str, str, str]]:
    spec = (
        create_app(make_config("redis://localhost:1/0"), games=TEST_GAMES).test_client().get("/openapi.json")
    )
    found = []
    for path, item in spec.json["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                found.append((method.upper(), path, op["operationId"]))
    return found


@pytest.mark.parametrize("credential", ["app key", "player token"])
@pytest.mark.parametrize(("method", "path", "operation"), operations(), ids=lambda v: str(v))
def test_another_app_sees_nothing_of_this_app(
    client: FlaskClient, credential: str, method: str, path: str, operation: str
) -> None:
    world = World(client)
    headers = bearer(world.b.key) if credential == "app key" else world.b.as_("ann")
    url = re.sub(r"\{(\w+)\}", lambda m: world.params()[m.group(1)], path)
    if operation in ("listMyMatches", "getMe", "getMyEvents", "returnEverywhere") and credential == "app key":
        url += "?player=ann"
    resp = client.open(url, method=method, headers=headers, json=BODIES.get(operation))
    text = resp.get_data(as_text=True)
    assert resp.status_code < 500, text
    if operation not in OPEN:
        assert resp.status_code in (401, 403, 404, 405, 422), (resp.status_code, text)
    for secret in world.secrets():
        assert secret not in text
    sent = url + str(BODIES.get(operation))
    for own in world.ids():
        assert own not in text or (own in sent and resp.status_code >= 400), (own, text)
    # And A's things are as they were.
    assert client.get("/v1/players/zoe", headers=bearer(world.a.key)).json["name"] == "Zoe Alpha-Only"
    assert client.get("/v1/me", headers=bearer(world.zoe)).status_code == 200
    hook = client.get(f"/v1/apps/me/webhooks/{world.endpoint_id}", headers=bearer(world.a.key)).json
    assert (hook["url"], hook["status"], hook["previous_secret_expires_at"]) == (HOOK, "enabled", None)
    log = client.get(f"/v1/apps/me/webhooks/{world.endpoint_id}/deliveries", headers=bearer(world.a.key))
    assert [m["id"] for m in log.json["deliveries"]] == [world.message_id]
    cup = client.get(f"/v1/tournaments/{world.tournament_id}", headers=bearer(world.a.key)).json
    assert (cup["name"], cup["status"]) == (CUP, "running")
    reports = client.get("/v1/apps/me/chat-reports", headers=bearer(world.a.key)).json["reports"]
    assert [(r["message"]["text"], r["reason"]) for r in reports] == [(CHAT, REPORT)]
