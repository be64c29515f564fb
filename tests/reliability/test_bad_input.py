"""Bad input: nothing a client sends gives a 5xx or changes a stored match.

A schemathesis run generates schema-violating requests for every operation (many examples, against a
live match with the token of the seat to move, so they get past authentication), and hand-written cases
cover what generators rarely produce: huge bodies, deep JSON, wrong content types, broken encodings,
unicode in names, negative and huge numbers, unknown fields.  Every write must be refused with a 4xx
(reads may ignore what they do not know, e.g. an unknown query parameter), nothing may be a 5xx, and
the live match's keys in Redis must be byte for byte what they were.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from service.http.app import create_app
from tests.contract.test_schemathesis import CASES as CONTRACT_CASES
from tests.service.conftest import TEST_GAMES, make_config

#: Negative examples per operation.  Generation is about 94% of the cost and grows linearly; measured over
#: five body-heavy operations, 150 examples violated as many of their parameters as 300 did (within 300's
#: run-to-run spread) and about 12% fewer distinct (parameter, keyword) kinds per run.  No seed is kept
#: (``database=None``), so successive runs draw different examples: 90 a run keeps the CI run in its time
#: (this module was its largest, at 150) while the operations still see several hundred a day.
EXAMPLES = 90
MB = 1024 * 1024


@pytest.fixture(scope="module")
def app(redis_url):
    redis.Redis.from_url(redis_url).flushall()
    return create_app(make_config(redis_url, max_wait_seconds=0.05, stream_max_seconds=0.3), games=TEST_GAMES)


@pytest.fixture(scope="module")
def live(app) -> dict[str, Any]:
    """A Year of the Dragon match one move in, the token of the seat to move and a legal action."""
    client = app.test_client()
    created = client.post(
        "/v1/matches", json={"game": "year_of_dragon", "seats": [{"name": "a"}, {"name": "b"}], "seed": 3}
    ).json
    tokens = {t["seat"]: t["token"] for t in created["tokens"]}
    auth = {"Authorization": f"Bearer {tokens[created['to_move']]}"}
    action = client.get(f"/v1/matches/{created['id']}/legal-actions", headers=auth).json["actions"][0]
    moved = client.post(
        f"/v1/matches/{created['id']}/actions", json={"action": action}, headers={**auth, "If-Match": '"0"'}
    ).json
    auth = {"Authorization": f"Bearer {tokens[moved['to_move']]}"}
    action = client.get(f"/v1/matches/{created['id']}/legal-actions", headers=auth).json["actions"][0]
    return {"id": created["id"], "auth": auth, "version": moved["version"], "action": action}


def snapshot(app, match_id: str) -> dict[bytes, bytes]:
    """Every key of the match, serialized by Redis (DUMP): equal snapshots mean an unchanged match."""
    client = app.extensions["tabletop"].matches.store.redis
    keys = sorted(client.scan_iter(match=f"tt:{{m:{match_id}}}:*"))
    return {k: client.dump(k) for k in keys if b":idem:" not in k}


@pytest.fixture
def unchanged(app, live):
    before = snapshot(app, live["id"])
    assert before, "the live match has no keys"
    yield
    assert snapshot(app, live["id"]) == before, "bad input changed the stored match"


#: (method, path) of every operation whose inputs the spec constrains (the contract suite's list).
NEGATABLE = sorted({(m, p) for m, p, mode, _ in CONTRACT_CASES if mode == GenerationMode.NEGATIVE})


def fuzz(operation: Any, kwargs: dict[str, Any], seen: Counter[int]) -> None:
    """EXAMPLES schema-violating requests to one operation: a write must be refused with a 4xx; so must a
    read, unless its query may be valid as sent (schemathesis marks the whole query negative for one
    odd part): a parameter the operation does not declare, which a read may ignore, or a list, which
    goes on the wire as the key repeated and reads as its first value (a one-item list is its item)."""
    declared = {parameter.name for parameter in operation.query}

    def refusable(query: dict[str, Any]) -> bool:
        return all(name in declared and not isinstance(value, list) for name, value in query.items())

    @given(case=operation.as_strategy(generation_mode=GenerationMode.NEGATIVE, **kwargs))
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case: Any) -> None:
        if all(part.mode == GenerationMode.POSITIVE for part in case.meta.components.values()):
            return  # nothing violated: drawn for an optional body (a hint's), left out as allowed
        response = case.call()
        seen[response.status_code] += 1
        context = (case.method, case.path, case.body, response.text[:300])
        assert response.status_code < 500, context
        if case.method != "GET" or refusable(case.query or {}):
            assert response.status_code >= 400, context

    run()


@pytest.fixture(scope="module")
def schema(app):
    return schemathesis.openapi.from_wsgi("/openapi.json", app)


@pytest.mark.parametrize(("method", "path"), NEGATABLE, ids=[f"{m} {p}" for m, p in NEGATABLE])
def test_schemathesis_negative_requests_get_4xx(schema, live, unchanged, method, path):
    """One operation at a time (the test workers share the operations out: all of them in one test
    took over three minutes of one worker)."""
    kwargs: dict[str, Any] = {"headers": live["auth"]}
    if "{match_id}" in path:
        kwargs["path_parameters"] = {"match_id": live["id"]}
    seen: Counter[int] = Counter()
    fuzz(schema[path][method], kwargs, seen)
    print(f"schemathesis: {method} {path}: {sum(seen.values())} requests, {dict(sorted(seen.items()))}")
    assert sum(n for status, n in seen.items() if status >= 400), "no schema-violating request was refused"


#: Cases a correct server may accept: odd but valid names (the schema allows any string, so control
#: characters and a lone surrogate escape are stored as sent and shown JSON-escaped), and headers a
#: server may ignore.  They must still never be a 5xx.
MAY_SUCCEED = {"unicode names", "control characters in names", "lone surrogate", "junk if-none-match",
               "junk accept"}  # fmt: skip


def hand_written(live: dict[str, Any]) -> list[tuple[str, str, str, bytes | None, dict[str, str]]]:
    """(name, method, url, body, headers) of each crafted request (bodies are sent as JSON unless the
    headers say otherwise), all with the live seat's token."""
    match = f"/v1/matches/{live['id']}"
    act = f"{match}/actions"
    legal = live["action"]
    ints = [k for k, v in legal.items() if isinstance(v, int)]
    version = {"If-Match": f'"{live["version"]}"'}
    seats = [{"name": "a"}, {"name": "b"}, {"name": "c"}]

    def js(doc: Any) -> bytes:
        return json.dumps(doc, ensure_ascii=False).encode()

    def move(**fields: Any) -> bytes:
        return js({"action": {**legal, **fields}})

    def create(**fields: Any) -> bytes:
        return js({"game": "china", "seats": seats, **fields})

    def typed(content_type: str) -> dict[str, str]:
        return {**version, "Content-Type": content_type}

    a_move = js({"action": legal})
    cases = [
        ("huge body", "POST", act, b'{"action": {"type": "' + b"x" * (2 * MB) + b'"}}', version),
        ("huge create", "POST", "/v1/matches", create(seats=seats * 100_000), {}),
        ("deep array", "POST", act, b"[" * 30_000 + b"]" * 30_000, version),
        ("deep object", "POST", act, b'{"action":' * 3_000 + b"1" + b"}" * 3_000, version),
        ("text/plain", "POST", act, a_move, typed("text/plain")),
        ("xml", "POST", act, b"<action type='pass'/>", typed("application/xml")),
        ("form", "POST", act, b"action=pass", typed("application/x-www-form-urlencoded")),
        ("multipart", "POST", act, b"--b\r\n\r\nx\r\n--b--", typed("multipart/form-data; boundary=b")),
        ("no content type", "POST", act, a_move, typed("")),
        ("invalid utf-8", "POST", act, b'{"action": {"type": "\xff\xfe"}}', version),
        ("truncated json", "POST", act, b'{"action": {"type": ', version),
        ("nan version", "POST", act, b'{"action": {"type": "x"}, "expected_version": NaN}', {}),
        ("infinite version", "POST", act, b'{"action": {"type": "x"}, "expected_version": 1e999}', {}),
        ("negative version", "POST", act, js({"action": legal, "expected_version": -1}), {}),
        ("huge version", "POST", act, js({"action": legal, "expected_version": 10**40}), {}),
        ("huge if-match", "POST", act, a_move, {"If-Match": '"' + "9" * 5000 + '"'}),
        ("negative if-match", "POST", act, a_move, {"If-Match": '"-3"'}),
        ("junk if-match", "POST", act, a_move, {"If-Match": 'W/"x", *'}),
        ("unknown field", "POST", act, js({"action": legal, "hack": 1}), version),
        ("unknown action field", "POST", act, move(hack=1), version),
        ("unknown action type", "POST", act, move(type="win_the_game"), version),
        ("action not an object", "POST", act, js({"action": [1, 2]}), version),
        ("negative numbers", "POST", act, move(**dict.fromkeys(ints, -1)), version),
        ("huge numbers", "POST", act, move(**dict.fromkeys(ints, 10**400)), version),
        ("integer past the digit limit", "POST", act, b'{"action": {"n": ' + b"9" * 4301 + b"}}", version),
        ("integer past the digit limit, create", "POST", "/v1/matches",
         b'{"game": "china", "seats": [{"name": "a", "think_ms": -' + b"9" * 5000 + b"}]}", {}),
        ("float numbers", "POST", act, move(**dict.fromkeys(ints, 0.5)), version),
        ("boolean numbers", "POST", act, move(**dict.fromkeys(ints, True)), version),
        ("duplicate keys", "POST", act, b'{"action": {"type": "x"}, "action": 7}', version),
        ("huge idempotency key", "POST", act, a_move, {**version, "Idempotency-Key": "k" * 10_000}),
        ("unicode names", "POST", "/v1/matches",
         create(seats=[{"name": "Zoë 🐉"}, {"name": "مرحبا"}, {"name": "名前"}]), {}),
        ("control characters in names", "POST", "/v1/matches",
         create(seats=[{"name": "\u0000"}, {"name": "\u202eevil"}, {"name": "\x1b[31m"}]), {}),
        ("lone surrogate", "POST", "/v1/matches",
         b'{"game": "china", "seats": [{"name": "\\ud800"}, {"name": "b"}, {"name": "c"}]}', {}),
        ("huge name", "POST", "/v1/matches", create(seats=[{"name": "n" * 20_000}] * 3), {}),
        ("negative think time", "POST", "/v1/matches",
         create(seats=[{"name": "a", "kind": "bot", "think_ms": -1}] * 3), {}),
        ("huge think time", "POST", "/v1/matches",
         create(seats=[{"name": "a", "kind": "bot", "think_ms": 10**20}] * 3), {}),
        ("too many seats", "POST", "/v1/matches", create(seats=seats * 100), {}),
        ("unknown create field", "POST", "/v1/matches", create(x=1), {}),
        ("option of a wrong type", "POST", "/v1/matches", create(options={"fortifications": 10**30}), {}),
        ("huge negative seed", "POST", "/v1/matches", create(seed=-(10**30)), {}),
        ("events after huge", "GET", f"{match}/events?after=99999999999999999999999-9", None, {}),
        ("events after junk", "GET", f"{match}/events?after=%00%ff", None, {}),
        ("events wait negative", "GET", f"{match}/events?wait=-5", None, {}),
        ("events wait infinite", "GET", f"{match}/events?wait=1e309", None, {}),  # a huge one is capped
        ("list limit negative", "GET", "/v1/matches?limit=-1", None, {}),
        ("list cursor huge", "GET", "/v1/matches?cursor=1e999", None, {}),
        ("long match id", "GET", "/v1/matches/" + "a" * 20_000, None, {}),
        ("unicode match id", "GET", "/v1/matches/%F0%9F%90%89", None, {}),
        ("huge token", "GET", f"{match}/legal-actions", None, {"Authorization": "Bearer " + "t" * 20_000}),
        ("unicode token", "GET", f"{match}/legal-actions", None, {"Authorization": "Bearer žeton"}),
        ("other auth scheme", "GET", f"{match}/legal-actions", None, {"Authorization": "Basic YTpi"}),
        ("junk if-none-match", "GET", match, None, {"If-None-Match": '"' + "\x7f" * 100}),
        ("junk accept", "GET", f"{match}/events", None, {"Accept": "*/*;q=abc, text/event-stream;q=-1"}),
    ]  # fmt: skip
    return [
        (n, m, u, b, {**live["auth"], "Content-Type": "application/json", **h}) for n, m, u, b, h in cases
    ]


def test_hand_written_bad_requests_get_4xx(app, live, unchanged):
    client = app.test_client()
    bad = []
    for name, method, url, data, headers in hand_written(live):
        if not headers["Content-Type"]:
            del headers["Content-Type"]
        response = client.open(url, method=method, data=data, headers=headers)
        status = response.status_code
        if not (400 <= status < 500 or (name in MAY_SUCCEED and status < 500)):
            bad.append((name, status, response.get_data(as_text=True)[:200]))
        elif status >= 400:
            assert set(response.json) >= {"code", "message", "details"}, (name, response.json)
    assert not bad, bad
