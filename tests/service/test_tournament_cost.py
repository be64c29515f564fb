"""A tournament's cost is bounded (issue 42 point 3).

Creating one does constant work in the request: no match made, nothing written per match (its
schedule is derived from its spec), the same Redis commands for 6 matches as for 9,900; cancelling
one is constant work too (its matches under way are aborted by the sweep, moments later); an app's
tournaments and their matches not over are capped (409 naming the cap, shown in ``GET /v1/apps/me``);
creations count against the creation rate limit.  And what other parts rely on: revoking an app
cancels all of its tournaments (:meth:`Tournaments.cancel_all`), the operator lists and cancels an
app's tournaments, and a match's stand-in decisions show in the standings, the matches and the export
(issue 42 point 6).  Against a real Redis through the app and the domain, as tests/service/
test_tournaments.py; the time a 10,000-match cancel takes is bench/tournament.py's ``--cost``."""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.errors import Conflict, NotFound
from service.domain.tournaments import pairing as rules
from service.domain.tournaments.records import match_id_of
from service.domain.tournaments.scheduler import ABORT_BATCH, START_BATCH
from service.http.app import create_app
from service.storage.matches import ABORTED, ACTIVE
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN
from tests.service.test_tournaments import GAME, Clock, Club, play_out
from tests.service.test_tournaments_api import CSV_HEADER

#: 100 bots, two a match, each pair twice: the 9,900 matches of the issue's measurement.
BIG = {"entrants": [{"level": "random", "name": f"R{i}"} for i in range(100)], "matches_per_pairing": 2}
SMALL = {"entrants": [{"level": "random"}, {"level": "easy"}, {"level": "random", "name": "R2"}]}
MAX_RUNNING = 3
MAX_MATCHES = 12_000


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    config = make_config(
        redis_url,
        admin_token=ADMIN,
        tournament_max_running=MAX_RUNNING,
        tournament_max_scheduled_matches=MAX_MATCHES,
        tournament_parallel=4,
    )
    return create_app(config, games=TEST_GAMES)


@pytest.fixture
def club(client: FlaskClient) -> Club:
    return Club(client)


def made(club: Club, **body: Any) -> dict[str, Any]:
    """Create as the HTTP layer does: the request's answer, nothing scheduled."""
    return club.tournaments.create(
        {"game": GAME, "players": 2, "options": {"rounds": 1}, **body}, club.caller
    )


def commands(connection: redis.Redis) -> Counter[str]:
    """Redis's calls per command since the last reset (``INFO commandstats``)."""
    stats = connection.info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})


def counted(connection: redis.Redis, work: Any) -> tuple[Any, Counter[str]]:
    """What ``work`` returns, and the Redis commands it ran (those inside scripts included)."""
    connection.config_resetstat()
    out = work()
    used = commands(connection)
    for name in [n for n in used if n.startswith(("config", "info"))]:
        del used[name]
    return out, used


def slot_keys(connection: redis.Redis, app: str, tid: str) -> list[str]:
    return sorted(k.decode() for k in connection.scan_iter(f"tt:{{t:{app}:{tid}}}:*", count=1000))


def match_keys(connection: redis.Redis, tid: str) -> list[str]:
    return [k.decode() for k in connection.scan_iter(f"*{tid}-*", count=1000)]


# -- creation and cancel: constant work ----------------------------------------------------------------


def test_creating_a_9900_match_tournament_costs_what_a_6_match_one_does(
    club: Club, client: FlaskClient, redis_client: redis.Redis
) -> None:
    made(Club(client, "warm-up"), **SMALL)  # the scripts loaded once, for both below
    other = Club(client, "big")
    small, small_cost = counted(redis_client, lambda: made(club, **SMALL))
    big, big_cost = counted(redis_client, lambda: made(other, **BIG))
    assert small["progress"]["total"] == 6 and big["progress"]["total"] == 9900
    assert big_cost == small_cost, (big_cost, small_cost)  # the very same commands, as many
    assert sum(big_cost.values()) < 30
    # One record, no match: nothing per match was written, none made.
    assert slot_keys(redis_client, other.app_id, big["id"]) == [f"tt:{{t:{other.app_id}:{big['id']}}}:doc"]
    assert match_keys(redis_client, big["id"]) == []
    assert "matches" not in big and big["status"] == "running"
    # Yet every match is known in advance, derived from the spec: match n is the n-th of the schedule.
    doc = other.get(big["id"])
    assert len(doc["matches"]) == 9900 and all(m["status"] == "pending" for m in doc["matches"])
    schedule = rules.round_robin(100, 2, 2)
    for m in (doc["matches"][0], doc["matches"][4950], doc["matches"][-1]):
        n = int(m["match_id"].rpartition("-")[2])
        assert (m["round"], tuple(m["entrants"])) == schedule[n - 1]


