"""The web client (/play/{id}) around a match's moves, in real headless Chromium against a real server,
Redis and worker (clock keeper included): a person whose seat went away after a timeout is told so, the
page does not take the seat back on its own, and "I'm back" does; a rematch offer ended from a page
(declined by the other player, or withdrawn by its offerer) is over in both players' pages; a takeback
asked from one player's page is accepted from the other's (issue 47)."""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Browser, Page, Route
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tabletop_client import Client
from tests.e2e import test_web_client as web
from tests.e2e.browser import confined_page
from tests.e2e.test_lifecycle_e2e import play_out
from tests.e2e.test_web_client import wait_for_my_choices, wait_until

#: The web client tests' fixtures: a Chromium, a server with a worker, and a page confined to it.
browser, base_url, page = web.browser, web.base_url, web.page

pytestmark = pytest.mark.timeout(300)

ME, RIVAL = 1, 0
#: The person's first decision has 5 s, then a random bot decides and keeps the seat (one timeout is
#: enough); the increment leaves each seat ten minutes after that, so nobody else times out.
CONTROL = {"budget_seconds": 5, "increment_seconds": 600, "on_timeout": "random", "max_timeouts": 1}


def rival_plays_until(api: Client, match_id: str, token: str, done: Callable[[dict[str, Any]], bool]) -> dict:
    """The rival (a person the test plays for) answers each of its decisions at once, until ``done``;
    between its decisions the match's events are long-polled (the workers play the rest)."""
    after = "0-0"
    while True:
        doc = api.match(match_id)
        assert doc["status"] == "active", doc["status"]
        if done(doc):
            return doc
        if doc["to_move"] == RIVAL:
            legal = api.legal_actions(match_id, token)
            api.move(match_id, token, legal["actions"][0], legal["version"])
        else:
            after = api.events(match_id, after=after, wait=5)["last_id"]


def wait_until_away(api: Client, match_id: str, seconds: float = 60) -> None:
    """Until my seat is away (long-polling the match's events, not sleeping)."""
    deadline = time.monotonic() + seconds
    after = "0-0"
    while not api.match(match_id)["seats"][ME].get("away"):
        assert time.monotonic() < deadline, "my seat never went away"
        after = api.events(match_id, after=after, wait=5)["last_id"]


def settled_away(doc: dict[str, Any]) -> bool:
    """My seat is away and the rival, past its first decision (ten minutes on its clock), is to decide:
    nothing moves until I am back."""
    return (
        bool(doc["seats"][ME].get("away"))
        and doc["to_move"] == RIVAL
        and doc["clock"]["remaining_seconds"][RIVAL] > 60
    )


def test_an_away_person_sees_it_comes_back_and_plays_on(page: Page, base_url: str) -> None:
    api = Client(base_url)
    created = api.create_match(
        "year_of_dragon", [{"name": "rival"}, {"name": "me"}], seed=1, time_control=CONTROL
    )
    assert created["to_move"] == ME  # seed 1: the page opens on my decision, and asks for its actions
    mid = created["id"]
    rival, me = (created["tokens"][seat]["token"] for seat in (RIVAL, ME))
    # The page is open before my first decision times out, and stays open across it: a page only reads
    # (the match, and its legal actions while the decision is mine), and reading never takes an away
    # seat back, so the seat stays the bot's until I press "I'm back" (before, a page that read the
    # match just before the timeout and asked for the legal actions just after took it back).
    # The race is made sure: the page's legal-actions request, sent while the decision was mine, reaches
    # the server only once the timeout has made my seat away.
    held: list[str] = []
    racing = [True]  # until I press "I'm back"

    def hold_until_away(route: Route) -> None:
        if racing[0]:
            held.append(route.request.url)
            wait_until_away(api, mid)
        route.fallback()  # on to the page's confinement

    page.route("**/legal-actions", hold_until_away)
    page.goto(f"{base_url}/play/{mid}#token={me}")
    page.wait_for_selector("body[data-ready]")
    rival_plays_until(api, mid, rival, settled_away)
    notice = page.locator("#away-notice")
    notice.wait_for(timeout=30_000)
    assert held, "the page never asked for my legal actions while the decision was mine"
    assert notice.inner_text() == "You were away: a bot is playing for you."
    page.wait_for_selector("#log li[data-type=timeout]:text-is('me ran out of time: a random bot decided for "
                           "them, and plays for them until they are back.')")  # fmt: skip
    assert page.locator("#status").inner_text() == "A bot is playing for you."
    assert page.locator("#choices").is_hidden()
    doc = api.match(mid, me)
    assert doc["seats"][ME]["away"] and doc["your_seat"] == ME
    assert not [e for e in api.events(mid)["events"] if e["type"] == "seat_returned"]

    racing[0] = False
    page.click("#back")
    returned = wait_for_event(page, api, mid, "seat_returned")
    page.wait_for_selector("#away-notice", state="detached")
    page.wait_for_selector("#log li[data-type=seat_returned]:text-is('me is back and plays the seat again.')")
    assert page.locator("#refusal").is_hidden()  # coming back on the rival's turn is no refusal
    seat = api.match(mid)["seats"][ME]  # back (no `away`); every decision so far was the stand-in's
    assert {k: seat[k] for k in ("seat", "name", "kind")} == {"seat": ME, "name": "me", "kind": "human"}
    assert "away" not in seat and seat["stand_in"] == seat["decisions"] > 0

    rival_plays_until(api, mid, rival, lambda d: d["to_move"] == ME)
    wait_for_my_choices(page, "")
    page.locator("#actions button.action:not([disabled])").first.click()
    version = int(returned["id"].split("-")[0])
    wait_until(
        page,
        lambda: any(e["seat"] == ME and e["version"] > version for e in api.log(mid)["entries"]),
        "my move after coming back",
    )
    assert page.locator("#refusal").is_hidden()
    assert api.match(mid)["seats"][ME]["kind"] == "human"


