"""Tournaments in the domain (issue 31 points 1, 2 and 4): creation and its refusals, the scheduler keeping
``parallel`` matches under way, results reaching the record through the matches' outboxes, round robin
seats and standings, Swiss pairing by standing without rematches, byes, cancel mid-way, the sweep
finishing what a dead process left, and two threads scheduling and recording at once.

Against a real Redis, through :class:`service.domain.tournaments.tournaments.Tournaments` as the HTTP
layer and the CLI call it, and :class:`service.domain.tournaments.scheduler.TournamentScheduler` as the
outbox and the workers' keeper do (:meth:`Club.sweep` is the keeper's look).  No worker runs here: the
matches are played in-process, each decision a real commit (:meth:`Matches.bot_move` for a bot seat, as a
worker makes it; :meth:`Matches.seat_move` for a player's), so every result travels the production road
(commit -> outbox -> ``recorded``, and the keeper's sweep makes the next matches).  Where a test needs
results of its choosing (the Swiss pairing by hand), it hands ``recorded`` the outcome a commit would.  The
HTTP API and the real-worker runs are tests/service/test_tournaments_api.py's and tests/workers' (other
files)."""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.accounts import Accounts
from service.domain.errors import Conflict, Forbidden, Invalid, NotFound
from service.domain.feeds import feed
from service.domain.identity import PLAYER, Caller
from service.domain.matches.operations import Matches
from service.domain.matchmaking.making import app_caller
from service.domain.ratings import places
from service.domain.tournaments.pairing import points_of
from service.domain.tournaments.records import match_id_of
from service.domain.tournaments.scheduler import TournamentScheduler
from service.domain.tournaments.tournaments import Tournaments
from service.http.app import create_app
from service.storage.matches import ABORTED, ACTIVE, FINISHED, match_key
from service.storage.ratings import slot_key
from tests.service.conftest import TEST_GAMES, make_config
from tests.service.test_accounts import ADMIN, new_app, put_player
from tests.service.test_tournaments_api import CSV_HEADER
from workers.keeper import Duty, tournaments_duty

GAME = "high_card"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN, tournament_max_matches=200), games=TEST_GAMES)


class Clock:
    """The domain's clock, moved by the test."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Club:
    """An app with players ann, bob, cid, dan and the tournaments of the domain."""

    PEOPLE = ("ann", "bob", "cid", "dan")

    def __init__(self, client: FlaskClient, name: str = "club") -> None:
        self.client = client
        made = new_app(client, name)
        self.app_id: str = made["id"]
        self.key: str = made["key"]
        for pid in self.PEOPLE:
            assert put_player(client, self.key, pid).status_code == 201
        services = client.application.extensions["tabletop"]
        self.matches: Matches = services.matches
        self.tournaments: Tournaments = services.tournaments
        self.scheduler: TournamentScheduler = services.tournament_scheduler
        self.accounts: Accounts = services.accounts
        self.caller = app_caller(self.app_id)

    def set_clock(self, clock: Clock) -> None:
        """Move the matches', the tournaments' and their scheduler's time with ``clock``."""
        self.matches.now = self.tournaments.now = self.scheduler.now = clock

    def sweep(self) -> None:
        """The keeper's look at the tournaments due (a match's end marks its tournament due)."""
        self.scheduler.sweep(self.scheduler.now())

    def player(self, pid: str, *scopes: str) -> Caller:
        return Caller(PLAYER, app=self.app_id, player=pid, scopes=frozenset(scopes or ("play",)))

    def create(self, caller: Caller | None = None, **body: Any) -> dict[str, Any]:
        """Create, then run the scheduler once, as the keeper's sweep does at ``starts_at`` (creation
        itself makes no match: tests/service/test_tournament_cost.py); the whole document."""
        request = {"game": GAME, "players": 2, "options": {"rounds": 1}, **body}
        made = self.tournaments.create(request, caller or self.caller)
        assert "matches" not in made and made["progress"]["done"] == 0
        self.scheduler.advance(self.app_id, made["id"])
        return self.get(made["id"])

    def get(self, tid: str) -> dict[str, Any]:
        return self.tournaments.get(tid, self.caller)

    def feed(self, pid: str) -> list[dict[str, Any]]:
        return [e.entry for e in self.accounts.store.feed_after(f"{self.app_id}:{pid}", "0-0")]


@pytest.fixture
def club(client: FlaskClient) -> Club:
    return Club(client)


def play_out(matches: Matches, match_id: str) -> None:
    """Play the match to its end, each seat its first legal action, through the commits a worker (bot
    seats) and a player (human seats) make."""
    game = matches.games[GAME]
    while True:
        loaded = matches.store.load(match_id)
        assert loaded is not None
        meta = loaded.meta
        if meta.to_move is None or meta.status != ACTIVE:
            return
        state = game.decode(loaded.encoded_state())
        action = game.legal_actions(state)[0]
        if meta.seats[meta.to_move]["kind"] == "bot":
            played = matches.bot_move(meta, state, meta.to_move, action, announce=False)
        else:
            played = matches.seat_move(meta, state, meta.to_move, action)
        assert played.commit.version is not None


