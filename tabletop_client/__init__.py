"""A small Python client of the Tabletop HTTP API (standard library only).

    from tabletop_client import Client
    api = Client("http://127.0.0.1:8000")
    match = api.create_match("china", [{"name": "ann"}, {"name": "bot", "kind": "bot", "level": "hard"}])
    token = match["tokens"][0]["token"]
    api.move(match["id"], token, api.legal_actions(match["id"], token)["actions"][0], match["version"])

Every method returns the decoded JSON body; a non-2xx answer raises :class:`ApiError` with the API's
error document.  One client holds one keep-alive connection and is not thread-safe: use one per thread.
"""

from __future__ import annotations

import http.client
import json
import time
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


class Client:
    def __init__(self, base_url: str, timeout: float = 60.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        conn_class = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        self._conn = conn_class(parts.hostname, parts.port, timeout=timeout)
        self.prefix = parts.path.rstrip("/")

    def close(self) -> None:
        self._conn.close()

    # -- transport ----------------------------------------------------------------------------------

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

    @staticmethod
    def _headers(token: str | None, accept: str = "application/json") -> dict[str, str]:
        headers = {"Accept": accept}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """One call: the status and the decoded body; raises :class:`ApiError` unless it is 2xx."""
        hdrs = {**self._headers(token), **(headers or {})}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            hdrs["Content-Type"] = "application/json"
        resp = self._send(method, path, data, hdrs)
        raw = resp.read()
        doc = json.loads(raw) if raw else None
        if not 200 <= resp.status < 300:
            raise ApiError(resp.status, doc)
        return resp.status, doc

    def _get(self, path: str, token: str | None = None) -> Any:
        return self.request("GET", path, token=token)[1]

    # -- games and matches --------------------------------------------------------------------------

    def games(self) -> list[Doc]:
        return self._get("/v1/games")["games"]

    def game(self, game_id: str) -> Doc:
        return self._get(f"/v1/games/{game_id}")

    def create_match(
        self, game: str, seats: list[Doc], options: Doc | None = None, seed: int | None = None, **more: Any
    ) -> Doc:
        """Create a match; the answer holds each human seat's token (``tokens``), the creator token and
        a private match's invite codes, shown only here.  ``more``: ``visibility``, ``on_leave``,
        ``time_control``."""
        body: Doc = {"game": game, "seats": seats, "options": options or {}, **more}
        if seed is not None:
            body["seed"] = seed
        return self.request("POST", "/v1/matches", body)[1]

    def join(self, match_id: str, name: str, seat: int | str = "any", invite: str | None = None) -> Doc:
        """Take an open seat; the answer holds its token (``token``), shown only here."""
        body: Doc = {"name": name, "seat": seat, **({"invite": invite} if invite else {})}
        return self.request("POST", f"/v1/matches/{match_id}/join", body)[1]

    def cancel(self, match_id: str, creator_token: str) -> Doc:
        return self.request("POST", f"/v1/matches/{match_id}/cancel", None, creator_token)[1]

    def resign(self, match_id: str, token: str) -> Doc:
        return self.request("POST", f"/v1/matches/{match_id}/resign", None, token)[1]

    def return_to_seat(self, match_id: str, token: str) -> Doc:
        """Take your away seat back (a bot played it after your timeouts); a seat not away is 409
        ``not_away``, which a repeated call may ignore."""
        return self.request("POST", f"/v1/matches/{match_id}/return", None, token)[1]

    def rematch(self, match_id: str, token: str) -> Doc:
        """Your seat in the rematch (created by the first to ask) and its token, shown only here."""
        return self.request("POST", f"/v1/matches/{match_id}/rematch", None, token)[1]

    def decline_rematch(self, match_id: str, token: str) -> Doc:
        """Say no to the rematch of the finished match ``match_id`` (``token``: your seat's in it, not
        the rematch's): declines the offer, or withdraws it once you took your seat; the rematch, now
        ``aborted``, is the answer."""
        return self.request("POST", f"/v1/matches/{match_id}/rematch/decline", None, token)[1]

    def match(self, match_id: str, token: str | None = None) -> Doc:
        """The match as ``token``'s seat sees it (no token: a spectator)."""
        return self._get(f"/v1/matches/{match_id}", token)

    def legal_actions(self, match_id: str, token: str) -> Doc:
        return self._get(f"/v1/matches/{match_id}/legal-actions", token)

    def move(
        self, match_id: str, token: str, action: Doc, version: int, idempotency_key: str | None = None
    ) -> Doc:
        """Submit ``action`` based on ``version`` (sent as ``If-Match``)."""
        headers = {"If-Match": f'"{version}"'}
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        return self.request("POST", f"/v1/matches/{match_id}/actions", {"action": action}, token, headers)[1]

    def log(self, match_id: str, token: str | None = None) -> Doc:
        return self._get(f"/v1/matches/{match_id}/log", token)

    # -- events -------------------------------------------------------------------------------------

    def events(self, match_id: str, token: str | None = None, after: str = "0-0", wait: float = 0) -> Doc:
        """One page of events after ``after``; with ``wait``, long-polls until there is one."""
        query = urlencode({"after": after, **({"wait": wait} if wait else {})})
        return self._get(f"/v1/matches/{match_id}/events?{query}", token)

    def stream(self, match_id: str, token: str | None = None, after: str = "0-0") -> Iterator[Doc]:
        """The NDJSON event stream: a ``snapshot`` first, then events as they happen (heartbeats
        skipped); ends after ``match_over`` or when the server closes the stream."""
        query = urlencode({"after": after})
        resp = self._send(
            "GET",
            f"/v1/matches/{match_id}/events?{query}",
            None,
            self._headers(token, "application/x-ndjson"),
        )
        if resp.status != 200:
            raw = resp.read()
            raise ApiError(resp.status, json.loads(raw) if raw else None)
        try:
            while line := resp.readline():
                item = json.loads(line)
                if item.get("type") != "heartbeat":
                    yield item
        finally:
            resp.close()
            self._conn.close()  # a stream read to its end or abandoned cannot carry another request

    def wait_finished(self, match_id: str, timeout: float = 600.0, token: str | None = None) -> Doc:
        """Long-poll until the match is over; its document (as ``token``'s seat sees it)."""
        deadline = time.monotonic() + timeout
        after = "0-0"
        while time.monotonic() < deadline:
            page = self.events(match_id, token, after, wait=min(10.0, max(0.1, deadline - time.monotonic())))
            after = page["last_id"]
            if page["status"] == "finished":
                return self.match(match_id, token)
        raise TimeoutError(f"match {match_id} did not finish within {timeout:.0f} s")

    # -- hints --------------------------------------------------------------------------------------

    def request_hint(
        self, match_id: str, token: str, level: str | None = None, think_ms: int | None = None
    ) -> Doc:
        """Ask a bot for a move for ``token``'s pending decision; the job to poll with :meth:`job`."""
        body = {k: v for k, v in (("level", level), ("think_ms", think_ms)) if v is not None}
        return self.request("POST", f"/v1/matches/{match_id}/hint", body, token)[1]

    def job(self, job_id: str, token: str) -> tuple[int, Doc]:
        """A hint job: ``(200, job with its action)`` when done, ``(202, job)`` while it runs."""
        return self.request("GET", f"/v1/jobs/{job_id}", token=token)

    def hint(
        self,
        match_id: str,
        token: str,
        level: str | None = None,
        think_ms: int | None = None,
        timeout: float = 120.0,
    ) -> Doc:
        """Ask for a hint and poll until the bot answers; the suggested action."""
        job = self.request_hint(match_id, token, level, think_ms)
        deadline = time.monotonic() + timeout
        while True:
            status, job = self.job(job["id"], token)
            if status == 200:
                return job["action"]
            if time.monotonic() > deadline:
                raise TimeoutError(f"hint {job['id']} not ready within {timeout:.0f} s")
            time.sleep(0.05)
