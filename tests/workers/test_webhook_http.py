"""The webhook delivery client on real sockets (issue 26, point 5: "the checked address is the one
connected to; no redirects followed; response bodies read only up to a small cap"; point 3: "a 5-s
timeout, so one slow or dead receiver never delays another app's deliveries"; point 6: "a receiver that
hangs", "SSRF attempts refused").

Receivers are real servers on loopback: pytest-httpserver (werkzeug) for plain answers and TLS,
``http.server`` for keep-alive, and raw sockets for receivers that hang or trickle.  Every refusal is
checked to happen before any connection: the listening socket's accept queue stays empty.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from workers import webhook_http
from workers.webhook_http import USER_AGENT, Reply, post

ROOT = Path(__file__).resolve().parents[2]
BODY = b'{"type":"your_turn","match":"m1","version":7}'
#: Slack for the upper bound of a timed-out attempt: generous, as two shared cores can stall a
#: process for a while; the point is that the attempt ends (a per-operation timeout never would).
SLACK = 3.0
#: How long a trickling receiver keeps it up (0.05 s a byte): long past any deadline here, yet
#: bounded, so a client that waits for it fails the test instead of hanging it.
TRICKLE_BYTES = 300


@pytest.fixture(autouse=True)
def _no_kept_connections() -> Iterator[None]:
    yield
    webhook_http.close_idle()


@pytest.fixture
def receiver() -> Iterator[HTTPServer]:
    """A plain HTTP receiver on 127.0.0.1 (werkzeug, HTTP/1.0: one request per connection)."""
    server = HTTPServer(host="127.0.0.1")
    server.start()
    yield server
    server.clear()
    server.stop()


def send(url: str, **overrides: object) -> Reply:
    """``post`` as the lane calls it in development: loopback and plain http allowed."""
    options: dict[str, object] = {"timeout": 5.0, "allow_private": True, "allow_http": True}
    options.update(overrides)
    return post(url, BODY, {"webhook-id": "msg_1"}, **options)  # type: ignore[arg-type]


def only(*addresses: str) -> tuple[list[tuple[str, int]], Callable[[str, int], list[str]]]:
    """A resolver answering ``addresses`` for any name, and the list of what it was asked."""
    asked: list[tuple[str, int]] = []

    def resolve(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return list(addresses)

    return asked, resolve


class Listener:
    """A listening socket nobody accepts on: the kernel completes connections into its queue, so
    :meth:`connected` tells whether anyone connected."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]

    def connected(self) -> bool:
        self.sock.setblocking(False)
        try:
            conn, _ = self.sock.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    sock = Listener()
    yield sock
    sock.close()


class RawServer:
    """A TCP server on 127.0.0.1 whose ``handle(conn, stop)`` runs in a thread per connection, for
    receivers no HTTP server would be: one that never answers, one that trickles."""

    def __init__(self, handle: Callable[[socket.socket, threading.Event], None]) -> None:
        self.handle = handle
        self.stop = threading.Event()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.sent = 0
        self.threads: list[threading.Thread] = []
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            self.conns.append(conn)
            worker = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            self.threads.append(worker)
            worker.start()

    def _serve(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):  # the client gave up: that is the point
            self.handle(conn, self.stop)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        for conn in self.conns:  # wakes a handler blocked reading
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for worker in self.threads:
            worker.join(5)
        self.sock.close()


