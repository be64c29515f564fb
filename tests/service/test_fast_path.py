"""The fast path (service/http/fast_path.py) and the schemas accept and refuse exactly the same requests.

The move and the events long-poll read their arguments without webargs and marshmallow when the
schemas plainly accept them, with the limits read off those schemas.  What the fast path takes, the
documented path loads to the same arguments; what the schemas refuse, the fast path leaves to them, so
every refusal is the schemas' own, body for body.  These tests guard the versions of marshmallow,
webargs, flask-smorest and werkzeug pinned in pyproject.toml: the fast path mirrors their behaviour.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask, request
from flask.testing import FlaskClient
from marshmallow import Schema, fields, validate

from service.http.api import Blueprint
from service.http.api import actions as actions_view
from service.http.api import events as events_view
from service.http.app import create_app
from service.http.fast_path import Reader
from service.http.schemas.actions import ActionHeadersSchema, ActionRequestSchema
from service.http.schemas.events import EventsHeadersSchema, EventsQuerySchema
from tests.service.conftest import TEST_GAMES, Table, bearer, make_config

_ACTION = {"type": "draw"}
_BODIES: list[Any] = [
    {"action": _ACTION},
    {"action": _ACTION, "expected_version": 0},
    {"action": _ACTION, "expected_version": 3},
    {"action": _ACTION, "expected_version": 2**70},
    {"action": _ACTION, "expected_version": -1},
    {"action": _ACTION, "expected_version": 3.0},
    {"action": _ACTION, "expected_version": 3.5},
    {"action": _ACTION, "expected_version": True},
    {"action": _ACTION, "expected_version": None},
    {"action": _ACTION, "expected_version": "3"},
    {"action": {}},
    {"action": "draw"},
    {"action": None},
    {"action": [_ACTION]},
    {"expected_version": 1},
    {"action": _ACTION, "extra": 1},
    {},
    [],
    "draw",
    None,
]
_RAW_BODIES = [b'{"action": ', b'{"action": {"type": "dr\xffaw"}}', b"", b"  "]
_HEADERS: list[dict[str, str]] = [
    {},
    {"If-Match": '"0"'},
    {"If-Match": ' "12" '},
    {"If-Match": "12"},
    {"If-Match": '"012"'},
    {"If-Match": '""'},
    {"If-Match": 'W/"1"'},
    {"Idempotency-Key": "k"},
    {"Idempotency-Key": ""},
    {"Idempotency-Key": "k" * 255},
    {"Idempotency-Key": "k" * 256},
    {"If-Match": '"0"', "Idempotency-Key": "retry-1"},
]
_QUERIES = [
    "",
    "?after=1-0",
    "?after=0-0&wait=0",
    "?after=abc",
    "?after=1-0%0A",
    "?after=",
    "?after=1234567890123456789-0",
    "?wait=0",
    "?wait=5",
    "?wait=2.5",
    "?wait=5e0",
    "?wait=%2B5",
    "?wait=-1",
    "?wait=nan",
    "?wait=inf",
    "?wait=",
    "?wait=soon",
    "?wait=1234567890",
    "?wait=0.0000000001",
    "?after=1-0&after=0-0",
    "?after=1-0&extra=1",
]
_EVENT_HEADERS: list[dict[str, str]] = [
    {},
    {"Last-Event-ID": "1-0"},
    {"Last-Event-ID": "x"},
    {"Last-Event-ID": ""},
]


@pytest.fixture(scope="module")
def parsing() -> Flask:
    """An app for request contexts only (its Redis is never reached): one for the module, so the
    hundreds of inputs below cost milliseconds each."""
    return create_app(make_config("redis://127.0.0.1:9/0"), games=TEST_GAMES)


def _documented(schema: Schema, location: str) -> dict[str, Any] | None:
    """What the documented path's parser loads (flask-smorest's, on the same schema), ``None`` if it
    refuses."""
    try:
        loaded: dict[str, Any] = Blueprint.ARGUMENTS_PARSER.parse(schema, request, location=location)
    except Exception:  # a 422 (or a 400 for the body itself), however the parser raises it
        return None
    return loaded


def _agree(
    fast: tuple[dict[str, Any], dict[str, Any]] | None, documented: list[dict[str, Any] | None]
) -> None:
    if fast is not None:
        assert list(fast) == documented, "the fast path took what the schemas load otherwise"
    if None in documented:
        assert fast is None, "the fast path took what the schemas refuse"


def _move_request(body: Any, headers: dict[str, str]) -> dict[str, Any]:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return {"method": "POST", "data": raw, "headers": {"Content-Type": "application/json", **headers}}


@pytest.mark.parametrize("headers", _HEADERS)
@pytest.mark.parametrize("body", _BODIES + _RAW_BODIES)
def test_a_move_s_arguments_are_read_alike_on_both_paths(
    parsing: Flask, body: Any, headers: dict[str, str]
) -> None:
    with parsing.test_request_context("/v1/matches/m/actions", **_move_request(body, headers)):
        fast = actions_view.well_formed(request)
        documented = [
            _documented(ActionRequestSchema(), "json"),
            _documented(ActionHeadersSchema(), "headers"),
        ]
    _agree(fast, documented)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded"])
def test_a_move_not_sent_as_json_goes_the_documented_way(parsing: Flask, content_type: str) -> None:
    body = json.dumps({"action": _ACTION}).encode()
    with parsing.test_request_context(
        "/v1/matches/m/actions", method="POST", data=body, headers={"Content-Type": content_type}
    ):
        assert actions_view.well_formed(request) is None


@pytest.mark.parametrize("headers", _EVENT_HEADERS)
@pytest.mark.parametrize("query", _QUERIES)
def test_a_long_poll_s_arguments_are_read_alike_on_both_paths(
    parsing: Flask, query: str, headers: dict[str, str]
) -> None:
    with parsing.test_request_context("/v1/matches/m/events" + query, headers=headers):
        fast = events_view.well_formed(request)
        documented = [
            _documented(EventsQuerySchema(), "query"),
            _documented(EventsHeadersSchema(), "headers"),
        ]
    _agree(fast, documented)


#: Headers that differ between two answers by construction.
_PER_REQUEST = {"X-Request-ID"}


def _answer(resp: Any, match_id: str) -> tuple[int, bytes, list[tuple[str, str]]]:
    head = [(k, v.replace(match_id, "ID")) for k, v in resp.headers if k not in _PER_REQUEST]
    return resp.status_code, resp.data.replace(match_id.encode(), b"ID"), head


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ({"expected_version": 0}, {}),
        ({}, {"If-Match": ' "0" ', "Idempotency-Key": "k1"}),
        ({"expected_version": -1}, {}),
        ({"expected_version": True}, {"If-Match": '"0"'}),
        ({"expected_version": None}, {"If-Match": '"0"'}),
        ({"extra": 1}, {"If-Match": '"0"'}),
        ({}, {"If-Match": "0"}),
        ({}, {"If-Match": '"0"', "Idempotency-Key": ""}),
        ({}, {"If-Match": '"0"', "Idempotency-Key": "k" * 256}),
    ],
)
def test_a_move_is_answered_alike_with_and_without_the_fast_path(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, body: dict[str, Any], headers: dict[str, str]
) -> None:
    """Byte for byte, a refusal's body included, whichever path the request takes."""
    answers = []
    for fast in (True, False):
        if not fast:
            monkeypatch.setattr(actions_view, "well_formed", lambda req: None)
        table = Table(client, seed=11)
        action = table.legal(0)[0]
        resp = client.post(
            table.url("/actions"),
            json={"action": action, **body},
            headers={**bearer(table.tokens[0]), **headers},
        )
        answers.append(_answer(resp, table.id))
    assert answers[0] == answers[1]


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("?after=1-0&wait=0", {}),
        ("", {"Last-Event-ID": "1-0"}),
        ("?wait=-1", {}),
        ("?after=1-0%0A", {}),
        ("?wait=nan", {}),
        ("", {"Last-Event-ID": "x"}),
        ("?after=1-0&extra=1", {}),
    ],
)
def test_events_are_answered_alike_with_and_without_the_fast_path(
    table: Table, monkeypatch: pytest.MonkeyPatch, query: str, headers: dict[str, str]
) -> None:
    fast = table.get(0, "/events" + query, headers=headers)
    monkeypatch.setattr(events_view, "well_formed", lambda req: None)
    documented = table.get(0, "/events" + query, headers=headers)
    assert _answer(fast, table.id) == _answer(documented, table.id)


