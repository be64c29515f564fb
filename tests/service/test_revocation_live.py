"""Revocation reaches the waiters (issue 42, point 1), in process over the real Redis: the live hub
(service/live/guard.py) ends the subscriptions a revocation covers, by their credential's tag, and only those;
refuses a waiter whose credential was revoked a moment before it subscribed or has expired; ends the
waiters of a token that expires, and of a credential revoked without an announcement, at its guard's
next look; and the HTTP views end a long-poll with 401 ``credential_revoked`` and a stream with a last
``credential_revoked`` line.  The same against real ``tabletop serve`` processes is in
tests/reliability/test_revocation.py."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask

from service.domain.identity import APP, Caller
from service.http.app import create_app
from service.live.credentials import CREDENTIAL_REVOKED, Credential, CredentialRevoked
from service.live.hub import LiveEvents
from service.live.subscription import Subscription
from service.live.topics import Topic
from service.storage.accounts import AccountStore, Revocation
from tests.service.conftest import TEST_GAMES, bearer, make_config

QUOTA = [("addr:test", 500)]
FEED = "/v1/me/events"
#: Generous: the CI machine is a noisy 2-core VM; what is checked is that the wait ends, and soon.
SOON = 5.0


def live_of(app: Flask) -> LiveEvents:
    hub: LiveEvents = app.extensions["tabletop"].live
    return hub


def ended(sub: Subscription, within: float = SOON) -> str | None:
    """The reason ``sub`` ended for, waiting up to ``within`` seconds for it (``None``: it did not)."""
    deadline = time.monotonic() + within
    while sub.revoked is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return sub.revoked


def test_a_revocation_ends_exactly_the_waiters_it_covers(app: Flask) -> None:
    """By the tag: an app's revocation ends its key's and its tokens' waiters; a token's ends that
    token's only (not another token of the player, not the app key reading the player's feed); a
    rotation ends the old key's only.  Waiters of another app and untagged ones (seat tokens) stay."""
    live = live_of(app)
    topic = Topic.player("a1:ann")
    subs = {
        "key": live.subscribe(topic, QUOTA, Credential("a1", id="k-old")),
        "new key": live.subscribe(topic, QUOTA, Credential("a1", id="k-new")),
        "t1": live.subscribe(topic, QUOTA, Credential("a1", "a1:ann", "t1")),
        "t2": live.subscribe(topic, QUOTA, Credential("a1", "a1:ann", "t2")),
        "bob": live.subscribe(topic, QUOTA, Credential("a1", "a1:bob", "t1")),
        "other app": live.subscribe(topic, QUOTA, Credential("a2", "a2:ann", "t1")),
        "seat": live.subscribe(topic, QUOTA),
    }
    try:
        assert live.guard.revoke(Revocation("a1", "a1:ann", ("t1",))) == 1
        assert subs["t1"].revoked == "token_revoked"
        assert live.guard.revoke(Revocation("a1", key="k-old")) == 1
        assert subs["key"].revoked == "key_rotated"
        assert [n for n, s in subs.items() if s.revoked] == ["key", "t1"]
        assert live.guard.revoke(Revocation("a1")) == 3
        assert {n for n, s in subs.items() if s.revoked} == {"key", "new key", "t1", "t2", "bob"}
        assert subs["t2"].revoked == "app_revoked" and subs["new key"].revoked == "app_revoked"
        assert subs["other app"].revoked is None and subs["seat"].revoked is None
    finally:
        for sub in subs.values():
            sub.close()
    assert live.waiters == 0 and not live.guard.tagged


def test_a_credential_revoked_just_before_its_waiter_subscribes_is_refused(app: Flask) -> None:
    """The race between the request's credential check and its subscription: the hub remembers what
    it heard lately, and refuses the waiter; another token of the same player is let in."""
    live = live_of(app)
    live.guard.revoke(Revocation("a1", "a1:ann", ("t1", "t2")))
    with pytest.raises(CredentialRevoked) as refused:
        live.subscribe(Topic.player("a1:ann"), QUOTA, Credential("a1", "a1:ann", "t2"))
    assert refused.value.reason == "token_revoked"
    with live.subscribe(Topic.player("a1:ann"), QUOTA, Credential("a1", "a1:ann", "t3")) as sub:
        assert sub.revoked is None
    with pytest.raises(CredentialRevoked) as expired:
        live.subscribe(Topic.player("a1:ann"), QUOTA, Credential("a1", "a1:ann", "t4", time.time() - 1))
    assert expired.value.reason == "token_expired"
    assert live.waiters == 0


def test_an_announcement_on_redis_reaches_the_reader(app: Flask, redis_client: redis.Redis) -> None:
    """The path every process uses: the accounts store publishes, each process's reader hears it."""
    live = live_of(app)
    with live.subscribe(Topic.player("a1:ann"), QUOTA, Credential("a1", "a1:ann", "t1")) as sub:
        AccountStore(redis_client).announce(Revocation("a1", "a1:ann", ("t1",)))
        assert ended(sub) == "token_revoked"


