"""The HTTP client the webhook lane delivers with (issue 26, points 3 and 5): one POST, safe against
server-side request forgery, bounded in time and memory, that never raises for network trouble.

Why not ``urllib``/``requests``: each would resolve the host name itself when connecting, after we had
checked what it resolves to, and a name can resolve to a public address for the check and to
``127.0.0.1`` a moment later (DNS rebinding).  They also follow redirects (a public receiver answering
``302 Location: http://169.254.169.254/`` would walk the server into the metadata service), read proxy
settings from the environment, and apply their timeout to each socket operation, so a receiver
trickling one byte a second holds a delivery forever.  Here:

- the URL is checked (:func:`service.domain.webhooks.urls.check_url`), the name resolved once, every
  address judged (:func:`~service.domain.webhooks.urls.address_refusal`), and the socket connected to
  the judged address itself; TLS then verifies the certificate against the *host name* (and sends it
  as SNI), so connecting by address loses nothing of HTTPS;
- no redirect is followed: a 3xx is the reply, a failed delivery with its status;
- the response body is read up to ``body_cap`` bytes, headers within :mod:`http.client`'s own limits
  (100 headers, 64 KiB a line);
- ``timeout`` bounds the whole attempt: before each connect, send and read the socket's timeout is set
  to what is left of it, so the attempt ends at its deadline however the receiver dribbles.  (Name
  resolution is the system resolver's, bounded by its own timeouts; the deadline is checked after it.)

Every failure comes back as :attr:`Reply.error`, a short text for the delivery log ("timeout after
5.0 s", "connection refused", "refused: host hooks.example.com resolves to a loopback address",
"tls: ...", "dns: ...").  Neither the request's headers (its signature) nor its body appear in it,
nor an address the host resolved to (the app reads its delivery log: an address there would map the
operator's internal names for it); a refused address goes to the operator's log.

Keep-alive: the lane aims at 500 deliveries a second per process, mostly to a few receivers, so a
connection whose exchange completed cleanly is kept for the next POST to the same
``(scheme, address, port, host, TLS context)``, in a small bounded pool; any error drops it.  A kept
connection the receiver closed meanwhile is noticed before use, or (a race) by the POST failing before
any answer, and the POST is then tried once on a fresh connection.  Webhooks are at least once, with the
same ``webhook-id`` on every try, so that rare second send is harmless.  The pool holds plain sockets
under a lock taken only for list updates, never across I/O: safe with threads and under gevent's
monkey patching; it starts no thread of its own.
"""

from __future__ import annotations

import http.client
import io
import ipaddress
import logging
import os
import re
import select
import socket
import ssl
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from service.domain.errors import Invalid
from service.domain.webhooks.urls import Resolver, Target, refusal_text, refused, resolve_host, split_url

log = logging.getLogger(__name__)

USER_AGENT = "Tabletop-Webhooks/1"
CONTENT_TYPE = "application/json"
#: Request headers the client owns: the caller's values for these are dropped (``Host`` names the
#: URL's host, the length is the body's, and the receiver hears no ``Connection``/``Transfer-Encoding``
#: games from the caller).
_OWN_HEADERS = frozenset(
    {"host", "content-type", "user-agent", "content-length", "transfer-encoding", "connection"}
)
#: An HTTP header name (RFC 9110's token).
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: Idle connections kept per destination, in all, and for how long (receivers drop idle keep-alive
#: connections after 5 to 60 s; a shorter idle life saves most stale-connection retries).
POOL_PER_KEY = 8
POOL_TOTAL = 256
POOL_IDLE_SECONDS = 20.0

#: Where a kept connection goes: scheme, address, port, host (for ``Host`` and TLS) and TLS context.
_Key = tuple[str, str, int, str, ssl.SSLContext | None]


@dataclass(frozen=True)
class Reply:
    """What one POST came to.

    ``status`` is the receiver's HTTP status when it answered (``None`` when no answer came);
    ``headers`` its response headers (names lower-case, repeated ones joined by ``", "``); ``body``
    the first ``body_cap`` bytes of its body; ``latency_ms`` the whole attempt's duration;
    ``error`` ``None`` when the exchange completed, else what went wrong, which may come after a
    status (the body stopped halfway).  A delivery succeeded when ``status`` is 2xx: the receiver
    took the message; a 3xx is a failed delivery (redirects are never followed).
    """

    status: int | None
    headers: dict[str, str]
    body: bytes
    latency_ms: float
    error: str | None

    @property
    def ok(self) -> bool:
        """Whether the receiver accepted the message (a 2xx status)."""
        return self.status is not None and 200 <= self.status < 300


def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    timeout: float,
    allow_private: bool,
    allow_http: bool,
    body_cap: int = 4096,
    resolve: Resolver = resolve_host,
    ssl_context: ssl.SSLContext | None = None,
    content_type: str = CONTENT_TYPE,
) -> Reply:
    """POST ``body`` (JSON) with ``headers`` to ``url`` once, within ``timeout`` seconds in all.

    ``allow_private``/``allow_http`` are the operator's settings; ``resolve`` turns the host into
    addresses (injected by tests); ``ssl_context`` replaces the default one (system CAs, host name
    checked), e.g. to trust a test's self-signed certificate; ``content_type`` names the body's type
    (Web Push sends encrypted bytes, ``application/octet-stream``: :mod:`workers.push`)."""
    started = time.monotonic()
    deadline = started + timeout
    attempt = _Attempt(deadline)
    try:
        attempt.run(
            url, body, headers, allow_private, allow_http, body_cap, resolve, ssl_context, content_type
        )
    except _Refused as refusal:
        attempt.error = refusal.reason
    except (OSError, http.client.HTTPException, ValueError) as exc:
        attempt.error = _describe(exc, timeout)
    latency_ms = (time.monotonic() - started) * 1000.0
    return Reply(attempt.status, attempt.headers, attempt.body, latency_ms, attempt.error)


