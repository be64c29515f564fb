"""Matchmaking and ratings say what they do (issue 42 point 7): a bot player's seek honours ``bots``; a
level a person asks for is the level played (bot players come only when the seek lets them); a rated
match holds a built-in level in one seat (422 naming the seat, as a rated tournament refuses a level
entered twice); a level at its own ``think_ms`` is its own rated player, ``builtin:<level>@<ms>``.

Against a real Redis, through the HTTP API; the seeks' once-a-second sweep is called directly with the
test's clock (as in test_seeks.py)."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.errors import Invalid
from service.domain.matches.operations import Matches
from service.domain.matchmaking.making import app_caller
from service.domain.ratings import bot_rater, is_builtin_rater
from service.domain.tournaments.tournaments import Tournaments
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend
from tests.service.test_seeks import Lobby

GAME = "high_card"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN, bot_max_matches=3), games=TEST_GAMES)


def seats_of(lobby: Lobby, seek: dict[str, Any], pid: str) -> list[tuple[str, str | None]]:
    done = lobby.get(seek["id"], pid)
    assert done["status"] == "matched", done
    match = lobby.match(done["match_id"], pid)
    return sorted((s["name"], s.get("level")) for s in match["seats"])


# -- seeks: bots as asked --------------------------------------------------------------------------------


def test_a_bot_players_seek_honours_bots(client: FlaskClient) -> None:
    """The measured case: a bot player's seek with ``bots`` answered ``"bots": null`` and never filled.
    Now its settings are kept and shown, and once they are due built-in bots of its level fill it."""
    lobby = Lobby(client, people=(), bots=("robo", "tron"))
    robo = lobby.posted("robo", players=3, bots={"allow": True, "after_seconds": 5, "level": "normal"})
    assert robo["bots"] == {"allow": True, "after_seconds": 5, "level": "normal", "players": False}
    assert lobby.sweep(4).filled == 0 and lobby.get(robo["id"], "robo")["status"] == "open"
    assert lobby.sweep(1).filled == 1
    # tron had room, but a level asked for is the level played.
    assert seats_of(lobby, robo, "robo") == [
        ("Normal bot", "normal"),
        ("Normal bot", "normal"),
        ("Robo", None),
    ]
    # Without bots a bot player's seek says so (never null), and waits for others.
    plain = lobby.posted("tron")
    assert plain["bots"] == {"allow": False, "after_seconds": 60, "level": "easy", "players": True}
    assert lobby.sweep(100).filled == 0 and lobby.get(plain["id"], "tron")["status"] == "open"


def test_a_bot_players_seek_may_take_other_bot_players_when_it_says_so(client: FlaskClient) -> None:
    lobby = Lobby(client, people=(), bots=("robo", "tron"))
    robo = lobby.posted("robo", bots={"allow": True, "after_seconds": 0})  # no level: bot players first
    lobby.sweep(0)
    assert [name for name, _ in seats_of(lobby, robo, "robo")] == ["Robo", "Tron"]


def test_a_persons_level_is_the_level_played(client: FlaskClient) -> None:
    """The measured case: a person's seek asking ``easy`` was filled by a bot player.  Asking a level
    keeps bot players out (their open seeks and the fill) unless ``players`` lets them in."""
    lobby = Lobby(client, people=("ann", "bob"), bots=("robo",))
    robo = lobby.posted("robo")  # an open bot player's seek, and room to be booked
    ann = lobby.posted("ann", bots={"allow": True, "after_seconds": 0, "level": "easy"})
    assert ann["status"] == "open" and ann["bots"]["players"] is False
    assert lobby.sweep(0).filled == 1
    assert seats_of(lobby, ann, "ann") == [("Ann", None), ("Easy bot", "easy")]
    assert lobby.get(robo["id"], "robo")["status"] == "open"
    # Asking for bot players too: robo's open seek takes the seat at once.
    bob = lobby.posted("bob", bots={"allow": True, "after_seconds": 0, "level": "easy", "players": True})
    assert bob["status"] == "matched" and lobby.get(robo["id"], "robo")["match_id"] == bob["match_id"]


def test_a_fill_groups_only_seeks_that_ask_for_one_level(client: FlaskClient) -> None:
    lobby = Lobby(client, people=("ann", "bob", "cid"))
    ann = lobby.posted("ann", players=4, bots={"allow": True, "after_seconds": 0, "level": "random"})
    bob = lobby.posted("bob", players=4, bots={"allow": True, "after_seconds": 0, "level": "hard"})
    cid = lobby.posted("cid", players=4, bots={"allow": True, "after_seconds": 0, "level": "random"})
    assert lobby.sweep(0).filled == 2
    assert seats_of(lobby, ann, "ann") == [("Ann", None), ("Cid", None), *[("Random bot", "random")] * 2]
    assert lobby.get(cid["id"], "cid")["match_id"] == lobby.get(ann["id"])["match_id"]
    assert seats_of(lobby, bob, "bob") == [("Bob", None), *[("Hard bot", "hard")] * 3]


def test_a_rated_seek_lets_bots_fill_two_player_matches_only(client: FlaskClient) -> None:
    lobby = Lobby(client, people=("ann", "bob"))
    refused = lobby.seek("ann", players=3, rated=True, bots={"allow": True})
    assert refused.status_code == 422 and refused.json["details"]["field"] == "bots.allow", refused.json
    assert lobby.seek("ann", players=3, rated=True).status_code == 201  # no bots: people only
    bob = lobby.posted("bob", rated=True, bots={"allow": True, "after_seconds": 0, "level": "hard"})
    lobby.sweep(0)
    done = lobby.get(bob["id"], "bob")
    match = lobby.match(done["match_id"], "bob")
    assert match["rated"] is True and sorted(s["kind"] for s in match["seats"]) == ["bot", "human"]


# -- ratings: one seat a rater, and a level at its own think_ms --------------------------------------------


def rated(backend: Backend, *bots: dict[str, Any], players: tuple[str, ...] = ("ann",)) -> Any:
    seats = [{"player": p} for p in players] + [
        {"kind": "bot", "name": f"b{i}", **b} for i, b in enumerate(bots)
    ]
    return backend.client.post(
        "/v1/matches",
        json={"game": GAME, "seats": seats, "rated": True, "seed": 5},
        headers=bearer(backend.key),
    )


def test_a_rated_match_holds_a_built_in_level_in_one_seat(client: FlaskClient) -> None:
    backend = Backend(client)

    def refused(resp: Any, field: str) -> None:
        assert resp.status_code == 422, resp.json
        assert resp.json["details"]["field"] == field, resp.json

    refused(rated(backend, {"level": "normal"}, {"level": "normal", "think_ms": 500}), "seats.2.level")
    refused(
        rated(backend, {"level": "easy"}, {"level": "easy", "think_ms": 100}), "seats.2.level"
    )  # no search
    refused(rated(backend, {"level": "hard"}, {"level": "hard"}, players=()), "seats.1.level")
    assert rated(backend, {"level": "normal"}, {"level": "normal", "think_ms": 100}).status_code == 201
    unrated = client.post(
        "/v1/matches",
        json={"game": GAME, "seats": [{"kind": "bot", "name": "a"}, {"kind": "bot", "name": "b"}]},
        headers=bearer(backend.key),
    )
    assert unrated.status_code == 201  # unrated, a level may play itself


def test_a_level_at_its_own_think_ms_is_its_own_rated_player(
    client: FlaskClient, app: Flask, redis_client: redis.Redis
) -> None:
    """The measured case: ``normal@100`` was rated as ``builtin:normal``.  It is ``builtin:normal@100``
    now, on the bots' board once rated; ``builtin:normal`` is untouched."""
    matches: Matches = app.extensions["tabletop"].matches
    backend = Backend(client)
    made = rated(backend, {"level": "normal", "think_ms": 100}, {"level": "hard"})
    assert made.status_code == 201, made.json
    match_id = made.json["id"]
    game = matches.games[GAME]
    while True:  # play it out as the workers and ann would (first legal action each)
        loaded = matches.store.load(match_id)
        assert loaded is not None
        meta = loaded.meta
        if meta.to_move is None:
            break
        state = game.decode(loaded.encoded_state())
        action = game.legal_actions(state)[0]
        if meta.seats[meta.to_move]["kind"] == "bot":
            played = matches.bot_move(meta, state, meta.to_move, action, announce=False)
        else:
            played = matches.seat_move(meta, state, meta.to_move, action)
        assert played.commit.version is not None
    board = client.get(f"/v1/games/{GAME}/leaderboard?pool=bots", headers=bearer(backend.key)).json["players"]
    counts = {row["player"]: row["matches"] for row in board}
    assert counts == {
        "builtin:normal@100": 1,
        "builtin:hard": 1,
        "builtin:normal": 0,
        "builtin:easy": 0,
        "builtin:random": 0,
    }
    assert next(r["name"] for r in board if r["player"] == "builtin:normal@100") == "built-in normal (100 ms)"
    mine = client.get("/v1/players/builtin:normal@100/ratings", headers=bearer(backend.key))
    assert mine.status_code == 200 and mine.json["ratings"][0]["history"][0]["match_id"] == match_id
    for unknown in ("builtin:normal@500", "builtin:easy@100", "builtin:normal@x", "builtin:normal@0100"):
        assert client.get(f"/v1/players/{unknown}/ratings", headers=bearer(backend.key)).status_code == 404