def under_way(doc: dict[str, Any]) -> list[str]:
    return [m["match_id"] for m in doc["matches"] if m["status"] == "active"]


def run_to_end(club: Club, tid: str, parallel: int) -> int:
    """Play every match under way until the tournament is over, checking that the matches that exist
    and are not over never number more than ``parallel``; the greatest number seen."""
    most = 0
    for _ in range(500):
        doc = club.get(tid)
        going = playing(club, doc)
        most = max(most, len(going))
        assert len(going) <= parallel
        if doc["status"] != "running":
            return most
        assert going, "a running tournament with nothing under way"
        play_out(club.matches, going[0])
        club.sweep()  # the keeper makes what follows (never the mover's request)
    raise AssertionError("the tournament did not end")


def playing(club: Club, doc: dict[str, Any]) -> list[str]:
    """The tournament's matches that exist and are under way, whatever the record says."""
    metas = club.matches.store.metas([m["match_id"] for m in doc["matches"]])
    return [m.id for m in metas if m is not None and m.status == ACTIVE]


def at_once(n: int, work: Any) -> None:
    """Run ``work(i)`` in ``n`` threads released together; raise the first error any of them met."""
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            work(i)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def recompute(doc: dict[str, Any], players: int) -> dict[int, dict[str, Any]]:
    """Each entrant's points, played, wins and seats, recomputed from the match list alone."""
    out: dict[int, dict[str, Any]] = {
        e["entrant"]: {"points": 0.0, "played": 0, "wins": 0, "seats": [0] * players} for e in doc["entrants"]
    }
    for m in doc["matches"]:
        if m["status"] != "finished":
            continue
        for seat, entrant in enumerate(m["entrants"]):
            mine = m["places"][seat]
            line = out[entrant]
            line["points"] += sum(1.0 if p > mine else 0.5 if p == mine else 0.0 for p in m["places"]) - 0.5
            line["played"] += 1
            line["wins"] += mine == 1
            line["seats"][seat] += 1
    return out


# -- creation and its refusals ------------------------------------------------------------------------


