"""The reference web client (/play) in real headless Chromium, against a real server, Redis and bot
worker: for every game a person starts a match against bots on the start page and plays it to the
result by clicking the first legal choice each time (on a desktop; on a phone the first 20 moves, where
the layout is what is checked); a spectator watches an all-bot match to its
result; a crafted move is refused and the page shows the rule it broke.  Screenshots of every board go
to docs/ (the README and docs/web-client.md show them).  The pages may reach nothing but the server
(checked on every page)."""

from __future__ import annotations

import contextlib
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
from playwright.sync_api import APIResponse, Browser, Page, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.api import free_port, start_server
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from tabletop_client import Client
from tests.e2e.browser import SCREENSHOT_DIR, confined_page, launch
from tests.reliability.processes import kill_tree

ROOT = Path(__file__).resolve().parents[2]
#: Each game with the fewest players it allows: the shortest matches.
PLAYERS = {game_id: GAMES[game_id].min_players for game_id in GAMES}
#: A screenshot of each board is taken after this many of the person's moves (mid-game; in the Year
#: of the Dragon at the first decision after them while the month's action groups are out).
SCREENSHOT_AFTER = {"year_of_dragon": 6}
SCREENSHOT_WHEN = {"year_of_dragon": "() => document.querySelector('#board [data-key^=\"group:\"]') !== null"}
#: The viewports a person plays in: a desktop's and a phone's (390x844 CSS pixels); screenshots of the
#: phone's are named board-<game>-phone.png.
VIEWPORTS = {"desktop": {"width": 1400, "height": 1000}, "phone": {"width": 390, "height": 844}}


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
        finally:  # SIGKILL: nothing here checks how they stop, and a warm stop takes seconds
            kill_tree(worker)
            kill_tree(server)


@pytest.fixture
def page(browser: Browser, base_url: str) -> Iterator[Page]:
    """A page that may reach only the server, failing the test on a script error or any other request."""
    yield from confined_page(browser, base_url)


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


def shown(page: Page) -> str:
    """What a page shows of the match, for a test that waited in vain: its status, the version drawn,
    its choices and the last events it read."""
    return str(
        page.evaluate(
            """() => ({
                status: document.getElementById('status').textContent,
                drawn: document.body.dataset.version,
                choices: document.getElementById('actions').dataset.version,
                enabled: document.querySelectorAll('#actions button.action:not([disabled])').length,
                disabled: document.querySelectorAll('#actions button.action[disabled]').length,
                lifecycle: document.getElementById('lifecycle').innerText,
                events: [...document.querySelectorAll('#log li')].slice(-6).map((li) => li.textContent),
            })"""
        )
    )


def play_by_clicking(
    page: Page, shot: Path | None, shot_after: int = 12, shot_when: str = "() => 1", limit: int | None = None
) -> int:
    """Clicks the first legal choice whenever it is my turn, until the result shows (or, with ``limit``,
    until that many moves are made and the screenshot is taken); returns my moves.  A refused click fails
    at once (every choice the page offers must be current), rather than waiting for a fresh list that a
    refused move never brings."""
    page.wait_for_selector("body[data-ready]")
    moves = 0
    last = ""
    deadline = time.monotonic() + 400
    while True:
        assert time.monotonic() < deadline, f"no result after {moves} moves"
        try:
            handle = page.wait_for_function(
                """last => {
                    if (!document.getElementById('result').hidden) return 'done';
                    if (!document.getElementById('refusal').hidden) return 'refused';
                    const list = document.getElementById('actions');
                    const button = list.querySelector('button.action:not([disabled])');
                    const fresh = list.dataset.version && list.dataset.version !== last;
                    return fresh && button ? list.dataset.version : null;
                }""",
                arg=last,
                timeout=60_000,
            )
        except PlaywrightTimeout:
            raise AssertionError(f"no fresh choices in a minute after {moves} moves: {shown(page)}") from None
        version = handle.json_value()
        if version == "done" or (limit is not None and moves >= limit and shot is None):
            return moves
        assert version != "refused", f"move {moves} refused: {page.locator('#refusal').inner_text()}"
        page.locator("#actions button.action:not([disabled])").first.click()
        last = version
        moves += 1
        if shot is not None and moves >= shot_after:
            page.wait_for_function("v => document.getElementById('actions').dataset.version !== v", arg=last)
            if page.evaluate(shot_when):
                # A full-page screenshot lays the page out again at other sizes for a frame or more
                # (Chromium's capture beyond the viewport; puppeteer#7251): no person's window does that
                page.evaluate("window.choicesWatchPaused = true")
                page.screenshot(path=str(shot), full_page=True)
                page.evaluate(AFTER_TWO_FRAMES)
                page.evaluate("window.choicesWatchPaused = false")
                shot = None