def read_request(conn: socket.socket) -> bytes:
    """Read one request, body included: a server that closes with the body unread makes the kernel
    answer with a reset, which the client would report instead of what the test means to show."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)\s*$", head)
    wanted = int(length.group(1)) if length else 0
    while len(body) < wanted:
        chunk = conn.recv(4096)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def hang(conn: socket.socket, stop: threading.Event) -> None:
    """Accept, read the request, never answer."""
    read_request(conn)
    stop.wait(30)


# -- answers --------------------------------------------------------------------------------------


def test_a_200_is_read_and_its_body_capped(receiver: HTTPServer) -> None:
    receiver.expect_request(
        "/hook",
        method="POST",
        data=BODY,
        headers={"Content-Type": "application/json", "User-Agent": USER_AGENT, "webhook-id": "msg_1"},
    ).respond_with_data("x" * 10_000, status=200, headers={"X-Seen": "yes"})
    reply = send(receiver.url_for("/hook"))
    assert reply.error is None
    assert reply.status == 200 and reply.ok
    assert reply.body == b"x" * 4096
    assert reply.headers["x-seen"] == "yes"
    assert reply.headers["content-length"] == "10000"
    assert reply.latency_ms > 0
    receiver.check_assertions()


def test_the_body_cap_is_the_callers(receiver: HTTPServer) -> None:
    receiver.expect_request("/hook").respond_with_data("y" * 300, status=202)
    reply = send(receiver.url_for("/hook"), body_cap=10)
    assert (reply.status, reply.body, reply.error) == (202, b"y" * 10, None)


def test_the_client_owns_content_type_user_agent_and_host(receiver: HTTPServer) -> None:
    """The caller's headers go out, but not over the client's own (no smuggled ``Host`` or length)."""
    seen: list[Request] = []

    def record(request: Request) -> Response:
        seen.append(request)
        return Response("", status=204)

    receiver.expect_request("/hook").respond_with_handler(record)
    port = receiver.port
    _, resolve = only("127.0.0.1")
    reply = post(
        f"http://hooks.example.test:{port}/hook",
        BODY,
        {"content-type": "text/plain", "Host": "evil.test", "Content-Length": "1", "webhook-id": "m"},
        timeout=5.0,
        allow_private=True,
        allow_http=True,
        resolve=resolve,
    )
    assert (reply.status, reply.error) == (204, None)
    [request] = seen
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["User-Agent"] == USER_AGENT
    assert request.headers["Host"] == f"hooks.example.test:{port}"
    assert request.headers["webhook-id"] == "m"
    assert request.get_data() == BODY


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_redirects_are_not_followed(receiver: HTTPServer, status: int) -> None:
    """A 3xx is a failed delivery with its status: the place it points to never hears from us."""
    target = HTTPServer(host="127.0.0.1")
    target.start()
    try:
        target.expect_request("/landed").respond_with_data("followed!")
        receiver.expect_request("/hook").respond_with_data(
            "", status=status, headers={"Location": target.url_for("/landed")}
        )
        reply = send(receiver.url_for("/hook"))
        assert reply.status == status and not reply.ok
        assert reply.error is None
        assert reply.headers["location"] == target.url_for("/landed")
        assert target.log == []
        assert len(receiver.log) == 1
    finally:
        target.clear()
        target.stop()


def test_error_statuses_come_back_with_their_headers(receiver: HTTPServer) -> None:
    receiver.expect_request("/hook").respond_with_data("busy", status=503, headers={"Retry-After": "120"})
    reply = send(receiver.url_for("/hook"))
    assert (reply.status, reply.headers["retry-after"], reply.body, reply.error) == (
        503,
        "120",
        b"busy",
        None,
    )
    receiver.clear()
    receiver.expect_request("/hook").respond_with_data("gone", status=410)
    assert send(receiver.url_for("/hook")).status == 410


# -- time -----------------------------------------------------------------------------------------


def test_a_receiver_that_never_answers_times_out() -> None:
    server = RawServer(hang)
    try:
        started = time.monotonic()
        reply = send(f"http://127.0.0.1:{server.port}/hook", timeout=0.5)
        elapsed = time.monotonic() - started
        assert reply.status is None
        assert reply.error == "timeout after 0.5 s"
        assert 0.5 <= elapsed < 0.5 + SLACK
        assert 500 <= reply.latency_ms < (0.5 + SLACK) * 1000
        assert server.accepted == 1
    finally:
        server.close()


def test_a_listener_that_never_accepts_times_out(listener: Listener) -> None:
    reply = send(f"http://127.0.0.1:{listener.port}/hook", timeout=0.3)
    assert (reply.status, reply.error) == (None, "timeout after 0.3 s")


def test_a_trickling_head_cannot_outlast_the_whole_attempt() -> None:
    """One header byte every 50 ms: each read succeeds, yet the attempt ends at its deadline."""
    handle_state: dict[str, int] = {"sent": 0}

    def trickle(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        for _ in range(TRICKLE_BYTES):
            if stop.wait(0.05):
                break
            conn.sendall(b"a")
            handle_state["sent"] += 1

    server = RawServer(trickle)
    try:
        started = time.monotonic()
        reply = send(f"http://127.0.0.1:{server.port}/hook", timeout=0.6)
        elapsed = time.monotonic() - started
        assert reply.error == "timeout after 0.6 s"
        assert reply.status is None
        assert 0.6 <= elapsed < 0.6 + SLACK
        assert handle_state["sent"] >= 2  # bytes kept coming while the client waited
    finally:
        server.close()


def test_a_trickling_body_cannot_outlast_the_whole_attempt() -> None:
    """The status came, the body dribbles: the reply keeps the status and says the time ran out."""

    def trickle(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\nok")
        for _ in range(TRICKLE_BYTES):
            if stop.wait(0.05):
                break
            conn.sendall(b"a")

    server = RawServer(trickle)
    try:
        started = time.monotonic()
        reply = send(f"http://127.0.0.1:{server.port}/hook", timeout=0.6)
        elapsed = time.monotonic() - started
        assert reply.status == 200
        assert reply.error == "timeout after 0.6 s"
        assert 0.6 <= elapsed < 0.6 + SLACK
    finally:
        server.close()


# -- refusals (SSRF) -------------------------------------------------------------------------------


def test_loopback_is_refused_before_connecting_unless_the_operator_allows_it(
    listener: Listener, receiver: HTTPServer
) -> None:
    reply = send(f"http://127.0.0.1:{listener.port}/hook", allow_private=False)
    assert reply == Reply(None, {}, b"", reply.latency_ms, "refused: host 127.0.0.1 is a loopback address")
    assert not listener.connected()
    # localhost through the real resolver: refused whichever loopback address comes first.
    reply = send(f"http://localhost:{listener.port}/hook", allow_private=False)
    assert reply.error == "refused: host localhost resolves to a loopback address"
    assert not listener.connected()
    # Allowed: it connects (and a real receiver answers).
    receiver.expect_request("/hook").respond_with_data("ok")
    assert send(receiver.url_for("/hook").replace("localhost", "127.0.0.1"), allow_private=True).status == 200


def test_plain_http_is_refused_unless_the_operator_allows_it(listener: Listener) -> None:
    reply = send(f"http://127.0.0.1:{listener.port}/hook", allow_http=False)
    assert reply.status is None
    assert reply.error is not None and reply.error.startswith("url: must use https")
    assert not listener.connected()


def test_the_checked_address_is_the_connected_one(listener: Listener) -> None:
    """DNS rebinding: a public-looking name that resolves to loopback at delivery time is refused on
    that very answer, before any connection, and the name is resolved once only."""
    asked, resolve = only("127.0.0.1")
    reply = send(f"https://hooks.example.test:{listener.port}/hook", allow_private=False, resolve=resolve)
    assert reply.error == "refused: host hooks.example.test resolves to a loopback address"
    assert asked == [("hooks.example.test", listener.port)]
    assert not listener.connected()
    # A public address beside the private one does not help: any refused address refuses the URL.
    asked, resolve = only("93.184.216.34", "10.0.0.5")
    reply = send("https://hooks.example.test/hook", allow_private=False, resolve=resolve)
    assert reply.error == "refused: host hooks.example.test resolves to a private address"


def test_the_client_connects_to_the_resolved_address_never_to_the_name(receiver: HTTPServer) -> None:
    """``hooks.example.test`` resolves nowhere for the system (RFC 6761): reaching the local receiver
    proves the socket went to the address the resolver gave and was checked, with the name kept for
    ``Host``."""
    receiver.expect_request(
        "/hook", headers={"Host": f"hooks.example.test:{receiver.port}"}
    ).respond_with_data("ok")
    asked, resolve = only("127.0.0.1")
    reply = send(f"http://hooks.example.test:{receiver.port}/hook", resolve=resolve)
    assert (reply.status, reply.error) == (200, None)
    assert asked == [("hooks.example.test", receiver.port)]
    receiver.check_assertions()


def test_the_next_address_is_tried_when_one_refuses_the_connection(receiver: HTTPServer) -> None:
    receiver.expect_request("/hook").respond_with_data("ok")
    # 127.0.0.3 has nothing listening on the receiver's port: refused, then 127.0.0.1 answers.
    _, resolve = only("127.0.0.3", "127.0.0.1")
    reply = send(f"http://hooks.example.test:{receiver.port}/hook", resolve=resolve)
    assert (reply.status, reply.error) == (200, None)


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("::ffff:127.0.0.1", "refused: host hooks.example.test resolves to a loopback address"),
        ("::ffff:169.254.169.254", "refused: host hooks.example.test resolves to a metadata address"),
        ("64:ff9b::a9fe:a9fe", "refused: host hooks.example.test resolves to a metadata address"),
        ("169.254.169.254", "refused: host hooks.example.test resolves to a metadata address"),
        ("fd00:ec2::254", "refused: host hooks.example.test resolves to a metadata address"),
        ("100.100.100.200", "refused: host hooks.example.test resolves to a metadata address"),
        ("100.64.1.1", "refused: host hooks.example.test resolves to a shared address space address"),
        ("172.20.0.1", "refused: host hooks.example.test resolves to a private address"),
        ("fe80::1", "refused: host hooks.example.test resolves to a link-local address"),
        ("0.0.0.0", "refused: host hooks.example.test resolves to an unspecified address"),
        ("224.0.0.251", "refused: host hooks.example.test resolves to a multicast address"),
        ("not-an-address", "refused: host hooks.example.test resolves to an invalid address"),
    ],
)
def test_resolved_addresses_are_judged_by_class(
    answer: str, error: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The error (the app reads it in its delivery log) names the kind, never the address the host
    resolved to (issue 42: no DNS oracle); the operator's log names it."""
    asked, resolve = only(answer)
    with caplog.at_level(logging.WARNING, logger="workers.webhook_http"):
        reply = send("https://hooks.example.test/hook", allow_private=False, resolve=resolve)
    assert (reply.status, reply.error) == (None, error)
    assert reply.error is not None and answer not in reply.error
    assert len(asked) == 1
    assert f"hooks.example.test: it resolves to {answer}" in caplog.text


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("http://169.254.169.254/latest/meta-data/", "refused: host 169.254.169.254 is a metadata address"),
        ("https://[::ffff:169.254.169.254]/", "refused: host ::ffff:a9fe:a9fe is a metadata address"),
        ("https://[::1]:8443/", "refused: host ::1 is a loopback address"),
        ("https://user:pw@hooks.example.test/", "url: must not carry a user name or password (user:pass@)"),
        ("https://hooks.example.test/#x", "url: must not have a fragment (#...)"),
        ("ftp://hooks.example.test/", "url: has scheme 'ftp': webhook URLs use https or http"),
        ("file:///etc/passwd", "url: has scheme 'file': webhook URLs use https or http"),
        ("gopher://127.0.0.1:6379/_FLUSHALL", "url: has scheme 'gopher': webhook URLs use https or http"),
        ("https://hooks.example.test:70000/", "url: has port 70000: a port is a number from 1 to 65535"),
        ("https://2130706433/", "url: has host '2130706433': write an IPv4 address as four decimal numbers"),
    ],
)
def test_forbidden_urls_never_reach_the_resolver(url: str, error: str) -> None:
    asked, resolve = only("93.184.216.34")
    reply = send(url, allow_private=False, resolve=resolve)
    assert (reply.status, reply.headers, reply.body, reply.error) == (None, {}, b"", error)
    assert asked == []