def test_the_scheduler_makes_the_matches_in_batches_as_they_start(
    club: Club, redis_client: redis.Redis
) -> None:
    tid = made(club, parallel=START_BATCH + 8, **BIG)["id"]
    club.sweep()  # the keeper's look: one batch, and due again at once
    doc = club.get(tid)
    assert Counter(m["status"] for m in doc["matches"][: START_BATCH + 8]) == {
        ACTIVE: START_BATCH,
        "pending": 8,
    }
    assert redis_client.zscore("tt:tournaments:due", f"{club.app_id}:{tid}") <= club.matches.now()
    club.sweep()
    going = [m["match_id"] for m in club.get(tid)["matches"] if m["status"] == ACTIVE]
    assert going == [match_id_of(tid, n) for n in range(1, START_BATCH + 9)]  # in number order, no more
    assert len(match_keys(redis_client, tid)) > 0
    metas = club.matches.store.metas(going)
    assert all(m is not None and m.life["tournament"] == f"{club.app_id}:{tid}" for m in metas)


def test_a_cancel_is_constant_work_and_the_sweep_aborts_what_was_under_way(
    club: Club, redis_client: redis.Redis
) -> None:
    warm = made(club, **SMALL)["id"]
    small = made(club, **SMALL)["id"]
    big = made(club, parallel=ABORT_BATCH + 6, **BIG)["id"]
    club.tournaments.cancel(warm, club.caller)  # its script loaded once
    for _ in range(4):  # the keeper's looks: ABORT_BATCH + 6 under way
        club.sweep()
    going = [m["match_id"] for m in club.get(big)["matches"] if m["status"] == ACTIVE]
    assert len(going) == ABORT_BATCH + 6
    play_out(club.matches, going[0])  # one finished: its result stays
    _, small_cost = counted(redis_client, lambda: club.tournaments.cancel(small, club.caller))
    _, big_cost = counted(redis_client, lambda: club.tournaments.cancel(big, club.caller))
    assert big_cost == small_cost and sum(big_cost.values()) < 40  # the same, whatever the size
    doc = club.get(big)
    assert doc["status"] == "cancelled" and doc["cancel_reason"] == "cancelled"
    assert doc["progress"]["done"] == doc["progress"]["total"] == 9900
    assert Counter(m["status"] for m in doc["matches"]) == {ABORTED: 9899, "finished": 1}
    # The cancel aborted nothing itself; the sweep does, a batch a look, until none is under way.
    still = [m for m in club.matches.store.metas(going[1:]) if m is not None and m.status == ACTIVE]
    assert len(still) == ABORT_BATCH + 5
    looks = 0
    while still:
        looks += 1
        assert looks <= 3
        club.sweep()
        still = [m for m in club.matches.store.metas(going[1:]) if m is not None and m.status == ACTIVE]
    assert looks == 2  # ABORT_BATCH, then the rest
    meta = club.matches.meta(going[1])
    assert meta.status == ABORTED and meta.result is None
    assert club.get(big)["standings"] == doc["standings"]  # frozen at the cancel
    assert redis_client.zscore("tt:tournaments:due", f"{club.app_id}:{big}") is None  # settled


# -- the per-app caps -----------------------------------------------------------------------------------


