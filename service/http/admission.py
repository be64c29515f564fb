"""Per-request admission inside a server process: how many requests work at once, and how a waiting
request gives its place up and notices its client leaving.

This is the WSGI side of serving (the app factory wraps itself in :class:`Admission`; the events views
call :func:`watch_client`); :mod:`service.serving` is the gunicorn master's side.  Kept apart so the
app never imports the module that imports the app.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import gevent
from gevent import monkey

from service.encoding import dumps_bytes
from service.live.wire import Wire

if TYPE_CHECKING:
    from service.live.subscription import Subscription


#: Redis connections a process may open beyond one per active request (the live-event reader's).
SPARE_REDIS_CONNECTIONS = 4
#: Where :class:`Admission` leaves itself in the WSGI environ, for :func:`aside`.
_ADMISSION = "tabletop.admission"


class Admission:
    """WSGI middleware: at most ``places`` requests of this process work at once, the others wait in
    line (at most ``timeout`` seconds, then 503 with ``Retry-After``).

    Under gevent every connection could start working at once: a burst of 2 000 stream requests then
    thrashed, each holding a Redis connection while waiting for the CPU, and the pool ran dry.  In line,
    a burst is served in order at full speed, and Redis connections stay bounded.  A request holds its
    place until the app returns its response, so writing a body (a stream above all) holds none, and a
    long-poll gives its place up while it waits (:func:`aside`).  ``/healthz`` never waits in line: a
    busy process is still alive.
    """

    def __init__(self, app: Any, places: int, timeout: float) -> None:
        self.app = app
        self.timeout = timeout
        self.places = threading.BoundedSemaphore(places)

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("PATH_INFO") == "/healthz":
            return self.app(environ, start_response)
        if not self.places.acquire(timeout=self.timeout):
            body = dumps_bytes({"code": "busy", "message": "the server is busy; retry later", "details": {}})
            headers = [
                ("Content-Type", "application/json"),
                ("Retry-After", "1"),
                ("Cache-Control", "no-store"),
            ]
            start_response("503 Service Unavailable", headers)
            return [body]
        environ[_ADMISSION] = self
        try:
            return self.app(environ, start_response)
        finally:
            del environ[_ADMISSION]  # a body written later (a stream) holds no place to give up
            self.places.release()


@contextlib.contextmanager
def aside(environ: dict[str, Any]) -> Iterator[None]:
    """Give up the request's place in :class:`Admission` for the block (a long-poll's wait); it waits
    in line again afterwards."""
    admission: Admission | None = environ.get(_ADMISSION)
    if admission is None:
        yield
        return
    admission.places.release()
    try:
        yield
    finally:
        admission.places.acquire()


def watch_client(environ: dict[str, Any], sub: Subscription) -> None:
    """Make ``sub`` give up its request's place while it waits (:func:`aside`), and notice its client
    closing the connection meanwhile.

    Under the gevent worker the event loop watches the socket; when it becomes readable the waiter is
    woken to look (a closed connection reads as end of file; anything else the client sends is left
    for gunicorn, and the watch ends).  Elsewhere (the test client) nothing is watched.
    """
    sub.pause = lambda: aside(environ)
    sock = environ.get("gunicorn.socket")
    if sock is None or not monkey.is_module_patched("socket"):
        return
    watcher = gevent.get_hub().loop.io(sock.fileno(), 1)

    def readable() -> None:
        watcher.stop()
        sub.stir()

    def closed() -> bool:
        try:
            return bool(sock.recv(1, socket.MSG_PEEK) == b"")
        except OSError:
            return True

    sub.probe = closed
    sub.on_close = watcher.close
    watcher.start(readable)


def chunk(body: bytes) -> bytes:
    """``body`` as one HTTP/1.1 chunk, framed as gunicorn frames what a response yields."""
    return b"%X\r\n%s\r\n" % (len(body), body)


def stream_wire(environ: dict[str, Any]) -> Wire | None:
    """The connection of a streaming response, for the live reader to write to itself
    (:class:`service.live.wire.Wire`); ``None`` where that is not safe, and the stream's greenlet writes
    everything as before: outside the gevent worker (the test client), and where the response is not
    in chunks (an HTTP/1.0 client, whose body ends with the connection; a ``HEAD``).

    The server writes the response's head and the stream's first lines, then the reader writes
    whole chunks on the same socket, never while the stream's own greenlet writes (see
    :meth:`service.live.wire.Wire.offer`), and the server writes the last chunk after the stream ended."""

    sock = environ.get("gunicorn.socket")
    if (
        sock is None
        or not monkey.is_module_patched("socket")
        or environ.get("SERVER_PROTOCOL") != "HTTP/1.1"
        or environ.get("REQUEST_METHOD") != "GET"
    ):
        return None
    raw = getattr(sock, "_sock", None)  # gevent's socket wraps a non-blocking one
    if raw is None:
        return None

    def send(data: bytes) -> int:
        try:
            return int(raw.send(data))
        except BlockingIOError:
            return 0

    return Wire(send, sock.sendall, chunk)