#: Records, every frame, where the choices list sits in the document while its buttons take clicks: a
#: list that moves while a version's choices are up moves under the pointer (a click aimed at a choice
#: lands beside it, and is lost or makes another move).  ``window.choicesMoved`` lists each move.  Not
#: watched: frames while the test takes its screenshot (``window.choicesWatchPaused``), and any frame laid
#: out at another width than the window's (CI once saw one, 2,114 px lower, in a single-column layout).
WATCH_THE_CHOICES = """() => {
    window.choicesMoved = [];
    const at = new Map();
    const width = window.innerWidth;
    const frame = () => {
        const list = document.getElementById('actions');
        const version = list.dataset.version;
        const watched = !window.choicesWatchPaused && window.innerWidth === width;
        if (watched && version && list.querySelector('button.action:not([disabled])')) {
            const top = Math.round(list.getBoundingClientRect().top + window.scrollY);
            const first = at.get(version) ?? top;
            at.set(version, first);
            if (Math.abs(first - top) > 1) window.choicesMoved.push([version, first, top]);
        }
        requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
}"""

#: Resolves after the page has drawn two more frames.
AFTER_TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def click_from_the_start_page(page: Page, base_url: str, game_id: str, viewport: str, tmp_path: Path,
                              limit: int | None = None) -> tuple[str, str, int]:  # fmt: skip
    """Starts a match against bots from /play in ``viewport`` and plays it by clicking (see
    :func:`play_by_clicking`), with a screenshot of the board on the way; returns (id, token, my moves)."""
    page.set_viewport_size(VIEWPORTS[viewport])
    match_id, token = start_from_the_start_page(page, base_url, game_id)
    assert page.locator("svg.board-svg").count() == 1
    assert page.locator("#summary li").count() >= 3  # the board in words
    assert page.evaluate("() => document.documentElement.scrollWidth") <= VIEWPORTS[viewport]["width"]  # the
    # page never scrolls sideways: only the board does, inside its own frame
    shot = Path(SCREENSHOT_DIR or tmp_path) / f"board-{game_id}{'-phone' if viewport == 'phone' else ''}.png"
    when = SCREENSHOT_WHEN.get(game_id, "() => 1")
    page.evaluate(WATCH_THE_CHOICES)
    moves = play_by_clicking(page, shot, SCREENSHOT_AFTER.get(game_id, 12), when, limit)
    # Nothing above the choices changes once they are up (the takeback box and the chat, which are drawn
    # after their own reads, sit below them): CI's lost China click was one the list moved away from.
    assert page.evaluate("window.choicesMoved") == []
    assert shot.stat().st_size > 10_000
    assert page.evaluate("() => document.documentElement.scrollWidth") <= VIEWPORTS[viewport]["width"]
    return match_id, token, moves


#: A phone plays this many moves (the layout is the question there; the desktop plays every match out).
PHONE_MOVES = 20


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_on_a_phone_the_board_fits_and_every_click_is_a_move(page, base_url, game_id, tmp_path):
    match_id, token, moves = click_from_the_start_page(
        page, base_url, game_id, "phone", tmp_path, limit=PHONE_MOVES
    )
    # play_by_clicking returned on a fresh list, so every click has landed; in play the log also lists
    # the engine's forced steps (``auto`` action events), which no click made
    _, page_of_events = Client(base_url).request("GET", f"/v1/matches/{match_id}/events", token=token)
    events = page_of_events["events"]
    clicked = [e for e in events if e["type"] == "action" and e["seat"] == 0 and not e.get("auto")]
    assert moves == len(clicked) >= min(PHONE_MOVES, 1)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_person_plays_a_whole_match_against_bots_by_clicking(page, base_url, game_id, tmp_path):
    match_id, token, moves = click_from_the_start_page(page, base_url, game_id, "desktop", tmp_path)
    api = Client(base_url)
    done = api.match(match_id, token)
    assert done["status"] == "finished"
    log = api.log(match_id, token)  # the start page's matches are private: a seat reads them
    mine = [e for e in log["entries"] if e["seat"] == 0]
    assert moves == len(mine) > 0  # every click was one accepted move, and no move was made for me
    result = page.locator("#result")
    winners = done["result"].get("winners") or done["result"]["ranking"][:1]
    names = {s["seat"]: s["name"] for s in done["seats"]}
    assert all(names[w] in result.locator(".winners").inner_text() for w in winners)
    page.wait_for_function("n => document.querySelectorAll('#log li').length >= n", arg=len(log["entries"]))
    assert "The match is over" in page.locator("#status").inner_text()
    told = page.locator("#log").inner_text()  # events read as sentences, never as raw data
    assert "null" not in told and "[[" not in told and "undefined" not in told, told[-2000:]


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


