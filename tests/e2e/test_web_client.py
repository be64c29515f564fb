"""The reference web client (/play) in real headless Chromium, against a real server, Redis and bot
worker: for every game a person starts a match against bots on the start page and plays it to the
result by clicking the first legal choice each time; a spectator watches an all-bot match to its
result; a crafted move is refused and the page shows the rule it broke.  Screenshots of every board go
to docs/ (the README shows them).  The pages may reach nothing but the server (checked on every page)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Browser, Page

from bench.api import free_port, start_server
from engine.registry import GAMES
from service.client import Client
from service.devredis import PrivateRedis
from tests.e2e.browser import SCREENSHOT_DIR, confine, launch

ROOT = Path(__file__).resolve().parents[2]
#: Each game with the fewest players it allows: the shortest matches.
PLAYERS = {game_id: GAMES[game_id].min_players for game_id in GAMES}
#: A screenshot of each board is taken after this many of the person's moves (mid-game; in the Year
#: of the Dragon while the month's action groups are out).
SCREENSHOT_AFTER = {"year_of_dragon": 9}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """gunicorn on a private Redis, and a bot worker."""
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, workers=1)
        env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_LOG_LEVEL": "WARNING",
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            worker.terminate()
            worker.wait(timeout=30)
            server.terminate()
            server.wait(timeout=30)


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    """A page that may reach only the server, failing the test on a script error or any other request."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    outside: list[str] = []
    errors: list[str] = []

    confine(pg, base_url, outside)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not outside, f"the client reached outside the server: {outside}"
    assert not errors, f"script errors: {errors}"


def start_from_the_start_page(
    page: Page, base_url: str, game_id: str, per_move_seconds: int | None = None
) -> tuple[str, str]:
    """Fills /play: the game, the fewest players, seat 0 for me and `random` bots, and a clock if asked
    for; returns (id, token)."""
    page.goto(f"{base_url}/play")
    page.wait_for_selector("body[data-ready]")
    page.select_option("#game", game_id)
    page.wait_for_function(
        "n => document.querySelector(`#players option[value='${n}']`) !== null", arg=PLAYERS[game_id]
    )
    page.select_option("#players", str(PLAYERS[game_id]))
    assert page.locator("#seat-kind-0").input_value() == "you"
    for seat in range(1, PLAYERS[game_id]):
        page.select_option(f"#seat-kind-{seat}", "bot:random")
    if per_move_seconds is not None:
        page.fill("#per-move", str(per_move_seconds))
    page.click("#start")
    page.wait_for_url("**/play/*#token=*")
    page.wait_for_selector("body[data-ready]")
    url = urlparse(page.url)
    token = parse_qs(url.fragment)["token"][0]
    return url.path.rsplit("/", 1)[1], token


