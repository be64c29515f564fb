"""A match's life end to end, with real processes: Redis (the bundled redis-server), the API under
gunicorn (``tabletop serve``) and a ``tabletop worker`` (bot lanes, sweeper and clock keeper).  A human
who lets the clock run out gets a bot's move, then loses the seat to it; two clients race over HTTP for
the last open seat; a human resigns mid-match and a bot plays the seat to the end."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from tabletop_client import ApiError, Client
from tests.e2e.test_bot_matches import Worker
from tests.reliability.processes import ApiServer, bearer, call

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    log = tmp_path_factory.mktemp("lifecycle") / "api.log"
    with PrivateRedis() as url, ApiServer(url, log, workers=2) as api:
        worker = Worker(url)
        try:
            yield api
        finally:
            worker.kill()


def wait_for(client: Client, match_id: str, done: Any, timeout: float = 60.0) -> dict[str, Any]:
    """Poll the match (as a spectator) until ``done(doc)``."""
    deadline = time.monotonic() + timeout
    while True:
        status, doc = call(client, "GET", f"/v1/matches/{match_id}")
        assert status == 200, doc
        if done(doc):
            return doc
        assert time.monotonic() < deadline, f"timed out waiting; last: {doc['status']} v{doc['version']}"
        time.sleep(0.2)


def all_events(client: Client, match_id: str) -> list[dict[str, Any]]:
    status, page = call(client, "GET", f"/v1/matches/{match_id}/events")
    assert status == 200
    return page["events"]


def test_a_human_out_of_time_gets_a_bot_move_then_loses_the_seat(stack: ApiServer) -> None:
    client = stack.client()
    seats = [{"name": "slow"}, {"name": "r1", "kind": "bot", "level": "random"}]
    body = {
        "game": "year_of_dragon",
        "seats": seats,
        "time_control": {"per_move_seconds": 1, "on_timeout": "random", "max_timeouts": 2},
    }
    status, created = call(client, "POST", "/v1/matches", body)
    assert status == 201, created
    mid = created["id"]
    # The human never moves: each of its decisions times out after a second, and is played for it.
    first = wait_for(client, mid, lambda d: d["clock"]["timeouts"][0] >= 1, timeout=30)
    assert first["seats"][0]["kind"] == "human"
    timeout = next(e for e in all_events(client, mid) if e["type"] == "timeout")
    assert timeout["seat"] == 0 and timeout["level"] == "random"
    # The second timeout hands the seat to the bot for good, and bots play the match out.
    done = wait_for(client, mid, lambda d: d["status"] == "finished", timeout=120)
    assert done["seats"][0]["kind"] == "bot" and done["clock"]["timeouts"][0] == 2
    assert done["clock"]["deadline"] is None
    kept = [e for e in all_events(client, mid) if e["type"] == "timeout"]
    assert [e["bot_keeps_seat"] for e in kept] == [False, True]


def test_two_clients_race_for_the_last_seat_over_http(stack: ApiServer) -> None:
    for _ in range(10):
        status, created = call(
            stack.client(),
            "POST",
            "/v1/matches",
            {
                "game": "china",
                "seats": [{"name": "h"}, {"kind": "open"}, {"name": "b", "kind": "bot", "level": "random"}],
            },
        )
        assert status == 201, created
        start = threading.Barrier(2)
        answers: list[tuple[int, Any]] = []

        def racer(name: str, match_id: str, start: threading.Barrier, answers: list[tuple[int, Any]]) -> None:
            client = stack.client()
            start.wait()
            answers.append(call(client, "POST", f"/v1/matches/{match_id}/join", {"name": name}))

        threads = [
            threading.Thread(target=racer, args=(n, created["id"], start, answers)) for n in ("a", "b")
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(s for s, _ in answers) == [200, 409], answers
        winner = next(doc for s, doc in answers if s == 200)
        assert winner["match"]["status"] == "active"
        status, doc = call(stack.client(), "GET", f"/v1/matches/{created['id']}", **bearer(winner["token"]))
        assert status == 200 and doc["your_seat"] == 1


def test_a_human_resigns_mid_match_and_a_bot_plays_the_seat_to_the_end(stack: ApiServer) -> None:
    client = stack.client()
    game = "taj_mahal"
    players = GAMES[game].min_players
    seats = [{"name": "quitter"}] + [
        {"name": f"r{i}", "kind": "bot", "level": "random"} for i in range(1, players)
    ]
    status, created = call(
        client, "POST", "/v1/matches", {"game": game, "seats": seats, "on_leave": {"level": "random"}}
    )
    assert status == 201
    mid, token = created["id"], created["tokens"][0]["token"]
    for _ in range(3):  # a few decisions of its own first
        wait_for(client, mid, lambda d: d["to_move"] == 0 or d["status"] != "active")
        status, legal = call(client, "GET", f"/v1/matches/{mid}/legal-actions", **bearer(token))
        assert status == 200, legal
        status, moved = call(
            client, "POST", f"/v1/matches/{mid}/actions", {"action": legal["actions"][0]},
            **bearer(token), **{"If-Match": f'"{legal["version"]}"'},
        )  # fmt: skip
        assert status == 200, moved
    status, resigned = call(client, "POST", f"/v1/matches/{mid}/resign", **bearer(token))
    assert status == 200, resigned
    assert resigned["seats"][0]["kind"] == "bot" and resigned["resigned"] == [0]
    done = wait_for(client, mid, lambda d: d["status"] == "finished", timeout=120)
    assert done["result"]["resigned"] == [0]
    assert [e["type"] for e in all_events(client, mid)].count("resigned") == 1


def test_the_python_client_joins_a_private_match_and_plays_it_again(stack: ApiServer) -> None:
    from tabletop_client import Client as PyClient

    api = PyClient(stack.base)
    seats = [{"name": "host"}, {"kind": "open"}]
    created = api.create_match(
        "high_card" if "high_card" in GAMES else "year_of_dragon", seats, visibility="private"
    )
    invite = created["invites"][0]
    joined = api.join(created["id"], "guest", invite=invite["code"])
    assert joined["seat"] == invite["seat"] == 1 and joined["match"]["status"] == "active"
    left = api.resign(created["id"], joined["token"])
    assert left["resigned"] == [1] and left["seats"][1]["kind"] == "bot"
    host = created["tokens"][0]["token"]
    assert api.match(created["id"], host)["your_seat"] == 0


def play_out(api: Client, match_id: str, tokens: list[str]) -> dict[str, Any]:
    """Every seat a person's (``tokens`` by seat): each plays its first legal action until the match is
    finished; its document."""
    while True:
        doc = api.match(match_id)
        if doc["status"] != "active":
            return doc
        seat = doc["to_move"]
        legal = api.legal_actions(match_id, tokens[seat])
        api.move(match_id, tokens[seat], legal["actions"][0], legal["version"])


def test_the_python_client_declines_a_rematch(stack: ApiServer) -> None:
    """``Client.decline_rematch`` ends the offer with the finished match's token: the rematch is the
    answer, aborted; the finished match's feed says it was declined; asking again is refused."""
    api = Client(stack.base)
    created = api.create_match("year_of_dragon", [{"name": "ann"}, {"name": "bob"}])
    mid = created["id"]
    tokens = [t["token"] for t in created["tokens"]]
    assert play_out(api, mid, tokens)["status"] == "finished"
    offer = api.rematch(mid, tokens[0])
    declined = api.decline_rematch(mid, tokens[1])
    assert declined["id"] == offer["match_id"] and declined["status"] == "aborted"
    said = [e for e in api.events(mid)["events"] if e["type"] == "rematch_declined"]
    assert [(e["match_id"], e["reason"]) for e in said] == [(offer["match_id"], "declined")]
    with pytest.raises(ApiError) as again:
        api.rematch(mid, tokens[1])
    assert (again.value.status, again.value.code) == (409, "rematch_declined")