def wait_for_event(page: Page, api: Client, match_id: str, kind: str) -> dict[str, Any]:
    """The first event of ``kind`` in the match's feed, once there is one."""
    found: list[dict[str, Any]] = []

    def seen() -> bool:
        found.extend(e for e in api.events(match_id)["events"] if e["type"] == kind)
        return bool(found)

    wait_until(page, seen, f"a {kind} event")
    return found[0]


@pytest.fixture
def other(browser: Browser, base_url: str) -> Iterator[Page]:
    """A second person's page, in a browser context of its own, confined like the first."""
    yield from confined_page(browser, base_url)



def finished_match(api: Client) -> tuple[str, str, str]:
    """A Year of the Dragon match of Ann and Bob played out through the API: its id and their tokens."""
    created = api.create_match("year_of_dragon", [{"name": "ann"}, {"name": "bob"}])
    ann, bob = (t["token"] for t in created["tokens"])
    assert play_out(api, created["id"], [ann, bob])["status"] == "finished"
    return created["id"], ann, bob

@pytest.mark.parametrize("reason", ["declined", "withdrawn"])
def test_a_rematch_offer_said_no_to_on_a_page_is_over_for_both(
    page: Page, other: Page, base_url: str, reason: str
) -> None:
    """Ann offers a rematch from her page (it takes her to the rematch, waiting for Bob); Bob's page of
    the finished match learns of the offer from its events; then Bob declines it there, or Ann withdraws
    it from the rematch's page.  Both pages then say so, and nobody is offered it again."""
    api = Client(base_url)
    mid, ann, bob = finished_match(api)
    page.goto(f"{base_url}/play/{mid}#token={ann}")
    other.goto(f"{base_url}/play/{mid}#token={bob}")
    for pg in (page, other):
        pg.wait_for_selector("#lifecycle button#rematch:has-text('Rematch')")
    page.click("#rematch")
    page.wait_for_url("**/play/*#token=*rematch_of=*")
    page.wait_for_selector("body[data-ready]")
    rematch_id = urlparse(page.url).path.rsplit("/", 1)[1]
    assert rematch_id != mid
    assert page.locator("#lifecycle").inner_text().startswith("Waiting for 1 more player to take their seat.")
    try:
        other.wait_for_selector("#decline-rematch", timeout=30_000)  # from the finished match's events alone
    except PlaywrightTimeout:
        raise AssertionError(f"Bob's page did not show the offer: {web.shown(other)}") from None
    assert other.locator("#rematch").inner_text() == "Join the rematch"

    if reason == "declined":
        other.click("#decline-rematch")
    else:
        page.click("#withdraw-rematch")

    sentence = f"The rematch offer was {reason}: it will not be played."
    other.wait_for_selector(f"#rematch-outcome:text-is('{sentence}')", timeout=30_000)
    other.wait_for_selector(f"#log li[data-type=rematch_declined]:text-is('{sentence}')")
    page.wait_for_function("s => document.getElementById('status').textContent === s", arg=sentence)
    page.wait_for_selector(f"#log li[data-type=match_over]:text-is('{sentence}')")
    assert other.locator("#rematch, #decline-rematch").count() == 0  # no offer to take any more
    assert page.locator("#lifecycle").is_hidden()
    # A rematch is private: the token its seat was kept for (bob's old one) reads it.
    assert api.match(rematch_id, bob)["status"] == "aborted"
    over = [e for e in api.events(rematch_id, bob)["events"] if e["type"] == "match_over"]
    assert [(e["status"], e["reason"]) for e in over] == [("aborted", reason)]
    said = [e for e in api.events(mid)["events"] if e["type"] == "rematch_declined"]
    assert [(e["match_id"], e["reason"]) for e in said] == [(rematch_id, reason)]


