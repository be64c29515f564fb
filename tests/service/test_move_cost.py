"""A cheaper move (issue 30 point 2): what was cut must not change what a client sees.

The move view's fast path answers as its documented path does; a move's load and commit share one
pooled connection, which goes back to the pool and is never shared between concurrent callers; the
pool's check of a connection answers as redis-py's; a request no rate limit applies to touches no
counter nor the limiter's hooks; gunicorn sends a response's head with its body.
"""

from __future__ import annotations

import functools
import json
import select
import subprocess
import sys
import threading
import time
from typing import Any

import pytest
import redis
from flask import Flask
from flask.globals import request_ctx
from flask.testing import FlaskClient
from gunicorn.config import Config as GunicornConfig
from gunicorn.http.message import Request
from gunicorn.http.unreader import IterUnreader

from service.http.app import TabletopFlask
from service.serving import OneSendResponse
from service.storage.client import HoldingPool, QuickCheckParser, _os_poll, connect
from service.storage.matches import Store
from tests.service.conftest import Table, bearer

#: Headers that differ between two answers by construction.
_PER_REQUEST = {"X-Request-ID"}


def _answer(resp: Any) -> tuple[int, bytes, list[tuple[str, str]]]:
    return resp.status_code, resp.data, [(k, v) for k, v in resp.headers if k not in _PER_REQUEST]


@pytest.mark.parametrize(
    ("fast", "documented"),
    [
        # The schema loads 0.0 as 0; the fast path leaves a float version to it.
        (({"expected_version": 0}, {}), ({"expected_version": 0.0}, {})),
        # If-Match with spaces around the quotes, and a charset: the fast path's, and the documented
        # path's when the body also holds a float version that agrees.
        (
            ({}, {"If-Match": ' "0" '}),
            ({"expected_version": 0.0}, {"If-Match": '"0"', "Idempotency-Key": "k1"}),
        ),
    ],
)
def test_the_fast_path_answers_byte_for_byte_as_the_documented_path(
    client: FlaskClient,
    fast: tuple[dict[str, Any], dict[str, str]],
    documented: tuple[dict[str, Any], dict[str, str]],
) -> None:
    answers = []
    for body, headers in (fast, documented):
        table = Table(client, seed=11)
        action = table.legal(0)[0]
        resp = client.post(
            table.url("/actions"),
            data=client.application.json.dumps({"action": action, **body}),
            headers={
                **bearer(table.tokens[0]),
                **headers,
                "Content-Type": "application/json; charset=utf-8",
            },
        )
        assert resp.status_code == 200, resp.json
        status, data, head = _answer(resp)
        answers.append((status, data.replace(table.id.encode(), b"ID"), head))
    assert answers[0] == answers[1]


@pytest.mark.parametrize(
    ("body", "headers", "status", "field"),
    [
        ({"action": {"type": "draw"}, "expected_version": -1}, {}, 422, "expected_version"),
        ({"action": {"type": "draw"}, "expected_version": True}, {}, 422, "expected_version"),
        ({"action": {"type": "draw"}, "extra": 1}, {"If-Match": '"0"'}, 422, "extra"),
        ({"action": "draw"}, {"If-Match": '"0"'}, 422, "action"),
        ({"action": {"type": "draw"}}, {"If-Match": "0"}, 422, "If-Match"),
        ({"action": {"type": "draw"}}, {"If-Match": '"0"', "Idempotency-Key": ""}, 422, "Idempotency-Key"),
        (
            {"action": {"type": "draw"}},
            {"If-Match": '"0"', "Idempotency-Key": "k" * 256},
            422,
            "Idempotency-Key",
        ),
    ],
)
def test_what_the_fast_path_does_not_take_is_refused_by_the_schemas(
    table: Table, body: dict[str, Any], headers: dict[str, str], status: int, field: str
) -> None:
    resp = table.client.post(table.url("/actions"), json=body, headers={**bearer(table.tokens[0]), **headers})
    assert resp.status_code == status, resp.json
    assert resp.json["code"] == "invalid_request" and field in resp.json["message"]
    assert table.get().json["version"] == 0


def test_a_body_that_is_not_json_is_the_schemas_400(table: Table) -> None:
    resp = table.client.post(
        table.url("/actions"),
        data=b'{"action": ',
        headers={**bearer(table.tokens[0]), "If-Match": '"0"', "Content-Type": "application/json"},
    )
    assert resp.status_code == 400 and resp.json["code"] == "bad_request"


