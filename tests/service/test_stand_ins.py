"""Stand-in play is visible, and rated for what it is (issue 42 point 6).

Each seat's decisions, and those a stand-in made (a timeout's bot, the bot of an away or resigned
seat), are counted by the commits that make them, shown on the match's seats while it is played and
in its result once over; a rated seat its stand-in mostly played is rated last.

Against a real Redis.  Human moves go through the HTTP API (so the API process's own last write of the
match, :meth:`service.storage.matches.Store.recent`, decides them where it can); timeouts and bot turns go
through a second :class:`Matches` over its own store, as a worker process would, so the API's kept
write goes stale under it and the counts must still come out exact."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.matches.operations import Matches
from service.domain.ratings import places, rated_places, stand_in_majority
from service.http.app import create_app
from service.storage.matches import FINISHED, Store
from service.wiring import build
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend

GAME = "high_card"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


@pytest.fixture
def api_matches(app: Flask) -> Matches:
    found: Matches = app.extensions["tabletop"].matches
    return found


@pytest.fixture
def worker(api_matches: Matches, redis_url: str) -> Matches:
    """The domain as a worker process has it: its own store, so its own kept writes."""
    return build(api_matches.config, store=Store(redis.Redis.from_url(redis_url)), games=TEST_GAMES).matches


class Play:
    """One match played step by step, with the counts expected from who made each move."""

    def __init__(self, client: FlaskClient, worker: Matches, match: dict[str, Any], auth: dict[int, Any]):
        self.client = client
        self.worker = worker
        self.id: str = match["id"]
        self.auth = auth  # seat -> the headers its own moves are made with
        players = len(match["seats"])
        self.decisions = [0] * players
        self.stand_in = [0] * players

    def doc(self) -> dict[str, Any]:
        resp = self.client.get(f"/v1/matches/{self.id}", headers=self.auth[0])
        assert resp.status_code == 200, resp.json
        return dict(resp.json)

    def own(self, seat: int) -> None:
        """The seat's player moves (its first legal action), over HTTP."""
        legal = self.client.get(f"/v1/matches/{self.id}/legal-actions", headers=self.auth[seat])
        if legal.status_code == 403:  # away: the move itself brings the player back
            loaded = self.worker.store.load(self.id)
            assert loaded is not None
            state = self.worker.games[GAME].decode(loaded.encoded_state())
            action, version = self.worker.games[GAME].legal_actions(state)[0], loaded.meta.version
        else:
            assert legal.status_code == 200, legal.json
            action, version = legal.json["actions"][0], legal.json["version"]
        moved = self.client.post(
            f"/v1/matches/{self.id}/actions",
            json={"action": action},
            headers={**self.auth[seat], "If-Match": f'"{version}"'},
        )
        assert moved.status_code == 200, moved.json
        self.decisions[seat] += 1

    def by_worker(self, seat: int, *, timeout: bool, stand_in: bool) -> None:
        """A bot's decision for ``seat`` as the workers make it: a timeout, or a bot seat's turn."""
        loaded = self.worker.store.load(self.id)
        assert loaded is not None and loaded.meta.to_move == seat
        game = self.worker.games[GAME]
        state = game.decode(loaded.encoded_state())
        action = game.legal_actions(state)[0]
        if timeout:
            played = self.worker.timeout_move(loaded.meta, state, seat, action)
        else:
            played = self.worker.bot_move(loaded.meta, state, seat, action, announce=False)
        assert played.commit.version is not None
        self.decisions[seat] += 1
        self.stand_in[seat] += stand_in

    def run(self, choose: Callable[[int, int, dict[str, Any]], str]) -> dict[str, Any]:
        """Play to the end; ``choose(seat, its decisions so far, the seat)`` says who makes the pending
        decision: ``own``, ``timeout``, ``bot`` (a bot seat: stand-in or not, as the test knows) or
        ``resign`` (the seat's player resigns first).  After each move the match document shows the
        counts so far."""
        while True:
            doc = self.doc()
            assert [s["decisions"] for s in doc["seats"]] == self.decisions
            assert [s["stand_in"] for s in doc["seats"]] == self.stand_in
            if doc["status"] != "active":
                return doc
            seat = doc["to_move"]
            how = choose(seat, self.decisions[seat], doc["seats"][seat])
            if how == "resign":
                resp = self.client.post(f"/v1/matches/{self.id}/resign", headers=self.auth[seat])
                assert resp.status_code == 200, resp.json
            elif how == "own":
                self.own(seat)
            elif how == "timeout":
                self.by_worker(seat, timeout=True, stand_in=True)
            else:
                self.by_worker(seat, timeout=False, stand_in=how == "stand-in")


