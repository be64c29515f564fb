"""A small Python client of the Tabletop HTTP API (standard library only).

    from tabletop_client import Client
    api = Client("http://127.0.0.1:8000")
    match = api.create_match("china", [{"name": "ann"}, {"name": "bot", "kind": "bot", "level": "hard"}])
    token = match["tokens"][0]["token"]
    api.move(match["id"], token, api.legal_actions(match["id"], token)["actions"][0], match["version"])

Every method returns the decoded JSON body; a non-2xx answer raises :class:`ApiError` with the API's
error document.  One client holds one keep-alive connection and is not thread-safe: use one per thread.

A match call's ``token`` is a seat token or a **player token** (``tp.…``, which acts for its player's
seat in every match).  An integration's server holds its **app key** (``ta.…``) and names its players,
mints their tokens and creates matches seating them; its players' clients hold their tokens, list their
matches and read one feed instead of one event stream per match:

    app = AppClient("http://127.0.0.1:8000", app_key)
    app.put_player("ann", "Ann"); app.put_player("bob", "Bob")
    match = app.create_match("china", [{"player": "ann"}, {"player": "bob"}, {"name": "b", "kind": "bot"}])
    ann = PlayerClient("http://127.0.0.1:8000", app.mint_token("ann")["token"])
    for entry in ann.feed(wait=25)["events"]:          # your_turn, match_started, match_over...
        ...
    ann.move(match["id"], ann.legal_actions(match["id"])["actions"][0], match["version"])

The same calls with the credential as an argument are on :class:`Client` (``put_player(key, ...)``,
``my_matches(token)``...), with the operator's admin calls (``create_app(admin_token, name)``).
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Iterator
from typing import Any, Literal
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
        self.base_url = base_url.rstrip("/")
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
        self,
        game: str,
        seats: list[Doc],
        options: Doc | None = None,
        seed: int | None = None,
        token: str | None = None,
        **more: Any,
    ) -> Doc:
        """Create a match; the answer holds each anonymous human seat's token (``tokens``), the creator
        token and a private match's invite codes, shown only here.  ``more``: ``visibility``,
        ``on_leave``, ``time_control``.

        With an app key as ``token`` a seat may name one of the app's players (``{"player": "ann"}``,
        or ``{"kind": "open", "player": "ann"}`` to keep it for ann to join): that seat gets no token,
        its player's tokens act for it.  With a player token a seat may name that player only.  Matches
        created with credentials are private unless ``visibility="public"``."""
        body: Doc = {"game": game, "seats": seats, "options": options or {}, **more}
        if seed is not None:
            body["seed"] = seed
        return self.request("POST", "/v1/matches", body, token)[1]

    def join(
        self,
        match_id: str,
        name: str | None = None,
        seat: int | str = "any",
        invite: str | None = None,
        token: str | None = None,
    ) -> Doc:
        """Take an open seat; the answer holds its token (``token``), shown only here.  With a player
        token (``token``) the seat becomes the player's: no ``name`` needed (its display name is shown)
        and no seat token (``token`` is null)."""
        body: Doc = {"seat": seat}
        if name is not None:
            body["name"] = name
        if invite:
            body["invite"] = invite
        return self.request("POST", f"/v1/matches/{match_id}/join", body, token)[1]

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
        skipped); ends after ``match_over`` or when the server closes the stream.  An error status
        (401, 404, 429...) raises :class:`ApiError` at once, before the first item is asked for."""
        return self._ndjson(f"/v1/matches/{match_id}/events?{urlencode({'after': after})}", token)

    def _ndjson(self, path: str, token: str | None) -> Iterator[Doc]:
        """The documents of an NDJSON stream, heartbeats skipped."""
        resp = self._send("GET", path, None, self._headers(token, "application/x-ndjson"))
        if resp.status != 200:
            raw = resp.read()
            self._conn.close()  # an error before the stream: the connection may be half-read
            raise ApiError(resp.status, json.loads(raw) if raw else None)
        return self._lines(resp)

    def _lines(self, resp: http.client.HTTPResponse) -> Iterator[Doc]:
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

    # -- apps: the operator's admin API (TABLETOP_ADMIN_TOKEN) ----------------------------------------

    def create_app(self, admin_token: str, name: str, rate: str | None = None) -> Doc:
        """Register an integration; the answer's ``key`` (``ta.…``) is shown only here.  ``rate``: the
        app's own rate limit (e.g. ``"600/minute;20/second"``) in place of the server's."""
        body: Doc = {"name": name, **({"limits": {"rate": rate}} if rate is not None else {})}
        return self.request("POST", "/v1/admin/apps", body, admin_token)[1]

    def apps(self, admin_token: str) -> list[Doc]:
        """Every app, active and revoked (never a key)."""
        return self._get("/v1/admin/apps", admin_token)["apps"]

    def rotate_app_key(self, admin_token: str, app_id: str) -> Doc:
        """A new key (``key``, shown only here); the old one stops working at once."""
        return self.request("POST", f"/v1/admin/apps/{app_id}/rotate", None, admin_token)[1]

    def revoke_app(self, admin_token: str, app_id: str) -> Doc:
        """The app's key and all its players' tokens stop working for good (its matches stay)."""
        return self.request("DELETE", f"/v1/admin/apps/{app_id}", None, admin_token)[1]

    # -- players and their tokens: an app's (app key) -------------------------------------------------

    def put_player(self, key: str, player_id: str, name: str, bot: bool = False) -> Doc:
        """Create or update the app's player ``player_id`` (the app's own id: letters, digits, ``_.@-``,
        up to 64); idempotent.  ``name`` is what its seats show."""
        return self.request("PUT", f"/v1/players/{player_id}", {"name": name, "bot": bot}, key)[1]

    def player(self, key: str, player_id: str) -> Doc:
        return self._get(f"/v1/players/{player_id}", key)

    def players(self, key: str, after: str | None = None, limit: int | None = None) -> Doc:
        """One page of the app's players by id: ``players`` and ``next_cursor`` (the next ``after``)."""
        query = urlencode({k: v for k, v in (("after", after), ("limit", limit)) if v is not None})
        return self._get(f"/v1/players?{query}", key)

    def mint_token(
        self, key: str, player_id: str, scopes: list[str] | None = None, expires_in: int | None = None
    ) -> Doc:
        """A player token for the player's client: ``token`` (shown only here), its ``id`` (to revoke
        it), ``scopes`` (``read``, ``play``; default both) and ``expires_at`` (default 30 days on)."""
        body: Doc = {}
        if scopes is not None:
            body["scopes"] = scopes
        if expires_in is not None:
            body["expires_in"] = expires_in
        return self.request("POST", f"/v1/players/{player_id}/tokens", body, key)[1]

    def player_tokens(self, key: str, player_id: str) -> list[Doc]:
        """The player's live tokens: ids, scopes and expiry (never a token)."""
        return self._get(f"/v1/players/{player_id}/tokens", key)["tokens"]

    def revoke_token(self, key: str, player_id: str, token_id: str) -> None:
        """That token stops working at once."""
        self.request("DELETE", f"/v1/players/{player_id}/tokens/{token_id}", None, key)

    def revoke_tokens(self, key: str, player_id: str) -> int:
        """Every token of the player stops working; how many did."""
        return int(self.request("DELETE", f"/v1/players/{player_id}/tokens", None, key)[1]["revoked"])

    # -- me: a player's own (player token, or app key naming a player) ----------------------------------

    @staticmethod
    def _me_query(player: str | None, **more: Any) -> str:
        query = {k: v for k, v in {"player": player, **more}.items() if v is not None}
        query = {k: ("true" if v is True else "false" if v is False else v) for k, v in query.items()}
        return f"?{urlencode(query)}" if query else ""

    def me(self, token: str, player: str | None = None) -> Doc:
        """The player ``token`` speaks for (an app key names it with ``player``)."""
        return self._get(f"/v1/me{self._me_query(player)}", token)

    def my_matches(
        self,
        token: str,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        player: str | None = None,
    ) -> Doc:
        """One page of the player's matches, newest first: ``matches`` (each with its ``seat``,
        ``to_move``, ``my_turn``, ``deadline``, ``version`` and ``result`` once over) and
        ``next_cursor`` (the next ``cursor``; a filtered page may be short and still have one)."""
        query = self._me_query(player, status=status, my_turn=my_turn, cursor=cursor, limit=limit)
        return self._get(f"/v1/me/matches{query}", token)

    def feed(self, token: str, after: str = "0-0", wait: float = 0, player: str | None = None) -> Doc:
        """One page of the player's feed after ``after`` (``events``, ``last_id`` for the next call);
        with ``wait``, long-polls until an entry comes.  Entries: ``your_turn``, ``match_started``,
        ``seat_joined``, ``match_over``, ``timeout``, ``clock_warning``, ``invited``, each saying where
        its match stands (``version``, ``to_move``, ``my_turn``, ``deadline``)."""
        query = self._me_query(player, after=after, wait=wait or None)
        return self._get(f"/v1/me/events{query}", token)

    def feed_stream(self, token: str, after: str = "0-0", player: str | None = None) -> Iterator[Doc]:
        """The player's feed as an NDJSON stream: entries as they come (heartbeats skipped), until the
        server closes it (``TABLETOP_STREAM_MAX_SECONDS``): then call again with the last entry's id."""
        return self._ndjson(f"/v1/me/events{self._me_query(player, after=after)}", token)


