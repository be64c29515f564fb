"""The web client's replay (/play/{id}, "Replay"), in real headless Chromium against a real server, Redis
and bot worker (the web client tests' module fixtures).  A finished all-bot match replays: the arrow keys
and buttons step forward and back (the move shown and the board change, and come back), the list of moves
and the slider jump, and the view switches between seats and the spectator; the page reads the record once
per view and stepping asks the server nothing.  A seat of a match in play replays its own past decisions:
it is offered its own view and the spectator's only, and the spectator's view shows no hand.  A match with
a takeback (issue 47) replays its live line: the taken-back decision is no step, the steps are numbered
1, 2, ... along the decisions in force, and the list of moves and the step it went back to say who took
back what."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from tabletop_client import Client
from tests.e2e import test_web_client as web
from tests.e2e.test_web_lifecycle import to_a_takeback

#: The web client tests' fixtures: a Chromium, a server with a worker, and a page confined to it.
browser, base_url, page = web.browser, web.base_url, web.page

pytestmark = pytest.mark.timeout(300)

#: The shortest matches (about 75 decisions for two random bots), with a hand each seat keeps secret.
GAME = "year_of_dragon"


def record(api: Client, match_id: str, query: str, token: str | None = None) -> dict[str, Any]:
    status, doc = api.request("GET", f"/v1/matches/{match_id}/record?include=views&{query}", token=token)
    assert status == 200
    assert isinstance(doc, dict)
    return doc


def board(page: Page) -> str:
    """The board shown: the replay's while it is open (the live one is hidden then), else the live one."""
    replaying = page.locator("body").get_attribute("data-replay-step") is not None
    shown = page.locator("#replay-board" if replaying else "#board")
    assert shown.is_visible() and page.locator("#board" if replaying else "#replay-board").is_hidden()
    return shown.inner_html()


def open_replay(page: Page, url: str, live: str = "svg.board-svg") -> list[str]:
    """Opens ``url``, waits for ``live`` on the live page, presses "Replay" and waits for the first step
    drawn; returns the record requests the page makes from then on (a list the test reads later)."""
    page.goto(url)
    page.wait_for_selector("body[data-ready]")
    page.wait_for_selector(live)
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if "/record" in r.url else None)
    page.click("#replay-open")
    page.wait_for_selector("body[data-replay-step]")
    return reads


def at_step(page: Page, step: int) -> None:
    page.wait_for_selector(f"body[data-replay-step='{step}']")
    assert page.locator("#replay-slider").input_value() == str(step)
    assert page.locator("#replay-moves button[aria-current]").get_attribute("data-step") == str(step)


def test_a_finished_bot_match_replays_step_by_step_from_each_view(page, base_url):
    api = Client(base_url)
    seats = [{"name": f"bot {i}", "kind": "bot", "level": "random"} for i in range(2)]
    match_id = api.create_match(GAME, seats)["id"]
    assert api.wait_finished(match_id, timeout=240)["status"] == "finished"
    spectator = record(api, match_id, "as=spectator")
    n = len(spectator["decisions"])
    assert n > 10
    reads = open_replay(page, f"{base_url}/play/{match_id}")
    at_step(page, 0)  # a finished match replays from its start
    assert page.locator("#replay-position").inner_text() == f"Start ({n} moves)"
    assert page.locator("#replay-moves button").count() == n + 1
    assert page.locator("#replay-perspective").input_value() == "spectator"  # no seat: the spectator's
    offered = page.eval_on_selector_all("#replay-perspective option", "os => os.map((o) => o.value)")
    assert offered == ["seat:0", "seat:1", "spectator"]
    start = board(page)
    page.keyboard.press("ArrowRight")
    at_step(page, 1)
    page.click("#replay-forward")
    at_step(page, 2)
    assert page.locator("#replay-position").inner_text() == f"Move 2 of {n}"
    first = spectator["decisions"][1]  # the step's decision, named by its seat
    assert f"bot {first['seat']}" in page.locator("#replay-decision").inner_text()
    two = board(page)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    at_step(page, 0)
    assert board(page) == start  # back where it began: the same drawing
    assert page.locator("#replay-first").is_disabled()
    page.click(f"#replay-moves button[data-step='{n}']")  # jump to the last move: the final board
    at_step(page, n)
    assert board(page) != start and page.locator("#replay-forward").is_disabled()
    page.locator("#replay-slider").fill("2")
    at_step(page, 2)
    assert board(page) == two
    assert "your hand" not in board(page)  # the spectator sees no hand
    page.select_option("#replay-perspective", "seat:1")  # seat 1's view, at the same move
    page.wait_for_selector("body[data-replay-perspective='seat:1']")
    at_step(page, 2)
    assert "(you)" in board(page) and "your hand" in board(page)
    page.keyboard.press("End")
    at_step(page, n)
    assert len(reads) == 2 and "as=spectator" in reads[0] and "seat=1" in reads[1]  # one read per view
    page.click("#replay-close")  # the live board again: the final view, no replay state left
    page.wait_for_function("() => !document.body.dataset.replayStep")
    assert page.locator("#replay").is_hidden() and page.locator("#replay-open").is_visible()
    assert "(you)" not in board(page)