def test_network_trouble_is_a_reply_never_an_exception() -> None:
    spare = socket.socket()
    spare.bind(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens there now
    assert send(f"http://127.0.0.1:{port}/hook").error == "connection refused"

    def no_name(host: str, port: int) -> list[str]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    reply = send("https://hooks.example.test/hook", resolve=no_name)
    assert reply.error == "dns: hooks.example.test does not resolve (Name or service not known)"
    _, nothing = only()
    assert (
        send("https://hooks.example.test/hook", resolve=nothing).error
        == "dns: hooks.example.test does not resolve"
    )

    def close_at_once(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)

    server = RawServer(close_at_once)
    try:
        assert send(f"http://127.0.0.1:{server.port}/hook").error == "connection closed without a response"
    finally:
        server.close()

    def garbage(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")

    server = RawServer(garbage)
    try:
        assert send(f"http://127.0.0.1:{server.port}/hook").error == "bad response: not an HTTP status line"
    finally:
        server.close()

    def short_body(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\nonly this")

    server = RawServer(short_body)
    try:
        reply = send(f"http://127.0.0.1:{server.port}/hook")
        assert (reply.status, reply.error) == (200, "connection closed before the whole body")
    finally:
        server.close()


# -- TLS ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for ``localhost`` and 127.0.0.1 (made by the openssl command)."""
    assert shutil.which("openssl"), "the openssl command (Debian's openssl) makes the test certificate"
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def tls_receiver(certificate: tuple[Path, Path]) -> Iterator[tuple[HTTPServer, list[str | None]]]:
    """An HTTPS receiver with the self-signed certificate, and the server names (SNI) it was sent."""
    cert, key = certificate
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []

    def sni(sock: ssl.SSLObject, name: str | None, ctx: ssl.SSLContext) -> None:
        names.append(name)

    context.sni_callback = sni
    server = HTTPServer(host="127.0.0.1", ssl_context=context)
    server.start()
    yield server, names
    server.clear()
    server.stop()


def test_https_with_an_untrusted_certificate_is_refused_for_tls(
    tls_receiver: tuple[HTTPServer, list[str | None]],
) -> None:
    server, _ = tls_receiver
    server.expect_request("/hook").respond_with_data("ok")
    _, resolve = only("127.0.0.1")
    reply = send(f"https://localhost:{server.port}/hook", resolve=resolve)
    assert reply.status is None
    assert reply.error is not None and reply.error.startswith("tls: certificate verify failed")
    assert "self-signed" in reply.error or "self signed" in reply.error
    assert server.log == []


def test_https_succeeds_with_a_context_that_trusts_the_certificate(
    tls_receiver: tuple[HTTPServer, list[str | None]], certificate: tuple[Path, Path]
) -> None:
    server, names = tls_receiver
    server.expect_request("/hook", method="POST", data=BODY).respond_with_data("ok")
    trusting = ssl.create_default_context(cafile=str(certificate[0]))
    _, resolve = only("127.0.0.1")
    reply = send(f"https://localhost:{server.port}/hook", resolve=resolve, ssl_context=trusting)
    assert (reply.status, reply.body, reply.error) == (200, b"ok", None)
    assert names == ["localhost"]  # SNI names the host, though the socket went to 127.0.0.1
    server.check_assertions()


def test_the_certificate_is_checked_against_the_host_name_not_the_address(
    tls_receiver: tuple[HTTPServer, list[str | None]], certificate: tuple[Path, Path]
) -> None:
    """Connecting by address keeps HTTPS honest: the certificate must name the URL's host."""
    server, _ = tls_receiver
    trusting = ssl.create_default_context(cafile=str(certificate[0]))
    _, resolve = only("127.0.0.1")
    reply = send(f"https://hooks.example.test:{server.port}/hook", resolve=resolve, ssl_context=trusting)
    assert reply.error is not None and reply.error.startswith("tls: certificate verify failed")
    assert "hooks.example.test" in reply.error
    assert server.log == []


def test_plain_http_to_a_tls_port_and_tls_to_a_plain_port_fail_cleanly(receiver: HTTPServer) -> None:
    _, resolve = only("127.0.0.1")
    reply = send(f"https://localhost:{receiver.port}/hook", resolve=resolve)
    assert reply.status is None and reply.error is not None and reply.error.startswith("tls: ")


# -- keep-alive -----------------------------------------------------------------------------------


class KeepAlive(ThreadingHTTPServer):
    """An HTTP/1.1 receiver that echoes bodies and counts connections and requests; with
    ``close_after`` it drops each connection after answering (without saying so)."""

    daemon_threads = True
    request_queue_size = 128  # socketserver's 5 resets connections when 40 arrive at once

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _EchoHandler)
        self.lock = threading.Lock()
        self.connections = 0
        self.requests = 0
        self.close_after = False
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _EchoHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: KeepAlive

    def setup(self) -> None:
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def do_POST(self) -> None:
        data = self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.lock:
            self.server.requests += 1
        size = int(self.headers.get("X-Size", len(data)))
        answer = (data * (size // max(len(data), 1) + 1))[:size]
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        if self.server.close_after:
            self.close_connection = True

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def keep_alive() -> Iterator[KeepAlive]:
    server = KeepAlive()
    yield server
    webhook_http.close_idle()
    server.stop()


def echo(url: str, body: bytes, headers: dict[str, str] | None = None, **options: object) -> Reply:
    settings: dict[str, object] = {"timeout": 5.0, "allow_private": True, "allow_http": True}
    settings.update(options)
    return post(url, body, headers or {}, **settings)  # type: ignore[arg-type]


def test_connections_are_kept_for_the_next_post(keep_alive: KeepAlive) -> None:
    for n in range(5):
        reply = echo(keep_alive.url, b'{"n":%d}' % n)
        assert (reply.status, reply.body, reply.error) == (200, b'{"n":%d}' % n, None)
    assert (keep_alive.connections, keep_alive.requests) == (1, 5)
    assert webhook_http.idle_connections() == 1


def test_a_kept_connection_the_receiver_dropped_is_replaced(keep_alive: KeepAlive) -> None:
    """The receiver closes after each answer without saying so: every POST still arrives once."""
    keep_alive.close_after = True
    for n in range(5):
        reply = echo(keep_alive.url, b'{"n":%d}' % n)
        assert (reply.status, reply.body, reply.error) == (200, b'{"n":%d}' % n, None)
    assert keep_alive.requests == 5
    assert keep_alive.connections == 5


def test_a_kept_connection_that_fails_before_any_answer_is_tried_once_anew() -> None:
    """The race :meth:`alive` cannot see: the receiver takes the request on a kept connection and
    drops it unanswered.  The POST goes once more on a fresh connection (at least once: the receiver
    may see it twice, under the same ``webhook-id``)."""
    requests: list[int] = []

    def first_only(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        requests.append(1)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        read_request(conn)  # the second request on this connection: dropped unanswered
        requests.append(2)

    server = RawServer(first_only)
    try:
        url = f"http://127.0.0.1:{server.port}/hook"
        assert (send(url).status, webhook_http.idle_connections()) == (200, 1)
        reply = send(url)
        assert (reply.status, reply.body, reply.error) == (200, b"ok", None)
        assert server.accepted == 2
        assert sorted(requests) == [1, 1, 2]
    finally:
        server.close()


def test_a_forked_child_forgets_its_parents_connections(keep_alive: KeepAlive) -> None:
    """An RQ work horse is a fork: it must not write on the parent's kept connections."""
    assert echo(keep_alive.url, b"{}").status == 200
    assert webhook_http.idle_connections() == 1
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(write, str(webhook_http.idle_connections()).encode())
        os._exit(0)
    os.close(write)
    assert os.read(read, 16) == b"0"
    os.close(read)
    os.waitpid(child, 0)
    assert webhook_http.idle_connections() == 1
    assert echo(keep_alive.url, b"{}").status == 200
    assert keep_alive.connections == 1


def test_a_connection_is_not_kept_after_an_error_or_a_body_past_the_cap(keep_alive: KeepAlive) -> None:
    assert echo(keep_alive.url, b"{}", {"X-Size": "10000"}, body_cap=100).body == b"{}" * 50
    assert webhook_http.idle_connections() == 0  # the unread rest would spoil the next answer
    assert echo(keep_alive.url, b"{}").body == b"{}"
    assert webhook_http.idle_connections() == 1
    assert keep_alive.connections == 2


def test_kept_connections_are_bounded(keep_alive: KeepAlive) -> None:
    barrier = threading.Barrier(12)
    replies: list[Reply] = []

    def one() -> None:
        barrier.wait(10)
        replies.append(echo(keep_alive.url, b"{}"))

    threads = [threading.Thread(target=one) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(replies) == 12 and all(reply.status == 200 for reply in replies)
    assert webhook_http.idle_connections() <= webhook_http.POOL_PER_KEY


def test_threads_share_the_pool_without_crossing_answers(keep_alive: KeepAlive) -> None:
    """Eight threads, 25 POSTs each, on kept connections: every answer is the echo of its own
    request (a connection shared by two threads would mix them up)."""
    wrong: list[str] = []

    def run(thread: int) -> None:
        for n in range(25):
            body = b'{"thread":%d,"n":%d}' % (thread, n)
            reply = echo(keep_alive.url, body)
            if (reply.status, reply.body, reply.error) != (200, body, None):
                wrong.append(repr(reply))

    threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert wrong == []
    assert keep_alive.requests == 200
    assert keep_alive.connections <= 8 + 8  # reused, not one per POST


GEVENT_SCRIPT = r"""
from gevent import monkey
monkey.patch_all()
import json, sys, gevent
from workers.webhook_http import post

healthy, hanging, trickling = sys.argv[1], sys.argv[2], sys.argv[3]
done = []

def send(name, url, body, timeout):
    reply = post(url, body, {}, timeout=timeout, allow_private=True, allow_http=True)
    done.append({"name": name, "status": reply.status, "body": reply.body.decode(), "error": reply.error,
                 "sent": body.decode()})

jobs = [gevent.spawn(send, "hang", hanging, b"{}", 3.0), gevent.spawn(send, "trickle", trickling, b"{}", 3.0)]
jobs += [gevent.spawn(send, f"ok{n}", healthy, b'{"n":%d}' % n, 5.0) for n in range(40)]
gevent.joinall(jobs, timeout=60)
print(json.dumps(done))
"""


def test_under_gevent_a_hanging_receiver_delays_no_other_delivery(keep_alive: KeepAlive) -> None:
    """In a gevent process (as the lane may run), 40 deliveries to a healthy receiver all complete
    before the deliveries to a receiver that hangs and one that trickles give up at their
    whole-attempt deadline."""
    hanging = RawServer(hang)

    def trickle(conn: socket.socket, stop: threading.Event) -> None:
        read_request(conn)
        conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        for _ in range(TRICKLE_BYTES):
            if stop.wait(0.05):
                break
            conn.sendall(b"a")

    trickling = RawServer(trickle)
    try:
        out = subprocess.run(
            [sys.executable, "-c", GEVENT_SCRIPT, keep_alive.url,
             f"http://127.0.0.1:{hanging.port}/hook", f"http://127.0.0.1:{trickling.port}/hook"],
            cwd=ROOT, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        hanging.close()
        trickling.close()
    assert out.returncode == 0, out.stderr
    done = json.loads(out.stdout)
    assert len(done) == 42
    names = [item["name"] for item in done]
    assert set(names[-2:]) == {"hang", "trickle"}
    for item in done[:-2]:
        assert (item["status"], item["body"], item["error"]) == (200, item["sent"], None)
    for item in done[-2:]:
        assert (item["status"], item["error"]) == (None, "timeout after 3.0 s")
    assert keep_alive.requests == 40


@pytest.mark.parametrize(
    "headers",
    [{"webhook-id": "a\r\nX-Injected: 1"}, {"bad name": "x"}, {"webhook-id\r\nX": "x"}, {"x": "a\nb"}],
)
def test_a_header_that_would_split_the_request_is_refused_unsent(
    listener: Listener, headers: dict[str, str]
) -> None:
    reply = post(
        f"http://127.0.0.1:{listener.port}/hook",
        BODY,
        headers,
        timeout=5.0,
        allow_private=True,
        allow_http=True,
    )
    assert reply.status is None
    assert reply.error is not None and reply.error.startswith("request: header ")
    assert not listener.connected()