class PlayerClient:
    """A player's client, holding its player token: every match call acts for the player's seat in
    that match (no seat token to keep), plus its matches and its feed.

    ``wait_turns`` is the loop a player's client runs: one feed connection for all its matches."""

    def __init__(self, base_url: str, token: str, timeout: float = 60.0) -> None:
        self.api = Client(base_url, timeout)
        self.token = token

    def close(self) -> None:
        self.api.close()

    def me(self) -> Doc:
        return self.api.me(self.token)

    def my_matches(
        self,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """See :meth:`Client.my_matches`."""
        return self.api.my_matches(self.token, status, my_turn, cursor, limit)

    def feed(self, after: str = "0-0", wait: float = 0) -> Doc:
        """See :meth:`Client.feed`."""
        return self.api.feed(self.token, after, wait)

    def feed_stream(self, after: str = "0-0") -> Iterator[Doc]:
        """See :meth:`Client.feed_stream`."""
        return self.api.feed_stream(self.token, after)

    def wait_turns(self, after: str = "0-0", wait: float = 25.0) -> Iterator[Doc]:
        """Long-poll the feed for ever, yielding each ``your_turn`` entry (a decision of yours is
        pending in its ``match_id`` at its ``version``); the caller stops when it has had enough."""
        while True:
            page = self.feed(after, wait)
            after = page["last_id"]
            yield from (entry for entry in page["events"] if entry["type"] == "your_turn")

    # -- the match calls of :class:`Client`, with the player token --------------------------------------

    def create_match(
        self, game: str, seats: list[Doc], options: Doc | None = None, seed: int | None = None, **more: Any
    ) -> Doc:
        """A match created by the player (scope ``play``); a seat ``{"player": <its own id>}`` is its."""
        return self.api.create_match(game, seats, options, seed, self.token, **more)

    def join(self, match_id: str, seat: int | Literal["any"] = "any", invite: str | None = None) -> Doc:
        """Take an open seat (one kept for the player, or any open one): it is the player's."""
        return self.api.join(match_id, None, seat, invite, self.token)

    def match(self, match_id: str) -> Doc:
        return self.api.match(match_id, self.token)

    def legal_actions(self, match_id: str) -> Doc:
        return self.api.legal_actions(match_id, self.token)

    def move(self, match_id: str, action: Doc, version: int, idempotency_key: str | None = None) -> Doc:
        return self.api.move(match_id, self.token, action, version, idempotency_key)

    def log(self, match_id: str) -> Doc:
        return self.api.log(match_id, self.token)

    def events(self, match_id: str, after: str = "0-0", wait: float = 0) -> Doc:
        return self.api.events(match_id, self.token, after, wait)

    def stream(self, match_id: str, after: str = "0-0") -> Iterator[Doc]:
        return self.api.stream(match_id, self.token, after)

    def wait_finished(self, match_id: str, timeout: float = 600.0) -> Doc:
        return self.api.wait_finished(match_id, timeout, self.token)

    def resign(self, match_id: str) -> Doc:
        return self.api.resign(match_id, self.token)

    def return_to_seat(self, match_id: str) -> Doc:
        return self.api.return_to_seat(match_id, self.token)

    def rematch(self, match_id: str) -> Doc:
        return self.api.rematch(match_id, self.token)

    def decline_rematch(self, match_id: str) -> Doc:
        return self.api.decline_rematch(match_id, self.token)

    def hint(self, match_id: str, level: str | None = None, think_ms: int | None = None) -> Doc:
        return self.api.hint(match_id, self.token, level, think_ms)


class AppClient:
    """An integration's server-side client, holding its app key: it names the app's players, mints and
    revokes their tokens, creates matches seating them, and reads any of its players' matches and feed
    (``player=``).  Keep the key on a server; hand each player's client only its player token."""

    def __init__(self, base_url: str, key: str, timeout: float = 60.0) -> None:
        self.api = Client(base_url, timeout)
        self.key = key

    def close(self) -> None:
        self.api.close()

    def put_player(self, player_id: str, name: str, bot: bool = False) -> Doc:
        return self.api.put_player(self.key, player_id, name, bot)

    def player(self, player_id: str) -> Doc:
        return self.api.player(self.key, player_id)

    def players(self, after: str | None = None, limit: int | None = None) -> Doc:
        return self.api.players(self.key, after, limit)

    def mint_token(
        self, player_id: str, scopes: list[str] | None = None, expires_in: int | None = None
    ) -> Doc:
        return self.api.mint_token(self.key, player_id, scopes, expires_in)

    def tokens(self, player_id: str) -> list[Doc]:
        return self.api.player_tokens(self.key, player_id)

    def revoke_token(self, player_id: str, token_id: str) -> None:
        self.api.revoke_token(self.key, player_id, token_id)

    def revoke_tokens(self, player_id: str) -> int:
        return self.api.revoke_tokens(self.key, player_id)

    def create_match(
        self, game: str, seats: list[Doc], options: Doc | None = None, seed: int | None = None, **more: Any
    ) -> Doc:
        """See :meth:`Client.create_match`: seats may name the app's players (``{"player": "ann"}``)."""
        return self.api.create_match(game, seats, options, seed, self.key, **more)

    def match(self, match_id: str) -> Doc:
        """One of the app's matches (a private one too), as a spectator sees it."""
        return self.api.match(match_id, self.key)

    def my_matches(
        self,
        player: str,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """``player``'s matches (see :meth:`Client.my_matches`)."""
        return self.api.my_matches(self.key, status, my_turn, cursor, limit, player)

    def feed(self, player: str, after: str = "0-0", wait: float = 0) -> Doc:
        """``player``'s feed (see :meth:`Client.feed`)."""
        return self.api.feed(self.key, after, wait, player)
