"""The one HTTP connection every client call goes through, and the error a refusal raises.

The operation groups (:mod:`tabletop_client.matches` and its siblings) say which request an operation
is; this module alone says how a request travels: one keep-alive connection (reopened once when the
server closed it while idle), JSON in and out, ``Authorization: Bearer`` for the credential, and any
non-2xx answer raised as :class:`ApiError` with the API's error document.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode, urlsplit

Doc = dict[str, Any]


class ApiError(Exception):
    """A non-2xx response: its status and the API's ``{"code", "message", "details"}`` body."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body if isinstance(body, dict) else {"message": str(body)}
        self.code = self.body.get("code")
        super().__init__(f"{status} {self.code}: {self.body.get('message')}")


def query(**params: Any) -> str:
    """A query string (``?a=1&b=true``, or ``""`` when every value is ``None``), in the order given:
    ``None`` leaves a parameter out, so an optional argument the caller did not pass is not sent, and
    booleans are written as the API's schemas read them (``true``, ``false``)."""
    kept = {k: v for k, v in params.items() if v is not None}
    kept = {k: ("true" if v is True else "false" if v is False else v) for k, v in kept.items()}
    return f"?{urlencode(kept)}" if kept else ""


def _refusal(status: int, raw: bytes) -> ApiError:
    return ApiError(status, json.loads(raw) if raw else None)


class Transport:
    """One keep-alive connection to the API, used by one thread at a time."""

    def __init__(self, base_url: str, timeout: float) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        conn_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._conn = conn_class(parts.hostname, parts.port, timeout=timeout)
        self.base_url = base_url.rstrip("/")
        self.prefix = parts.path.rstrip("/")

    def close(self) -> None:
        self._conn.close()

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
            raise _refusal(resp.status, raw)
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
            raise _refusal(resp.status, raw)
        return raw.decode("utf-8")

    def ndjson(self, path: str, token: str | None) -> Iterator[Doc]:
        """The documents of an NDJSON stream, heartbeats skipped.  An error status raises at once,
        before the first item is asked for, so a caller learns of a bad token where it opened the
        stream rather than at its first ``next``."""
        resp = self._send("GET", path, None, self._headers(token, "application/x-ndjson"))
        if resp.status != 200:
            raw = resp.read()
            self._conn.close()  # an error before the stream: the connection may be half-read
            raise _refusal(resp.status, raw)
        return self._lines(resp)

    def _lines(self, resp: http.client.HTTPResponse) -> Iterator[Doc]:
        """The documents of a stream; its credential revoked or expired meanwhile (its last line says
        so) raises :class:`ApiError` 401 ``credential_revoked``, as a long-poll's answer would."""
        try:
            while line := resp.readline():
                item = json.loads(line)
                if item.get("type") == "credential_revoked":
                    details = {"reason": item.get("reason"), "last_id": item.get("id")}
                    body = {"code": "credential_revoked", "message": item.get("message"), "details": details}
                    raise ApiError(401, body)
                if item.get("type") != "heartbeat":
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
                return self._conn.getresponse()
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