@pytest.mark.parametrize(
    ("level", "think_ms", "rater"),
    [
        ("normal", None, "builtin:normal"),
        ("normal", 500, "builtin:normal"),
        ("normal", 100, "builtin:normal@100"),
        ("hard", 0, "builtin:hard@0"),
        ("easy", 100, "builtin:easy"),
        ("random", 5, "builtin:random"),
    ],
)
def test_the_rater_of_a_bot_seat(level: str, think_ms: int | None, rater: str) -> None:
    assert bot_rater(level, think_ms) == rater
    assert is_builtin_rater(rater)
    assert not is_builtin_rater(f"builtin:{level}@²")  # "²" passes str.isdigit, not int


def test_a_rated_tournament_enters_a_level_once_per_think_ms(client: FlaskClient, app: Flask) -> None:
    """A tournament's matches are rated like any: ``normal`` and ``normal`` at 100 ms are two players,
    ``normal`` twice (its default spelled out or not) is one level entered twice."""
    tournaments: Tournaments = app.extensions["tabletop"].tournaments
    backend = Backend(client)
    caller = app_caller(backend.app["id"])
    request = {"game": GAME, "players": 2, "options": {"rounds": 1}, "rated": True}
    with pytest.raises(Invalid) as twice:
        tournaments.create(
            {**request, "entrants": [{"level": "normal"}, {"level": "normal", "think_ms": 500, "name": "N"}]},
            caller,
        )
    assert twice.value.details["field"] == "entrants"
    doc = tournaments.create(
        {**request, "entrants": [{"level": "normal"}, {"level": "normal", "think_ms": 100, "name": "Quick"}]},
        caller,
    )
    assert [(e["level"], e["think_ms"]) for e in doc["entrants"]] == [("normal", 500), ("normal", 100)]
