"""The Python client (``tabletop_client``) for issue 27 as a bot developer or an app's backend uses it
(point 6: "the Python client"), against a real ``tabletop serve`` and a real ``tabletop worker`` (its
bot lanes play built-in seats, its once-a-second sweep expires seeks and fills them with bots) over a
real Redis:

- seeks (point 3): two players' compatible seeks pair into one rated match (:meth:`find_match`, the
  wait on the feed), which they play to the end; the result is in their exported results (point 2:
  ``my_matches`` filtered by game and status) and moves their ratings and the leaderboard (points 1-2);
- a seek that allows bots is filled with a built-in bot by the sweep, and the built-in level is rated
  on the bots' board; a seek expires; one open seek per person; the app key seeks for its players;
- challenges (point 4): accepted into a rated match, declined, cancelled, each told on the feeds;
- leaderboard paging and a stranger app that sees none of it.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tabletop_client import ApiError, AppClient, Client, PlayerClient
from tests.e2e.test_bot_matches import Worker
from tests.reliability.processes import ApiServer

pytestmark = pytest.mark.timeout(300)

ADMIN = "admin-token-of-the-matchmaking-client-tests"
GAME = "year_of_dragon"  # two players: a seek pairs as soon as a second player posts
BUILTINS = ["builtin:easy", "builtin:hard", "builtin:normal", "builtin:random"]


@pytest.fixture(scope="module")
def api(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log: Path = tmp_path_factory.mktemp("matchmaking-client") / "api.log"
    with ApiServer(redis_url, log, workers=1, admin_token=ADMIN, max_wait_seconds=10) as server:
        worker = Worker(redis_url)  # bot seats, and the matchmaking sweep (expiry, bots filling seeks)
        try:
            yield server.base
        finally:
            worker.kill()


@pytest.fixture
def app(api: str) -> Iterator[AppClient]:
    """A fresh app with three players, ann, bob and cy (each test its own: boards start empty)."""
    admin = Client(api)
    created = admin.create_app(ADMIN, "ladder")
    admin.close()
    client = AppClient(api, created["key"])
    for pid in ("ann", "bob", "cy"):
        client.put_player(pid, pid.title())
    yield client
    client.close()


def player(app: AppClient, pid: str) -> PlayerClient:
    return PlayerClient(app.api.base_url, app.mint_token(pid)["token"])


def play_out(match_id: str, players: list[PlayerClient], rng: random.Random) -> dict[str, Any]:
    """Play the players' seats of the match with random legal moves until it is over (the worker plays
    any bot seat); the finished match as the first player sees it."""
    seats = {p.match(match_id)["your_seat"]: p for p in players}
    watcher = players[0]
    after = "0-0"
    while (doc := watcher.match(match_id))["status"] == "active":
        mover = seats.get(doc["to_move"])
        if mover is None:  # a bot's turn: long-poll the match's events until something happens
            after = watcher.events(match_id, after=after, wait=5)["last_id"]
            continue
        legal = mover.legal_actions(match_id)
        mover.move(match_id, rng.choice(legal["actions"]), legal["version"])
    assert doc["status"] == "finished", doc
    return doc


def until(what: str, check: Callable[[], bool], seconds: float = 30.0) -> None:
    """Poll ``check`` until it holds (a deadline, never a fixed sleep): a match a bot finished is
    rated by the worker's drain just after its commit, so a reader may be a moment early."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"no {what} within {seconds:.0f} s"
        time.sleep(0.05)


def bots_board(client: PlayerClient | AppClient) -> dict[str, dict[str, Any]]:
    return {row["player"]: row for row in client.leaderboard(GAME, pool="bots", limit=100)["players"]}