def wait_for_my_choices(page: Page, last: str) -> str:
    """Waits for a fresh list of my choices (a version other than ``last``); returns its version."""
    try:
        return page.wait_for_function(
            """last => {
                const list = document.getElementById('actions');
                const fresh = list.dataset.version && list.dataset.version !== last;
                const button = list.querySelector('button.action:not([disabled])');
                return fresh && button ? list.dataset.version : null;
            }""",
            arg=last,
            timeout=60_000,
        ).json_value()
    except PlaywrightTimeout:
        raise AssertionError(f"no fresh choices after version {last!r} in a minute: {shown(page)}") from None


@pytest.mark.parametrize(("game_id", "cards"), [("taj_mahal", "your hand"), ("china", "the display")])
def test_a_click_on_the_middle_of_a_card_chooses_it(page, base_url, game_id, cards):
    """Issue 28: the label across a card took centre clicks, so only a card's edge selected it.  Every
    card the legal actions name is clicked at its very centre, and each click narrows the choices."""
    start_from_the_start_page(page, base_url, game_id)
    last = ""
    for _ in range(30):  # my decisions until one names cards (at once in China, at the first play in Taj)
        last = wait_for_my_choices(page, last)
        if page.locator("#board .card.choosable").count():
            break
        page.locator("#actions button.action:not([disabled])").first.click()
    chosen = page.locator("#board .card.choosable")
    assert chosen.count() >= 2, f"no cards of {cards} to choose"
    for i in range(chosen.count()):
        card = chosen.nth(i)
        card.scroll_into_view_if_needed()
        box = card.bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        note = page.locator("#narrowed")
        note.wait_for(timeout=5_000)
        key = card.get_attribute("data-key")
        visible = page.locator("#actions li:visible button").all()
        shown = [json.loads(b.get_attribute("data-action") or "{}") for b in visible]
        assert shown and all(
            key in {f"{k}:{v}" for k, v in a.items()} | {str(v) for v in a.values()} for a in shown
        ), (key, shown)
        page.click("#narrowed button")  # all choices again


#: Texts of the board that overlap another text, or cross a drawn rectangle without lying inside it.
CLASHES = """() => {
    const svg = document.querySelector('#board svg.board-svg');
    if (!svg) return [['no board drawn', document.getElementById('board').innerText]];
    const box = (el) => el.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim());
    const shapes = [...svg.querySelectorAll('rect')];
    const cut = (a, b) =>
        a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const within = (a, b) =>
        a.left >= b.left - 1 && a.right <= b.right + 1 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
    const name = (r) => r.querySelector('title')?.textContent || 'a shape';
    const out = [];
    texts.forEach((t, i) => {
        const a = box(t);
        for (const u of texts.slice(i + 1)) if (cut(a, box(u))) out.push([t.textContent, u.textContent]);
        for (const r of shapes) if (cut(a, box(r)) && !within(a, box(r))) out.push([t.textContent, name(r)]);
    });
    return out;
}"""


def test_year_of_dragon_text_never_runs_over_the_drawing(page, base_url):
    """Issue 28: the player panel printed the hand over the palace drawing.  On the board, no two texts
    overlap, and a text that touches a drawn shape (a palace floor, a person, a box) lies inside it (its
    label), at both sizes."""
    for viewport in VIEWPORTS.values():
        page.set_viewport_size(viewport)
        start_from_the_start_page(page, base_url, "year_of_dragon")
        last = ""
        for _ in range(4):  # recruit the first persons, so palaces have persons and the hand is shown
            last = wait_for_my_choices(page, last)
            page.locator("#actions button.action:not([disabled])").first.click()
        wait_for_my_choices(page, last)
        clashes = page.evaluate(CLASHES)
        assert page.locator("#board text", has_text="your hand").count() >= 1
        assert not clashes, clashes


