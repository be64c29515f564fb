"""How the API is served: gunicorn with gevent workers, so a waiting client costs memory, not a thread.

Most connections of a game API wait: a player for the others' moves, a spectator for the next event.
With a thread per connection, 16 open streams stalled a process.  Here each connection is a greenlet
(a few kilobytes); the process's one live-event reader (:mod:`service.live`) wakes the waiting ones.
Flask and flask-smorest run unchanged: gevent's monkey-patching makes sockets, locks and sleeps
cooperative, redis-py, RQ's enqueue, flask-limiter and prometheus-client included.

:class:`Worker` is gunicorn's gevent worker with the limits a public server needs, and less work per
request:

* the request line and headers must arrive within ``header_timeout_seconds`` (gunicorn's keep-alive
  timer, which also bounds an idle keep-alive connection), the whole body within
  ``body_timeout_seconds`` (else 408), and a response write may wait ``send_timeout_seconds`` for a
  client that does not read;
* what gunicorn refuses before the app sees a request (a request line too long, a malformed header)
  is answered in the API's JSON error shape rather than gunicorn's HTML page;
* a response's head and first piece go out in one send, and three pieces of gunicorn's work per
  request that did more than needed are done once a second, once per address, or when first needed
  (:func:`install_per_request_cuts`);
* Python's cycle collector runs less often, and never again over what the app made at start-up
  (:func:`tune_gc`);
* on SIGTERM the waiting clients are sent away and the idle keep-alive connections closed at once,
  so a process stops as soon as its requests in flight are answered: an idle connection held the
  process for the whole keep-alive time (10 s) before.

Per-request admission (how many requests work at once, a long-poll giving its place up, noticing a
client that left) is the app's side, in :mod:`service.http.admission`.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import gc
import io
import math
import os
import shutil
import struct
import tempfile
import termios
import time
from typing import Any, cast

import gevent
from gunicorn import glogging, util
from gunicorn.app.base import BaseApplication
from gunicorn.http import errors as http_errors
from gunicorn.http import message, wsgi
from gunicorn.http.body import LengthReader
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from service.config import Config
from service.encoding import dumps_bytes

#: Seconds a worker's event loop may be blocked before the gunicorn master restarts the process.
WORKER_TIMEOUT = 30
#: Objects made (less those freed) between two of the cycle collector's passes over the youngest
#: ones: ten times Python's 700 (:func:`tune_gc`).
GC_YOUNG_THRESHOLD = 7000
#: Seconds a connection waits for its next request once the process is stopping (SIGTERM): a request
#: already on its way gets in, and the connection closes after its answer.
STOPPING_WAIT = 1.0

#: Status, reason and error code of what gunicorn refuses itself (anything else it refuses is a 400).
_REFUSALS: list[tuple[type[Exception], int, str, str]] = [
    (http_errors.LimitRequestLine, 414, "URI Too Long", "uri_too_long"),
    (http_errors.LimitRequestHeaders, 431, "Request Header Fields Too Large", "headers_too_large"),
    (http_errors.UnsupportedTransferCoding, 501, "Not Implemented", "not_implemented"),
    (http_errors.ForbiddenProxyRequest, 403, "Forbidden", "forbidden"),
    (http_errors.ExpectationFailed, 417, "Expectation Failed", "expectation_failed"),
]


def write_error(sock: Any, status: int, reason: str, code: str, message: str) -> None:
    """An error response in the API's shape, written straight to the socket; the connection closes."""
    body = dumps_bytes({"code": code, "message": message, "details": {}})
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