def test_the_limits_are_the_schema_s(parsing: Flask) -> None:
    """Sizes, ranges, patterns and choices come from the schema's validators, whatever they are."""

    class Limited(Schema):
        code = fields.String(validate=[validate.Length(min=2, max=3), validate.Regexp("[a-z]+")])
        kind = fields.String(validate=validate.OneOf(["a", "b"]))
        count = fields.Integer(validate=validate.Range(min=1, max=5, max_inclusive=False))

    reader = Reader(Limited(), "query")
    for query, expected in [
        ("?code=ab&kind=a&count=4", {"code": "ab", "kind": "a", "count": 4}),
        ("?code=a", None),
        ("?code=abcd", None),
        ("?code=AB", None),
        ("?kind=c", None),
        ("?count=5", None),
        ("?count=0", None),
    ]:
        with parsing.test_request_context("/" + query):
            assert reader.read(request) == expected, query


@pytest.mark.parametrize(
    "field",
    [
        fields.String(validate=lambda value: None),  # a validator it cannot read
        fields.String(allow_none=True),
        fields.Boolean(),
        fields.List(fields.String()),
    ],
)
def test_a_field_the_fast_path_cannot_read_fails_at_once(field: fields.Field[Any]) -> None:
    """Building the reader fails (at import, for the views' readers): a schema change can never leave
    the fast path accepting what the schema refuses."""
    schema = Schema.from_dict({"x": field})()
    with pytest.raises(TypeError):
        Reader(schema, "query")


@pytest.mark.parametrize(
    ("body", "headers", "expected"),
    [
        (
            {"action": _ACTION, "expected_version": 3},
            {"If-Match": '"0"', "Idempotency-Key": "k"},
            ({"action": _ACTION, "expected_version": 3}, {"if_match": '"0"', "idempotency_key": "k"}),
        ),
        ({"action": _ACTION}, {}, ({"action": _ACTION}, {})),
        ({"action": _ACTION, "expected_version": 3.0}, {}, None),
        ({"action": _ACTION}, {"If-Match": "0"}, None),
    ],
)
def test_which_moves_the_fast_path_takes(
    parsing: Flask, body: Any, headers: dict[str, str], expected: Any
) -> None:
    """The comparisons above are not empty: the plain move is the fast path's."""
    with parsing.test_request_context("/v1/matches/m/actions", **_move_request(body, headers)):
        assert actions_view.well_formed(request) == expected