def test_two_seeks_pair_into_a_rated_match_whose_result_moves_ratings_and_the_leaderboard(
    app: AppClient,
) -> None:
    ann, bob = player(app, "ann"), player(app, "bob")
    waiting = ann.create_seek(GAME, 2, rated=True)
    assert waiting["status"] == "open" and waiting["match_id"] is None and waiting["rated"] is True
    assert waiting["player"]["id"] == "ann" and waiting["player"]["rating"] == 0.0
    listed = bob.seeks(GAME)["seeks"]
    assert [s["id"] for s in listed] == [waiting["id"]] and "token" not in str(listed)
    # Bob's seek completes the group at once; Ann learns it from her feed (wait_seek wakes on it).
    paired = bob.find_match(GAME, 2, rated=True, timeout=30)
    assert paired["status"] == "matched" and paired["match_id"]
    told = ann.wait_seek(waiting["id"], timeout=30)
    assert told["status"] == "matched" and told["match_id"] == paired["match_id"]
    mid = paired["match_id"]
    assert ann.seeks(GAME)["seeks"] == []  # neither is open any more
    matched = [e for e in ann.feed()["events"] if e["type"] == "seek_matched"]
    assert [(e["seek_id"], e["match_id"]) for e in matched] == [(waiting["id"], mid)]

    doc = play_out(mid, [ann, bob], random.Random(27))
    assert doc["rated"] is True and sorted(s["name"] for s in doc["seats"]) == ["Ann", "Bob"]
    # The results export: one paginated read of the finished matches of the game, results included.
    (exported,) = list(ann.results(GAME))
    assert exported["id"] == mid and exported["rated"] is True
    assert exported["result"]["scores"] == doc["result"]["scores"]
    assert list(ann.results("china")) == [] and app.my_matches("bob", game="china")["matches"] == []
    assert [m["id"] for m in app.results("bob", GAME)] == [mid]

    # The ratings moved once, by the places of the result (the committer rated the match before it
    # answered the last move): the first of the ranking has place 1, the other 1 too only on a tie.
    seat_of = {"ann": ann.match(mid)["your_seat"], "bob": bob.match(mid)["your_seat"]}
    first = next(pid for pid, seat in seat_of.items() if seat == doc["result"]["ranking"][0])
    place: dict[str, int] = {}
    for pid, client in (("ann", ann), ("bob", bob)):
        (rating,) = client.ratings()["ratings"]
        assert rating["game"] == GAME and rating["pool"] == "people" and rating["matches"] == 1
        (entry,) = rating["history"]
        assert entry["match_id"] == mid and entry["players"] == 2 and entry["before"] == 0.0
        assert entry["after"] == pytest.approx(rating["ordinal"])
        assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
        place[pid] = entry["place"]
    assert place[first] == 1 and set(place.values()) <= {1, 2}
    board = app.leaderboard(GAME)
    assert board["pool"] == "people" and board["next_cursor"] is None
    rows = {row["player"]: row for row in board["players"]}
    assert set(rows) == {"ann", "bob"} and rows["ann"]["name"] == "Ann"
    ordinals = [row["ordinal"] for row in board["players"]]
    assert ordinals == sorted(ordinals, reverse=True)
    if place["ann"] != place["bob"]:  # the winner rose above the loser, from equal ratings
        loser = "bob" if first == "ann" else "ann"
        assert rows[first]["rank"] == 1 and rows[loser]["rank"] == 2
        assert rows[first]["mu"] > 25 > rows[loser]["mu"] and rows[first]["ordinal"] > rows[loser]["ordinal"]
    assert bob.leaderboard(GAME) == board  # a player reads its app's board, as the app does
    assert ann.ratings("bob") == app.ratings("bob")  # and anyone's of its app


def test_a_seek_that_allows_bots_is_filled_by_a_built_in_bot_which_is_rated_on_the_bots_board(
    app: AppClient,
) -> None:
    cy = player(app, "cy")
    before = bots_board(cy)
    assert sorted(before) == BUILTINS and all(row["matches"] == 0 for row in before.values())
    bots = {"allow": True, "after_seconds": 0, "level": "random"}
    seek = cy.find_match(GAME, 2, rated=True, bots=bots, timeout=60)  # the sweep fills it within a second
    assert seek["status"] == "matched" and seek["bots"] == {**bots, "players": False}  # built-in only
    doc = play_out(seek["match_id"], [cy], random.Random(5))
    assert doc["rated"] is True and [s["kind"] for s in doc["seats"]].count("bot") == 1
    until("the match rated", lambda: bots_board(cy)["builtin:random"]["matches"] == 1)
    after = bots_board(cy)
    assert all(after[b]["matches"] == 0 for b in BUILTINS if b != "builtin:random")
    (rating,) = [r for r in cy.ratings("builtin:random")["ratings"] if r["game"] == GAME]
    assert rating["pool"] == "bots" and rating["history"][0]["match_id"] == seek["match_id"]
    (people,) = cy.leaderboard(GAME)["players"]  # cy alone on the people's board
    assert people["player"] == "cy" and people["matches"] == 1


def test_one_open_seek_per_person_the_app_key_seeks_for_its_players_and_seeks_expire(app: AppClient) -> None:
    ann = player(app, "ann")
    first = ann.create_seek(GAME, 2, options={}, rating_range={"min": -5, "max": 50})
    with pytest.raises(ApiError) as twice:
        ann.create_seek(GAME, 2)
    assert twice.value.status == 409 and twice.value.code == "seek_open"
    assert twice.value.body["details"]["seek_id"] == first["id"]
    cancelled = app.cancel_seek(first["id"])  # the app withdraws it for its player
    assert cancelled["status"] == "cancelled" and ann.seek(first["id"])["status"] == "cancelled"
    with pytest.raises(ApiError) as again:
        ann.cancel_seek(first["id"])
    assert again.value.status == 409 and again.value.code == "seek_closed"
    # The app posts for bob; ann's seek asks for opponents rated 10 and more, so they do not pair.
    bobs = app.create_seek("bob", GAME, 2, expires_in=600)
    picky = ann.create_seek(GAME, 2, rating_range={"min": 10})
    assert bobs["status"] == picky["status"] == "open"
    assert [s["player"]["id"] for s in app.seeks(GAME, players=2)["seeks"]] == ["bob", "ann"]
    assert app.cancel_seek(bobs["id"])["status"] == "cancelled"
    ann.cancel_seek(picky["id"])
    # A seek nobody answers expires (the sweep), and its player is told so.
    short = ann.create_seek(GAME, 2, expires_in=1)
    ended = ann.wait_seek(short["id"], timeout=60)
    assert ended["status"] == "expired" and ended["match_id"] is None
    expired = [e for e in ann.feed()["events"] if e["type"] == "seek_expired"]
    assert [e["seek_id"] for e in expired] == [short["id"]]
    assert app.wait_seek("ann", short["id"], timeout=5)["status"] == "expired"  # settled: no wait


