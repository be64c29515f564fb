"""A crowd of waiting and slow clients against ``tabletop serve`` as production runs it (gunicorn, gevent
workers, two processes) over a real Redis: waiting must cost memory, not the server's attention.

Raw sockets play the clients, so a test controls exactly what a slow, vanished or hostile client does.
"""

from __future__ import annotations

import json
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.processes import ApiServer, RedisServer, bearer, call, create_match

CHINA = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


class RawClient:
    """One HTTP/1.1 connection driven by hand."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.received = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def read_until(self, marker: bytes, timeout: float = 5.0) -> bytes:
        """Everything received until ``marker`` has arrived (``b""`` back when the server hung up)."""
        deadline = time.monotonic() + timeout
        while marker not in self.received:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = self.sock.recv(65536)
            if not chunk:
                return b""
            self.received += chunk
        return self.received

    def closed_by_server(self, timeout: float) -> bool:
        """Whether the server closes the connection within ``timeout`` seconds."""
        self.sock.settimeout(timeout)
        try:
            while self.sock.recv(65536):
                pass
        except TimeoutError:
            return False
        except ConnectionResetError:
            pass
        return True

    def close(self) -> None:
        self.sock.close()


def open_stream(port: int, match_id: str, accept: str = "application/x-ndjson") -> RawClient:
    client = RawClient(port)
    client.send(f"GET /v1/matches/{match_id}/events HTTP/1.1\r\nHost: t\r\nAccept: {accept}\r\n\r\n".encode())
    return client


def metrics(api: ApiServer) -> str:
    conn = api.client().conn
    conn.request("GET", "/metrics")
    return conn.getresponse().read().decode()


def waiting_clients(api: ApiServer) -> float:
    """``tabletop_waiting_clients``, summed over the server's processes by the server itself."""
    lines = metrics(api).splitlines()
    return sum(float(line.split()[1]) for line in lines if line.startswith("tabletop_waiting_clients "))


def eventually(predicate, timeout: float, what: str) -> float:
    """Seconds until ``predicate()`` held (fails after ``timeout``)."""
    started = time.monotonic()
    while not predicate():
        assert time.monotonic() - started < timeout, what
        time.sleep(0.05)
    return time.monotonic() - started


def timed(api: ApiServer, method: str, path: str, body=None, **headers: str) -> tuple[int, object, float]:
    t0 = time.monotonic()
    status, doc = call(api.client(), method, path, body, **headers)
    return status, doc, time.monotonic() - t0


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


def test_healthz_and_a_move_answer_within_a_second_beside_200_streams_and_64_slow_clients(
    redis_server, tmp_path
):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=2) as api:
        match = create_match(api.client(), "china", CHINA)
        kinds = {b'"id":"1-1"': "application/x-ndjson", b"id: 1-1\n": "text/event-stream"}
        streams = [
            (marker, open_stream(api.port, match["id"], kinds[marker]))
            for _ in range(100)
            for marker in kinds
        ]
        for _, stream in streams:
            assert b"snapshot" in stream.read_until(b"snapshot")
        slow = [RawClient(api.port) for _ in range(64)]
        for client in slow:
            client.send(b"GET /healthz HTTP/1.1\r\nHost: slow\r\n")  # and nothing more
        eventually(lambda: waiting_clients(api) == 200, 5, "the 200 streams are not all waiting")

        status, _, seconds = timed(api, "GET", "/healthz")
        assert status == 200 and seconds < 1.0
        seat = match["to_move"]
        auth = bearer(next(t["token"] for t in match["tokens"] if t["seat"] == seat))
        _, legal = call(api.client(), "GET", f"/v1/matches/{match['id']}/legal-actions", **auth)
        status, moved, seconds = timed(
            api, "POST", f"/v1/matches/{match['id']}/actions", {"action": legal["actions"][0]},
            **auth, **{"If-Match": '"0"'},
        )  # fmt: skip
        assert status == 200 and seconds < 1.0, (status, moved)
        started = time.monotonic()
        for marker, stream in streams:  # every waiter gets the move's event
            assert stream.read_until(marker)
        assert time.monotonic() - started < 1.0
        for client in (*(stream for _, stream in streams), *slow):
            client.close()


def test_a_vanished_stream_or_long_poll_is_released_within_a_second(redis_server, tmp_path):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=1) as api:
        match = create_match(api.client(), "china", CHINA)
        streams = [open_stream(api.port, match["id"]) for _ in range(20)]
        for stream in streams:
            stream.read_until(b"snapshot")
        polls = [RawClient(api.port) for _ in range(10)]
        for poll in polls:
            poll.send(
                f"GET /v1/matches/{match['id']}/events?after=0-1&wait=30 HTTP/1.1\r\nHost: t\r\n\r\n".encode()
            )
        eventually(lambda: waiting_clients(api) == 30, 5, "the 30 clients are not all waiting")
        for client in (*streams[:10], *polls):
            client.close()
        seconds = eventually(lambda: waiting_clients(api) == 10, 3, "closed clients were not released")
        assert seconds < 1.0


