"""The match page's chat panel (issue 47 point 2) in real headless Chromium, against a real server and
Redis: messages written to break out of their text (an ``<img onerror>``, a ``<script>``) and a seat
name made of markup are shown literally, and no script of theirs runs, whether the message was on the
page's first read, came live on the match's event stream, or was typed in the panel."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from bench.api import free_port, start_server
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from tests.e2e.browser import confined_page, launch
from tests.reliability.processes import kill_tree

GAME = "china"
IMG = '<img src=x onerror="window.__pwned = 1">'
SCRIPT = "<script>window.__pwned = 2</script>"
LIVE = "<b onmouseover=alert(1)>live</b>"
TYPED = "<svg onload=window.__pwned=3>"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """gunicorn on a private Redis (no worker: only people play here)."""
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, workers=1)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            kill_tree(server)


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    yield from confined_page(browser, base_url)


def call(url: str, body: dict[str, Any], token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as resp:
        return json.loads(resp.read())


def test_messages_and_names_show_as_text_and_no_script_of_theirs_runs(page: Page, base_url: str) -> None:
    names = ["Ann", "<i>Bob</i>", *(f"P{n}" for n in range(2, GAMES[GAME].min_players))]
    created = call(f"{base_url}/v1/matches", {"game": GAME, "seats": [{"name": n} for n in names]})
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    chat = f"{base_url}/v1/matches/{created['id']}/chat"
    for text in (IMG, SCRIPT):
        call(chat, {"channel": "players", "text": text}, tokens[1])
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))

    page.goto(f"{base_url}/play/{created['id']}#token={tokens[0]}")
    items = page.locator("#chat-messages li")
    items.nth(1).wait_for(timeout=20_000)
    call(chat, {"channel": "players", "text": LIVE}, tokens[1])  # on the event stream, while the page is open
    items.nth(2).wait_for(timeout=20_000)
    page.fill("#chat-text", TYPED)
    page.click("#chat-send")
    items.nth(3).wait_for(timeout=20_000)

    assert [t.strip() for t in page.locator("#chat-messages .chat-text").all_inner_texts()] == [
        IMG,
        SCRIPT,
        LIVE,
        TYPED,
    ]
    assert page.locator("#chat-messages .chat-name").all_inner_texts()[:3] == ["<i>Bob</i>"] * 3
    box = page.locator("#chat-box")
    for tag in ("img", "script", "b", "i", "svg"):
        assert box.locator(tag).count() == 0, tag
    page.hover("#chat-messages li >> nth=2")
    assert page.evaluate("() => window.__pwned") is None
    assert dialogs == []