def test_a_late_answer_never_rolls_the_board_back(page, base_url):
    """Issue 23 finding 10: a refresh started by an event and one started by my move ran side by side,
    and the older answer was drawn last: the new version's board with the legal actions of the
    decision just taken.  Those buttons sent moves the server refused, and the fresh list a test (or a
    person) waited for never came.  Here the event's refresh is held in the network until my move is
    made (China: after a placement the same seat draws); every list the page draws must be the legal
    actions of the version it draws, and the versions must only go forwards."""
    api = Client(base_url)
    created = api.create_match("china", [{"name": "me"}, {"name": "second"}, {"name": "third"}])
    first = api.match(created["id"])
    token = created["tokens"][first["to_move"]]["token"]
    held: list = []
    answered = {"legal": 0}

    def hold_second_legal(route) -> None:  # type: ignore[no-untyped-def]
        answered["legal"] += 1  # the first: the page's load; the second: the first events' refresh
        if answered["legal"] == 2:
            held.append((route, route.fetch()))  # the server's answer now, delivered later
        else:
            route.continue_()

    def legal_now() -> tuple[int, list[str]]:
        doc = api.legal_actions(created["id"], token)
        return doc["version"], sorted(json.dumps(a, sort_keys=True) for a in doc["actions"])

    page.route("**/legal-actions", hold_second_legal)
    page.goto(f"{base_url}/play/{created['id']}#token={token}")
    page.wait_for_selector("body[data-ready]")
    wait_until(page, lambda: bool(held), "the events' refresh to ask for the legal actions")
    page.evaluate("""() => {
        window.drawn = [];
        new MutationObserver(() => window.drawn.push([Number(document.body.dataset.version),
            [...document.querySelectorAll('#actions button.action')].map(b => b.dataset.action)]))
            .observe(document.body, {attributes: true, attributeFilter: ['data-version']});
    }""")
    legal = dict([legal_now()])
    page.locator("#actions button.action:not([disabled])").first.click()
    wait_until(page, lambda: api.match(created["id"])["version"] > first["version"], "the move")
    legal.update([legal_now()])
    with contextlib.suppress(PlaywrightTimeout):  # the unfixed page draws the move's answer at once;
        # the fixed one holds it until the older refresh is over (and then draws only the newer)
        page.wait_for_function("v => window.drawn.some(d => d[0] > v)", arg=first["version"], timeout=3000)
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "/legal-actions" in r.url else None)
    route, answer = held[0]
    route.fulfill(response=answer)  # the older answer arrives last
    current = max(legal)
    wait_until(page, lambda: bool(asked), "a refresh after the older answer")
    page.wait_for_function("v => window.drawn.length && window.drawn.at(-1)[0] === v", arg=current)
    drawn = page.evaluate("() => window.drawn")
    versions = [v for v, _ in drawn]
    assert versions == sorted(versions), f"versions drawn, in order: {versions}"
    for version, actions in drawn:
        canonical = sorted(json.dumps(json.loads(a), sort_keys=True) for a in actions)
        assert canonical == legal[version], f"version {version} drawn with another version's actions"
    assert page.locator("#refusal").is_hidden()


