"""A request's game, player count and options are checked once (:mod:`service.domain.games`) for every
operation that names them, and each answers as its endpoint documents: a game named in a body or a
query is a value to correct (422 naming the field), a game named in a path a resource (404).  Issue 43:
match creation, seeks, challenges, tournaments and the seek listing each had their own copy."""

from __future__ import annotations

from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.domain.matches.clocks import DEFAULT_MAX_TIMEOUTS, DEFAULT_ON_TIMEOUT, new_clock, with_defaults
from service.domain.matchmaking.making import time_control
from service.http.app import create_app
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, Backend

GAME = "high_card"


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


def _requests(game: str, **terms: Any) -> list[tuple[str, dict[str, Any]]]:
    """``(path, body)`` of each creation that names a game, with ``terms`` (options, say) added."""
    return [
        ("/v1/matches", {"game": game, "seats": [{"player": "ann"}, {"player": "bob"}], **terms}),
        ("/v1/seeks", {"game": game, "player": "ann", "players": 2, **terms}),
        ("/v1/challenges", {"game": game, "player": "ann", "players": ["bob"], **terms}),
        (
            "/v1/tournaments",
            {"game": game, "players": 2, "entrants": [{"player": "ann"}, {"player": "bob"}], **terms},
        ),
    ]


def test_an_unknown_game_in_a_body_or_a_query_is_a_422_naming_game(client: FlaskClient) -> None:
    backend = Backend(client)
    for path, body in _requests("no_such_game"):
        resp = client.post(path, json=body, headers=bearer(backend.key))
        assert resp.status_code == 422, (path, resp.json)
        assert resp.json["details"]["field"] == "game", (path, resp.json)
    listed = client.get("/v1/seeks?game=no_such_game", headers=bearer(backend.key))
    assert listed.status_code == 422 and listed.json["details"]["field"] == "game", listed.json


def test_an_unknown_game_in_a_path_is_a_404(client: FlaskClient) -> None:
    backend = Backend(client)
    assert client.get("/v1/games/no_such_game").status_code == 404
    board = client.get("/v1/games/no_such_game/leaderboard", headers=bearer(backend.key))
    assert board.status_code == 404, board.json


def test_an_unknown_option_is_a_422_naming_it_everywhere(client: FlaskClient) -> None:
    backend = Backend(client)
    for path, body in _requests(GAME, options={"no_such_option": 1}):
        resp = client.post(path, json=body, headers=bearer(backend.key))
        assert resp.status_code == 422, (path, resp.json)
        assert resp.json["details"]["field"] == "options.no_such_option", (path, resp.json)


@pytest.mark.parametrize("players", [1, 9])
def test_a_player_count_the_game_does_not_take_is_a_422_naming_its_field(
    client: FlaskClient, players: int
) -> None:
    backend = Backend(client)
    seats = [{"kind": "bot", "level": "easy", "name": f"Bot {i}"} for i in range(players)]
    made = client.post("/v1/matches", json={"game": GAME, "seats": seats}, headers=bearer(backend.key))
    assert made.status_code == 422 and made.json["details"]["field"] == "seats", made.json
    listed = client.get(f"/v1/seeks?game={GAME}&players={players}", headers=bearer(backend.key))
    assert listed.status_code == 422 and listed.json["details"]["field"] == "players", listed.json


def test_time_control_defaults_have_one_home() -> None:
    """A seek's control (what matchmaking compares) and a match's clock fill the same defaults."""
    given = {"per_move_seconds": 30}
    assert time_control(given) == with_defaults(given)
    assert with_defaults(given) == {
        "per_move_seconds": 30,
        "budget_seconds": None,
        "increment_seconds": 0,
        "on_timeout": DEFAULT_ON_TIMEOUT,
        "max_timeouts": DEFAULT_MAX_TIMEOUTS,
    }
    clock = new_clock(given, [{"kind": "human"}, {"kind": "bot"}])
    assert {k: clock[k] for k in with_defaults(given)} == with_defaults(given)
    assert clock["warning_seconds"] is None  # the default warning, chosen by nobody
    assert with_defaults({**given, "warning_seconds": 5})["warning_seconds"] == 5
