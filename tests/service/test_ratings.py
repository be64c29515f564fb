"""Ratings and leaderboards (issue 27 points 1, 2 and the ratings part of 6), against a real Redis.

Rated matches are created and read through the HTTP API as an integrator does; their moves are made
through the domain (:meth:`Matches.seat_move`, and :meth:`Matches.bot_move` for the bots' seats, as a
worker would: no worker runs in these tests), each the same commit the API makes.  The property
tests of the model are test_ratings_properties.py's; crashes and Redis restarts are
tests/reliability/test_ratings_crash.py's."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain import ratings as rating_rules
from service.domain.matches.operations import Matches
from service.domain.outbox.ratings import outcome
from service.domain.ratings import BUILTINS, MODEL, places, rate, rated_places
from service.http.app import create_app
from service.http.context import Services
from service.storage.matches import FINISHED, MatchMeta, match_key
from service.storage.ratings import slot_key
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend, put_player, token_for

GAME = "high_card"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


@pytest.fixture
def services(app: Flask) -> Services:
    found: Services = app.extensions["tabletop"]
    return found


@pytest.fixture
def matches(services: Services) -> Matches:
    return services.matches


class Club(Backend):
    """An app with players ann, bob, cy, dee (and a bot player, robo), each with a token."""

    PEOPLE = ("ann", "bob", "cy", "dee")

    def __init__(self, client: FlaskClient, name: str = "club") -> None:
        super().__init__(client, name)
        for pid in ("cy", "dee"):
            assert put_player(client, self.key, pid).status_code == 201
            self.tokens[pid] = token_for(client, self.key, pid)
        assert put_player(client, self.key, "robo", "Robo", bot=True).status_code == 201
        self.tokens["robo"] = token_for(client, self.key, "robo")

    def rated(self, *seats: str, **body: Any) -> Any:
        """POST a rated match; a seat is a player id or ``bot:<level>``."""
        return self.client.post(
            "/v1/matches",
            json={"game": GAME, "seats": [seat_request(s) for s in seats], "rated": True, "seed": 3, **body},
            headers=bearer(self.key),
        )

    def board(self, pool: str = "people", **query: Any) -> Any:
        return self.client.get(
            f"/v1/games/{GAME}/leaderboard", query_string={"pool": pool, **query}, headers=bearer(self.key)
        )


def seat_request(seat: str) -> dict[str, Any]:
    if seat.startswith("bot:"):
        return {"kind": "bot", "name": seat, "level": seat.removeprefix("bot:")}  # its level's own budget
    return {"player": seat}


@pytest.fixture
def club(client: FlaskClient) -> Club:
    return Club(client)


def play_out(matches: Matches, match_id: str, before_move: Any = None) -> MatchMeta:
    """Play the match to its end, each seat its first legal action: a human seat through
    :meth:`Matches.seat_move`, a bot's through :meth:`Matches.bot_move` (what a worker does).
    ``before_move(meta)`` runs before each move (a resign, say)."""
    game = matches.games[GAME]
    while True:
        loaded = matches.store.load(match_id)
        assert loaded is not None
        meta = loaded.meta
        if meta.to_move is None:
            return meta
        if before_move is not None and before_move(meta):
            continue
        state = game.decode(loaded.encoded_state())
        action = game.legal_actions(state)[0]
        if meta.seats[meta.to_move]["kind"] == "bot":
            played = matches.bot_move(meta, state, meta.to_move, action, announce=False)
        else:
            played = matches.seat_move(meta, state, meta.to_move, action)
        assert played.commit.version is not None


def ratings_of(client: redis.Redis, app: str) -> dict[str, dict[str, Any]]:
    raw = client.hgetall(slot_key(app, GAME, "ratings"))
    return {k.decode(): json.loads(v) for k, v in raw.items()}


# -- who may be rated (point 1: "matches with anonymous seats are never rated") --------------------------


def test_a_rated_match_is_only_between_named_players_and_built_in_bots(
    client: FlaskClient, club: Club
) -> None:
    c = club
    made = c.rated("ann", "bob", "bot:hard")
    assert made.status_code == 201, made.json
    assert made.json["rated"] is True
    open_for_cy = c.client.post(
        "/v1/matches",
        json={"game": GAME, "seats": [{"player": "ann"}, {"kind": "open", "player": "cy"}], "rated": True},
        headers=bearer(c.key),
    )
    assert open_for_cy.status_code == 201, open_for_cy.json

    def refused(resp: Any, why: str) -> None:
        assert resp.status_code == 422, resp.json
        assert resp.json["details"]["field"] == "rated" and why in resp.json["message"], resp.json

    anonymous_seat = {"game": GAME, "seats": [{"player": "ann"}, {"name": "guest"}], "rated": True}
    refused(c.client.post("/v1/matches", json=anonymous_seat, headers=bearer(c.key)), "neither a player")
    open_seat = {"game": GAME, "seats": [{"player": "ann"}, {"kind": "open"}], "rated": True}
    refused(c.client.post("/v1/matches", json=open_seat, headers=bearer(c.key)), "neither a player")
    twice = c.rated("bot:easy", "bot:easy")  # issue 42 point 7: a level in two seats names the seat
    assert twice.status_code == 422 and twice.json["details"]["field"] == "seats.1.level", twice.json
    refused(c.rated("ann", "bob", on_leave={"then": "abort"}), "goes on when a player leaves")
    nobody = {"game": GAME, "seats": [{"name": "a"}, {"kind": "bot", "name": "b"}], "rated": True}
    refused(c.client.post("/v1/matches", json=nobody), "app key or a player token")
    # A player token creates a rated match between itself and bots (or other named seats: its own only).
    mine = {"game": GAME, "seats": [{"player": "ann"}, {"kind": "bot", "name": "b"}], "rated": True}
    assert c.client.post("/v1/matches", json=mine, headers=c.as_("ann")).status_code == 201
    # Unrated by default, and said so in documents and listings.
    plain = c.match()
    assert plain["rated"] is False
    listed = c.client.get("/v1/me/matches", headers=c.as_("ann")).json["matches"]
    assert {m["id"]: m["rated"] for m in listed}[made.json["id"]] is True


# -- exactly once ---------------------------------------------------------------------------------------


def test_a_finished_rated_match_rates_its_players_once(
    client: FlaskClient, club: Club, matches: Matches, redis_client: redis.Redis, services: Services
) -> None:
    """Point 1: "each rated match updates its players' ratings exactly once when it finishes"."""
    made = club.rated("ann", "bob", "bot:hard").json
    meta = play_out(matches, made["id"])
    assert meta.status == FINISHED and meta.result is not None
    app = club.app["id"]
    stored = ratings_of(redis_client, app)
    assert {r: stored[r]["matches"] for r in ("ann", "bob", "builtin:hard")} == dict.fromkeys(
        ("ann", "bob", "builtin:hard"), 1
    )
    # The numbers are the model's on the default priors, seats by their places.
    order = places(meta.result)
    raters = ["ann", "bob", "builtin:hard"]
    expected = rate({r: (MODEL.mu, MODEL.sigma) for r in raters}, raters, order)
    assert {r: (stored[r]["mu"], stored[r]["sigma"]) for r in raters} == expected
    # The winner gained; the last lost.
    first = raters[order.index(1)]
    last = raters[order.index(max(order))]
    assert stored[first]["ordinal"] > 0 > stored[last]["ordinal"]
    # Asked again (a retry of the drain, a second sweep): nothing changes.
    entry = outcome(None, meta, matches.accounts.store.player)
    assert entry is not None
    assert services.ratings.record(meta.id, entry) is False
    assert services.outbox.drain(meta.id) == 0
    assert ratings_of(redis_client, app) == stored
    assert redis_client.llen(match_key(meta.id, "outbox")) == 0
    # The bot player pool and the people pool: ann and bob are people, builtin:hard a bot.
    people = club.board().json["players"]
    assert {row["player"] for row in people} == {"ann", "bob"}
    bots = club.board("bots").json["players"]
    assert {row["player"] for row in bots} == set(BUILTINS)


def test_recording_twice_and_from_many_threads_rates_once(
    matches: Matches, club: Club, redis_client: redis.Redis, services: Services
) -> None:
    """The same outcome recorded 16 times at once (drains racing): one of them rates it.  Then 40
    matches sharing players recorded from 8 threads at once: each rated once, every player's history a
    chain (each match starts from the rating the previous one left), and replaying the matches in the
    order they were rated reproduces every rating exactly (point 6: "order of updates per match is
    fixed")."""
    app = club.app["id"]
    first = synthetic(app, ["ann", "bob", "cy"], [1, 2, 3], at=1.0)
    wins: list[bool] = []
    barrier = threading.Barrier(16)

    def once() -> None:
        barrier.wait()
        wins.append(services.ratings.record("m-0", first))

    threads = [threading.Thread(target=once) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(wins) == [False] * 15 + [True]
    assert ratings_of(redis_client, app)["ann"]["matches"] == 1

    people = ["ann", "bob", "cy", "dee", "builtin:easy"]
    outcomes = {
        f"m-{i}": synthetic(
            app,
            [people[i % 5], people[(i + 1) % 5], people[(i + 3) % 5]],
            [1, 2, 2] if i % 4 == 0 else [1, 2, 3],
            at=float(i),
        )
        for i in range(1, 41)
    }
    queue = list(outcomes.items())
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                if not queue:
                    return
                match_id, entry = queue.pop()
            assert services.ratings.record(match_id, entry) is True

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = ratings_of(redis_client, app)
    counts = {p: sum(p in e["players"] for e in [first, *outcomes.values()]) for p in people}
    assert {p: stored[p]["matches"] for p in people} == counts
    # Replay in the order rated (each history entry carries the match's number, seq).
    rated: dict[int, str] = {}
    for p in people:
        history = [json.loads(e) for e in redis_client.lrange(slot_key(app, GAME, f"history:{p}"), 0, -1)]
        assert [h["before"] for h in history[:-1]] == [h["after"] for h in history[1:]]  # a chain
        assert history[-1]["before"] == 0.0
        rated.update({h["seq"]: h["match_id"] for h in history})
    assert sorted(rated) == list(range(1, 42))
    every = {"m-0": first, **outcomes}
    replayed: dict[str, tuple[float, float]] = {}
    for seq in sorted(rated):
        entry = every[rated[seq]]
        prior = {r: replayed.get(r, (MODEL.mu, MODEL.sigma)) for r in entry["players"]}
        replayed.update(rate(prior, entry["players"], entry["ranks"]))
    assert replayed == {p: (stored[p]["mu"], stored[p]["sigma"]) for p in people}


def synthetic(app: str, players: list[str], ranks: list[int], at: float) -> dict[str, Any]:
    """An outcome as :func:`outcome` makes it, for a match that never existed."""
    return {
        "app": app,
        "game": GAME,
        "at": at,
        "players": players,
        "ranks": ranks,
        "names": [p.title() for p in players],
        "pools": ["bots" if p.startswith("builtin:") else "people" for p in players],
    }


# -- who holds a seat's rating -------------------------------------------------------------------------


def test_a_player_who_resigned_is_rated_with_the_seats_place_when_the_game_ended(
    client: FlaskClient, club: Club, matches: Matches, redis_client: redis.Redis
) -> None:
    """Point 1: "a seat a bot finished after its player resigned or timed out counts for the player who
    left, ranked as the game ended".  ann resigns after her first move; an easy bot plays her seat to
    the end; the bot level that finished it is not rated.  Since issue 42 point 6 the seat is ann's
    but its stand-in made most of its decisions, so ann is rated last whatever the bot reached."""
    made = club.rated("ann", "bob", "cy").json
    resigned: list[int] = []

    def resign_once(meta: MatchMeta) -> bool:
        if not resigned and meta.version >= 3 and meta.seats[0]["kind"] == "human":
            club.client.post(f"/v1/matches/{meta.id}/resign", headers=club.as_("ann"))
            resigned.append(meta.version)
            return True
        return False

    meta = play_out(matches, made["id"], resign_once)
    assert resigned and meta.seats[0]["kind"] == "bot"  # a bot finished ann's seat
    assert meta.result is not None and meta.result["resigned"] == [0]
    app = club.app["id"]
    stored = ratings_of(redis_client, app)
    assert stored["ann"]["matches"] == 1 and "builtin:easy" not in stored
    history = club.client.get("/v1/players/ann/ratings", headers=bearer(club.key)).json["ratings"][0][
        "history"
    ]
    assert meta.result["stand_in"][0] * 2 > meta.result["decisions"][0] > 0
    assert history[0]["match_id"] == meta.id and history[0]["place"] == 3 == rated_places(meta.result)[0]


def test_a_player_who_timed_out_for_good_is_rated_with_the_seats_place(
    club: Club, matches: Matches, redis_client: redis.Redis
) -> None:
    """The same for a player away after too many timeouts (``max_timeouts`` 1): the clock's bot
    (``random``) plays the seat to the end, for ann: every decision of her seat a stand-in's, so she is
    rated last (issue 42 point 6)."""
    made = club.rated("ann", "bob", time_control={"per_move_seconds": 600, "max_timeouts": 1}).json
    game = matches.games[GAME]
    timed_out: list[int] = []

    def time_out_ann(meta: MatchMeta) -> bool:
        if timed_out or meta.to_move != 0:
            return False
        loaded = matches.store.load(meta.id)
        assert loaded is not None
        state = game.decode(loaded.encoded_state())
        played = matches.timeout_move(meta, state, 0, game.legal_actions(state)[0])  # the worker's path
        assert played.commit.version is not None
        timed_out.append(meta.version)
        return True

    meta = play_out(matches, made["id"], time_out_ann)
    assert timed_out and meta.seats[0].get("away") is True  # a bot played ann's seat to the end
    stored = ratings_of(redis_client, club.app["id"])
    assert stored["ann"]["matches"] == 1 and not any(r.startswith("builtin:") for r in stored)
    assert meta.result is not None
    entry = redis_client.lindex(slot_key(club.app["id"], GAME, "history:ann"), 0)
    assert meta.result["stand_in"][0] == meta.result["decisions"][0] > 0
    assert json.loads(entry)["place"] == 2 == rated_places(meta.result)[0]


def test_an_away_seat_counts_for_its_player_and_a_bot_seat_for_its_level() -> None:
    """The rule on the outcome itself: an away seat (a bot plays it after timeouts) and a resigned one
    (a plain bot seat now) are their players'; a bot seat from the start is its level's; a rated match
    that somehow holds a seat nobody can be rated for is not rated at all."""
    seats = [
        {"name": "Ann", "kind": "bot", "level": "random", "think_ms": 0, "away": True},
        {"name": "Bob", "kind": "bot", "level": "easy", "think_ms": 0},
        {"name": "Hard", "kind": "bot", "level": "hard", "think_ms": 2000},
    ]
    life = {"app": "a1", "rated": True, "players": {"0": "a1:ann", "1": "a1:bob"}, "resigned": [1]}
    result = {"scores": [3, 9, 9], "ranking": [1, 2, 0], "winners": [1, 2], "tiebreak": None}
    meta = MatchMeta("m1", GAME, 3, seats, ["", "", ""], {}, 1, 9, FINISHED, None, result, 0.0, 5.0, 1, life)
    got = outcome(None, meta, lambda app, pid: None)
    assert got is not None
    assert got["players"] == ["ann", "bob", "builtin:hard"]
    assert got["ranks"] == [3, 1, 1]
    assert got["at"] == 5.0 and got["app"] == "a1"
    anonymous = MatchMeta(
        "m2", GAME, 2, [{"name": "x", "kind": "human"}, seats[2]], ["h", ""], {}, 1, 9, FINISHED, None,
        result, 0.0, 5.0, 1, {**life, "players": {}},
    )  # fmt: skip
    assert outcome(None, anonymous, lambda app, pid: None) is None
    assert (
        outcome(None, MatchMeta(**{**meta.__dict__, "life": {**life, "rated": False}}), lambda a, p: None)
        is None
    )
    assert outcome(meta, meta, lambda app, pid: None) is None  # finished before: not this commit's


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        # China (R60): equal totals share, no tie-break; ranking orders them by seat only.
        ({"scores": [5, 9, 9, 2], "ranking": [1, 2, 0, 3], "winners": [1, 2], "tiebreak": None},
         [3, 1, 1, 4]),
        ({"scores": [9, 5, 5, 2], "ranking": [0, 1, 2, 3], "winners": [0], "tiebreak": None}, [1, 2, 2, 4]),
        # Taj Mahal (X5) says who shares which place itself.
        ({"scores": [7, 7, 3], "ranking": [0, 1, 2], "ranks": [1, 1, 3], "winners": [0, 1], "tiebreak": None},
         [1, 1, 3]),
        # Year of the Dragon (R55a): the person track breaks every tie.
        ({"scores": [8, 8, 8], "ranking": [2, 0, 1], "winners": [2], "tiebreak": "R55a"}, [2, 3, 1]),
        # Confucius (R111): the tie for first broken by a title; the winner alone first.
        ({"scores": [6, 6, 1], "ranking": [1, 0, 2], "winners": [1], "tiebreak": "R111 admiral"}, [2, 1, 3]),
    ],
)  # fmt: skip
def test_places_share_ties_as_the_rules_say(result: dict[str, Any], expected: list[int]) -> None:
    assert places(result) == expected