def test_the_guard_ends_an_expired_token_s_waiter_and_one_revoked_unannounced(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """No announcement needed: a token's expiry ends its waiter at the guard's next look (every
    second), and a revocation a process did not hear (written without an announcement here, as if
    the reader was reconnecting) at its next read of the credentials (every
    ``credential_check_seconds``)."""
    app = create_app(make_config(redis_url, credential_check_seconds=0.5), games=TEST_GAMES)
    accounts = app.extensions["tabletop"].accounts
    made = accounts.create_app("Backend")
    caller = Caller(APP, app=made["id"])
    accounts.put_player(caller, "ann", "Ann", False)
    short = accounts.mint_token(caller, "ann", ["read"], 2)
    long = accounts.mint_token(caller, "ann", ["read"], 3600)
    live, key = live_of(app), f"{made['id']}:ann"
    as_short = accounts.identify(f"Bearer {short['token']}")
    as_long = accounts.identify(f"Bearer {long['token']}")
    expiring = live.subscribe(
        Topic.player(key), QUOTA, Credential(made["id"], key, short["id"], short["expires_at"])
    )
    silent = live.subscribe(
        Topic.player(key), QUOTA, Credential(made["id"], key, long["id"], long["expires_at"])
    )
    try:
        assert as_short.credential == short["id"] and as_long.expires_at == long["expires_at"]
        time.sleep(0.8)
        assert expiring.revoked is None and silent.revoked is None  # the guard has looked: both hold
        assert ended(expiring, 2 + SOON) == "token_expired"
        assert time.time() >= short["expires_at"]
        assert silent.revoked is None
        accounts.store.revoke_token(key, long["id"])  # no announcement
        assert ended(silent) == "token_revoked"
    finally:
        expiring.close()
        silent.close()


def test_the_guard_ends_a_rotated_key_s_waiter_and_a_revoked_app_s(
    redis_client: redis.Redis, redis_url: str
) -> None:
    app = create_app(make_config(redis_url, credential_check_seconds=0.5), games=TEST_GAMES)
    accounts = app.extensions["tabletop"].accounts
    made = accounts.create_app("Backend")
    other = accounts.create_app("Other")
    live = live_of(app)
    as_key = accounts.identify(f"Bearer {made['key']}")
    as_other = accounts.identify(f"Bearer {other['key']}")
    assert as_key.credential is not None and as_key.credential != as_other.credential
    old = live.subscribe(Topic.player("x:ann"), QUOTA, Credential(made["id"], id=as_key.credential))
    kept = live.subscribe(Topic.player("x:ann"), QUOTA, Credential(other["id"], id=as_other.credential))
    try:
        accounts.store.update_app(made["id"], key_hash="0" * 64)  # rotated, unannounced
        assert ended(old) == "key_rotated"
        accounts.store.update_app(other["id"], status="revoked")
        assert ended(kept) == "app_revoked"
    finally:
        old.close()
        kept.close()


class Backend:
    """An app with a player and two of its tokens, over an app's domain."""

    def __init__(self, app: Flask) -> None:
        self.accounts = app.extensions["tabletop"].accounts
        made = self.accounts.create_app("Backend")
        self.id, self.key = made["id"], made["key"]
        caller = Caller(APP, app=self.id)
        self.accounts.put_player(caller, "ann", "Ann", False)
        self.tokens = [self.accounts.mint_token(caller, "ann", ["read", "play"], None) for _ in range(2)]


def in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(target()), daemon=True)
    thread.start()
    return thread, out


def wait_for_waiters(app: Flask, n: int) -> None:
    deadline = time.monotonic() + SOON
    while live_of(app).waiters < n:
        assert time.monotonic() < deadline, live_of(app).waiters
        time.sleep(0.01)


@pytest.fixture
def slow(redis_client: redis.Redis, redis_url: str) -> Flask:
    """Long waits: only a revocation ends them early."""
    config = make_config(redis_url, max_wait_seconds=30, stream_max_seconds=30, heartbeat_seconds=0.3)
    return create_app(config, games=TEST_GAMES)


def test_a_revoked_token_s_long_poll_answers_401_at_once_and_another_token_s_goes_on(slow: Flask) -> None:
    backend = Backend(slow)
    first, second = (t["token"] for t in backend.tokens)

    def poll(token: str) -> Any:
        t0 = time.monotonic()
        resp = slow.test_client().get(FEED, query_string={"wait": 20}, headers=bearer(token))
        return resp.status_code, resp.json, dict(resp.headers), time.monotonic() - t0

    revoked, revoked_out = in_thread(lambda: poll(first))
    kept, kept_out = in_thread(lambda: poll(second))
    wait_for_waiters(slow, 2)
    client = slow.test_client()
    gone = client.delete(f"/v1/players/ann/tokens/{backend.tokens[0]['id']}", headers=bearer(backend.key))
    assert gone.status_code == 204
    revoked.join(SOON)
    assert not revoked.is_alive(), "the revoked token's long-poll is still waiting"
    status, body, headers, took = revoked_out[0]
    assert (
        status == 401
        and body["code"] == CREDENTIAL_REVOKED
        and body["details"] == {"reason": "token_revoked"}
    )
    assert "invalid_token" in headers["WWW-Authenticate"] and took < SOON
    assert kept.is_alive() and live_of(slow).waiters == 1  # the other token still waits
    live_of(slow).end_all()
    kept.join(SOON)
    assert kept_out[0][0] == 200


