"""The one HTTP connection every client call goes through, and the error a refusal raises.

The operation groups (:mod:`tabletop_client.matches` and its siblings) say which request an operation
is; this module alone says how a request travels: one keep-alive connection (reopened once when the
server closed it while idle), JSON in and out, ``Authorization: Bearer`` for the credential, and any
non-2xx answer raised as :class:`ApiError` with the API's error document and the headers a client
acts on (``Retry-After``, the rate limit: :mod:`tabletop_client.ratelimits`).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

from tabletop_client.ratelimits import RateLimit, parse_rate_limit, parse_retry_after

Doc = dict[str, Any]


class ApiError(Exception):
    """A non-2xx response: its status and the API's ``{"code", "message", "details"}`` body, its
    ``headers`` (names in lower case), and what they say of when to come back: ``retry_after``
    (seconds, from ``Retry-After``: a 429, a 503) and ``rate_limit``
    (:class:`~tabletop_client.ratelimits.RateLimit`, from the ``RateLimit`` headers), each ``None``
    when not sent."""

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body if isinstance(body, dict) else {"message": str(body)}
        self.code = self.body.get("code")
        self.headers = headers or {}
        self.retry_after: float | None = parse_retry_after(self.headers)
        self.rate_limit: RateLimit | None = parse_rate_limit(self.headers)
        super().__init__(f"{status} {self.code}: {self.body.get('message')}")


def query(**params: Any) -> str:
    """A query string (``?a=1&b=true``, or ``""`` when every value is ``None``), in the order given:
    ``None`` leaves a parameter out, so an optional argument the caller did not pass is not sent, and
    booleans are written as the API's schemas read them (``true``, ``false``)."""
    kept = {k: v for k, v in params.items() if v is not None}
    kept = {k: ("true" if v is True else "false" if v is False else v) for k, v in kept.items()}
    return f"?{urlencode(kept)}" if kept else ""


def _refusal(resp: http.client.HTTPResponse, raw: bytes) -> ApiError:
    try:
        body = json.loads(raw) if raw else None
    except ValueError:  # a proxy's HTML page in front of the API
        body = raw.decode("utf-8", "replace")
    return ApiError(resp.status, body, _lower(resp))


def _lower(resp: http.client.HTTPResponse) -> dict[str, str]:
    return {name.lower(): value for name, value in resp.getheaders()}


class Transport:
    """One keep-alive connection to the API, used by one thread at a time.  It counts the requests it
    sent (``sent``) and keeps the rate limit the last answer stated (``rate_limit``), so a caller
    pacing itself (:mod:`tabletop_client.runner`) can slow down before it is refused."""

    def __init__(self, base_url: str, timeout: float) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        conn_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._conn = conn_class(parts.hostname, parts.port, timeout=timeout)
        self.base_url = base_url.rstrip("/")
        self.prefix = parts.path.rstrip("/")
        self.sent = 0
        self.rate_limit: RateLimit | None = None

    def close(self) -> None:
        self._conn.close()

    def abort(self) -> None:
        """End a read another thread is blocked in (a stream's): shut the socket down, so that the
        read returns at once, as if the server had closed it."""
        sock = self._conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One JSON call: the status and the decoded body; raises :class:`ApiError` unless it is 2xx."""
        hdrs = {**self._headers(token), **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        resp = self._send(method, path, data, hdrs)
        raw = resp.read()
        if not 200 <= resp.status < 300:
            raise _refusal(resp, raw)
        return resp.status, json.loads(raw) if raw else None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """The decoded body of a JSON call (the status of a 2xx answer rarely matters: see
        :meth:`request` where it does)."""
        return self.request(method, path, body, token, headers)[1]

    def get(self, path: str, token: str | None = None) -> Any:
        """The decoded body of a ``GET``."""
        return self.request("GET", path, token=token)[1]

    def text(self, path: str, token: str | None, accept: str) -> str:
        """The body of a ``GET`` answered in another type than JSON (a CSV export)."""
        resp = self._send("GET", path, None, self._headers(token, accept))
        raw = resp.read()
        if resp.status != 200:
            raise _refusal(resp, raw)
        return raw.decode("utf-8")

    def ndjson(self, path: str, token: str | None, heartbeats: bool = False) -> Iterator[Doc]:
        """The documents of an NDJSON stream, heartbeats skipped (unless ``heartbeats``: a loop that
        must look up now and then between entries).  An error status raises at once, before the first
        item is asked for, so a caller learns of a bad token where it opened the stream rather than at
        its first ``next``."""
        resp = self._send("GET", path, None, self._headers(token, "application/x-ndjson"))
        if resp.status != 200:
            raw = resp.read()
            self._conn.close()  # an error before the stream: the connection may be half-read
            raise _refusal(resp, raw)
        return self._lines(resp, heartbeats)

    def _lines(self, resp: http.client.HTTPResponse, heartbeats: bool = False) -> Iterator[Doc]:
        """The documents of a stream; its credential revoked or expired meanwhile (its last line says
        so) raises :class:`ApiError` 401 ``credential_revoked``, as a long-poll's answer would."""
        try:
            while line := resp.readline():
                item = json.loads(line)
                if item.get("type") == "credential_revoked":
                    details = {"reason": item.get("reason"), "last_id": item.get("id")}
                    body = {"code": "credential_revoked", "message": item.get("message"), "details": details}
                    raise ApiError(401, body)
                if heartbeats or item.get("type") != "heartbeat":
                    yield item
        finally:
            resp.close()
            self._conn.close()  # a stream read to its end or abandoned cannot carry another request

    @staticmethod
    def _headers(token: str | None, accept: str = "application/json") -> dict[str, str]:
        headers = {"Accept": accept}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def _send(
        self, method: str, path: str, data: bytes | None, headers: dict[str, str]
    ) -> http.client.HTTPResponse:
        for attempt in (1, 2):
            try:
                self._conn.request(method, self.prefix + path, body=data, headers=headers)
                self.sent += 1
                resp = self._conn.getresponse()
                self.rate_limit = parse_rate_limit({k.lower(): v for k, v in resp.getheaders()})
                return resp
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                # The server closed an idle keep-alive connection before reading the request: reopen
                # it and send once more.
                self._conn.close()
                if attempt == 2:
                    raise
            except BaseException:
                self._conn.close()  # leave the connection usable for the next call
                raise
        raise AssertionError("unreachable")