def test_a_challenge_accepted_makes_a_rated_match_and_declined_or_cancelled_ones_end(app: AppClient) -> None:
    ann, bob, cy = player(app, "ann"), player(app, "bob"), player(app, "cy")
    sent = ann.create_challenge(GAME, ["bob"], rated=True, order="given")
    assert sent["status"] == "open" and sent["rated"] is True and sent["challenger"]["id"] == "ann"
    assert [(c["id"], c["answer"]) for c in sent["challenged"]] == [("bob", "pending")]
    (received,) = [e for e in bob.feed()["events"] if e["type"] == "challenge_received"]
    assert received["challenge_id"] == sent["id"] and received["challenger"] == {"id": "ann", "name": "Ann"}
    assert [c["id"] for c in bob.challenges(status="open")] == [sent["id"]]
    with pytest.raises(ApiError) as stranger:
        cy.challenge(sent["id"])  # neither challenger nor challenged: not told it exists
    assert stranger.value.status == 404
    accepted = bob.accept_challenge(sent["id"])
    assert accepted["status"] == "accepted" and accepted["match_id"]
    assert ann.wait_challenge(sent["id"], timeout=30)["match_id"] == accepted["match_id"]
    match = ann.match(accepted["match_id"])
    assert match["rated"] is True and [s["name"] for s in match["seats"]] == ["Ann", "Bob"]  # order given
    assert {e["type"] for e in ann.feed()["events"]} >= {"challenge_accepted", "match_started"}
    play_out(match["id"], [ann, bob], random.Random(4))
    assert {r["player"] for r in app.leaderboard(GAME)["players"]} == {"ann", "bob"}

    declined = app.create_challenge("cy", GAME, ["ann"], expires_in=600)  # the app, for cy
    assert ann.decline_challenge(declined["id"])["status"] == "declined"
    settled = cy.wait_challenge(declined["id"], timeout=30)
    assert settled["status"] == "declined" and settled["declined_by"] == "ann" and settled["match_id"] is None
    (told,) = [e for e in cy.feed()["events"] if e["type"] == "challenge_declined"]
    assert told["declined_by"] == "ann" and told["reason"] == "declined"

    withdrawn = cy.create_challenge(GAME, ["bob"])
    assert cy.cancel_challenge(withdrawn["id"])["status"] == "cancelled"
    with pytest.raises(ApiError) as late:
        app.accept_challenge(withdrawn["id"], "bob")
    assert late.value.status == 409 and late.value.code == "challenge_closed"
    assert [c["status"] for c in app.challenges("bob")][:1] == ["cancelled"]  # newest first


def test_the_leaderboard_pages_without_gaps_and_another_app_sees_none_of_it(app: AppClient, api: str) -> None:
    # Three rated matches between the app's players and built-in bots fill the bots' board; people's
    # board pages one row at a time.
    clients = {pid: player(app, pid) for pid in ("ann", "bob", "cy")}
    rng = random.Random(9)
    for pid, level in zip(clients, ("random", "easy", "random"), strict=True):
        created = app.create_match(
            GAME, [{"player": pid}, {"name": "bot", "kind": "bot", "level": level}], rated=True
        )
        play_out(created["id"], [clients[pid]], rng)
    expected = {"builtin:easy": 1, "builtin:hard": 0, "builtin:normal": 0, "builtin:random": 2}
    until(
        "the three matches rated", lambda: {p: r["matches"] for p, r in bots_board(app).items()} == expected
    )
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in itertools.count():
        page = clients["ann"].leaderboard(GAME, cursor=cursor, limit=1)
        assert len(page["players"]) <= 1
        seen += page["players"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert sorted(r["player"] for r in seen) == ["ann", "bob", "cy"]
    assert [r["ordinal"] for r in seen] == sorted((r["ordinal"] for r in seen), reverse=True)
    assert [r["rank"] for r in seen] == sorted(r["rank"] for r in seen) and seen[0]["rank"] == 1
    with pytest.raises(ApiError) as bad:
        app.leaderboard(GAME, pool="robots")
    assert bad.value.status == 422

    rival = AppClient(api, Client(api).create_app(ADMIN, "rival")["key"])
    assert rival.leaderboard(GAME)["players"] == []  # its own, empty board
    assert {r["matches"] for r in rival.leaderboard(GAME, pool="bots")["players"]} == {0}
    for call in (lambda: rival.ratings("ann"), lambda: rival.seek("year_of_dragon.2.0123456789abcdef")):
        with pytest.raises(ApiError) as unknown:
            call()
        assert unknown.value.status == 404
    with pytest.raises(ApiError) as foreign:
        rival.create_challenge("ann", GAME, ["bob"])  # rival has no ann
    assert foreign.value.status == 404
    rival.close()