def test_an_apps_tournaments_and_their_matches_are_capped_and_shown(club: Club, client: FlaskClient) -> None:
    me = client.get("/v1/apps/me", headers=bearer(club.key)).json
    assert me["limits"]["tournaments"] == {
        "max_tournaments": MAX_RUNNING,
        "max_scheduled_matches": MAX_MATCHES,
        "max_matches_per_tournament": 10_000,
    }
    assert me["usage"]["tournaments"] == {"tournaments": 0, "matches": 0}
    first = made(club, **BIG)["id"]
    # 9,900 + 9,900 would pass the 12,000 matches not over: 409 naming the cap
    with pytest.raises(Conflict) as too_many:
        made(club, **BIG)
    assert too_many.value.code == "too_many_scheduled_matches"
    assert too_many.value.details == {
        "limit": MAX_MATCHES,
        "in_use": 9900,
        "requested": 9900,
        "setting": "TABLETOP_TOURNAMENT_MAX_SCHEDULED_MATCHES",
    }
    over = client.post(
        "/v1/tournaments",
        json={"game": GAME, "players": 2, "options": {"rounds": 1}, **BIG},
        headers=bearer(club.key),
    )
    assert over.status_code == 409 and over.json["code"] == "too_many_scheduled_matches", over.json
    made(club, **SMALL)
    made(club, starts_at=club.matches.now() + 3600, **SMALL)  # a scheduled one counts too
    with pytest.raises(Conflict) as crowded:
        made(club, **SMALL)
    assert crowded.value.code == "too_many_tournaments" and crowded.value.details["limit"] == MAX_RUNNING
    usage = client.get("/v1/apps/me", headers=bearer(club.key)).json["usage"]["tournaments"]
    assert usage == {"tournaments": 3, "matches": 9900 + 6 + 6}
    # Matches ending count down; a cancel frees its place at once.
    club.sweep()
    going = [m["match_id"] for m in club.get(first)["matches"] if m["status"] == ACTIVE]
    play_out(club.matches, going[0])
    assert club.tournaments.usage(club.app_id) == {"tournaments": 3, "matches": 9900 + 6 + 6 - 1}
    club.tournaments.cancel(first, club.caller)
    assert club.tournaments.usage(club.app_id) == {"tournaments": 2, "matches": 12}
    assert made(club, **BIG)["progress"]["total"] == 9900


def test_a_finished_tournament_stops_counting(club: Club) -> None:
    tid = made(club, entrants=[{"level": "random"}, {"level": "easy"}], matches_per_pairing=1)["id"]
    assert club.tournaments.usage(club.app_id) == {"tournaments": 1, "matches": 1}
    club.scheduler.advance(club.app_id, tid)
    [m] = club.get(tid)["matches"]
    play_out(club.matches, m["match_id"])
    club.sweep()  # the keeper finishes it (the match's end marked it due)
    assert club.get(tid)["status"] == "finished"
    assert club.tournaments.usage(club.app_id) == {"tournaments": 0, "matches": 0}


def test_tournaments_count_against_the_creation_rate_limit(redis_client: redis.Redis, redis_url: str) -> None:
    config = make_config(redis_url, admin_token=ADMIN, rate_limit_create="2/minute")
    client = create_app(config, games=TEST_GAMES).test_client()
    club = Club(client)
    body = {"game": GAME, "players": 2, "options": {"rounds": 1}, **SMALL}
    codes = [
        client.post("/v1/tournaments", json=body, headers=bearer(club.key)).status_code for _ in range(2)
    ]
    assert codes == [201, 201]
    refused = client.post("/v1/tournaments", json=body, headers=bearer(club.key))
    assert refused.status_code == 429 and refused.json["details"]["policy"] == "create-60s", refused.json
    match = {"game": GAME, "seats": [{"player": "ann"}, {"player": "bob"}]}
    assert client.post("/v1/matches", json=match, headers=bearer(club.key)).status_code == 429  # one budget
    assert client.get("/v1/tournaments", headers=bearer(club.key)).status_code == 200  # reads are not


# -- revocation and the operator --------------------------------------------------------------------------


def test_cancel_all_cancels_every_scheduled_and_running_tournament_of_the_app(
    club: Club, client: FlaskClient
) -> None:
    other = Club(client, "other")
    running = made(club, parallel=2, **SMALL)["id"]
    scheduled = made(club, starts_at=club.matches.now() + 3600, **SMALL)["id"]
    finished = made(club, entrants=[{"level": "random"}, {"level": "easy"}], matches_per_pairing=1)["id"]
    theirs = made(other, **SMALL)["id"]
    club.sweep()
    [last] = club.get(finished)["matches"]
    play_out(club.matches, last["match_id"])
    club.sweep()  # the keeper finishes it
    going = [m["match_id"] for m in club.get(running)["matches"] if m["status"] == ACTIVE]
    assert len(going) == 2
    assert club.tournaments.cancel_all(club.app_id, "app_revoked") == 2
    for tid in (running, scheduled):
        doc = club.get(tid)
        assert (doc["status"], doc["cancel_reason"]) == ("cancelled", "app_revoked")
    assert club.get(finished)["status"] == "finished"
    assert other.get(theirs)["status"] == "running"  # another app's: untouched
    assert club.tournaments.usage(club.app_id) == {"tournaments": 0, "matches": 0}
    assert club.tournaments.cancel_all(club.app_id, "app_revoked") == 0  # again: nothing left
    club.sweep()  # the keeper's next look aborts what was under way
    assert all(m is not None and m.status == ABORTED for m in club.matches.store.metas(going))