def test_a_move_takes_one_pooled_connection_and_gives_it_back(table: Table, app: Any) -> None:
    store: Store = app.extensions["tabletop"].matches.store
    pool = store.redis.connection_pool
    assert isinstance(pool, HoldingPool)
    taken: list[Any] = []
    original = redis.BlockingConnectionPool.get_connection

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        connection = original(self, *args, **kwargs)
        taken.append(connection)
        return connection

    action = table.legal(0)[0]
    redis.BlockingConnectionPool.get_connection = counting  # type: ignore[method-assign]
    try:
        resp = table.move(0, action, 0)
    finally:
        redis.BlockingConnectionPool.get_connection = original  # type: ignore[method-assign]
    assert resp.status_code == 200, resp.json
    assert len(taken) == 1  # its commands (a load, if any, and the commit) over one connection
    assert taken[0] in pool.pool.queue  # given back to the pool


def test_holding_is_per_thread_and_a_dropped_connection_is_made_again(app: Any) -> None:
    store: Store = app.extensions["tabletop"].matches.store
    seen: dict[str, list[int]] = {}

    def use(name: str, barrier: threading.Barrier) -> None:
        with store.holding():
            pool = store.redis.connection_pool
            ids = [id(pool.get_connection())]
            barrier.wait(timeout=10)  # both threads hold theirs at once
            store.redis.set(f"t:{name}", name)
            ids.append(id(pool.get_connection()))
            seen[name] = ids

    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=use, args=(n, barrier)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert seen["a"][0] == seen["a"][1] and seen["b"][0] == seen["b"][1]
    assert seen["a"][0] != seen["b"][0]
    with store.holding():
        connection = store.redis.connection_pool.get_connection()
        connection.disconnect()  # as redis-py does after a failed command
        assert store.redis.get("t:a") == b"a"  # the block's next command connects it again


def test_no_limit_configured_counts_nothing_and_sends_no_rate_limit_headers(
    table: Table, redis_client: redis.Redis
) -> None:
    resp = table.move(0, table.legal(0)[0], 0)
    assert resp.status_code == 200
    assert "RateLimit" not in resp.headers and "RateLimit-Policy" not in resp.headers
    assert not list(redis_client.scan_iter(match="tt:limits*"))


def test_a_request_no_limit_applies_to_leaves_the_limiters_hooks_unrun(
    table: Table, client: FlaskClient
) -> None:
    # flask-limiter's after-request and teardown hooks create its context on the request when they
    # run; gated, they leave none (tests/service/test_quotas.py has them at work where limits apply).
    with client:
        assert table.move(0, table.legal(0)[0], 0).status_code == 200
        assert not hasattr(request_ctx._get_current_object(), "_limiter_request_context")
        assert client.get("/healthz").status_code == 200
        assert not hasattr(request_ctx._get_current_object(), "_limiter_request_context")


def test_the_pools_quick_check_tells_a_clean_a_dirty_and_a_closed_connection_apart(
    redis_url: str, redis_client: redis.Redis
) -> None:
    # The check each checkout makes asks the operating system's poll first (not gevent's), and must
    # answer as redis-py's own: nothing to read; a reply nobody read; a connection the server closed.
    assert _os_poll is select.poll or _os_poll.__module__ == "select"
    client = connect(redis_url, timeout=2, max_connections=4)
    pool = client.connection_pool
    connection = pool.get_connection()
    assert isinstance(connection._parser, QuickCheckParser)
    assert connection.can_read() is False
    connection.send_command("PING")
    deadline = time.monotonic() + 5
    while not connection.can_read() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert connection.can_read() is True  # the pool would not hand this one out as it is
    assert connection.read_response() in (b"PONG", "PONG")
    assert connection.can_read() is False
    connection.send_command("CLIENT", "ID")
    own_id = connection.read_response()
    redis_client.client_kill_filter(_id=own_id)
    while time.monotonic() < deadline:
        try:
            connection.can_read()
        except redis.ConnectionError:
            break
        time.sleep(0.01)
    else:
        pytest.fail("a connection the server closed passed the check")
    pool.release(connection)
    assert client.ping() is True  # the pool's check noticed and connected it again
    pool.disconnect()