def test_every_decision_is_counted_for_its_seat_and_the_stand_ins_apart(
    client: FlaskClient, worker: Matches, api_matches: Matches
) -> None:
    """Seat 0 moves, times out twice (away after the second, ``max_timeouts`` 2), is played by the away
    seat's bot once, then comes back by moving; seat 1 moves twice then resigns, and its bot finishes
    the seat; seat 2 is an ``easy`` bot from the start, never a stand-in.  The counts on the seats after
    every move, and in the result, are exactly who made what."""
    made = client.post(
        "/v1/matches",
        json={
            "game": GAME,
            "seed": 11,
            "options": {"rounds": 4},
            "seats": [{"name": "ann"}, {"name": "bob"}, {"name": "Easy", "kind": "bot", "level": "easy"}],
            "time_control": {"per_move_seconds": 600, "max_timeouts": 2},
        },
    )
    assert made.status_code == 201, made.json
    tokens = {t["seat"]: bearer(t["token"]) for t in made.json["tokens"]}
    play = Play(client, worker, made.json, {**tokens, 2: {}})
    kept: list[bool] = []

    def choose(seat: int, n: int, held: dict[str, Any]) -> str:
        if seat == 2:
            return "bot"  # its own bot: not a stand-in
        if seat == 0:
            if n in (1, 2):
                return "timeout"
            if held.get("away"):
                return "stand-in" if n == 3 else "own"
            # The API process kept its last write: a move there is decided on it, counts and all.
            remembered = api_matches.store.recent(play.id, play.doc()["version"])
            kept.append(remembered is not None)
            if remembered is not None:
                assert remembered.meta.decisions == play.decisions
                assert remembered.meta.stand_in == play.stand_in
            return "own"
        if held["kind"] == "bot":
            return "stand-in"
        return "resign" if n == 2 else "own"

    doc = play.run(choose)
    assert doc["status"] == FINISHED
    result = doc["result"]
    assert result["decisions"] == play.decisions and result["stand_in"] == play.stand_in
    assert play.stand_in[0] == 3 and play.stand_in[1] == play.decisions[1] - 2 > 0
    assert play.stand_in[2] == 0 < play.decisions[2]
    assert sum(play.decisions) == len(client.get(f"/v1/matches/{play.id}/log").json["entries"])
    assert result["resigned"] == [1]
    assert any(kept)  # some own moves were decided on the kept write, and its counts were right
    # Listings carry the counts too.
    listed = client.get(f"/v1/matches?game={GAME}&status=finished").json["matches"]
    mine = next(m for m in listed if m["id"] == play.id)
    assert [s["stand_in"] for s in mine["seats"]] == play.stand_in


def test_a_match_made_before_counting_counts_from_zero(
    client: FlaskClient, redis_client: redis.Redis
) -> None:
    """A match whose meta has no counts (made before issue 42) shows zeros, then counts on."""
    made = client.post("/v1/matches", json={"game": GAME, "seats": [{"name": "a"}, {"name": "b"}], "seed": 1})
    match_id, tokens = made.json["id"], {t["seat"]: t["token"] for t in made.json["tokens"]}
    redis_client.hdel(f"tt:{{m:{match_id}}}:meta", "decisions", "stand_in")
    doc = client.get(f"/v1/matches/{match_id}").json
    assert [(s["decisions"], s["stand_in"]) for s in doc["seats"]] == [(0, 0), (0, 0)]
    seat = doc["to_move"]
    legal = client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(tokens[seat])).json
    moved = client.post(
        f"/v1/matches/{match_id}/actions",
        json={"action": legal["actions"][0]},
        headers={**bearer(tokens[seat]), "If-Match": f'"{legal["version"]}"'},
    )
    assert moved.status_code == 200, moved.json
    seats = client.get(f"/v1/matches/{match_id}").json["seats"]
    assert [s["decisions"] for s in seats] == [int(i == seat) for i in range(2)]