def play_by_clicking(page: Page, shot: Path | None, shot_after: int = 12) -> int:
    """Clicks the first legal choice whenever it is my turn, until the result shows; returns my moves."""
    page.wait_for_selector("body[data-ready]")
    moves = 0
    last = ""
    deadline = time.monotonic() + 400
    while True:
        assert time.monotonic() < deadline, f"no result after {moves} moves"
        handle = page.wait_for_function(
            """last => {
                if (!document.getElementById('result').hidden) return 'done';
                const list = document.getElementById('actions');
                const button = list.querySelector('button.action:not([disabled])');
                const fresh = list.dataset.version && list.dataset.version !== last;
                return fresh && button ? list.dataset.version : null;
            }""",
            arg=last,
            timeout=60_000,
        )
        version = handle.json_value()
        if version == "done":
            return moves
        page.locator("#actions button.action:not([disabled])").first.click()
        last = version
        moves += 1
        if shot is not None and moves == shot_after:
            page.wait_for_function("v => document.getElementById('actions').dataset.version !== v", arg=last)
            page.screenshot(path=str(shot), full_page=True)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_person_plays_a_whole_match_against_bots_by_clicking(page, base_url, game_id, tmp_path):
    match_id, token = start_from_the_start_page(page, base_url, game_id)
    assert page.locator("svg.board-svg").count() == 1
    assert page.locator("#summary li").count() >= 3  # the board in words
    shot = Path(SCREENSHOT_DIR or tmp_path) / f"board-{game_id}.png"
    moves = play_by_clicking(page, shot, SCREENSHOT_AFTER.get(game_id, 12))
    assert shot.stat().st_size > 10_000
    api = Client(base_url)
    done = api.match(match_id, token)
    assert done["status"] == "finished"
    log = api.log(match_id)
    mine = [e for e in log["entries"] if e["seat"] == 0]
    assert moves == len(mine) > 0  # every click was one accepted move, and no move was made for me
    result = page.locator("#result")
    winners = done["result"].get("winners") or done["result"]["ranking"][:1]
    names = {s["seat"]: s["name"] for s in done["seats"]}
    assert all(names[w] in result.locator(".winners").inner_text() for w in winners)
    page.wait_for_function("n => document.querySelectorAll('#log li').length >= n", arg=len(log["entries"]))
    assert "The match is over" in page.locator("#status").inner_text()


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_spectator_watches_an_all_bot_match_to_its_result(page, base_url, game_id):
    """The page opens (without a token: no choices, the spectator's board) while seat 0 is still a
    person's, so the match cannot be over yet; the person resigns, a bot takes the seat, and the page
    follows the all-bot match by its event long-poll alone to the result."""
    api = Client(base_url)
    seats = [{"name": "leaver"}]
    seats += [{"name": f"bot {i}", "kind": "bot", "level": "random"} for i in range(1, PLAYERS[game_id])]
    created = api.create_match(game_id, seats)
    page.goto(f"{base_url}/play/{created['id']}")
    page.wait_for_selector("body[data-ready]")
    assert page.locator("#status").inner_text().startswith("Waiting for")  # live, not yet over
    assert page.locator("svg.board-svg").count() == 1
    api.request("POST", f"/v1/matches/{created['id']}/resign", token=created["tokens"][0]["token"])
    page.wait_for_selector("#result:not([hidden])", timeout=240_000)
    done = api.match(created["id"])
    assert done["status"] == "finished"
    assert page.locator("#choices").is_hidden()
    winners = done["result"].get("winners") or done["result"]["ranking"][:1]
    text = page.locator("#result .winners").inner_text()
    assert all(done["seats"][w]["name"] in text for w in winners)
    moves = len(api.log(created["id"])["entries"])  # every move is an event the page writes in words
    page.wait_for_function("n => document.querySelectorAll('#log li').length >= n", arg=moves)


def test_a_crafted_move_is_refused_with_its_rule_and_a_hint_is_shown(page, base_url):
    """China: three cards cannot pay for one piece (R28); the page names the rule and quotes its text.
    The hint button marks the bot's suggestion among the choices; the clock chosen counts down."""
    match_id, token = start_from_the_start_page(page, base_url, "china", per_move_seconds=600)
    page.wait_for_selector("#actions button.action:not([disabled])", timeout=60_000)
    assert Client(base_url).match(match_id, token)["clock"]["per_move_seconds"] == 600
    assert page.locator("#clock").inner_text().startswith(("9 min", "10 min"))
    page.click("#hint")
    page.wait_for_selector("#actions button.action.hinted", timeout=60_000)
    assert page.locator("#hint-out").inner_text().startswith("Suggested:")
    # Choices on the board: a space the legal actions name narrows the list to them (keyboard: Enter).
    space = page.locator("#board [data-key].choosable").first
    key = space.get_attribute("data-key")
    space.focus()
    page.keyboard.press("Enter")
    shown = [
        json.loads(b.get_attribute("data-action") or "{}")
        for b in page.locator("#actions li:visible button").all()
    ]
    assert shown and all(key in (str(v) for v in a.values()) for a in shown)
    assert len(shown) < page.locator("#actions button.action").count()
    page.click("#narrowed button")
    version = Client(base_url).match(match_id, token)["version"]
    target = page.locator("#actions button.action").first.get_attribute("data-action")
    assert target is not None
    crafted = {"type": "place", "piece": "house", "target": json.loads(target).get("target", "WEI1"),
               "pay": "violet+violet+violet"}  # fmt: skip
    page.click("#raw summary")
    page.fill("#raw-action", json.dumps(crafted))
    page.click("#raw-form button[type=submit]")
    refusal = page.locator("#refusal")
    refusal.wait_for(state="visible")
    quoted = refusal.locator(".refusal-rule").inner_text()
    assert quoted.startswith("Rule R28: ")
    with urllib.request.urlopen(f"{base_url}/v1/games/china/rules") as resp:
        rules = " ".join(resp.read().decode().replace("*", "").split())
    assert len(quoted) > 40 and quoted.removeprefix("Rule R28: ")[:40] in rules  # R28's own text
    assert Client(base_url).match(match_id, token)["version"] == version  # nothing was played