def test_a_subscriptions_wait_sees_a_message_nothing_and_a_closed_connection(
    redis_url: str, redis_client: redis.Redis
) -> None:
    # The live reader waits for its next message through the same check, with a timeout: it must
    # see a message published while it waits, give up after the timeout when none comes, and fail
    # (not wait, not read an empty message) when the server closes the connection.
    pubsub = connect(redis_url, timeout=2).pubsub()
    pubsub.subscribe("quick-check")
    assert pubsub.get_message(timeout=2)["type"] == "subscribe"
    connection = pubsub.connection
    assert connection is not None and isinstance(connection._parser, QuickCheckParser)
    started = time.monotonic()
    assert connection.can_read(timeout=0.3) is False
    assert time.monotonic() - started >= 0.25  # it waited
    timer = threading.Timer(0.2, redis_client.publish, ("quick-check", b"news"))
    timer.start()
    try:
        started = time.monotonic()
        assert connection.can_read(timeout=5) is True
        assert time.monotonic() - started < 4  # woken by the message, not the timeout
    finally:
        timer.join()
    message = pubsub.get_message(timeout=0)
    assert message is not None and message["data"] == b"news"
    assert connection.can_read(timeout=0) is False
    connection.send_command("CLIENT", "ID")
    own_id = connection.read_response()
    killer = threading.Timer(0.2, lambda: redis_client.client_kill_filter(_id=own_id))
    killer.start()
    try:
        with pytest.raises(redis.ConnectionError):
            connection.can_read(timeout=5)
    finally:
        killer.join()
    pubsub.close()


_GEVENT_WAITS = """
from gevent import monkey; monkey.patch_all()
import json, socket, time, gevent
from service.storage.client import _readable
a, b = socket.socketpair()
out = {}
started = time.monotonic(); out["nothing"] = [_readable(a, 0.2), time.monotonic() - started]
gevent.spawn_later(0.1, b.send, b"x")
started = time.monotonic(); out["data"] = [_readable(a, 5), time.monotonic() - started]
a.recv(1)
gevent.spawn_later(0.1, a.close)
started = time.monotonic(); out["closed"] = [_readable(a, 5), time.monotonic() - started]
print(json.dumps(out))
"""


def test_under_gevent_a_wait_yields_and_sees_data_nothing_and_a_close() -> None:
    # A server process waits through gevent's event loop (one watcher on the socket): in a process of
    # its own, patched as the server is, the wait must end at the data, at the timeout, or when the
    # socket is closed under it (readable, so the caller's peek reports it closed), never hang.
    done = subprocess.run([sys.executable, "-c", _GEVENT_WAITS], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    waits = json.loads(done.stdout)
    assert waits["nothing"][0] is False and waits["nothing"][1] >= 0.15
    assert waits["data"][0] is True and waits["data"][1] < 4
    assert waits["closed"][0] is True and waits["closed"][1] < 4


def test_the_app_asks_once_per_function_whether_it_needs_an_event_loop(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[Any] = []
    original = Flask.ensure_sync

    def counting(self: Flask, func: Any) -> Any:
        asked.append(func)
        return original(self, func)

    monkeypatch.setattr(Flask, "ensure_sync", counting)

    def hook() -> None:
        return None

    assert app.ensure_sync(hook) is hook and app.ensure_sync(hook) is hook
    assert asked == [hook]
    # Callables made afresh for each call would fill the memo: it stops growing at its bound.
    for _ in range(2 * TabletopFlask.MEMO_LIMIT):
        app.ensure_sync(functools.partial(hook))
    assert len(app._sync) == TabletopFlask.MEMO_LIMIT


class _Recording:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.sent.append(data)


def _response(raw: bytes) -> tuple[OneSendResponse, _Recording]:
    cfg = GunicornConfig()
    req = Request(cfg, IterUnreader([raw]), ("127.0.0.1", 1), None)
    sock = _Recording()
    return OneSendResponse(req, sock, cfg), sock


def test_gunicorn_sends_the_head_and_the_first_body_piece_at_once() -> None:
    resp, sock = _response(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    resp.start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "6")])
    resp.write(b'{"a":1')
    resp.close()
    assert len(sock.sent) == 1
    assert sock.sent[0].startswith(b"HTTP/1.1 200 OK\r\n") and sock.sent[0].endswith(b'\r\n\r\n{"a":1')


def test_a_stream_sends_its_head_with_the_first_chunk_then_each_chunk_alone() -> None:
    resp, sock = _response(b"GET /v1/matches/x/events HTTP/1.1\r\nHost: x\r\n\r\n")
    resp.start_response("200 OK", [("Content-Type", "text/event-stream")])
    resp.write(b"")  # nothing yet: the head goes out all the same
    assert len(sock.sent) == 1 and sock.sent[0].endswith(b"\r\n\r\n")
    resp.write(b"data: 1\n\n")
    resp.write(b"data: 2\n\n")
    resp.close()
    assert sock.sent[1:] == [b"9\r\ndata: 1\n\n\r\n", b"9\r\ndata: 2\n\n\r\n", b"0\r\n\r\n"]