# -- the rating policy ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "stand_in", "decisions", "expected"),
    [
        ([1, 2, 3], [0, 0, 0], [5, 5, 5], [1, 2, 3]),  # nobody stood in
        ([1, 2, 3], [3, 0, 0], [5, 5, 5], [3, 1, 2]),  # the winner was mostly a stand-in: last
        ([1, 2, 3], [2, 0, 0], [4, 5, 5], [1, 2, 3]),  # half is not "mostly"
        ([1, 1, 3], [0, 5, 0], [5, 5, 5], [1, 3, 2]),  # out of a shared first place
        ([2, 1, 3, 4], [4, 0, 0, 5], [5, 5, 5, 5], [3, 1, 2, 3]),  # two absent share the last place
        ([1, 2], [5, 5], [5, 5], [1, 1]),  # nobody played: a draw
        ([1, 2], [0, 0], [0, 0], [1, 2]),  # no decision at all
    ],
)
def test_a_seat_its_stand_in_mostly_played_is_rated_last(
    base: list[int], stand_in: list[int], decisions: list[int], expected: list[int]
) -> None:
    ranking = sorted(range(len(base)), key=lambda s: base[s])
    result = {"ranking": ranking, "ranks": base, "stand_in": stand_in, "decisions": decisions}
    assert places(result) == base  # the game's places are left as they are (tournaments read them)
    assert rated_places(result) == expected
    assert stand_in_majority({"ranking": ranking}) == [False] * len(base)  # a result without counts


def test_a_rated_player_whose_seat_a_stand_in_won_is_rated_below_the_one_who_played(
    client: FlaskClient, worker: Matches, redis_client: redis.Redis
) -> None:
    """The measured case: a player's bot dies at its first decision (``max_timeouts`` 1: away at once)
    and the clock's bot wins the match for its seat.  The player is rated second (last), its opponent
    first, though the game ranked them the other way; the stand-in's level is not rated."""
    backend = Backend(client)
    for seed in range(1, 60):
        made = backend.match(
            seed=seed,
            rated=True,
            time_control={"per_move_seconds": 600, "max_timeouts": 1, "on_timeout": "random"},
        )
        play = Play(client, worker, made, {0: backend.as_("ann"), 1: backend.as_("bob")})
        ann = next(i for i, s in enumerate(made["seats"]) if s["name"] == "Ann")

        def ann_is_gone(seat: int, n: int, held: dict[str, Any], ann: int = ann) -> str:
            return ("timeout" if n == 0 else "stand-in") if seat == ann else "own"

        doc = play.run(ann_is_gone)
        if places(doc["result"])[ann] == 1:
            break
    else:
        pytest.fail("no seed in 1..59 where the stand-in won; widen the search")
    result = doc["result"]
    assert result["stand_in"][ann] == result["decisions"][ann] > 0
    assert rated_places(result)[ann] == 2 and rated_places(result)[1 - ann] == 1
    ratings = client.get(f"/v1/games/{GAME}/leaderboard", headers=bearer(backend.key)).json["players"]
    assert [row["player"] for row in ratings] == ["bob", "ann"]
    history = client.get("/v1/players/ann/ratings", headers=bearer(backend.key)).json["ratings"][0]["history"]
    assert history[0]["match_id"] == play.id and history[0]["place"] == 2
    bots = client.get(f"/v1/games/{GAME}/leaderboard?pool=bots", headers=bearer(backend.key)).json["players"]
    assert all(row["matches"] == 0 for row in bots)  # the stand-in played for ann, not for itself
