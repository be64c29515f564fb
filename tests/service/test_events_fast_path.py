"""The events view's fast path (issue 30): a long-poll client asks again after every answer, so its
request is read without webargs and answered without the response schema's dump.  What a client sees
must not change: the same bytes as the documented path, and every request the fast path does not
take refused by the schemas with the same 422 as ever.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import Table, bearer

#: Headers that differ between two answers by construction.
_PER_REQUEST = {"X-Request-ID"}


def _answer(resp: Any) -> tuple[int, bytes, list[tuple[str, str]]]:
    return resp.status_code, resp.data, [(k, v) for k, v in resp.headers if k not in _PER_REQUEST]


@pytest.fixture
def played(table: Table) -> Table:
    """A High Card match two moves in: public and private events."""
    for seat in (0, 1):
        assert table.move(seat, table.legal(seat)[0], None, **{"If-Match": f'"{seat}"'}).status_code == 200
    return table


@pytest.mark.parametrize("seat", [None, 0, 1])
@pytest.mark.parametrize(
    ("fast", "documented"),
    [
        # ``wait`` as plain digits is the fast path's; the schema's Float also reads "0e0" and "+0".
        ("?wait=0", "?wait=0e0"),
        ("?after=1-0&wait=0", "?after=1-0&wait=%2B0"),
        ("?after=0-0", "?after=0-0&wait=0.0e0"),
        # An event already there answers a waiting poll at once, on either path.
        ("?after=1-0&wait=5", "?after=1-0&wait=5e0"),
    ],
)
def test_the_fast_path_answers_byte_for_byte_as_the_documented_path(
    played: Table, seat: int | None, fast: str, documented: str
) -> None:
    answers = [_answer(played.get(seat, "/events" + query)) for query in (fast, documented)]
    assert answers[0][0] == 200, answers[0]
    assert answers[0] == answers[1]


def test_last_event_id_is_read_alike_on_both_paths(played: Table) -> None:
    fast = played.get(0, "/events", headers={"Last-Event-ID": "1-0"})
    documented = played.get(0, "/events?wait=0e0", headers={"Last-Event-ID": "1-0"})
    assert _answer(fast) == _answer(documented)
    assert all(e["id"] > "1-0" for e in fast.json["events"]) and fast.json["events"]


@pytest.mark.parametrize(
    ("query", "headers", "field"),
    [
        ("?after=abc", {}, "after"),
        ("?after=1-0%0A", {}, "after"),
        ("?wait=-1", {}, "wait"),
        ("?wait=nan", {}, "wait"),
        ("?wait=soon", {}, "wait"),
        ("", {"Last-Event-ID": "x"}, "Last-Event-ID"),
    ],
)
def test_what_the_fast_path_does_not_take_is_refused_by_the_schemas(
    played: Table, query: str, headers: dict[str, str], field: str
) -> None:
    resp = played.client.get(played.url("/events" + query), headers={**bearer(played.tokens[0]), **headers})
    assert resp.status_code == 422, resp.json
    assert resp.json["code"] == "invalid_request" and field in resp.json["message"]


def test_a_repeated_parameter_goes_the_documented_way(played: Table) -> None:
    """The fast path takes each parameter once; the schemas read a repeated one as they always did."""
    twice = played.get(0, "/events?after=1-0&after=0-0")
    once = played.get(0, "/events?after=1-0&wait=0e0")
    assert twice.status_code == 200 and _answer(twice) == _answer(once)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?after=1-0&wait=5", ({"after": "1-0", "wait": 5.0}, {})),
        ("?wait=2.5", ({"wait": 2.5}, {})),
        ("", ({}, {})),
        ("?wait=5e0", None),
        ("?after=1-0&after=0-0", None),
        ("?after=1-0&extra=1", None),
    ],
)
def test_which_requests_the_fast_path_takes(app: Any, query: str, expected: Any) -> None:
    """The comparisons above are between the two paths: the first query of each pair takes the fast
    one, the second the schemas."""
    from flask import request

    from service.http.api.events import well_formed

    with app.test_request_context("/v1/matches/m/events" + query):
        assert well_formed(request) == expected


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "*/*",
        "application/json",
        "application/x-ndjson",
        "text/event-stream",
        "text/event-stream;q=0.5, application/json",
        "application/x-ndjson, */*;q=0.1",
        "text/html",
        "application/*",
    ],
)
def test_the_form_asked_for_is_read_as_werkzeug_reads_it(app: Any, accept: str | None) -> None:
    from flask import request

    from service.http.api.streams import JSON, NDJSON, SSE, wanted

    with app.test_request_context(
        "/v1/matches/m/events", headers={} if accept is None else {"Accept": accept}
    ):
        assert wanted(request) == request.accept_mimetypes.best_match([JSON, NDJSON, SSE], default=JSON)