def test_a_hung_redis_is_a_quick_503_that_spares_healthz_and_heals_after_sigcont(redis_server, tmp_path):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=2) as api:
        match = create_match(api.client(), "china", CHINA)
        stream = open_stream(api.port, match["id"])
        stream.read_until(b"snapshot")
        redis_server.proc.send_signal(signal.SIGSTOP)
        try:
            status, body, seconds = timed(api, "GET", f"/v1/matches/{match['id']}")
            assert status == 503 and body["code"] == "unavailable" and seconds < 2.5, (status, seconds)
            status, _, seconds = timed(api, "GET", "/healthz")
            assert status == 200 and seconds < 0.5
            status, body, seconds = timed(api, "GET", "/readyz")
            assert status == 503 and seconds < 2.5, (status, body)
        finally:
            redis_server.proc.send_signal(signal.SIGCONT)
        eventually(lambda: call(api.client(), "GET", "/readyz")[0] == 200, 10, "not ready after SIGCONT")
        seat = match["to_move"]
        auth = bearer(next(t["token"] for t in match["tokens"] if t["seat"] == seat))
        _, legal = call(api.client(), "GET", f"/v1/matches/{match['id']}/legal-actions", **auth)
        status, _ = call(api.client(), "POST", f"/v1/matches/{match['id']}/actions",
                         {"action": legal["actions"][0]}, **auth, **{"If-Match": '"0"'})  # fmt: skip
        assert status == 200
        assert stream.read_until(b'"id":"1-1"'), "the stream opened before the hang missed the move"


def test_slow_headers_and_bodies_are_cut_off_and_gunicorn_refusals_are_json(redis_server, tmp_path):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=1,
                   header_timeout_seconds=1, body_timeout_seconds=1) as api:  # fmt: skip
        slow_head = RawClient(api.port)
        slow_head.send(b"GET /healthz HTTP/1.1\r\n")
        started = time.monotonic()
        assert slow_head.closed_by_server(timeout=5)
        assert time.monotonic() - started < 2.5

        slow_body = RawClient(api.port)
        slow_body.send(b"POST /v1/matches HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 100\r\n\r\n{\"game\":")  # fmt: skip
        answer = slow_body.read_until(b"}", timeout=5)
        assert answer.startswith(b"HTTP/1.1 408 ") and b"application/json" in answer
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["code"] == "request_timeout"

        for request, status in (
            (b"GET /" + b"x" * 5000 + b" HTTP/1.1\r\nHost: t\r\n\r\n", 414),
            (b"GET /healthz HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n", 400),
        ):
            client = RawClient(api.port)
            client.send(request)
            answer = client.read_until(b"}", timeout=5)
            head, body = answer.split(b"\r\n\r\n", 1)
            assert head.startswith(b"HTTP/1.1 %d " % status) and b"Content-Type: application/json" in head
            assert set(json.loads(body)) == {"code", "message", "details"}


def test_waiting_clients_past_the_cap_get_429_with_retry_after(redis_server, tmp_path):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=1, max_waiters_per_address=3) as api:
        match = create_match(api.client(), "china", CHINA)
        streams = [open_stream(api.port, match["id"]) for _ in range(3)]
        for stream in streams:
            stream.read_until(b"snapshot")
        refused = open_stream(api.port, match["id"]).read_until(b"}")
        head, body = refused.split(b"\r\n\r\n", 1)
        assert head.startswith(b"HTTP/1.1 429 ") and b"Retry-After: " in head
        assert json.loads(body)["code"] == "too_many_waiters"
        status, body = call(api.client(), "GET", f"/v1/matches/{match['id']}/events?after=0-1&wait=5")
        assert status == 429, "a long-poll waits too, and counts"
        streams[0].close()
        poll = f"/v1/matches/{match['id']}/events?after=0-1&wait=0.1"
        eventually(lambda: call(api.client(), "GET", poll)[0] == 200, 3, "a released place is not free again")


def test_huge_integers_are_422_naming_the_field_and_invented_methods_one_metrics_label(
    redis_server, tmp_path
):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=1) as api:
        huge = "9" * 5000
        for path, body, field in (
            (
                "/v1/matches",
                '{"game": "china", "seats": [{"name": "a", "think_ms": ' + huge + "}]}",
                "seats.0.think_ms",
            ),
            ("/v1/matches/abc/actions", '{"action": {"type": "x", "n": [1, ' + huge + "]}}", "action.n.1"),
        ):
            conn = api.client().conn
            conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            doc = json.loads(resp.read())
            assert resp.status == 422 and doc["details"]["field"] == field, doc
        for i in range(50):
            client = RawClient(api.port)
            client.send(
                f"FOO{chr(65 + i // 26)}{chr(65 + i % 26)} /healthz HTTP/1.1\r\nHost: t\r\n\r\n".encode()
            )
            assert client.read_until(b"}").startswith(b"HTTP/1.1 405 ")
            client.close()
        labels = [
            line for line in metrics(api).splitlines() if line.startswith("tabletop_http_requests_total{")
        ]
        assert not any("FOO" in line for line in labels)
        assert any('method="other"' in line and 'status="405"' in line and " 50.0" in line for line in labels)
        assert not (tmp_path / "api.log").read_text().count("Traceback")