class _Refused(Exception):
    """The attempt stopped before connecting: a URL, name or address the policy refuses."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _Attempt:
    """One POST's progress, so an error after the status still reports what came before it."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.status: int | None = None
        self.headers: dict[str, str] = {}
        self.body = b""
        self.error: str | None = None

    def run(
        self,
        url: str,
        body: bytes,
        headers: dict[str, str],
        allow_private: bool,
        allow_http: bool,
        body_cap: int,
        resolve: Resolver,
        ssl_context: ssl.SSLContext | None,
        content_type: str = CONTENT_TYPE,
    ) -> None:
        try:
            target = split_url(url, allow_http=allow_http)
        except Invalid as exc:
            raise _Refused(exc.message) from None
        addresses = _resolve(target, resolve)
        refusal = refused(addresses, allow_private=allow_private)
        if refusal is not None:
            address, kind = refusal
            log.warning("webhooks: not connecting to %s: it resolves to %s (%s)", target.host, address, kind)
            raise _Refused(f"refused: {refusal_text(target.host, kind)}")
        request_headers = _request_headers(headers, content_type)
        _left(self.deadline)  # resolving may have used it all
        context = None
        if target.scheme == "https":
            context = ssl_context if ssl_context is not None else _default_context()
        path = target.path
        conn, reused = _open(target, addresses, context, self.deadline)
        try:
            response = self._exchange(conn, path, body, request_headers)
        except (ConnectionResetError, BrokenPipeError, ssl.SSLEOFError):
            conn.close()
            if not reused:
                raise
            # The receiver closed the kept connection as we reused it: once more on a new one.
            conn, _ = _open(target, addresses, context, self.deadline, fresh=True)
            try:
                response = self._exchange(conn, path, body, request_headers)
            except BaseException:
                conn.close()
                raise
        except BaseException:
            conn.close()
            raise
        try:
            self.status = response.status
            self.headers = _reply_headers(response)
            self.body = _read_capped(response, body_cap)
        except BaseException:
            response.close()
            conn.close()
            raise
        if len(self.body) < body_cap and response.length:
            # http.client ends a Content-Length body at the connection's end without a word
            self.error = "connection closed before the whole body"
            conn.close()
        elif response.isclosed() and conn.sock is not None:
            _POOL.give_back(conn)
        else:  # the body went past the cap, or the receiver closes the connection: not reusable
            response.close()
            conn.close()

    @staticmethod
    def _exchange(
        conn: _Connection, path: str, body: bytes, headers: dict[str, str]
    ) -> http.client.HTTPResponse:
        conn.request("POST", path, body=body, headers=headers)
        return conn.getresponse()