def test_a_rematch_read_before_it_is_made_is_read_again(other: Page, base_url: str) -> None:
    """A linked rematch answered 404 (as an offer that expired is; the server once linked the rematch a
    moment before making it, and Bob's page then said "expired" for good, as no later event of the
    finished match says otherwise: CI's flake) is read again before the page believes it.  Here the
    page's first read of the rematch is answered 404; it reads again, and shows the offer."""
    api = Client(base_url)
    mid, ann, bob = finished_match(api)
    other.goto(f"{base_url}/play/{mid}#token={bob}")
    other.wait_for_selector("#lifecycle button#rematch:has-text('Rematch')")
    not_yet: list[str] = []

    def first_read_not_yet(route: Route) -> None:
        if not_yet or route.request.url.endswith(f"/{mid}"):
            route.fallback()  # on to the page's confinement
        else:
            not_yet.append(route.request.url)
            body = {"code": "not_found", "message": "no such match"}
            route.fulfill(status=404, json=body)

    other.route(re.compile(r".*/v1/matches/[0-9a-f]+$"), first_read_not_yet)
    rematch_id = api.rematch(mid, ann)["match_id"]
    try:
        other.wait_for_selector("#decline-rematch", timeout=30_000)
    except PlaywrightTimeout:
        raise AssertionError(f"the offer was not shown: {web.shown(other)}") from None
    assert not_yet == [f"{base_url}/v1/matches/{rematch_id}"]
    assert other.locator("#rematch").inner_text() == "Join the rematch"


@pytest.mark.parametrize("reason", ["cancelled", "abandoned"])
def test_a_match_called_off_on_its_page_says_why(page: Page, base_url: str, reason: str) -> None:
    """The creator cancels a match waiting for its second player, or the only person resigns a match
    whose leave policy is to abort once nobody is left: the page and its event log say which."""
    api = Client(base_url)
    if reason == "cancelled":
        created = api.create_match("year_of_dragon", [{"name": "host"}, {"kind": "open"}])
        page.goto(f"{base_url}/play/{created['id']}#creator={created['creator_token']}")
        page.wait_for_selector("body[data-ready]")
        page.click("#cancel")
    else:
        seats = [{"name": "host"}, {"name": "bot", "kind": "bot", "level": "random"}]
        created = api.create_match("year_of_dragon", seats, on_leave={"then": "abort"})
        page.goto(f"{base_url}/play/{created['id']}#token={created['tokens'][0]['token']}")
        page.wait_for_selector("body[data-ready]")
        page.click("#resign")
        page.click("#resign")  # the second press confirms
    sentence = {
        "cancelled": "The match was cancelled by its creator.",
        "abandoned": "The match was abandoned: no player is left.",
    }[reason]
    page.wait_for_function("s => document.getElementById('status').textContent === s", arg=sentence)
    page.wait_for_selector(f"#log li[data-type=match_over]:text-is('{sentence}')")
    over = [e for e in api.events(created["id"])["events"] if e["type"] == "match_over"]
    assert [(e["status"], e["reason"]) for e in over] == [("aborted", reason)]


# -- takebacks (issue 47) ---------------------------------------------------------------------------


def takebacks(base_url: str, match_id: str, token: str) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base_url}/v1/matches/{match_id}/takebacks", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as resp:
        found: dict[str, Any] = json.loads(resp.read())
    return found


def to_a_takeback(api: Client, base_url: str, match_id: str, tokens: dict[int, str]) -> int:
    """Both seats play their first legal choice until one's latest decision can be taken back while the
    other is to decide; that seat."""
    for _ in range(100):
        doc = api.match(match_id)
        seat = doc["to_move"]
        legal = api.legal_actions(match_id, tokens[seat])
        moved = api.move(match_id, tokens[seat], legal["actions"][0], legal["version"])
        if moved["to_move"] not in (seat, None) and takebacks(base_url, match_id, tokens[seat])["undoable"]:
            return int(seat)
    raise AssertionError("no decision could be taken back")


def test_a_takeback_asked_in_one_page_is_accepted_in_the_others(
    browser: Browser, base_url: str, page: Page
) -> None:
    api = Client(base_url)
    created = api.create_match("year_of_dragon", [{"name": "ann"}, {"name": "bob"}], seed=4711)
    match_id = created["id"]
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    me = to_a_takeback(api, base_url, match_id, tokens)
    before = api.match(match_id)["version"]
    page.goto(f"{base_url}/play/{match_id}#token={tokens[me]}")
    page.click("#takeback")
    page.wait_for_selector("#takeback-mine")  # my request, waiting for the other player
    pages = confined_page(browser, base_url)
    other = next(pages)
    try:
        other.goto(f"{base_url}/play/{match_id}#token={tokens[1 - me]}")
        asks = other.locator("#takeback-request")
        asks.wait_for()
        assert "asks to take back their last 1 decision" in asks.inner_text()
        other.click("#takeback-accept")
        # My page learns of it from the events alone: the decision is mine again, the request gone.
        page.wait_for_selector("#log li[data-type='takeback']", timeout=60_000)
        page.wait_for_selector("#takeback-mine", state="detached")
        doc = api.match(match_id)
        assert doc["to_move"] == me and doc["version"] == before + 2  # the request, then the takeback
        page.wait_for_function(f"() => document.body.dataset.version === '{doc['version']}'")
    finally:
        next(pages, None)