@pytest.mark.parametrize("accept", ["application/x-ndjson", "text/event-stream"])
def test_revoking_all_tokens_ends_a_stream_with_a_last_credential_revoked_line(
    slow: Flask, accept: str
) -> None:
    """The lost phone of docs/api/apps-and-players.md: "revoke all tokens" ends the stream at once; its
    last line says why, with the last event id it carried."""
    backend = Backend(slow)
    token = backend.tokens[0]["token"]

    def stream() -> Any:
        t0 = time.monotonic()
        resp = slow.test_client().get(FEED, headers={**bearer(token), "Accept": accept})
        return resp.status_code, resp.get_data(), time.monotonic() - t0

    thread, out = in_thread(stream)
    wait_for_waiters(slow, 1)
    time.sleep(0.5)  # a heartbeat or so
    revoked = slow.test_client().delete("/v1/players/ann/tokens", headers=bearer(backend.key))
    assert revoked.status_code == 200 and revoked.json == {"revoked": 2}
    thread.join(SOON)
    assert not thread.is_alive(), "the stream is still open"
    status, body, took = out[0]
    assert status == 200 and took < 10
    if accept == "application/x-ndjson":
        last = json.loads(body.splitlines()[-1])
    else:
        frames = [f for f in body.decode().split("\n\n") if f.strip()]
        assert frames[-1].startswith("id: 0-0\nevent: credential_revoked\ndata: "), frames[-1]
        last = json.loads(frames[-1].split("data: ", 1)[1])
    assert last == {
        "id": "0-0",
        "type": CREDENTIAL_REVOKED,
        "reason": "token_revoked",
        "message": "this player token was revoked",
    }
    assert live_of(slow).waiters == 0
    # And it cannot come back.
    again = slow.test_client().get(FEED, headers={**bearer(token), "Accept": accept})
    assert again.status_code == 401


def test_an_app_key_s_feed_read_counts_against_the_player_s_cap(
    redis_client: redis.Redis, redis_url: str
) -> None:
    """Issue 42 point 8: ``?player=ann`` with the app key waits as ann, against her cap too."""
    capped = create_app(
        make_config(redis_url, max_waiters_per_player=1, max_wait_seconds=5), games=TEST_GAMES
    )
    backend = Backend(capped)
    holder, _ = in_thread(
        lambda: capped.test_client().get(
            FEED, query_string={"wait": 2, "player": "ann"}, headers=bearer(backend.key)
        )
    )
    wait_for_waiters(capped, 1)
    refused = capped.test_client().get(
        FEED, query_string={"wait": 2}, headers=bearer(backend.tokens[0]["token"])
    )
    assert refused.status_code == 429 and refused.json["details"]["limit"] == "max_waiters_per_player"
    by_key = capped.test_client().get(
        FEED, query_string={"wait": 2, "player": "ann"}, headers=bearer(backend.key)
    )
    assert by_key.status_code == 429 and by_key.json["details"]["limit"] == "max_waiters_per_player"
    holder.join(SOON)


def test_tabletop_apps_revoke_reaches_the_api_process_s_waiters_and_the_app_s_things(
    slow: Flask, redis_url: str
) -> None:
    """The operator's shell (``tabletop apps revoke``, another process) announces it too: this
    process's long-poll ends; the app's seek and challenge are closed, its endpoint disabled."""
    import os
    import subprocess
    import sys

    backend = Backend(slow)
    client = slow.test_client()
    key = bearer(backend.key)
    client.put("/v1/players/bob", json={"name": "Bob"}, headers=key)
    seek = client.post("/v1/seeks", json={"game": "high_card", "players": 2, "player": "ann"}, headers=key)
    challenge = client.post(
        "/v1/challenges", json={"game": "high_card", "players": ["bob"], "player": "ann"}, headers=key
    )
    hook = client.post("/v1/apps/me/webhooks", json={"url": "https://93.184.216.34/hook"}, headers=key)
    assert seek.status_code == 201 and challenge.status_code == 201 and hook.status_code == 201, hook.json
    poll, out = in_thread(
        lambda: slow.test_client().get(
            FEED, query_string={"wait": 20}, headers=bearer(backend.tokens[1]["token"])
        )
    )
    wait_for_waiters(slow, 1)
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url}
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "apps", "revoke", backend.id],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    poll.join(SOON)
    assert not poll.is_alive() and out[0].status_code == 401
    assert out[0].json["details"] == {"reason": "app_revoked"}
    services = slow.extensions["tabletop"]
    from service.domain.matchmaking.making import app_caller

    assert services.seeks.get(app_caller(backend.id), seek.json["id"])["status"] == "cancelled"
    assert services.challenges.get(app_caller(backend.id), challenge.json["id"])["status"] == "cancelled"
    [endpoint] = services.webhooks.endpoints(backend.id)
    assert endpoint["status"] == "disabled" and endpoint["disabled_reason"] == "app_revoked"