def _resolve(target: Target, resolve: Resolver) -> list[str]:
    try:
        ipaddress.ip_address(target.host)
    except ValueError:
        pass
    else:
        return [target.host]  # a literal address: nothing to resolve
    try:
        addresses = resolve(target.host, target.port)
    except (OSError, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        raise _Refused(f"dns: {target.host} does not resolve ({reason})") from None
    if not addresses:
        raise _Refused(f"dns: {target.host} does not resolve")
    return addresses


def _request_headers(headers: dict[str, str], content_type: str = CONTENT_TYPE) -> dict[str, str]:
    """The caller's headers over the client's own; one that could split the request (a line break,
    a name that is no token) is refused rather than sent."""
    merged = {"Content-Type": content_type, "User-Agent": USER_AGENT}
    for name, value in headers.items():
        if _HEADER_NAME.fullmatch(name) is None or any(ch in value for ch in "\r\n\0"):
            raise _Refused(f"request: header {name[:40]!r} cannot be sent")
        if name.lower() not in _OWN_HEADERS:
            merged[name] = value
    return merged


def _reply_headers(response: http.client.HTTPResponse) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, value in response.getheaders():
        key = name.lower()
        found[key] = f"{found[key]}, {value}" if key in found else value
    return found


def _read_capped(response: http.client.HTTPResponse, cap: int) -> bytes:
    """At most ``cap`` bytes of the body: the rest is neither read nor waited for."""
    chunks: list[bytes] = []
    size = 0
    while size < cap:
        chunk = response.read(cap - size)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _left(deadline: float) -> float:
    """Seconds left before ``deadline``; :class:`TimeoutError` when none."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("deadline passed")
    return left


def _format_seconds(seconds: float) -> str:
    return f"{seconds:.1f}" if round(seconds, 1) == seconds else f"{seconds:g}"


def _describe(exc: BaseException, timeout: float) -> str:
    """A short text for the delivery log (no request data in it)."""
    if isinstance(exc, TimeoutError):
        return f"timeout after {_format_seconds(timeout)} s"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"tls: certificate verify failed: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"tls: {exc.reason or exc.strerror or type(exc).__name__}"
    if isinstance(exc, ssl.CertificateError):
        return f"tls: {exc}"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "connection closed without a response"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    if isinstance(exc, BrokenPipeError | ConnectionAbortedError):
        return "connection closed while sending"
    if isinstance(exc, http.client.IncompleteRead):
        return "connection closed before the whole body"
    if isinstance(exc, http.client.LineTooLong):
        return "bad response: a line too long"
    if isinstance(exc, http.client.BadStatusLine):
        return "bad response: not an HTTP status line"
    if isinstance(exc, http.client.HTTPException):
        return f"bad response: {type(exc).__name__}"
    if isinstance(exc, OSError):
        return f"network: {exc.strerror or type(exc).__name__}"
    return f"bad response: {type(exc).__name__}"


# -- connections ----------------------------------------------------------------------------------

_CONTEXT: ssl.SSLContext | None = None


def _default_context() -> ssl.SSLContext:
    """The system's trusted CAs with host names checked, built once (loading the CA file is slow; a
    context is safe to share between threads)."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = ssl.create_default_context()
    return _CONTEXT


class _Connection(http.client.HTTPConnection):
    """An HTTP/1.1 connection to ``host`` that connects to ``address`` (an IP judged beforehand, never
    the name again), TLS-wrapped with ``context`` when given, every socket operation bounded by the
    current attempt's deadline (:attr:`deadline`, reset for each POST on a kept connection)."""

    def __init__(self, target: Target, address: str, context: ssl.SSLContext | None, deadline: float) -> None:
        super().__init__(target.host, target.port)
        self.default_port = 443 if target.scheme == "https" else 80  # Host: names no default port
        self.address = address
        self.context = context
        self.deadline = deadline
        self.idle_since = 0.0
        self.key: _Key = (target.scheme, address, target.port, target.host, context)

    def connect(self) -> None:
        ip = ipaddress.ip_address(self.address)
        family = socket.AF_INET6 if ip.version == 6 else socket.AF_INET
        raw = socket.socket(family, socket.SOCK_STREAM)
        try:
            raw.settimeout(_left(self.deadline))
            raw.connect((self.address, self.port))
            raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock: socket.socket = raw
            if self.context is not None:
                sock = self.context.wrap_socket(raw, server_hostname=self.host, do_handshake_on_connect=False)
                sock.settimeout(_left(self.deadline))
                sock.do_handshake()
        except BaseException:
            raw.close()
            raise
        self.sock = _Wire(sock, self)

    def alive(self) -> bool:
        """Whether a kept connection can carry another request: the receiver has neither closed it
        nor sent anything unasked (either shows as readable)."""
        wire = self.sock
        if not isinstance(wire, _Wire):
            return False
        sock = wire.sock
        if isinstance(sock, ssl.SSLSocket) and sock.pending():
            return False
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable


class _Wire:
    """The socket as :mod:`http.client` sees it: every send and read first sets the socket's timeout
    to what is left of the attempt, so the attempt's deadline holds however the bytes trickle.

    http.client hands the socket to the response (``makefile``) and may close the connection before
    the response is read (``Connection: close``); as with a real socket, the socket closes once both
    the connection and the response's reader let go."""

    def __init__(self, sock: socket.socket, conn: _Connection) -> None:
        self.sock = sock
        self.conn = conn
        self.readers = 0
        self.closed = False

    def arm(self) -> None:
        self.sock.settimeout(_left(self.conn.deadline))

    def sendall(self, data: Any) -> None:
        self.arm()
        self.sock.sendall(data)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        self.readers += 1
        return io.BufferedReader(_Reader(self))

    def release(self) -> None:
        self.readers -= 1
        if self.closed and self.readers <= 0:
            self.sock.close()

    def close(self) -> None:
        self.closed = True
        if self.readers <= 0:
            self.sock.close()


class _Reader(io.RawIOBase):
    def __init__(self, wire: _Wire) -> None:
        super().__init__()
        self.wire = wire

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self.wire.arm()
        return self.wire.sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            super().close()
            self.wire.release()


class _Pool:
    """Idle keep-alive connections by destination: at most :data:`POOL_PER_KEY` per destination and
    :data:`POOL_TOTAL` in all (the least recently used go first), none idle past
    :data:`POOL_IDLE_SECONDS`.  A connection is out of the pool while it is used: never shared."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: OrderedDict[_Key, list[_Connection]] = OrderedDict()
        self.count = 0

    def take(self, key: _Key) -> _Connection | None:
        """A kept connection to ``key`` that still looks alive, if any (the dead ones are closed)."""
        while True:
            with self.lock:
                kept = self.idle.get(key)
                if not kept:
                    return None
                conn = kept.pop()
                self.count -= 1
                if not kept:
                    del self.idle[key]
            if time.monotonic() - conn.idle_since < POOL_IDLE_SECONDS and conn.alive():
                return conn
            conn.close()

    def give_back(self, conn: _Connection) -> None:
        conn.idle_since = time.monotonic()
        dropped: list[_Connection] = []
        with self.lock:
            kept = self.idle.setdefault(conn.key, [])
            self.idle.move_to_end(conn.key)
            kept.append(conn)
            self.count += 1
            if len(kept) > POOL_PER_KEY:
                dropped.append(kept.pop(0))
                self.count -= 1
            while self.count > POOL_TOTAL:
                oldest_key, oldest = next(iter(self.idle.items()))
                dropped.append(oldest.pop(0))
                self.count -= 1
                if not oldest:
                    del self.idle[oldest_key]
        for old in dropped:
            old.close()

    def clear(self) -> None:
        with self.lock:
            kept = [conn for conns in self.idle.values() for conn in conns]
            self.idle.clear()
            self.count = 0
        for conn in kept:
            conn.close()

    def forget(self) -> None:
        """Drop every kept connection without a word on it (a forked child: the sockets are its
        parent's); a fresh lock too, as the fork may have caught another thread holding this one."""
        self.lock = threading.Lock()
        self.idle = OrderedDict()
        self.count = 0

    def size(self) -> int:
        with self.lock:
            return self.count


_POOL = _Pool()
# A forked child must not write on its parent's connections: it forgets them (the parent keeps them).
os.register_at_fork(after_in_child=_POOL.forget)


def close_idle() -> None:
    """Close every kept connection (a worker shutting down; tests)."""
    _POOL.clear()


def idle_connections() -> int:
    """How many connections the pool keeps now."""
    return _POOL.size()


def _open(
    target: Target,
    addresses: list[str],
    context: ssl.SSLContext | None,
    deadline: float,
    *,
    fresh: bool = False,
) -> tuple[_Connection, bool]:
    """A connection to the first of ``addresses`` that takes one (a kept one when there is one and
    not ``fresh``), and whether it was kept."""
    if not fresh:
        for address in addresses:
            kept = _POOL.take((target.scheme, address, target.port, target.host, context))
            if kept is not None:
                kept.deadline = deadline
                return kept, True
    failure: OSError | None = None
    for address in addresses:
        conn = _Connection(target, address, context, deadline)
        try:
            conn.connect()
        except TimeoutError:
            raise
        except ssl.SSLError:
            raise  # the address answered: its certificate is the receiver's, not a wrong turn
        except OSError as exc:
            failure = exc
            continue
        return conn, False
    assert failure is not None  # addresses is never empty
    raise failure