# -- leaderboards (point 2) ---------------------------------------------------------------------------


def test_leaderboards_order_by_ordinal_share_ranks_and_page_without_gaps(
    client: FlaskClient, club: Club, matches: Matches, services: Services
) -> None:
    app = club.app["id"]
    names = [f"p{i:02d}" for i in range(12)]
    for pid in names:
        assert put_player(client, club.key, pid).status_code == 201
    # A round robin of 3-player matches with fixed finishing orders: distinct ordinals, and two
    # players (p10, p11) who never play stay off the board; p08 and p09 play one identical match each.
    n = 0
    for i in range(8):
        for j in range(i + 1, 8):
            n += 1
            trio = [names[i], names[j], names[(i + j) % 8]]
            if len(set(trio)) == 3:
                services.ratings.record(f"rr-{n}", synthetic(app, trio, [1, 2, 3], at=float(n)))
    services.ratings.record("x-1", synthetic(app, ["p08", "builtin:easy"], [1, 2], at=100.0))
    services.ratings.record("x-2", synthetic(app, ["p09", "builtin:normal"], [1, 2], at=101.0))

    whole = club.board(limit=100).json
    assert whole["game"] == GAME and whole["pool"] == "people" and whole["next_cursor"] is None
    rows = whole["players"]
    ordinals = [r["ordinal"] for r in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    assert {r["player"] for r in rows} == set(names[:10])
    for row in rows:
        assert row["ordinal"] == pytest.approx(row["mu"] - 3 * row["sigma"])
        assert row["rank"] == 1 + sum(o > row["ordinal"] for o in ordinals)  # equal ordinals share
    shared = {r["player"]: r["rank"] for r in rows}
    assert shared["p08"] == shared["p09"]
    assert rows[0]["name"] == rows[0]["player"].title() and rows[0]["matches"] >= 1
    # Paged by 3: the same rows, none skipped or repeated.
    paged, cursor = [], None
    while True:
        page = club.board(limit=3, **({"cursor": cursor} if cursor else {})).json
        paged += page["players"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert len(page["players"]) == 3
    assert paged == rows
    # Two players trading places between two pages (the last beats the first): everyone else is
    # still read exactly once (a keyset cursor; an offset would skip or repeat the players between).
    first = club.board(limit=4).json
    movers = {rows[-1]["player"], rows[0]["player"]}
    services.ratings.record("late", synthetic(app, [rows[-1]["player"], rows[0]["player"]], [1, 2], at=200.0))
    second = club.board(limit=100, cursor=first["next_cursor"]).json["players"]
    seen = [r["player"] for r in first["players"] + second if r["player"] not in movers]
    assert sorted(seen) == sorted(set(names[:10]) - movers)
    # The bots' pool: the four built-in levels from the start, in every app; robo after its match.
    bots = club.board("bots").json["players"]
    assert {r["player"] for r in bots} == set(BUILTINS)
    services.ratings.record(
        "robo-1", {**synthetic(app, ["robo", "ann"], [1, 2], 300.0), "pools": ["bots", "people"]}
    )
    assert "robo" in {r["player"] for r in club.board("bots").json["players"]}
    assert "robo" not in {r["player"] for r in club.board(limit=100).json["players"]}
    other = Club(client, "other")
    assert other.board().json["players"] == []
    assert {r["player"] for r in other.board("bots").json["players"]} == set(BUILTINS)
    assert all(r["matches"] == 0 for r in other.board("bots").json["players"])


def test_leaderboard_refusals(client: FlaskClient, club: Club) -> None:
    c = client
    assert c.get(f"/v1/games/{GAME}/leaderboard").status_code == 401
    assert c.get("/v1/games/nope/leaderboard", headers=bearer(club.key)).status_code == 404
    assert club.board(pool="everyone").status_code == 422
    bad = club.board(cursor="bm90LWEtY3Vyc29y")  # base64 of "not-a-cursor"
    assert bad.status_code == 422 and bad.json["details"]["field"] == "cursor"
    # A player token reads its app's board; one without the read scope... has play, which reads.
    assert c.get(f"/v1/games/{GAME}/leaderboard", headers=club.as_("ann")).status_code == 200


def test_a_players_ratings_per_game_with_recent_history(
    client: FlaskClient, club: Club, matches: Matches, services: Services
) -> None:
    app = club.app["id"]
    for i in range(35):
        ranks = [1, 2] if i % 3 else [2, 1]
        services.ratings.record(f"h-{i}", synthetic(app, ["ann", "builtin:hard"], ranks, at=float(i)))
    doc = client.get("/v1/players/ann/ratings", headers=club.as_("bob")).json
    assert doc["player"] == "ann" and [r["game"] for r in doc["ratings"]] == [GAME]
    mine = doc["ratings"][0]
    assert mine["matches"] == 35 and mine["pool"] == "people" and mine["rank"] == 1
    history = mine["history"]
    assert len(history) == rating_rules.HISTORY_LENGTH
    assert [h["match_id"] for h in history[:3]] == ["h-34", "h-33", "h-32"]
    assert history[0]["after"] == mine["ordinal"] and history[0]["place"] == 1 and history[0]["players"] == 2
    assert [h["before"] for h in history[:-1]] == [h["after"] for h in history[1:]]
    hard = client.get("/v1/players/builtin:hard/ratings", headers=bearer(club.key)).json["ratings"]
    assert [(r["game"], r["matches"]) for r in hard if r["game"] == GAME] == [(GAME, 35)]
    assert {r["game"] for r in hard} == set(matches.games)  # seeded in every game's board
    # Before any rated match, a player has no ratings; unknown players and other apps' are 404.
    assert client.get("/v1/players/dee/ratings", headers=bearer(club.key)).json == {
        "player": "dee",
        "ratings": [],
    }
    assert client.get("/v1/players/zed/ratings", headers=bearer(club.key)).status_code == 404
    assert client.get("/v1/players/builtin:genius/ratings", headers=bearer(club.key)).status_code == 404
    other = Club(client, "other")
    assert client.get("/v1/players/ann/ratings", headers=bearer(other.key)).json["ratings"] == []
    assert client.get("/v1/players/ann/ratings").status_code == 401


# -- summaries and my matches (point 2: "a results export is one paginated read") ---------------------


def test_summaries_carry_the_result_and_my_matches_filter_by_game_and_status(
    client: FlaskClient, club: Club, matches: Matches
) -> None:
    finished = club.rated("ann", "bob", visibility="public").json["id"]
    play_out(matches, finished)
    running = club.rated("ann", "bob", visibility="public").json["id"]
    china = club.client.post(
        "/v1/matches",
        json={"game": "china", "seats": [{"player": p} for p in ("ann", "bob", "cy")], "rated": True},
        headers=bearer(club.key),
    ).json["id"]
    listed = client.get(f"/v1/matches?game={GAME}&status=finished").json["matches"]
    assert [m["id"] for m in listed] == [finished]
    assert listed[0]["result"]["ranking"] and listed[0]["rated"] is True
    assert client.get(f"/v1/matches?game={GAME}&status=active").json["matches"][0]["result"] is None
    mine = client.get(f"/v1/me/matches?game={GAME}", headers=club.as_("ann")).json["matches"]
    assert [m["id"] for m in mine] == [running, finished]
    done = client.get(f"/v1/me/matches?game={GAME}&status=finished", headers=club.as_("bob")).json["matches"]
    assert [m["id"] for m in done] == [finished] and done[0]["result"]["winners"]
    assert [
        m["id"] for m in client.get("/v1/me/matches?game=china", headers=club.as_("ann")).json["matches"]
    ] == [china]
    assert client.get("/v1/me/matches?game=", headers=club.as_("ann")).status_code == 422


# -- all-bot ladders ------------------------------------------------------------------------------------


def test_an_all_bot_rated_match_is_rated_though_nobody_is_told(
    club: Club, matches: Matches, redis_client: redis.Redis, services: Services
) -> None:
    """The ladder of the built-in levels (point 7) has no player to notify: the finishing commit still
    puts the outcome in the outbox, marked pending for the sweep, and it is rated."""
    made = club.rated("bot:random", "bot:easy", "bot:hard").json
    assert made["rated"] is True
    entries: list[dict[str, Any]] = []
    drain = services.outbox.drain

    def spy(match_id: str) -> int:
        entries.extend(json.loads(e) for e in redis_client.lrange(match_key(match_id, "outbox"), 0, -1))
        return drain(match_id)

    services.outbox.drain = spy  # type: ignore[method-assign]
    meta = play_out(matches, made["id"])
    assert [e["notes"] for e in entries] == [[]] and entries[0]["rating"]["players"] == [
        "builtin:random",
        "builtin:easy",
        "builtin:hard",
    ]
    stored = ratings_of(redis_client, club.app["id"])
    assert {r: stored[r]["matches"] for r in ("builtin:random", "builtin:easy", "builtin:hard")} == {
        "builtin:random": 1,
        "builtin:easy": 1,
        "builtin:hard": 1,
    }
    assert meta.status == FINISHED


def test_the_write_is_a_compare_and_set_on_every_rating_it_read(
    club: Club, matches: Matches, redis_client: redis.Redis, services: Services
) -> None:
    """A computation on ratings that changed meanwhile is refused (and :meth:`Ratings.record` computes
    again); a match rated already is a no-op; the marks of matches rated longer ago than the retention
    (plus a day) are dropped, so the set of rated matches does not grow for ever."""
    store = services.ratings.store
    app = club.app["id"]
    entry = synthetic(app, ["ann", "bob"], [1, 2], at=1.0)
    snapshot = store.snapshot(app, GAME, "slow", ["ann", "bob"])
    writes = services.ratings._compute("slow", entry, ["ann", "bob"], [1, 2], snapshot.records)
    assert services.ratings.record("fast", synthetic(app, ["bob", "cy"], [1, 2], at=2.0))
    args = (app, GAME, "slow", 10.0, snapshot.records, writes, 0.0, 5)
    assert store.apply(*args) == ("stale", None)
    assert ratings_of(redis_client, app)["bob"]["matches"] == 1  # nothing of "slow" was written
    assert services.ratings.record("slow", entry) is True
    assert ratings_of(redis_client, app)["bob"]["matches"] == 2
    fresh = store.snapshot(app, GAME, "slow", ["ann", "bob"])
    assert fresh.rated and store.apply(app, GAME, "slow", 11.0, fresh.records, [], 0.0, 5) == (
        "already",
        None,
    )
    rated = slot_key(app, GAME, "rated")
    assert {m.decode() for m in redis_client.zrange(rated, 0, -1)} == {"fast", "slow"}
    redis_client.zadd(rated, {"fast": 1.0})  # rated long ago
    assert services.ratings.record("next", synthetic(app, ["cy", "dee"], [1, 2], at=3.0))
    assert {m.decode() for m in redis_client.zrange(rated, 0, -1)} == {"slow", "next"}


def test_a_rematch_of_named_players_may_be_rated(club: Club, matches: Matches) -> None:
    """A rematch keeps its seats for the finished match's players (``reserved``: player marks) or for
    anonymous seat tokens (hashes): the former may be rated (so ``_create_rematch`` can pass the
    finished match's ``rated`` on), the latter not."""
    app = club.app["id"]
    request = {"game": GAME, "seats": [{"kind": "open"}, {"kind": "open"}], "options": {}, "rated": True}
    marks = {"0": f"player:{app}:ann", "1": f"player:{app}:bob"}
    made = matches.create(request, reserved=marks, match_id="rematch-1", rematch_of="x", app=app)
    assert made["rated"] is True and made["status"] == "waiting"
    hashes = {"0": f"player:{app}:ann", "1": "0" * 64}
    with pytest.raises(Exception, match="neither a player"):
        matches.create(request, reserved=hashes, match_id="rematch-2", rematch_of="y", app=app)