def test_the_operator_lists_reads_and_cancels_an_apps_tournaments(club: Club) -> None:
    clock = Clock(club.matches.now())  # ids sort by their creation millisecond: one apart, for certain
    club.set_clock(clock)
    first = made(club, name="First", **SMALL)["id"]
    clock.now += 1
    second = made(club, name="Second", starts_at=club.matches.now() + 60, **SMALL)["id"]
    page, cursor = club.tournaments.list_app(club.app_id, None, None, 1)
    assert [t["id"] for t in page] == [second] and cursor == second
    rest, end = club.tournaments.list_app(club.app_id, None, cursor, 10)
    assert [t["id"] for t in rest] == [first] and end is None
    assert [t["id"] for t in club.tournaments.list_app(club.app_id, "scheduled", None, 10)[0]] == [second]
    assert club.tournaments.get_app(club.app_id, first)["name"] == "First"
    doc = club.tournaments.cancel_as_operator(club.app_id, first)
    assert (doc["status"], doc["cancel_reason"]) == ("cancelled", "operator")
    with pytest.raises(Conflict) as over:
        club.tournaments.cancel_as_operator(club.app_id, first)
    assert over.value.code == "tournament_over"
    for tid in ("t000000000000deadbeef", "bad{id}"):
        with pytest.raises(NotFound) as missing:
            club.tournaments.cancel_as_operator(club.app_id, tid)
        assert missing.value.code == "tournament_not_found"
    with pytest.raises(NotFound):
        club.tournaments.cancel_as_operator("another-app", second)


# -- stand-ins (issue 42 point 6) -------------------------------------------------------------------------


def test_stand_in_decisions_show_in_standings_matches_and_the_export(club: Club, client: FlaskClient) -> None:
    """A match result counts per seat the decisions a stand-in made (``stand_in``) and all of them
    (``decisions``): the tournament adds them up per entrant, counts the matches a stand-in played
    mostly, and shows both per seat in ``matches[]``, the JSON export and the CSV (appended columns)."""
    tid = made(
        club, entrants=[{"player": "ann"}, {"player": "bob"}, {"level": "easy"}], matches_per_pairing=1
    )["id"]
    club.scheduler.advance(club.app_id, tid)
    doc = club.get(tid)
    seats = {int(m["match_id"].rpartition("-")[2]): m["entrants"] for m in doc["matches"]}
    assert seats == {1: [0, 1], 2: [0, 2], 3: [1, 2]}

    def ended(n: int, places: list[int], stand_in: list[int], decisions: list[int]) -> None:
        club.scheduler.recorded(
            {
                "app": club.app_id,
                "id": tid,
                "match_id": match_id_of(tid, n),
                "status": "finished",
                "places": places,
                "scores": None,
                "stand_in": stand_in,
                "decisions": decisions,
            }
        )

    ended(1, [1, 2], [7, 0], [10, 10])  # ann away most of it, and won: the stand-in's win
    ended(2, [2, 1], [2, 0], [10, 10])  # ann back for most
    club.scheduler.advance(club.app_id, tid)
    ended(3, [1, 2], [0, 0], [5, 5])
    club.scheduler.advance(club.app_id, tid)  # as the keeper's sweep, once the end marked it due
    doc = club.get(tid)
    assert doc["status"] == "finished"
    lines = {s["entrant"]: s for s in doc["standings"]}
    assert (lines[0]["stand_in"], lines[0]["stand_in_matches"]) == (9, 1)
    assert (lines[1]["stand_in"], lines[1]["stand_in_matches"]) == (0, 0)
    first = next(m for m in doc["matches"] if m["match_id"] == match_id_of(tid, 1))
    assert (first["stand_in"], first["decisions"]) == ([7, 0], [10, 10])
    rows = club.tournaments.results(tid, club.caller)["results"]
    assert [(r["stand_in"], r["decisions"]) for r in rows if r["match_id"] == match_id_of(tid, 1)] == [
        (7, 10),
        (0, 10),
    ]
    text = client.get(f"/v1/tournaments/{tid}/results?format=csv", headers=bearer(club.key)).get_data(
        as_text=True
    )
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == CSV_HEADER  # issue 31's columns unmoved, the stand-in counts appended
    assert table[1][9:] == ["7", "10"]
    over = client.get(f"/v1/tournaments/{tid}", headers=bearer(club.key)).json
    assert {s["entrant"]: s["stand_in_matches"] for s in over["standings"]} == {0: 1, 1: 0, 2: 0}