def test_a_seat_in_play_replays_its_own_past_decisions_only(page, base_url):
    """The person (seat 0) has decided a few times against a random bot; the page offers seat 0's view
    and the spectator's, starts at the latest move, steps back, and never shows seat 1's hand.  The
    match goes on meanwhile: a move of mine made elsewhere is followed by the live page, while the
    replay stays at its step and its board offers no choice."""
    api = Client(base_url)
    created = api.create_match(GAME, [{"name": "me"}, {"name": "bot", "kind": "bot", "level": "random"}])
    match_id, token = created["id"], created["tokens"][0]["token"]
    mine, after = 0, "0-0"
    while True:  # three moves of mine, then until it is my turn again
        doc = api.match(match_id, token)
        assert doc["status"] == "active"
        if doc["to_move"] == 0:
            legal = api.legal_actions(match_id, token)
            if mine >= 3:
                break
            api.move(match_id, token, legal["actions"][0], legal["version"])
            mine += 1
        else:
            after = api.events(match_id, token, after=after, wait=5)["last_id"]
    own = record(api, match_id, "", token)
    assert own["perspective"] == "seat" and own["seat"] == 0
    reads = open_replay(page, f"{base_url}/play/{match_id}#token={token}", live="#actions button.action")
    assert page.locator("#replay-open").is_hidden()
    n = len(own["decisions"])
    at_step(page, n)  # the latest move
    offered = page.eval_on_selector_all("#replay-perspective option", "os => os.map((o) => o.value)")
    assert offered == ["seat:0", "spectator"]  # no other seat's view in play
    assert page.locator("#replay-perspective").input_value() == "seat:0"
    assert page.locator("#replay-moves li.mine").count() >= 3  # my own decisions, marked
    latest = board(page)
    page.keyboard.press("ArrowLeft")
    at_step(page, n - 1)
    assert "your hand" in board(page) and "(you)" in board(page)
    before = board(page)
    api.move(match_id, token, legal["actions"][0], legal["version"])  # my move, made elsewhere: the
    page.wait_for_function("v => document.body.dataset.version !== v", arg=str(legal["version"]))  # page
    at_step(page, n - 1)  # follows it (the live board, hidden), and the replay stays where it was
    assert board(page) == before and page.locator("#replay-board .choosable").count() == 0
    page.click("#replay-first")
    at_step(page, 0)
    assert board(page) != latest
    page.select_option("#replay-perspective", "spectator")
    page.wait_for_selector("body[data-replay-perspective='spectator']")
    at_step(page, 0)
    assert "your hand" not in board(page) and "(you)" not in board(page)
    told = page.locator("#replay-moves").inner_text()  # masked moves read as words too
    assert "undefined" not in told and "null" not in told and "[object" not in told, told
    assert len(reads) == 2 and "as=spectator" in reads[1] and "as=" not in reads[0]
    page.click("#replay-close")  # the live board again, my own view, after my move
    page.wait_for_function("() => !document.body.dataset.replayStep")
    assert "(you)" in board(page) and "your hand" in board(page)
    assert page.locator("body").get_attribute("data-version") == str(api.match(match_id, token)["version"])


def test_a_match_with_a_takeback_replays_its_live_line_and_marks_the_takeback(page, base_url):
    """Two people; one takes back a decision (the other accepts over the API) and decides again.  Its
    replay (its own view, in play) has a step per decision in force, numbered as they stand."""
    api = Client(base_url)
    created = api.create_match(GAME, [{"name": "ann"}, {"name": "bob"}], seed=4711)
    match_id = created["id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    me = to_a_takeback(api, base_url, match_id, tokens)
    _, asked = api.request("POST", f"/v1/matches/{match_id}/takebacks", {"count": 1}, token=tokens[me])
    api.request("POST", f"/v1/matches/{match_id}/takebacks/{asked['id']}/accept", token=tokens[1 - me])
    legal = api.legal_actions(match_id, tokens[me])
    api.move(match_id, tokens[me], legal["actions"][-1], legal["version"])  # decided again, maybe otherwise
    own = record(api, match_id, "", tokens[me])
    assert own["format"] == "tabletop-record/2"
    undone = [d["n"] for d in own["decisions"] if d.get("taken_back")]
    live = [d for d in own["decisions"] if not d.get("taken_back")]
    assert len(undone) == 1 and len(live) == len(own["decisions"]) - 1
    at = sum(1 for d in live if d["n"] < undone[0])  # the step the takeback went back to
    name = ["ann", "bob"][me]
    open_replay(page, f"{base_url}/play/{match_id}#token={tokens[me]}")
    n = len(live)
    at_step(page, n)  # the latest move: the one made after the takeback, numbered as the live line's
    assert page.locator("#replay-position").inner_text() == f"Move {n} of {n}"
    labels = page.eval_on_selector_all("#replay-moves button", "bs => bs.map((b) => b.textContent)")
    assert len(labels) == n + 1 and all(label.startswith(f"{k}. ") for k, label in enumerate(labels[1:], 1))
    marked = page.locator("#replay-moves li.takeback")
    assert marked.count() == 1 and marked.inner_text() == f"{name} took back 1 decision"
    assert marked.get_attribute("data-after-step") == str(at)
    after = page.eval_on_selector(  # the line sits between the step it went back to and the next
        "#replay-moves li.takeback",
        "li => [li.previousElementSibling, li.nextElementSibling]"
        ".map((x) => x.querySelector('button').dataset.step)",
    )
    assert after == [str(at), str(at + 1)]
    page.click(f"#replay-moves button[data-step='{at}']")
    at_step(page, at)
    assert f"Then {name} took back 1 decision" in page.locator("#replay-decision").inner_text()
    page.keyboard.press("ArrowRight")
    at_step(page, at + 1)  # the decision made after the takeback, by the same seat
    assert "took back" not in page.locator("#replay-decision").inner_text()
    assert page.locator("#replay-decision strong").inner_text().startswith(name)
