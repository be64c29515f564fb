"""The remembering URL matcher (``service/http/routing.py``, issue 30 point 2) answers every path as
werkzeug's own matcher does, over the app's real rules: the same rule and arguments, the same 404,
405 and redirect, however often a path comes back; it keeps no answer it should not."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.exceptions import HTTPException
from werkzeug.routing import Map, Rule
from werkzeug.routing.exceptions import RequestRedirect

from service.http import routing
from service.http.routing import RememberingMap, RememberingMatcher
from tests.service.conftest import Table

#: (method, path): matched, with arguments, static, unknown, a method the route does not take, a
#: path that redirects (a trailing slash), one with an encoded character.
PATHS = [
    ("POST", "/v1/matches/abc123/actions"),
    ("GET", "/v1/matches/abc123/events"),
    ("GET", "/v1/matches/other/events"),
    ("GET", "/healthz"),
    ("GET", "/v1/games"),
    ("GET", "/v1/games/"),
    ("GET", "/v1/nowhere"),
    ("DELETE", "/healthz"),
    ("PUT", "/v1/matches/abc123/actions"),
    ("GET", "/v1/matches/a%20b/events"),
    ("GET", "/v1/matches//events"),
]


def _outcome(url_map: Map, method: str, path: str) -> Any:
    adapter = url_map.bind("localhost", "/")
    try:
        rule, values = adapter.match(path, method, return_rule=True)
    except RequestRedirect as redirect:
        return ("redirect", redirect.new_url)
    except HTTPException as exc:
        return (exc.code, sorted(getattr(exc, "valid_methods", None) or []))
    return (rule.rule, rule.endpoint, sorted(rule.methods or []), values)


def test_the_app_routes_with_the_remembering_map(app: Flask) -> None:
    assert isinstance(app.url_map, RememberingMap)
    assert isinstance(app.url_map._matcher, RememberingMatcher)


def test_every_path_matches_as_werkzeugs_matcher_does_the_first_time_and_after(app: Flask) -> None:
    plain = Map([rule.empty() for rule in app.url_map.iter_rules()])
    assert type(plain._matcher) is not RememberingMatcher
    expected = [_outcome(plain, method, path) for method, path in PATHS]
    assert [_outcome(app.url_map, m, p) for m, p in PATHS] == expected
    assert [_outcome(app.url_map, m, p) for m, p in PATHS] == expected  # now from memory
    assert app.url_map._matcher._known  # something was remembered: the second pass tested it


def test_only_matches_are_remembered() -> None:
    url_map = RememberingMap(
        [Rule("/m/<mid>/actions", endpoint="move", methods=["POST"]), Rule("/d/", endpoint="d")]
    )
    for method, path in [("POST", "/x"), ("GET", "/m/1/actions"), ("GET", "/d")]:  # 404, 405, redirect
        with pytest.raises((HTTPException, RequestRedirect)):
            url_map.bind("localhost").match(path, method)
    assert url_map._matcher._known == {}
    assert url_map.bind("localhost").match("/m/1/actions", "POST") == ("move", {"mid": "1"})
    assert len(url_map._matcher._known) == 1


def test_each_caller_gets_arguments_of_its_own() -> None:
    url_map = RememberingMap([Rule("/m/<mid>", endpoint="m")])
    first = url_map.bind("localhost").match("/m/1")[1]
    first["mid"] = "changed"  # what a view or a url_value_preprocessor may do
    first["extra"] = 1
    assert url_map.bind("localhost").match("/m/1") == ("m", {"mid": "1"})


def test_a_rule_added_later_is_matched_and_not_hidden_by_what_was_remembered() -> None:
    url_map = RememberingMap([Rule("/m/<mid>", endpoint="any")])
    assert url_map.bind("localhost").match("/m/special") == ("any", {"mid": "special"})
    url_map.add(Rule("/m/special", endpoint="special"))  # a static rule wins over a dynamic one
    assert url_map.bind("localhost").match("/m/special") == ("special", {})


def test_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(routing, "REMEMBERED_PATHS", 10)
    url_map = RememberingMap([Rule("/m/<mid>", endpoint="m")])
    sizes = []
    for i in range(35):
        assert url_map.bind("localhost").match(f"/m/{i}") == ("m", {"mid": str(i)})
        sizes.append(len(url_map._matcher._known))
    assert max(sizes) == 10
    assert sizes[-1] < 10  # forgotten all at once, then filled again
    long_id = "x" * routing.REMEMBERED_PATH_LENGTH
    assert url_map.bind("localhost").match(f"/m/{long_id}") == ("m", {"mid": long_id})
    assert len(url_map._matcher._known) == sizes[-1]  # matched, not remembered


def test_a_served_page_and_move_take_the_remembered_route(client: FlaskClient, table: Table) -> None:
    # The same requests twice: the second time each path comes from memory, with the same answers.
    for _ in range(2):
        page = table.get(suffix="/events")
        assert page.status_code == 200, page.json
        assert page.json["version"] == 0
        assert client.get("/v1/matches/nope/events").status_code == 404
        assert client.put(table.url("/actions")).status_code == 405
    seat = page.json["to_move"]
    moved = table.move(seat, table.legal(seat)[0], 0)
    assert moved.status_code == 200, moved.json
    assert moved.json["version"] == 1