def test_a_round_robin_lists_every_match_in_advance_and_starts_up_to_parallel(club: Club) -> None:
    doc = club.create(
        entrants=[{"player": "ann"}, {"level": "random"}, {"level": "easy", "name": "E"}], parallel=2
    )
    tid = doc["id"]
    assert doc["status"] == "running" and doc["format"] == "round_robin"
    assert doc["matches_per_pairing"] == 2 and doc["rounds"] == 2  # defaults: players, and so rounds
    assert [e["name"] for e in doc["entrants"]] == ["Ann", "Random bot", "E"]
    assert doc["entrants"][0] == {"entrant": 0, "name": "Ann", "player": "ann"}
    assert doc["progress"] == {"done": 0, "total": 6, "round": 1, "rounds": 2}
    assert [m["match_id"] for m in doc["matches"]] == [match_id_of(tid, n) for n in range(1, 7)]
    assert [m["entrants"] for m in doc["matches"]] == [[0, 1], [0, 2], [1, 2], [1, 0], [2, 0], [2, 1]]
    assert [m["status"] for m in doc["matches"]] == ["active"] * 2 + ["pending"] * 4
    meta = club.matches.meta(doc["matches"][0]["match_id"])
    assert meta.life["tournament"] == f"{club.app_id}:{tid}"
    assert meta.life["visibility"] == "private" and meta.life["app"] == club.app_id
    assert meta.seats[0]["kind"] == "human" and meta.life["players"] == {"0": f"{club.app_id}:ann"}
    assert meta.seats[1] == {"name": "Random bot", "kind": "bot", "level": "random", "think_ms": 0} | {
        "think_ms": meta.seats[1]["think_ms"]
    }
    assert not club.matches.store.exists(doc["matches"][2]["match_id"])  # pending: not made yet
    # ann is told of her match (feed, and so webhooks), numbered within the tournament's source
    told = [e for e in club.feed("ann") if e["type"] == feed.TOURNAMENT_MATCH]
    assert told == [
        {
            "type": "tournament_match",
            "game": GAME,
            "tournament_id": tid,
            "tournament_name": "High Card tournament",
            "match_id": match_id_of(tid, n),
            "round": 1,
        }
        for n in (1, 2)  # both of hers under way
    ]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"entrants": [{"level": "easy"}]}, "entrants"),  # fewer entrants than players
        ({"entrants": [{"player": "zed"}, {"level": "easy"}]}, "entrants"),  # unknown player
        ({"entrants": [{"player": "ann"}, {"player": "ann"}]}, "entrants"),  # entered twice
        ({"entrants": [{"level": "easy"}, {"level": "easy", "name": "E2"}], "rated": True}, "entrants"),
        ({"entrants": [{"level": "easy"}, {"level": "easy"}]}, "entrants"),  # the same name twice
        ({"entrants": [{"level": "godlike"}, {"level": "easy"}]}, "entrants"),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "players": 9}, "players"),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "format": "knockout"}, "format"),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "format": "swiss"}, "rounds"),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "parallel": 0}, "parallel"),
        (
            {"entrants": [{"level": "easy"}, {"level": "hard"}], "matches_per_pairing": 0},
            "matches_per_pairing",
        ),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "name": "x" * 81}, "name"),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "options": {"rounds": 9}}, "options.rounds"),
        # 6 entrants: 15 pairs x 20 = 300 matches, above the 200 this server allows
        (
            {
                "entrants": [{"player": p} for p in Club.PEOPLE] + [{"level": "easy"}, {"level": "hard"}],
                "matches_per_pairing": 20,
            },
            "entrants",
        ),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "format": "swiss", "rounds": 201}, "rounds"),
        # think_ms: the server's cap (TABLETOP_MAX_THINK_MS), as for a bot seat at match creation
        ({"entrants": [{"level": "easy"}, {"level": "hard", "think_ms": 10_001}]}, "entrants.1.think_ms"),
        ({"entrants": [{"player": "ann", "think_ms": 5}, {"level": "hard"}]}, "entrants.0.think_ms"),
        ({"entrants": [{"level": "easy"}, {"level": "hard"}], "rounds": 3}, "rounds"),  # a round robin
    ],
)
def test_what_cannot_be_run_is_refused_naming_the_field(club: Club, body: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as refused:
        club.create(**body)
    assert refused.value.details["field"] == field
    assert club.tournaments.list(club.caller, None, None, 10) == ([], None)  # nothing was stored


def test_a_level_entrants_think_ms_is_kept_and_every_bot_seat_it_takes_has_it(club: Club) -> None:
    """Follow-up of issue 31: a level entrant may carry ``think_ms`` (its bot's budget per decision),
    checked as a bot seat's and copied into each of its matches' seats; without one, the level's
    default is kept (resolved at creation, as a seat's is)."""
    doc = club.create(
        entrants=[
            {"level": "hard", "think_ms": 7},
            {"level": "normal"},
            {"level": "hard", "name": "Slow hard", "think_ms": 0},
        ],
        matches_per_pairing=2,
        rounds=2,  # a round robin's rounds may be given when they are its matches_per_pairing
    )
    kept = [(e["level"], e["think_ms"]) for e in doc["entrants"]]
    assert kept == [("hard", 7), ("normal", 500), ("hard", 0)]
    assert club.get(doc["id"])["entrants"] == doc["entrants"]
    budgets = {e["entrant"]: e["think_ms"] for e in doc["entrants"]}
    started = [m for m in doc["matches"] if m["status"] == "active"]
    assert started
    for m in started:
        meta = club.matches.meta(m["match_id"])
        assert [s["think_ms"] for s in meta.seats] == [budgets[e] for e in m["entrants"]], meta.seats
        assert [s["level"] for s in meta.seats] == [doc["entrants"][e]["level"] for e in m["entrants"]]


def test_a_player_token_enters_only_its_own_player_and_only_its_creator_or_the_app_cancels(
    club: Club,
) -> None:
    with pytest.raises(Invalid) as refused:
        club.create(club.player("ann"), entrants=[{"player": "bob"}, {"level": "easy"}])
    assert "own player" in refused.value.message
    with pytest.raises(Forbidden):
        club.create(club.player("ann", "read"), entrants=[{"player": "ann"}, {"level": "easy"}])
    doc = club.create(club.player("ann"), entrants=[{"player": "ann"}, {"level": "easy"}], parallel=1)
    assert (
        club.tournaments.get(doc["id"], club.player("bob", "read"))["id"] == doc["id"]
    )  # the app's players read
    with pytest.raises(Forbidden) as forbidden:
        club.tournaments.cancel(doc["id"], club.player("bob"))
    assert forbidden.value.code == "not_creator"
    assert club.tournaments.cancel(doc["id"], club.player("ann"))["status"] == "cancelled"


def test_another_apps_tournament_does_not_exist_for_it(club: Club, client: FlaskClient) -> None:
    doc = club.create(entrants=[{"level": "easy"}, {"level": "hard"}])
    other = Club(client, "other")
    for call in (
        lambda: other.tournaments.get(doc["id"], other.caller),
        lambda: other.tournaments.results(doc["id"], other.caller),
        lambda: other.tournaments.cancel(doc["id"], other.caller),
    ):
        with pytest.raises(NotFound) as missing:
            call()
        assert missing.value.code == "tournament_not_found"
    assert other.tournaments.list(other.caller, None, None, 10) == ([], None)
    with pytest.raises(NotFound):
        club.tournaments.get("t{x}", club.caller)  # no key is ever built from a malformed id


# -- round robin: seats, standings, results -----------------------------------------------------------


def test_a_round_robin_of_four_levels_uses_every_seat_equally_and_standings_match_the_results(
    club: Club,
) -> None:
    levels = ["random", "easy", "normal", "hard"]
    doc = club.create(players=3, entrants=[{"level": lv} for lv in levels], parallel=3)
    tid = doc["id"]
    assert doc["progress"]["total"] == 4 * 3  # C(4, 3) groups x 3 meetings (the default: players)
    assert run_to_end(club, tid, parallel=3) == 3  # the scheduler kept 3 under way, never more
    doc = club.get(tid)
    assert doc["status"] == "finished" and doc["finished_at"] is not None
    assert doc["progress"] == {"done": 12, "total": 12, "round": 3, "rounds": 3}
    assert all(m["status"] == "finished" for m in doc["matches"])
    expected = recompute(doc, 3)
    for line in doc["standings"]:
        mine = expected[line["entrant"]]
        assert line["seats"] == [3, 3, 3]  # 9 matches each, 3 in every seat position
        assert (line["points"], line["played"], line["wins"]) == (mine["points"], 9, mine["wins"])
    for m in doc["matches"]:
        assert sum(m["points"]) == 3  # C(3, 2): every pair of seats shares one point
        assert m["points"] == points_of(m["places"])
        meta = club.matches.meta(m["match_id"])
        assert meta.status == FINISHED and not meta.life.get("rated")
    # ranked by points, then wins, then Buchholz, then entry order
    keys = [(-s["points"], -s["wins"], -s["buchholz"], s["entrant"]) for s in doc["standings"]]
    assert keys == sorted(keys) and [s["rank"] for s in doc["standings"]] == [1, 2, 3, 4]
    for line in doc["standings"]:  # Buchholz: the opponents' final points, summed over every match
        final = {s["entrant"]: s["points"] for s in doc["standings"]}
        opponents = [o for m in doc["matches"] if line["entrant"] in m["entrants"] for o in m["entrants"]]
        assert line["buchholz"] == sum(final[o] for o in opponents if o != line["entrant"])
    export = club.tournaments.results(tid, club.caller)
    assert export["status"] == "finished" and export["standings"] == doc["standings"]
    assert len(export["results"]) == 12 * 3
    first = export["results"][0]
    assert set(first) == set(CSV_HEADER)  # the JSON rows hold the CSV's columns
    meta = club.matches.meta(first["match_id"])
    # bots from the start: every decision their own, none a stand-in's (issue 42 point 6)
    assert first["stand_in"] == 0 and first["decisions"] == meta.result["decisions"][0] > 0
    assert (
        first["score"] == meta.result["scores"][0]
        and first["name"] == levels[first["entrant"]].title() + " bot"
    )
    assert club.matches.store.redis.zscore("tt:tournaments:due", f"{club.app_id}:{tid}") is None


def test_a_player_entrant_is_told_of_each_match_and_of_the_end(club: Club) -> None:
    doc = club.create(entrants=[{"player": "ann"}, {"player": "bob"}, {"level": "easy"}], parallel=1)
    run_to_end(club, doc["id"], parallel=1)
    doc = club.get(doc["id"])
    ann = club.feed("ann")
    told = [e["match_id"] for e in ann if e["type"] == feed.TOURNAMENT_MATCH]
    assert told == [m["match_id"] for m in doc["matches"] if 0 in m["entrants"]]  # each once, in order
    [over] = [e for e in ann if e["type"] == feed.TOURNAMENT_OVER]
    [line] = [s for s in doc["standings"] if s["entrant"] == 0]
    assert over == {
        "type": "tournament_over",
        "match_id": None,
        "game": GAME,
        "tournament_id": doc["id"],
        "tournament_name": "High Card tournament",
        "status": "finished",
        "rank": line["rank"],
        "points": line["points"],
    }
    assert ann[-1] == over  # the last word
    assert feed.TOURNAMENT_MATCH in feed.ENTRY_TYPES and feed.TOURNAMENT_OVER in feed.ENTRY_TYPES


def test_the_last_matchs_end_finishes_the_tournament_at_once_and_the_keeper_tells_the_entrants(
    club: Club,
) -> None:
    """Issue 43: what follows a match's end runs outside the mover's request, but a tournament's status
    is final as soon as its last match is (constant work after the outbox entry is popped); the
    entrants' ``tournament_over`` is the keeper's, at its next look."""
    doc = club.create(entrants=[{"player": "ann"}, {"player": "bob"}], parallel=2)
    first, last = under_way(doc)  # both made at once: no sweep is needed between them
    play_out(club.matches, first)
    assert club.get(doc["id"])["status"] == "running"
    play_out(club.matches, last)
    assert club.get(doc["id"])["status"] == "finished"
    assert not [e for e in club.feed("ann") if e["type"] == feed.TOURNAMENT_OVER]
    club.sweep()
    [over] = [e for e in club.feed("ann") if e["type"] == feed.TOURNAMENT_OVER]
    assert over["status"] == "finished" and over["tournament_id"] == doc["id"]


def test_a_rated_tournament_rates_its_matches(club: Club) -> None:
    doc = club.create(entrants=[{"player": "ann"}, {"level": "easy"}], rated=True, matches_per_pairing=1)
    run_to_end(club, doc["id"], parallel=32)
    meta = club.matches.meta(club.get(doc["id"])["matches"][0]["match_id"])
    assert meta.life["rated"] is True
    rated = club.matches.store.redis.hgetall(slot_key(club.app_id, GAME, "ratings"))
    assert {k.decode() for k in rated} == {"ann", "builtin:easy"}  # the match reached the ratings too


# -- Swiss ------------------------------------------------------------------------------------------


def record(club: Club, tid: str, n: int, places: list[int] | None) -> None:
    """Hand the scheduler the outcome the commit ending match ``n`` would carry, then advance the
    tournament as the keeper's sweep does once the end marked it due."""
    club.scheduler.recorded(
        {
            "app": club.app_id,
            "id": tid,
            "match_id": match_id_of(tid, n),
            "status": "finished" if places else "aborted",
            "places": places,
            "scores": None,
        }
    )
    club.scheduler.advance(club.app_id, tid)


def rounds_of(doc: dict[str, Any]) -> dict[int, list[list[int]]]:
    out: dict[int, list[list[int]]] = {}
    for m in doc["matches"]:
        out.setdefault(m["round"], []).append(sorted(m["entrants"]))
    return out


def test_a_swiss_of_eight_pairs_by_standing_without_rematches(club: Club) -> None:
    """Results chosen by the test: the lower entrant always wins.  Then, by hand: round 1 pairs the
    entry order; round 2 the winners together (0-2, 4-6) and the losers (1-3, 5-7); in round 3 the
    leaders 0 and 4 (2 points) meet, then 1, 2, 5, 6 (1 point, 1 win and Buchholz 2 each: entry order
    decides) pair top down with nobody they met: 1-2, 5-6; then 3-7."""
    entrants = [{"player": p} for p in Club.PEOPLE] + [{"level": "random", "name": f"R{i}"} for i in range(4)]
    doc = club.create(format="swiss", rounds=3, entrants=entrants, parallel=2)
    tid = doc["id"]
    assert doc["matches_per_pairing"] == 1 and doc["progress"]["total"] == 12
    assert rounds_of(doc) == {1: [[0, 1], [2, 3], [4, 5], [6, 7]]}
    assert [m["status"] for m in doc["matches"]] == ["active", "active", "pending", "pending"]
    for r in range(3):
        doc = club.get(tid)
        for m in [m for m in doc["matches"] if m["round"] == r + 1]:
            winner_first = [1, 2] if m["entrants"][0] < m["entrants"][1] else [2, 1]
            record(club, tid, int(m["match_id"].rpartition("-")[2]), winner_first)
            doc = club.get(tid)
            if r < 2 and any(x["round"] == r + 2 for x in doc["matches"]):
                # the next round is paired only once this one is over
                assert all(x["status"] == "finished" for x in doc["matches"] if x["round"] == r + 1)
    doc = club.get(tid)
    assert rounds_of(doc) == {
        1: [[0, 1], [2, 3], [4, 5], [6, 7]],
        2: [[0, 2], [4, 6], [1, 3], [5, 7]],
        3: [[0, 4], [1, 2], [5, 6], [3, 7]],
    }
    pairs = Counter(tuple(g) for gs in rounds_of(doc).values() for g in gs)
    assert max(pairs.values()) == 1  # no rematch
    assert doc["status"] == "finished" and doc["progress"]["done"] == 12
    assert [s["entrant"] for s in doc["standings"]] == [0, 4, 1, 5, 2, 6, 3, 7]  # ties: wins, then Buchholz
    assert [s["points"] for s in doc["standings"]] == [3, 2, 2, 2, 1, 1, 1, 0]


def test_a_swiss_played_out_never_repeats_a_pair_and_pairs_each_round_by_the_standings(club: Club) -> None:
    """Real matches, whatever their results: every round pairs the standings so far top down with the
    first grouping (in that order) that repeats no pair, found here by brute force."""
    entrants = [{"player": p} for p in Club.PEOPLE] + [{"level": "easy", "name": f"E{i}"} for i in range(4)]
    doc = club.create(format="swiss", rounds=4, entrants=entrants, parallel=4)
    tid = doc["id"]
    seen_rounds = 1
    while True:
        doc = club.get(tid)
        current = max(m["round"] for m in doc["matches"])
        if current > seen_rounds:  # a new round: check it against the standings before it
            seen_rounds = current
        going = under_way(doc)
        if doc["status"] != "running":
            break
        play_out(club.matches, going[0])
        club.sweep()
    doc = club.get(tid)
    assert doc["status"] == "finished" and seen_rounds == 4
    met: set[tuple[int, int]] = set()
    for r in range(1, 5):
        groups = [tuple(sorted(m["entrants"])) for m in doc["matches"] if m["round"] == r]
        before = [m for m in doc["matches"] if m["round"] < r]
        order = standing_order(before, 8)
        assert sorted(groups) == sorted(first_repeat_free(order, met))
        assert not met & set(groups)
        met |= set(groups)


def standing_order(matches: list[dict[str, Any]], n: int) -> list[int]:
    """The standings order from finished matches (points, wins, Buchholz, entry order), recomputed."""
    points = Counter[int]()
    wins = Counter[int]()
    for m in matches:
        for seat, e in enumerate(m["entrants"]):
            points[e] += m["points"][seat]
            wins[e] += m["places"][seat] == 1
    buchholz = Counter[int]()
    for m in matches:
        for e in m["entrants"]:
            buchholz[e] += sum(points[o] for o in m["entrants"] if o != e)
    return sorted(range(n), key=lambda e: (-points[e], -wins[e], -buchholz[e], e))


def first_repeat_free(order: list[int], met: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """Brute force: every pairing of ``order`` into pairs, in depth-first order (the top entrant with
    the nearest below it first); the first with no pair in ``met``."""

    def pairings(rest: list[int]) -> Any:
        if not rest:
            yield []
            return
        head = rest[0]
        for partner in rest[1:]:
            left = [e for e in rest[1:] if e != partner]
            for tail in pairings(left):
                yield [tuple(sorted((head, partner))), *tail]

    for candidate in pairings(order):
        if not met & set(candidate):
            return candidate
    raise AssertionError("no repeat-free pairing")


def test_a_swiss_with_an_odd_count_gives_the_bye_to_the_lowest_without_one(club: Club) -> None:
    entrants = [{"player": p} for p in Club.PEOPLE] + [{"level": "easy"}]
    doc = club.create(format="swiss", rounds=3, entrants=entrants)
    tid = doc["id"]
    assert doc["progress"]["total"] == 3 * 2
    byes = []
    for r in range(1, 4):
        doc = club.get(tid)
        playing = {e for m in doc["matches"] if m["round"] == r for e in m["entrants"]}
        [out] = set(range(5)) - playing
        byes.append(out)
        for m in [m for m in doc["matches"] if m["round"] == r]:
            record(
                club,
                tid,
                int(m["match_id"].rpartition("-")[2]),
                [1, 2] if m["entrants"][0] < m["entrants"][1] else [2, 1],
            )
    assert byes[0] == 4  # round 1: the last entrant
    assert len(set(byes)) == 3  # nobody sits out twice while others have not
    doc = club.get(tid)
    for line in doc["standings"]:
        bye_points = byes.count(line["entrant"])  # a bye is worth players - 1 = 1 point, no win, not played
        won = sum(
            1
            for m in doc["matches"]
            if line["entrant"] in m["entrants"] and m["places"][m["entrants"].index(line["entrant"])] == 1
        )
        assert line["points"] == won + bye_points and line["wins"] == won
        assert line["played"] == sum(1 for m in doc["matches"] if line["entrant"] in m["entrants"])


# -- cancel -------------------------------------------------------------------------------------------


def test_cancel_mid_way_aborts_the_matches_under_way_and_freezes_the_standings(club: Club) -> None:
    doc = club.create(entrants=[{"player": "ann"}, {"level": "easy"}, {"level": "random"}], parallel=2)
    tid = doc["id"]
    play_out(club.matches, under_way(doc)[0])
    club.sweep()
    before = club.get(tid)
    assert before["progress"]["done"] == 1
    going = under_way(before)
    assert len(going) == 2
    cancelled = club.tournaments.cancel(tid, club.caller)
    assert cancelled["status"] == "cancelled" and cancelled["finished_at"] is not None
    assert cancelled["cancel_reason"] == "cancelled"
    # the cancel itself does constant work: the matches under way are the sweep's to abort, at once
    assert all(club.matches.meta(mid).status == ACTIVE for mid in going)
    assert club.matches.store.redis.zscore("tt:tournaments:due", f"{club.app_id}:{tid}") is not None
    club.sweep()
    assert cancelled["standings"] == before["standings"]
    assert cancelled["progress"]["done"] == cancelled["progress"]["total"] == 6
    assert "matches" not in cancelled  # the summary: constant work whatever the size
    statuses = Counter(m["status"] for m in club.get(tid)["matches"])
    assert statuses == {"finished": 1, "aborted": 5}
    for mid in going:  # the matches under way ended without a result
        meta = club.matches.meta(mid)
        assert meta.status == ABORTED and meta.result is None
        last = club.matches.store.events_after(mid, "0-0")[-1].event
        assert last["type"] == "match_over" and last["reason"] == "tournament_cancelled"
    made = [m["match_id"] for m in club.get(tid)["matches"] if club.matches.store.exists(m["match_id"])]
    club.scheduler.advance(club.app_id, tid)
    club.scheduler.sweep(club.matches.now() + 60)
    assert [
        m["match_id"] for m in club.get(tid)["matches"] if club.matches.store.exists(m["match_id"])
    ] == made
    with pytest.raises(Conflict) as again:
        club.tournaments.cancel(tid, club.caller)
    assert again.value.code == "tournament_over" and again.value.details == {"status": "cancelled"}
    [over] = [e for e in club.feed("ann") if e["type"] == feed.TOURNAMENT_OVER]
    assert over["status"] == "cancelled"
    assert club.get(tid)["standings"] == before["standings"]


def test_a_finished_tournament_cannot_be_cancelled(club: Club) -> None:
    doc = club.create(entrants=[{"level": "easy"}, {"level": "random"}], matches_per_pairing=1)
    run_to_end(club, doc["id"], parallel=32)
    with pytest.raises(Conflict) as over:
        club.tournaments.cancel(doc["id"], club.caller)
    assert over.value.details == {"status": "finished"}


# -- the sweep: starts, and what a dead process left ---------------------------------------------------


def keeper_tick(duty: Duty, at: float) -> bool:
    """The keeper's round at ``at`` for ``duty``: whether it ran."""
    if not duty.due(at):
        return False
    duty.run(at)
    return True


def test_a_tournament_starting_later_waits_for_the_sweep(club: Club) -> None:
    clock = Clock(club.matches.now())
    club.set_clock(clock)
    every = float(club.matches.config.tournament_sweep_seconds)
    duty = tournaments_duty(club.scheduler, every)
    doc = club.create(entrants=[{"level": "easy"}, {"level": "random"}], starts_at=clock.now + 60)
    assert doc["status"] == "scheduled" and doc["starts_at"] == clock.now + 60
    assert all(m["status"] == "pending" for m in doc["matches"])
    assert keeper_tick(duty, clock.now + 30)
    assert club.get(doc["id"])["status"] == "scheduled"
    assert not keeper_tick(duty, clock.now + 30 + duty.every / 2)  # not again within its poll
    assert duty.every <= every
    clock.now += 61
    assert keeper_tick(duty, clock.now)
    started = club.get(doc["id"])
    assert started["status"] == "running" and len(under_way(started)) == 2


def test_the_sweep_makes_whole_what_a_dead_process_left(club: Club) -> None:
    doc = club.create(entrants=[{"level": "easy"}, {"level": "random"}, {"level": "normal"}], parallel=2)
    tid = doc["id"]
    store = club.tournaments.store
    first, second = under_way(doc)
    # 1. a match ended but its outcome never reached the record (the outbox entry was lost with Redis
    #    data, say): the sweep reads the match itself
    recorded = club.scheduler.recorded
    club.scheduler.recorded = lambda outcome: False  # type: ignore[method-assign]
    try:
        play_out(club.matches, first)
    finally:
        club.scheduler.recorded = recorded  # type: ignore[method-assign]
    assert club.get(tid)["matches"][0]["status"] == "active"
    # 2. a match under way vanished (expired): the sweep records it aborted
    club.matches.store.redis.delete(match_key(second, "meta"))
    # 3. a process created the next match and died before marking it under way
    head = store.head(club.app_id, tid)
    assert head is not None
    spec = club.scheduler._spec(club.app_id, tid) or {}
    [(n, m)] = club.scheduler._matches_at(club.app_id, spec, [head.next])
    club.scheduler._start_match(club.app_id, spec, n, m)
    assert club.matches.store.exists(m["match_id"]) and club.get(tid)["matches"][n - 1]["status"] == "pending"
    club.scheduler.sweep(club.matches.now() + 10)
    doc = club.get(tid)
    assert [x["status"] for x in doc["matches"][:3]] == ["finished", "aborted", "active"]
    assert len(under_way(doc)) == 2
    assert doc["progress"]["done"] == 2
    run_to_end(club, tid, parallel=2)
    doc = club.get(tid)
    assert doc["status"] == "finished" and Counter(x["status"] for x in doc["matches"]) == {
        "finished": 5,
        "aborted": 1,
    }
    # the aborted match counts as not played: nobody got points from it
    assert sum(s["played"] for s in doc["standings"]) == 5 * 2


# -- two processes at once ----------------------------------------------------------------------------


def test_two_threads_recording_and_advancing_at_once_do_each_thing_once(club: Club) -> None:
    """Eight threads (as many processes would) hand over the same outcomes and advance at once: each
    result is recorded once, each match made once, and never more than ``parallel`` under way."""
    doc = club.create(
        entrants=[{"level": lv} for lv in ("random", "easy")] + [{"player": "ann"}, {"player": "bob"}],
        parallel=3,
    )
    tid = doc["id"]
    recorded = club.scheduler.recorded
    club.scheduler.recorded = lambda outcome: False  # type: ignore[method-assign]  # handed over below
    try:
        for _ in range(40):
            doc = club.get(tid)
            if doc["status"] != "running":
                break
            going = under_way(doc)
            for mid in going:
                play_out(club.matches, mid)
            outcomes = []
            for mid in going:
                meta = club.matches.meta(mid)
                outcomes.append(
                    {
                        "app": club.app_id,
                        "id": tid,
                        "match_id": mid,
                        "status": "finished",
                        "places": places(meta.result),
                        "scores": meta.result["scores"],
                    }
                )

            def hand_over(i: int, outcomes: list[dict[str, Any]] = outcomes) -> None:
                for outcome in outcomes[i % 2 :] + outcomes[: i % 2]:
                    if recorded(outcome):
                        club.scheduler.follow(outcome)
                club.scheduler.advance(club.app_id, tid)

            at_once(8, hand_over)
            doc = club.get(tid)
            assert doc["progress"]["done"] == sum(m["status"] == "finished" for m in doc["matches"])
            assert len(under_way(doc)) <= 3 and len(playing(club, doc)) <= 3
    finally:
        club.scheduler.recorded = recorded  # type: ignore[method-assign]
    doc = club.get(tid)
    assert doc["status"] == "finished" and doc["progress"]["done"] == doc["progress"]["total"] == 12
    for pid, entrant in (("ann", 2), ("bob", 3)):
        told = [e["match_id"] for e in club.feed(pid) if e["type"] == feed.TOURNAMENT_MATCH]
        assert told == [m["match_id"] for m in doc["matches"] if entrant in m["entrants"]]
        assert [e["type"] for e in club.feed(pid)].count(feed.TOURNAMENT_OVER) == 1
    for m in doc["matches"]:  # each made once: one creation event, one start
        events = club.matches.store.events_after(m["match_id"], "0-0")
        assert [e.event["type"] for e in events].count("match_created") == 1


# -- listing --------------------------------------------------------------------------------------------


def test_the_listing_pages_newest_first_and_filters_by_status(club: Club) -> None:
    clock = Clock(club.matches.now())
    club.set_clock(clock)
    made = []
    for i in range(5):
        clock.now += 1
        doc = club.create(
            name=f"T{i}",
            entrants=[{"level": "easy"}, {"level": "random"}],
            starts_at=clock.now + 1000 * (i % 2),
        )
        made.append(doc["id"])
    page, cursor = club.tournaments.list(club.caller, None, None, 2)
    assert [t["name"] for t in page] == ["T4", "T3"] and "matches" not in page[0]
    assert "standings" in page[0] and "progress" in page[0]
    page2, cursor2 = club.tournaments.list(club.caller, None, cursor, 2)
    page3, cursor3 = club.tournaments.list(club.caller, None, cursor2, 2)
    assert [t["name"] for t in page2 + page3] == ["T2", "T1", "T0"] and cursor3 is None
    scheduled, _ = club.tournaments.list(club.caller, "scheduled", None, 10)
    assert [t["name"] for t in scheduled] == ["T3", "T1"]
    with pytest.raises(Invalid):
        club.tournaments.list(club.caller, "paused", None, 10)
    assert set(made) == {t["id"] for t in page + page2 + page3}


def test_places_are_shared_on_ties_and_points_sum_to_the_pairs() -> None:
    assert points_of([1, 2, 3]) == [2.0, 1.0, 0.0]
    assert points_of([1, 1, 3]) == [1.5, 1.5, 0.0]
    assert points_of([1, 1]) == [0.5, 0.5]
    assert all(sum(points_of(list(p))) == 3 for p in itertools.product([1, 2, 3], repeat=3))


def test_eight_schedulers_starting_a_tournament_at_once_make_parallel_matches_each_once(club: Club) -> None:
    clock = Clock(club.matches.now())
    club.set_clock(clock)
    doc = club.create(
        entrants=[{"player": p} for p in Club.PEOPLE] + [{"level": "easy"}],
        starts_at=clock.now + 5,
        parallel=4,
    )
    tid = doc["id"]
    clock.now += 10
    at_once(8, lambda i: club.scheduler.advance(club.app_id, tid))
    doc = club.get(tid)
    made = [m["match_id"] for m in doc["matches"] if club.matches.store.exists(m["match_id"])]
    assert made == [match_id_of(tid, n) for n in range(1, 5)]  # the first 4 in schedule order, no more
    assert under_way(doc) == made
    for pid in Club.PEOPLE:  # each told of each of their matches once
        told = [e["match_id"] for e in club.feed(pid) if e["type"] == feed.TOURNAMENT_MATCH]
        assert sorted(told) == sorted(set(told))
        assert [e["type"] for e in club.feed(pid)].count(feed.INVITED) == len(told)