def wait_until(page: Page, condition, what: str, seconds: float = 30) -> None:  # type: ignore[no-untyped-def]
    """Wait for ``condition`` (checked in Python) while the page and its routes keep running."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        page.wait_for_timeout(50)  # lets playwright serve the page's routed requests meanwhile


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
        page.wait_for_selector("#players tr:has-text('bot')")  # the creator's page has the resignation too:
        # a click on the version before it is (rightly) refused as stale
        assert play_by_clicking(page, None) > 0
        guest.wait_for_selector("#result:not([hidden])", timeout=60_000)
    finally:
        guest_context.close()
    match_id = urlparse(page.url).path.rsplit("/", 1)[1]
    seat_token = parse_qs(urlparse(page.url).fragment)["token"][0]
    done = Client(base_url).match(match_id, seat_token)  # a private match: a seat's token reads it
    assert done["status"] == "finished" and done["resigned"] == [1]
    assert done["seats"][1]["kind"] == "bot"


def test_choices_drawn_from_events_before_the_moves_answer_are_enabled_by_it(page, base_url):
    """A move's events can draw my next decision before the move's own answer is back (a loaded server
    and browser, CI's flake): drawn while the move was under way, its choices are disabled, and the
    answer, with nothing new to draw, must still enable them; no event would come to do it, the page
    would wait for my decision, and I for its choices.  The answer is held back until then."""
    seats = [{"name": "me"}, {"name": "bot", "kind": "bot", "level": "random"}]
    created = Client(base_url).create_match("year_of_dragon", seats)
    page.goto(f"{base_url}/play/{created['id']}#token={created['tokens'][0]['token']}")
    last = wait_for_my_choices(page, "")
    held: list[tuple[Route, APIResponse]] = []
    # The move goes to the server; its answer waits here.
    page.route("**/v1/matches/*/actions", lambda route: held.append((route, route.fetch())))
    page.locator("#actions button.action:not([disabled])").first.click()
    drawn = page.wait_for_function(  # my next decision, from the move's events alone
        """last => {
            const list = document.getElementById('actions');
            const fresh = list.dataset.version && list.dataset.version !== last;
            return fresh && list.querySelector('button.action') ? list.dataset.version : null;
        }""",
        arg=last,
        timeout=60_000,
    ).json_value()
    wait_until(page, lambda: held, "the move's answer")
    assert len(held) == 1 and page.locator("#actions button.action:not([disabled])").count() == 0
    page.evaluate("() => { window.drawnFirst = document.querySelector('#actions button.action'); }")
    route, answer = held[0]
    route.fulfill(response=answer)
    page.wait_for_selector("#actions button.action:not([disabled])", timeout=20_000)
    assert page.locator("#actions").get_attribute("data-version") == drawn
    # The answer's redraw, at the same version, kept the buttons (enabled them): a button replaced
    # while pressed takes no click (pressed on the old one, released on the new), which lost CI's clicks.
    assert page.evaluate("() => window.drawnFirst === document.querySelector('#actions button.action')")


def my_moves(base_url: str, match_id: str, token: str) -> int:
    """Seat 0's moves in the match's log (the server's count, not the page's)."""
    return sum(1 for e in Client(base_url).log(match_id, token)["entries"] if e["seat"] == 0)


def test_a_move_lost_on_the_way_is_sent_again_once_and_a_lost_connection_is_said(page, base_url):
    """A click whose request fails on the way (here: the server played the move, and the answer was
    lost) is sent again under the same Idempotency-Key, so it is played once and the page goes on; a
    move that never gets through says so and offers the choices again (it was silent before: the page
    drew the same choices, CI's Year of the Dragon flake had exactly that picture)."""
    seats = [{"name": "me"}, {"name": "bot", "kind": "bot", "level": "random"}]
    created = Client(base_url).create_match("year_of_dragon", seats)
    match_id, token = created["id"], created["tokens"][0]["token"]
    page.goto(f"{base_url}/play/{match_id}#token={token}")
    last = wait_for_my_choices(page, "")
    keys: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            route.fetch()  # the server plays the move...
            route.abort("connectionreset")  # ...and its answer never arrives
        else:
            route.continue_()

    page.route("**/v1/matches/*/actions", lose_the_first_answer)
    page.locator("#actions button.action:not([disabled])").first.click()
    last = wait_for_my_choices(page, last)
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) == 32, keys
    assert my_moves(base_url, match_id, token) == 1
    assert page.locator("#refusal").is_hidden()

    page.unroute("**/v1/matches/*/actions")
    tries: list[str] = []
    page.route("**/v1/matches/*/actions", lambda route: (tries.append("x"), route.abort("connectionreset")))
    page.locator("#actions button.action:not([disabled])").first.click()
    page.wait_for_selector("#refusal:not([hidden])", timeout=20_000)
    assert "Move not sent" in page.locator("#refusal").inner_text()
    assert len(tries) == 5  # the first try and four resends
    page.wait_for_selector("#actions button.action:not([disabled])", timeout=20_000)
    assert page.locator("#actions").get_attribute("data-version") == last  # nothing was played
    assert my_moves(base_url, match_id, token) == 1


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
