"""The web client's "Notify me" (issue 48 point 3) in real headless Chromium against a real server: the
match page of a player (a player token in the fragment) registers the service worker (/play/sw.js,
scope /play/), asks the notifications permission (granted to the context), subscribes with the server's
VAPID public key and registers the subscription with the API; a real move then queues the player's
``your_turn``, a push-lane worker sends it encrypted to a push-service stand-in on loopback, which
decrypts it with the subscription's keys; that payload, handed to the service worker as a push message
(Chrome DevTools' ``ServiceWorker.deliverPushMessage``), is shown as a notification.  "Stop
notifications" deletes the subscription.  A seat token's page offers no button.

What is not real here: headless Chromium has no push service of its own (``PushManager.subscribe``
needs Google's, unreachable from this closed network, and fails with ``AbortError``), so the page's
``pushManager.subscribe``/``getSubscription`` are a test double (an init script) that returns a
subscription whose endpoint is the stand-in and whose keys the test generated; it records the
``applicationServerKey`` the page passed, which must be the server's public key.  Everything else (the
service worker, the permission prompt, the API calls, the encryption, the signature, the decryption,
the notification) is the real thing."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from playwright.sync_api import Browser, Page

from bench.api import free_port, start_server
from devtools.private_redis import PrivateRedis
from service.config import Config
from service.domain.push.messages import topic
from service.wiring import build
from tests.e2e.browser import confine, launch
from tests.reliability.processes import kill_tree
from tests.service.test_push import BrowserKeys, check_vapid
from tests.workers.test_push_delivery import PushService
from workers import jobs
from workers.worker import LaneWorker

ADMIN = "admin-token-of-the-push-test"
pytestmark = pytest.mark.timeout(120)

#: The test double of the browser's push service (see the module): a subscription at ``endpoint`` with
#: ``keys``; the key the page subscribed with is kept in ``window.__pushKey``.
DOUBLE = """
(() => {
  const {endpoint, keys} = %s;
  let current = null;
  const make = (options) => ({
    endpoint, options, expirationTime: null,
    toJSON: () => ({endpoint, expirationTime: null, keys}),
    unsubscribe: async () => { current = null; return true; },
  });
  PushManager.prototype.subscribe = async function (options) {
    window.__pushKey = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)))
      .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    const {applicationServerKey, userVisibleOnly} = options;
    current = make({applicationServerKey, userVisibleOnly});
    return current;
  };
  PushManager.prototype.getSubscription = async function () { return current; };
})();
"""


def call(base: str, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=10) as resp:
        text = resp.read()
    return json.loads(text) if text else None


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, str]]:
    """gunicorn on a private Redis, loopback push services allowed (as in development mode)."""
    with PrivateRedis() as redis_url:
        port = free_port()
        proc = start_server(redis_url, port, workers=1, admin_token=ADMIN, webhook_allow_http="true",
                            webhook_allow_private="true")  # fmt: skip
        try:
            yield f"http://127.0.0.1:{port}", redis_url
        finally:
            kill_tree(proc)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def test_notify_me_subscribes_the_page_and_the_service_worker_shows_a_pushed_turn(
    browser: Browser, server: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, redis_url = server
    app = call(base, "POST", "/v1/admin/apps", ADMIN, {"name": "push-e2e"})
    key = app["key"]
    tokens = {}
    for pid in ("ann", "bob"):
        call(base, "PUT", f"/v1/players/{pid}", key, {"name": pid.title()})
        tokens[pid] = call(base, "POST", f"/v1/players/{pid}/tokens", key, {})["token"]
    match = call(
        base,
        "POST",
        "/v1/matches",
        key,
        {"game": "year_of_dragon", "seats": [{"player": "ann"}, {"player": "bob"}]},
    )
    push_service = PushService()
    keys = BrowserKeys()
    endpoint = push_service.endpoint("bob", keys)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        context.grant_permissions(["notifications"], origin=base)
        context.add_init_script(DOUBLE % json.dumps({"endpoint": endpoint, "keys": keys.keys}))
        page = context.new_page()
        outside: list[str] = []
        errors: list[str] = []
        confine(page, base, outside)
        page.on("pageerror", lambda e: errors.append(str(e)))
        _seat_token_page_has_no_button(page, base, match)
        page.goto(f"{base}/play/{match['id']}#token={tokens['bob']}")
        page.wait_for_selector("body[data-ready]")
        page.wait_for_selector("#notify:not([hidden])")
        assert page.text_content("#notify-me") == "Notify me"
        page.click("#notify-me")
        page.wait_for_selector("#notify[data-state=on]", timeout=15_000)
        assert page.text_content("#notify-me") == "Stop notifications"
        assert "notified" in (page.text_content("#notify-status") or "")
        public = call(base, "GET", "/v1/push/vapid-public-key")["public_key"]
        assert page.evaluate("window.__pushKey") == public  # subscribed with the server's key
        scope = page.evaluate(
            "navigator.serviceWorker.getRegistration('/play/').then(r => r && r.active ? r.scope : null)"
        )
        assert scope == f"{base}/play/"
        [sub] = call(base, "GET", "/v1/me/push-subscriptions", tokens["bob"])["subscriptions"]
        assert sub["endpoint"] == endpoint and sub["types"] == ["your_turn", "challenge_received",
                                                                 "match_over", "clock_warning"]  # fmt: skip

        # A real move hands bob the turn; the push lane's worker sends it, encrypted for this browser.
        version = _hand_bob_the_turn(base, match["id"], tokens)
        config = Config(redis_url=redis_url, webhook_allow_http=True, webhook_allow_private=True)
        monkeypatch.setattr(jobs, "_wired", build(config))
        LaneWorker(["push"], connection=redis.Redis.from_url(redis_url)).work(
            burst=True, logging_level="WARNING"
        )
        push_service.wait(lambda: any(p.payload["data"]["version"] == version for p in push_service.got), 10)
        pushed = next(p for p in push_service.got if p.payload["data"]["version"] == version)
        check_vapid(pushed.headers["authorization"], public, push_service.origin, config.vapid_subject)

        # The service worker shows it (the browser would hand it the payload it decrypted).
        cdp = context.new_cdp_session(page)
        found: list[dict[str, Any]] = []
        cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: found.extend(e["registrations"]))
        cdp.send("ServiceWorker.enable")
        deadline = time.monotonic() + 10
        while not any(r["scopeURL"] == f"{base}/play/" for r in found):
            assert time.monotonic() < deadline, found
            page.wait_for_timeout(50)
        registration = next(r for r in found if r["scopeURL"] == f"{base}/play/")
        shown: list[dict[str, Any]] = []
        # DevTools' delivery is the browser push service's stand-in, and on a loaded machine Chromium may
        # drop one that comes while it starts the worker: delivered again (the tag keeps one notification).
        for _attempt in range(3):
            cdp.send("ServiceWorker.deliverPushMessage", {"origin": base, "registrationId":
                     registration["registrationId"], "data": json.dumps(pushed.payload)})  # fmt: skip
            deadline = time.monotonic() + 8
            while not shown and time.monotonic() < deadline:
                shown = page.evaluate(
                    """navigator.serviceWorker.getRegistration('/play/').then(r => r.getNotifications())
                       .then(ns => ns.map(n => ({title: n.title, body: n.body, tag: n.tag, data: n.data})))"""
                )
                page.wait_for_timeout(50)
            if shown:
                break
        assert shown, "no notification shown after 3 deliveries"
        [note] = shown
        assert note["title"] == "Your turn" and "Year of the Dragon" in note["body"]
        assert (
            note["tag"] == topic("your_turn", match["id"]) and note["data"]["url"] == f"/play/{match['id']}"
        )

        # Stop notifications: the subscription is deleted.
        page.click("#notify-me")
        page.wait_for_selector("#notify[data-state=off]")
        assert call(base, "GET", "/v1/me/push-subscriptions", tokens["bob"])["subscriptions"] == []
        assert not outside, f"the client reached outside the server: {outside}"
        assert not errors, f"script errors: {errors}"
    finally:
        context.close()
        push_service.stop()


def _seat_token_page_has_no_button(page: Page, base: str, match: dict[str, Any]) -> None:
    """An anonymous seat has no player to notify: no button."""
    anon = call(
        base, "POST", "/v1/matches", None, {"game": "year_of_dragon", "seats": [{"name": "a"}, {"name": "b"}]}
    )
    page.goto(f"{base}/play/{anon['id']}#token={anon['tokens'][0]['token']}")
    page.wait_for_selector("body[data-ready]")
    page.wait_for_timeout(200)
    assert page.is_hidden("#notify")


def _hand_bob_the_turn(base: str, match_id: str, tokens: dict[str, str]) -> int:
    """Ann and bob play their first legal action until a move of ann's gives bob the turn."""
    seats = {0: "ann", 1: "bob"}
    for _ in range(100):
        now = call(base, "GET", f"/v1/matches/{match_id}", tokens["ann"])
        mover = seats[now["to_move"]]
        legal = call(base, "GET", f"/v1/matches/{match_id}/legal-actions", tokens[mover])
        req = urllib.request.Request(
            f"{base}/v1/matches/{match_id}/actions", method="POST",
            data=json.dumps({"action": legal["actions"][0]}).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {tokens[mover]}",
                     "If-Match": f'"{legal["version"]}"'},
        )  # fmt: skip
        with urllib.request.urlopen(req, timeout=10):
            pass
        after = call(base, "GET", f"/v1/matches/{match_id}", tokens["ann"])
        if mover == "ann" and after["to_move"] == 1:
            return int(after["version"])
    raise AssertionError("bob's turn never came")