class _Gathered:
    """Stands for the client's socket while a response's first write is put together (see
    :class:`OneSendResponse`): what gunicorn sends is kept, to go out in one send."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.parts.append(data)


class OneSendResponse(wsgi.Response):
    """gunicorn's HTTP/1 response, sending the head and the first piece of the body in one send.

    gunicorn sent the head, then each piece of the body, each a send of its own: two for every
    answer (a health check's, a move's), and on a TCP connection each send is a segment handed to the
    peer, a large share of a small request's CPU (issue 30 point 2).  Only the first write is
    gathered; the head goes out at the end of it in any case (also when it has no body bytes, a
    ``HEAD`` or a 304), so a stream's later pieces, written by the stream or by the live reader
    straight to the socket (:func:`service.http.admission.stream_wire`), always follow it."""

    def write(self, arg: bytes) -> None:
        if self.headers_sent:
            super().write(arg)
            return
        sock = cast(Any, self).sock  # gunicorn is untyped
        gathered = _Gathered()
        self.sock = gathered
        try:
            super().write(arg)
        finally:
            self.sock = sock
            if gathered.parts:
                sock.sendall(b"".join(gathered.parts))


_GUNICORN_ERRORS: Any = wsgi.WSGIErrorsWrapper


class LazyErrors(io.RawIOBase):
    """gunicorn's ``wsgi.errors`` stream, made when first written to rather than with the request:
    gunicorn made one for every request, a logger lookup under the logging lock and a walk of its
    handlers (2% of a health check's CPU), and a request almost never writes to it."""

    def __init__(self, cfg: Any) -> None:
        self._cfg = cfg

    @functools.cached_property
    def _errors(self) -> Any:
        return _GUNICORN_ERRORS(self._cfg)

    def write(self, data: Any) -> None:
        self._errors.write(data)


_gunicorn_http_date: Any = util.http_date
_gunicorn_in_allow_list: Any = getattr(message, "_ip_in_allow_list", None)  # gunicorn 24 and later
_now_second = -1
_now_date = ""


def http_date(timestamp: float | None = None) -> str:
    """gunicorn's ``Date`` header value, formatted once a second instead of for every response (2% of
    a health check's CPU)."""
    global _now_second, _now_date
    if timestamp is not None:
        return str(_gunicorn_http_date(timestamp))
    second = int(time.time())
    if second != _now_second:
        _now_date, _now_second = str(_gunicorn_http_date(second)), second
    return _now_date


@functools.lru_cache(maxsize=1024)
def _listed(ip: str, allow_list: tuple[str, ...], networks: tuple[Any, ...]) -> bool:
    assert _gunicorn_in_allow_list is not None
    return bool(_gunicorn_in_allow_list(ip, list(allow_list), list(networks)))


def ip_in_allow_list(ip: str, allow_list: list[str], networks: list[Any]) -> bool:
    """gunicorn's check that a peer may send forwarding headers, remembered per address and list:
    gunicorn parsed the peer's address for every request (5% of a health check's CPU)."""
    return _listed(ip, tuple(allow_list), tuple(networks))


def install_per_request_cuts() -> None:
    """Put this module's cheaper versions of gunicorn's per-request work in place, in a server process
    (each does what gunicorn's does; one missing from the installed gunicorn is left alone)."""
    # gunicorn builds each HTTP/1 response with the module's ``Response`` (HTTP/2 passes its own).
    wsgi.Response = OneSendResponse
    wsgi.WSGIErrorsWrapper = LazyErrors
    util.http_date = http_date
    if _gunicorn_in_allow_list is not None:
        message._ip_in_allow_list = ip_in_allow_list


def tune_gc() -> None:
    """Make the cycle collector's work in a server process fit one that holds thousands of waiting
    clients (issue 30).

    Each waiting client is about a hundred objects that live as long as it waits, so with 5,000 of
    them a process holds half a million, and every pass over the oldest generation walked them all:
    about 0.15 s of CPU, every few seconds, as long-polls ended and new ones aged.  Under the crowd
    benchmark (10,000 waiters, 2 processes) the collector took about 12% of a server process's CPU,
    and its pauses were most of the p99 of an event's delivery.  So:

    * what the app made at start-up (modules, the games' components, the app: about 90,000 objects)
      is moved out of the collector's sight (``gc.freeze``) after a collection of its garbage; it
      lives as long as the process;
    * the youngest generation is collected after :data:`GC_YOUNG_THRESHOLD` new objects rather than
      700, so most of a request's objects are freed with their last reference before a pass looks
      at them, and fewer survive into the older generations, whose passes come as often as before
      relative to the young ones (Python's other two thresholds are kept).

    What stays uncollected for longer is garbage in reference cycles only: the crowd benchmark's
    server processes ended with the same resident memory as before (187-194 MiB against 187-193)."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


def _bytes_waiting(sock: Any) -> int:
    """Bytes received on ``sock`` and not read yet (the kernel's count: no read, no wait)."""
    raw = fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0")
    return int(struct.unpack("i", raw)[0])


class _Wait:
    """A connection's wait for its next request: its keep-alive ``timer`` (silent: its expiry ends the
    wait with no request), listed in ``idle`` by greenlet while it waits (:meth:`Worker._close_idle`
    ends it early).  A class, not a generator: one is made per request."""

    __slots__ = ("idle", "me", "timer")

    def __init__(self, idle: dict[Any, gevent.Timeout], timer: gevent.Timeout) -> None:
        self.idle = idle
        self.timer = timer
        self.me = gevent.getcurrent()

    def __enter__(self) -> None:
        self.idle[self.me] = self.timer
        self.timer.__enter__()

    def __exit__(self, *exc: Any) -> bool:
        self.idle.pop(self.me, None)
        return bool(self.timer.__exit__(*exc))


class Worker(GeventWorker):
    """gunicorn's gevent worker with time limits on slow clients and JSON errors (see the module)."""

    def init_process(self) -> None:
        install_per_request_cuts()  # this server process's
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        tune_gc()  # the app is made: what start-up left is there for good

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        config = getattr(self.app, "tabletop_config", None) or Config.from_env()
        self.body_timeout = config.body_timeout_seconds
        self.send_timeout = config.send_timeout_seconds
        self.max_body = config.max_body_bytes
        #: The connections of this process (their greenlet: their socket), and those waiting for
        #: their next request (their greenlet: the keep-alive timer of the wait): on SIGTERM the
        #: waiting ones stop waiting (:meth:`_close_idle`).
        self._connections: dict[Any, Any] = {}
        self._idle: dict[Any, gevent.Timeout] = {}

    def handle_exit(self, sig: int, frame: Any) -> None:
        """SIGTERM: stop accepting (gunicorn), send the waiting clients away and close the idle
        keep-alive connections now, so the process ends as soon as its requests in flight are done
        instead of at ``graceful_timeout``."""
        super().handle_exit(sig, frame)
        from service.live.hub import end_all_waiters  # imported here: the master must not import redis-py

        gevent.spawn(end_all_waiters)
        gevent.spawn(self._close_idle)

    def _close_idle(self) -> None:
        """End the wait of every connection waiting for its next request with nothing of one received
        yet, as its keep-alive timer would (gunicorn then closes it quietly).  One whose next request
        has begun to arrive is answered; after it, the connection waits :data:`STOPPING_WAIT` at most."""
        for greenlet, timer in list(self._idle.items()):
            with contextlib.suppress(OSError, ValueError):
                if _bytes_waiting(self._connections[greenlet]) == 0:
                    greenlet.kill(timer, block=False)

    def timeout_ctx(self) -> _Wait:
        """gunicorn's wait for a connection's next request (its keep-alive timer), known to
        :meth:`_close_idle`; once the process is stopping, a short one (a request already on its way
        still gets in)."""
        return _Wait(self._idle, gevent.Timeout(self.cfg.keepalive if self.alive else STOPPING_WAIT, False))

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        # gunicorn's gevent worker makes the socket blocking (no timeout): a client that stops reading
        # would hold a response write forever.
        client.settimeout(self.send_timeout)
        me = gevent.getcurrent()
        self._connections[me] = client
        try:
            AsyncWorker.handle(self, listener, client, addr)
        except TimeoutError:  # a write to a client that stopped reading; nothing left to tell it
            util.close(client)
        finally:
            self._connections.pop(me, None)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        if not self._buffer_body(req, sock):
            raise StopIteration()  # answered 408; gunicorn closes the connection
        return super().handle_request(listener_name, req, sock, addr)

    def _buffer_body(self, req: Any, sock: Any) -> bool:
        """Read the whole body (at most one byte past the app's limit, which then answers 413) within
        ``body_timeout``, so a client trickling its body cannot hold the request for longer."""
        reader = req.body.reader
        if isinstance(reader, LengthReader):
            if reader.length == 0:
                return True
            if reader.length > self.max_body:
                req.must_close = True  # refused unread (413): the rest must not be parsed as a request
                return True
            if _buffered(reader.unreader) >= reader.length:
                # The whole body came with the head (a move's does): reading it waits for nothing, so
                # no timer is armed (a gevent Timeout per request was a measurable share of a move).
                req.body = io.BytesIO(req.body.read(reader.length))
                return True
        try:
            with gevent.Timeout(self.body_timeout):
                data = req.body.read(self.max_body + 1)
        except gevent.Timeout:
            self.log.info("request body from %s not received within %s s", req.peer_addr, self.body_timeout)
            write_error(
                sock, 408, "Request Timeout", "request_timeout", "the request body did not arrive in time"
            )
            return False
        if len(data) > self.max_body:
            req.must_close = True
        req.body = io.BytesIO(data)
        return True

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        status, reason, code = 400, "Bad Request", "bad_request"
        for kind, *answer in _REFUSALS:
            if isinstance(exc, kind):
                status, reason, code = answer  # type: ignore[assignment]
                break
        else:
            if not isinstance(exc, http_errors.ParseException | http_errors.NoMoreData | ValueError):
                self.log.exception("Error handling request")
                status, reason, code = 500, "Internal Server Error", "internal_error"
        message = "internal error" if status == 500 else str(exc) or reason
        if status != 500:
            self.log.warning("Invalid request from %s: %s", (addr or ("",))[0], message)
        with contextlib.suppress(OSError):  # the client may be gone already
            write_error(client, status, reason, code, message)


def _buffered(unreader: Any) -> int:
    """Bytes gunicorn's reader of a connection holds already (read with the request's head), 0 if it
    keeps none where this looks."""
    buf = getattr(unreader, "buf", None)
    if not isinstance(buf, io.BytesIO):
        return 0
    buf.seek(0, io.SEEK_END)  # where gunicorn's reader keeps it between reads
    return buf.tell()


class AppLogsAccess(glogging.Logger):
    """gunicorn's logger without gunicorn's access line.  The app writes a richer one of its own
    (:mod:`service.logs`) and gunicorn's logger is set to drop its line (:func:`service.logs.
    logging_config`), but gunicorn still built it for every request, fields and timestamp, because a
    logging configuration is given: a few per cent of a health check's CPU, for nothing."""

    def _compute_access_log_enabled(self) -> bool:
        return False

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:
        return None


class Server(BaseApplication):
    """gunicorn running :func:`service.http.app.create_app` with :class:`Worker` (``tabletop serve``)."""

    def __init__(self, config: Config, workers: int) -> None:
        self.tabletop_config = config
        self.workers = workers
        super().__init__()

    def load_config(self) -> None:
        from service.logs import logging_config

        config = self.tabletop_config
        for name, value in {
            "bind": f"{config.host}:{config.port}",
            "workers": self.workers,
            "worker_class": "service.serving.Worker",
            "logger_class": "service.serving.AppLogsAccess",
            "worker_connections": config.max_connections,
            "keepalive": max(1, math.ceil(config.header_timeout_seconds)),
            "timeout": WORKER_TIMEOUT,
            "accesslog": None,
            "logconfig_dict": logging_config(config.log_level),
            "child_exit": _forget_metrics,
        }.items():
            self.cfg.set(name, value)

    def load(self) -> Any:
        from service.http.app import create_app

        return create_app(self.tabletop_config)


def _forget_metrics(server: Any, worker: Any) -> None:
    """gunicorn's ``child_exit`` hook: a dead process's gauges (its waiting clients) no longer count."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def run(config: Config, workers: int) -> None:
    """Serve until stopped (SIGTERM/SIGINT).  With several processes and no ``PROMETHEUS_MULTIPROC_DIR``
    set, ``/metrics`` sums them through a temporary directory of its own."""
    own_directory = None
    if workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        own_directory = os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="tabletop-metrics-")
    master = os.getpid()
    try:
        Server(config, workers).run()
    finally:
        # A server process exits through here too: only the master may remove what they all share.
        if own_directory is not None and os.getpid() == master:
            shutil.rmtree(own_directory, ignore_errors=True)