def test_two_people_in_two_browsers_invite_join_resign_and_play_on(browser, base_url, page):
    """The creator leaves seat 1 open in a private match and sends its invitation link; a second browser
    joins through it; both pages go live; the guest resigns (a bot takes the seat) and the creator plays
    to the result by clicking."""
    page.goto(f"{base_url}/play")
    page.wait_for_selector("body[data-ready]")
    page.select_option("#game", "year_of_dragon")
    page.wait_for_function("() => document.querySelector(\"#players option[value='2']\") !== null")
    page.select_option("#players", "2")
    page.select_option("#seat-kind-1", "open")
    page.select_option("#visibility", "private")
    page.click("#start")
    invite = page.locator("#invite-links a.invite").first
    invite.wait_for()
    invite_url = invite.get_attribute("href")
    assert invite_url is not None and "#invite=" in invite_url
    page.click("#own-seat")
    page.wait_for_selector("body[data-ready]")
    assert page.locator("#status").inner_text() == "Waiting for players."
    guest_context = browser.new_context()
    guest = guest_context.new_page()
    try:
        guest.goto(invite_url)
        guest.wait_for_selector("#join-form")
        guest.fill("#join-name", "guest")
        guest.click("#join-form button[type=submit]")
        guest.wait_for_function("() => location.hash.includes('token=')")
        guest.wait_for_selector("#players tr:has-text('guest') >> text=you")
        # The creator's page learns of the join from the event stream alone.
        page.wait_for_function(  # a minute: a loaded CI machine shares two cores with gunicorn and Chromium
            "() => !['Waiting for players.', ''].includes(document.getElementById('status').textContent)",
            timeout=60_000,
        )
        guest.click("#resign")
        guest.click("#resign")  # the second press confirms
        guest.wait_for_selector("#players tr:has-text('bot')")
        assert play_by_clicking(page, None) > 0
        guest.wait_for_selector("#result:not([hidden])", timeout=60_000)
    finally:
        guest_context.close()
    match_id = urlparse(page.url).path.rsplit("/", 1)[1]
    done = Client(base_url).match(match_id)
    assert done["status"] == "finished" and done["resigned"] == [1]
    assert done["seats"][1]["kind"] == "bot"


def test_the_pages_are_static_files_under_a_strict_policy(base_url):
    """/play and /play/{id} are the client's own files; they may run only their own scripts (no inline
    script, no eval), call only this origin, and nothing outside service/web is served."""
    for path in ("/play", "/play/0123abcd", "/play/static/match.js", "/play/static/dom.js"):
        with urllib.request.urlopen(f"{base_url}{path}") as resp:
            csp = resp.headers["Content-Security-Policy"]
            body = resp.read().decode().replace("http://www.w3.org/2000/svg", "")  # a name, not a fetch
        assert "script-src 'self';" in csp and "unsafe" not in csp and "connect-src 'self'" in csp
        assert "http://" not in body and "https://" not in body  # no CDN, works offline
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{base_url}/play/static/../api/webclient.py")
    assert missing.value.code == 404
