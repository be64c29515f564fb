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

Players find opponents among their app's players and know where they stand:

    seek = ann.find_match("china", 3, rated=True, bots={"allow": True, "after_seconds": 60})
    ann.wait_finished(seek["match_id"])                 # ... having played it (see wait_turns)
    ann.ratings()                                       # per game: mu, sigma, ordinal, rank, history
    ann.leaderboard("china")["players"]                 # best ordinal (mu - 3 sigma) first
    challenge = ann.create_challenge("china", ["bob", "cy"], rated=True)  # they accept_challenge(id)
    ann.wait_challenge(challenge["id"])["match_id"]
    list(app.results("ann", "china"))                   # every finished match, with its result

Apps run tournaments (round robin or Swiss) of their players and the built-in bots:

    cup = app.create_tournament("taj_mahal", 3, [{"player": "ann"}, {"level": "easy"}, {"level": "hard"}])
    done = app.wait_tournament(cup["id"], progress=lambda doc: print(doc["progress"]))
    done["standings"]                                   # rank, points, wins, buchholz, seats...
    app.tournament_results(cup["id"], "csv")            # one row per seat of every match
"""

from __future__ import annotations

import http.client
import json
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal, overload
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
        """Call off a waiting match: ``creator_token`` is an anonymous creation's ``creator_token``, or
        the app key or player token that created the match (they get no creator token)."""
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
        (401, 404, 429...) raises :class:`ApiError` at once, before the first item is asked for; the
        token revoked or expired while it streams raises 401 ``credential_revoked`` then."""
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
        game: str | None = None,
    ) -> Doc:
        """One page of the player's matches, newest first: ``matches`` (each with its ``seat``,
        ``to_move``, ``my_turn``, ``deadline``, ``version``, ``rated`` and ``result`` once over) and
        ``next_cursor`` (the next ``cursor``; a filtered page may be short and still have one).
        Filter by ``game``, ``status`` and ``my_turn``."""
        query = self._me_query(player, game=game, status=status, my_turn=my_turn, cursor=cursor, limit=limit)
        return self._get(f"/v1/me/matches{query}", token)

    def results(
        self, token: str, game: str | None = None, player: str | None = None, page: int = 100
    ) -> Iterator[Doc]:
        """Every finished match of the player (of ``game``, or of every game), newest first, each
        with its ``result`` (and ``rated``): a results export, following ``next_cursor`` page by page
        (``page`` matches a request)."""
        cursor: str | None = None
        while True:
            found = self.my_matches(token, "finished", None, cursor, page, player, game)
            yield from found["matches"]
            cursor = found["next_cursor"]
            if cursor is None:
                return

    def feed(self, token: str, after: str = "0-0", wait: float = 0, player: str | None = None) -> Doc:
        """One page of the player's feed after ``after`` (``events``, ``last_id`` for the next call);
        with ``wait``, long-polls until an entry comes.  Entries: ``your_turn``, ``match_started``,
        ``seat_joined``, ``match_over``, ``timeout``, ``clock_warning``, ``invited``, each saying where
        its match stands (``version``, ``to_move``, ``my_turn``, ``deadline``)."""
        query = self._me_query(player, after=after, wait=wait or None)
        return self._get(f"/v1/me/events{query}", token)

    def feed_stream(self, token: str, after: str = "0-0", player: str | None = None) -> Iterator[Doc]:
        """The player's feed as an NDJSON stream: entries as they come (heartbeats skipped), until the
        server closes it (``TABLETOP_STREAM_MAX_SECONDS``): then call again with the last entry's id.
        The credential revoked or expired meanwhile raises :class:`ApiError` 401 ``credential_revoked``."""
        return self._ndjson(f"/v1/me/events{self._me_query(player, after=after)}", token)

    # -- matchmaking: seeks and challenges (a player token with ``play``, or the app key naming ``player``)

    def create_seek(
        self,
        token: str,
        game: str,
        players: int,
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        rating_range: Doc | None = None,
        bots: Doc | None = None,
        expires_in: int | None = None,
        player: str | None = None,
    ) -> Doc:
        """Look for a ``players``-seat match of ``game`` with the app's other players: the seek,
        ``matched`` (with ``match_id``) if it completed a group at once, else ``open`` (wait for it
        with :meth:`wait_seek`).  Seeks pair when their ``options``, ``rated`` and ``time_control``
        agree and each player's rating is within the others' ``rating_range`` (``{"min", "max"}``,
        ordinals); ``bots`` (``{"allow": True, "after_seconds": 30, "level": "easy"}``) lets bots fill
        the seats nobody took by then: built-in bots of that level, and the app's bot players too only
        with ``"players": True`` (its default when no ``level`` is given).  A person has one open seek
        at a time (409 ``seek_open``); ``expires_in`` defaults to the server's
        ``TABLETOP_SEEK_SECONDS``."""
        body: Doc = {"game": game, "players": players, "options": options or {}, "rated": rated}
        more = {
            "time_control": time_control,
            "rating_range": rating_range,
            "bots": bots,
            "expires_in": expires_in,
            "player": player,
        }
        body.update({k: v for k, v in more.items() if v is not None})
        return self.request("POST", "/v1/seeks", body, token)[1]

    def seeks(
        self,
        token: str,
        game: str,
        players: int | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """One page of the app's open seeks of ``game`` (of one player count, or all), oldest first:
        ``seeks`` (each one's player id, name and rating, its terms) and ``next_cursor``."""
        query = {"game": game, "players": players, "cursor": cursor, "limit": limit}
        return self._get(f"/v1/seeks?{urlencode({k: v for k, v in query.items() if v is not None})}", token)

    def seek(self, token: str, seek_id: str) -> Doc:
        """A seek of the app: its ``status`` (``open``, ``pairing``, ``matched``, ``expired``,
        ``cancelled``) and ``match_id`` once matched."""
        return self._get(f"/v1/seeks/{seek_id}", token)

    def cancel_seek(self, token: str, seek_id: str) -> Doc:
        """Withdraw an open seek (its player, or the app key): ``cancelled``; one matched meanwhile is
        409 ``seek_closed``."""
        return self.request("DELETE", f"/v1/seeks/{seek_id}", None, token)[1]

    def wait_seek(
        self,
        token: str,
        seek_id: str,
        timeout: float = 600.0,
        after: str = "0-0",
        player: str | None = None,
    ) -> Doc:
        """Wait until the seek is no longer open: the seek, ``matched`` (its ``match_id``),
        ``expired`` or ``cancelled``.  It long-polls the player's feed (from ``after``, your feed
        cursor if you hold one), which ``seek_matched`` or ``seek_expired`` wakes, so waiting costs
        one request per feed entry, not a poll loop."""
        return self._wait_closed(token, lambda: self.seek(token, seek_id), timeout, after, player)

    def create_challenge(
        self,
        token: str,
        game: str,
        players: list[str],
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        order: str | None = None,
        expires_in: int | None = None,
        player: str | None = None,
    ) -> Doc:
        """Challenge the app's ``players`` (their ids; the challenger is seated too) to a match of
        ``game``: each gets ``challenge_received`` on its feed and answers with
        :meth:`accept_challenge` or :meth:`decline_challenge`; the last accept makes the match (the
        challenge's ``match_id``).  ``order``: ``random`` (default) or ``given`` (the challenger first,
        then ``players`` as listed); ``expires_in`` defaults to ``TABLETOP_CHALLENGE_SECONDS``."""
        body: Doc = {"game": game, "players": players, "options": options or {}, "rated": rated}
        more = {"time_control": time_control, "order": order, "expires_in": expires_in, "player": player}
        body.update({k: v for k, v in more.items() if v is not None})
        return self.request("POST", "/v1/challenges", body, token)[1]

    def challenges(
        self, token: str, status: str | None = None, limit: int | None = None, player: str | None = None
    ) -> list[Doc]:
        """The player's challenges, sent and received, newest first (filtered by ``status``)."""
        query = self._me_query(player, status=status, limit=limit)
        return self._get(f"/v1/challenges{query}", token)["challenges"]

    def challenge(self, token: str, challenge_id: str) -> Doc:
        """A challenge: its ``status`` (``open``, ``accepted``, ``declined``, ``cancelled``,
        ``expired``), each challenged player's ``answer`` and the ``match_id`` once accepted."""
        return self._get(f"/v1/challenges/{challenge_id}", token)

    def accept_challenge(self, token: str, challenge_id: str, player: str | None = None) -> Doc:
        """Accept (idempotent); the last accept makes the match: ``accepted`` with its ``match_id``."""
        path = f"/v1/challenges/{challenge_id}/accept{self._me_query(player)}"
        return self.request("POST", path, None, token)[1]

    def decline_challenge(self, token: str, challenge_id: str, player: str | None = None) -> Doc:
        """Decline (idempotent): the challenge is ``declined`` for everyone."""
        path = f"/v1/challenges/{challenge_id}/decline{self._me_query(player)}"
        return self.request("POST", path, None, token)[1]

    def cancel_challenge(self, token: str, challenge_id: str) -> Doc:
        """Withdraw an open challenge (its challenger, or the app key): ``cancelled``."""
        return self.request("DELETE", f"/v1/challenges/{challenge_id}", None, token)[1]

    def wait_challenge(
        self,
        token: str,
        challenge_id: str,
        timeout: float = 600.0,
        after: str = "0-0",
        player: str | None = None,
    ) -> Doc:
        """Wait until the challenge is answered by all, declined, cancelled or expired: the challenge
        (``accepted`` with its ``match_id``...).  Long-polls the player's feed, as :meth:`wait_seek`."""
        return self._wait_closed(token, lambda: self.challenge(token, challenge_id), timeout, after, player)

    def _wait_closed(
        self, token: str, read: Callable[[], Doc], timeout: float, after: str, player: str | None
    ) -> Doc:
        """Read a seek or a challenge until its status is settled, long-polling the feed in between:
        the feed wakes on the entry that tells of its end (or any other), and the read after it says
        whether it came.  ``pairing`` (a seek's group taken, its match being made: a moment) is read
        again soon rather than after a wake."""
        deadline = time.monotonic() + timeout
        while True:
            doc = read()
            if doc["status"] not in ("open", "pairing"):
                return doc
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{doc['id']} still {doc['status']} after {timeout:.0f} s")
            wait = min(0.2 if doc["status"] == "pairing" else 25.0, left)
            after = self.feed(token, after, wait, player)["last_id"]

    # -- tournaments (issue 31): the app key, or a player token with ``play`` --------------------------

    def create_tournament(
        self,
        token: str,
        game: str,
        players: int,
        entrants: list[Doc],
        format: str = "round_robin",
        **more: Any,
    ) -> Doc:
        """Run a tournament in the caller's app: ``entrants`` are ``{"player": "ann"}`` (the app's
        player, who plays its matches with its own token) or ``{"level": "easy"}`` (a built-in bot,
        optionally with a ``name`` and a ``think_ms``, its budget per decision in every match: default
        the level's); ``format`` ``round_robin`` or ``swiss`` (which needs ``rounds``).
        ``more``: ``name``, ``options``, ``rounds``, ``matches_per_pairing``, ``time_control``,
        ``rated``, ``starts_at`` (epoch seconds), ``parallel``, ``idempotency_key`` (a retry with the
        same key gets the same tournament, not a second one).  The answer is the tournament's summary
        (``status`` ``scheduled`` or ``running``; no ``matches``: the workers make them as they start);
        follow it with :meth:`wait_tournament`."""
        key = more.pop("idempotency_key", None)
        body: Doc = {"game": game, "players": players, "entrants": entrants, "format": format}
        body.update({k: v for k, v in more.items() if v is not None})
        headers = {"Idempotency-Key": str(key)} if key is not None else None
        return self.request("POST", "/v1/tournaments", body, token, headers)[1]

    def tournament(self, token: str, tournament_id: str) -> Doc:
        """A tournament: ``status``, ``progress`` (``done`` of ``total`` matches, ``round`` of
        ``rounds``), ``standings`` (best first: ``points``, ``wins``, ``buchholz``...) and ``matches``."""
        return self._get(f"/v1/tournaments/{tournament_id}", token)

    def tournaments(
        self, token: str, status: str | None = None, after: str | None = None, limit: int | None = None
    ) -> Doc:
        """One page of the app's tournaments, newest first, without their matches: ``tournaments`` and
        ``next`` (the next page's ``after``)."""
        query = urlencode({k: v for k, v in (("status", status), ("after", after), ("limit", limit)) if v})
        return self._get(f"/v1/tournaments{'?' + query if query else ''}", token)

    @overload
    def tournament_results(self, token: str, tournament_id: str, format: Literal["json"] = "json") -> Doc: ...

    @overload
    def tournament_results(self, token: str, tournament_id: str, format: Literal["csv"]) -> str: ...

    def tournament_results(self, token: str, tournament_id: str, format: str = "json") -> Doc | str:
        """Every finished or aborted match's seats in one read: as JSON (``results``, one row per
        seat, and ``standings``), or with ``format="csv"`` the text of a CSV file (a header line, then
        ``round,match_id,status,seat,entrant,name,place,points,score`` per seat)."""
        path = f"/v1/tournaments/{tournament_id}/results?{urlencode({'format': format})}"
        if format != "csv":
            return self._get(path, token)
        resp = self._send("GET", path, None, self._headers(token, "text/csv"))
        raw = resp.read()
        if resp.status != 200:
            raise ApiError(resp.status, json.loads(raw) if raw else None)
        return raw.decode("utf-8")

    def cancel_tournament(self, token: str, tournament_id: str) -> Doc:
        """Stop it (the app key, or the player who created it): ``cancelled``; its unfinished matches are
        aborted.  One over already is 409 ``tournament_over``."""
        return self.request("POST", f"/v1/tournaments/{tournament_id}/cancel", None, token)[1]

    def wait_tournament(
        self,
        token: str,
        tournament_id: str,
        timeout: float = 24 * 3600.0,
        progress: Callable[[Doc], None] | None = None,
        interval: float = 1.0,
    ) -> Doc:
        """Read the tournament every ``interval`` seconds until it is ``finished`` or ``cancelled``, and
        return it; ``progress`` is called with each document read whose ``progress`` changed (the first
        one too), for a progress bar.  :class:`TimeoutError` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        seen: Any = None
        while True:
            doc = self.tournament(token, tournament_id)
            if progress is not None and (doc["progress"], doc["status"]) != seen:
                seen = (doc["progress"], doc["status"])
                progress(doc)
            if doc["status"] in ("finished", "cancelled"):
                return doc
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"tournament {tournament_id} still {doc['status']} after {timeout:.0f} s")
            time.sleep(min(interval, left))

    # -- ratings and leaderboards (an app key, or any of its players' tokens) -------------------------

    def leaderboard(
        self,
        token: str,
        game: str,
        pool: str | None = None,
        cursor: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """One page of the app's leaderboard of ``game``, best first by ``ordinal`` (``mu - 3
        sigma``): ``players`` (each one's ``rank``, ``player`` id or ``builtin:<level>``, ``name``,
        ``mu``, ``sigma``, ``ordinal``, ``matches``, ``last_played_at``) and ``next_cursor``.
        ``pool``: ``people`` (default) or ``bots`` (the app's bot players and the built-in levels)."""
        query = urlencode({k: v for k, v in (("pool", pool), ("cursor", cursor), ("limit", limit)) if v})
        return self._get(f"/v1/games/{game}/leaderboard{'?' + query if query else ''}", token)

    def player_ratings(self, token: str, player_id: str) -> Doc:
        """The player's (or ``builtin:<level>``'s) ratings per game: ``mu``, ``sigma``, ``ordinal``,
        ``matches``, ``rank`` on its pool's board and its recent rated matches (``history``: the
        match, its place, the ordinal before and after)."""
        return self._get(f"/v1/players/{player_id}/ratings", token)

    # -- webhooks: an app's endpoints and their delivery log (app key) ---------------------------------

    def create_webhook(
        self, key: str, url: str, types: list[str] | None = None, description: str | None = None
    ) -> Doc:
        """Register an endpoint for the app's players' feed entries of ``types`` (every type if none);
        the answer's ``secret`` (``whsec_…``, for ``standardwebhooks.Webhook``) is shown only here."""
        body: Doc = {"url": url}
        if types is not None:
            body["types"] = types
        if description is not None:
            body["description"] = description
        return self.request("POST", "/v1/apps/me/webhooks", body, key)[1]

    def webhooks(self, key: str) -> list[Doc]:
        """The app's endpoints (never a secret)."""
        return self._get("/v1/apps/me/webhooks", key)["webhooks"]

    def webhook(self, key: str, endpoint_id: str) -> Doc:
        return self._get(f"/v1/apps/me/webhooks/{endpoint_id}", key)

    def update_webhook(self, key: str, endpoint_id: str, **changes: Any) -> Doc:
        """Change ``url``, ``types``, ``description`` or ``enabled`` (``False`` pauses deliveries,
        ``True`` resumes them, also after the server disabled the endpoint)."""
        return self.request("PATCH", f"/v1/apps/me/webhooks/{endpoint_id}", changes, key)[1]

    def delete_webhook(self, key: str, endpoint_id: str) -> None:
        """The endpoint is gone; its queued messages are dropped."""
        self.request("DELETE", f"/v1/apps/me/webhooks/{endpoint_id}", None, key)

    def rotate_webhook_secret(self, key: str, endpoint_id: str) -> Doc:
        """A new ``secret`` (shown only here); the old one signs too until ``previous_secret_expires_at``."""
        return self.request("POST", f"/v1/apps/me/webhooks/{endpoint_id}/rotate", None, key)[1]

    def ping_webhook(self, key: str, endpoint_id: str) -> Doc:
        """Queue a ``ping`` message to the endpoint; its delivery-log entry (follow it by its ``id``)."""
        return self.request("POST", f"/v1/apps/me/webhooks/{endpoint_id}/ping", None, key)[1]

    def webhook_deliveries(
        self,
        key: str,
        endpoint_id: str,
        status: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """One page of the endpoint's delivery log, newest first: ``deliveries`` (each message's
        ``status``, ``attempts``, ``response_status``, ``latency_ms``, ``error``, ``payload``) and
        ``next_cursor`` (the next ``before``)."""
        query = urlencode({k: v for k, v in (("status", status), ("before", before), ("limit", limit)) if v})
        return self._get(f"/v1/apps/me/webhooks/{endpoint_id}/deliveries{'?' + query if query else ''}", key)

    def webhook_delivery(self, key: str, endpoint_id: str, message_id: str) -> Doc:
        return self._get(f"/v1/apps/me/webhooks/{endpoint_id}/deliveries/{message_id}", key)

    def redeliver_webhook(self, key: str, endpoint_id: str, message_id: str) -> Doc:
        """Send a past message again, with the same ``webhook-id``; its delivery-log entry."""
        path = f"/v1/apps/me/webhooks/{endpoint_id}/deliveries/{message_id}/redeliver"
        return self.request("POST", path, None, key)[1]


class _TournamentCalls:
    """The tournament calls of :class:`Client` with a credential of one's own (an app key, a player
    token): see :meth:`Client.create_tournament` and the calls after it."""

    api: Client
    credential: str

    def create_tournament(
        self, game: str, players: int, entrants: list[Doc], format: str = "round_robin", **more: Any
    ) -> Doc:
        return self.api.create_tournament(self.credential, game, players, entrants, format, **more)

    def tournament(self, tournament_id: str) -> Doc:
        return self.api.tournament(self.credential, tournament_id)

    def tournaments(
        self, status: str | None = None, after: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.tournaments(self.credential, status, after, limit)

    @overload
    def tournament_results(self, tournament_id: str, format: Literal["json"] = "json") -> Doc: ...

    @overload
    def tournament_results(self, tournament_id: str, format: Literal["csv"]) -> str: ...

    def tournament_results(self, tournament_id: str, format: Literal["json", "csv"] = "json") -> Doc | str:
        return self.api.tournament_results(self.credential, tournament_id, format)

    def cancel_tournament(self, tournament_id: str) -> Doc:
        return self.api.cancel_tournament(self.credential, tournament_id)

    def wait_tournament(
        self,
        tournament_id: str,
        timeout: float = 24 * 3600.0,
        progress: Callable[[Doc], None] | None = None,
        interval: float = 1.0,
    ) -> Doc:
        return self.api.wait_tournament(self.credential, tournament_id, timeout, progress, interval)


class PlayerClient(_TournamentCalls):
    """A player's client, holding its player token: every match call acts for the player's seat in
    that match (no seat token to keep), plus its matches and its feed.

    ``wait_turns`` is the loop a player's client runs: one feed connection for all its matches."""

    def __init__(self, base_url: str, token: str, timeout: float = 60.0) -> None:
        self.api = Client(base_url, timeout)
        self.token = self.credential = token

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
        game: str | None = None,
    ) -> Doc:
        """See :meth:`Client.my_matches`."""
        return self.api.my_matches(self.token, status, my_turn, cursor, limit, game=game)

    def results(self, game: str | None = None) -> Iterator[Doc]:
        """Every finished match of the player's (of ``game``), with its result: see :meth:`Client.results`."""
        return self.api.results(self.token, game)

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

    # -- matchmaking and ratings: the calls of :class:`Client`, with the player token --------------------

    def create_seek(
        self,
        game: str,
        players: int,
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        rating_range: Doc | None = None,
        bots: Doc | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """Look for a match (scope ``play``): see :meth:`Client.create_seek`; then :meth:`wait_seek`."""
        return self.api.create_seek(
            self.token, game, players, options, rated, time_control, rating_range, bots, expires_in
        )

    def seeks(
        self, game: str, players: int | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.seeks(self.token, game, players, cursor, limit)

    def seek(self, seek_id: str) -> Doc:
        return self.api.seek(self.token, seek_id)

    def cancel_seek(self, seek_id: str) -> Doc:
        return self.api.cancel_seek(self.token, seek_id)

    def wait_seek(self, seek_id: str, timeout: float = 600.0, after: str = "0-0") -> Doc:
        """The seek once matched (``match_id``), expired or cancelled: see :meth:`Client.wait_seek`."""
        return self.api.wait_seek(self.token, seek_id, timeout, after)

    def find_match(self, game: str, players: int, timeout: float = 600.0, **terms: Any) -> Doc:
        """Post a seek (``terms``: see :meth:`create_seek`) and wait until it is paired: the seek,
        ``matched`` with its ``match_id``; a seek that expired or was cancelled meanwhile is answered
        as it ended (``status`` says which)."""
        seek = self.create_seek(game, players, **terms)
        return seek if seek["status"] == "matched" else self.wait_seek(seek["id"], timeout)

    def create_challenge(
        self,
        game: str,
        players: list[str],
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        order: str | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """Challenge the app's ``players`` (scope ``play``): see :meth:`Client.create_challenge`."""
        return self.api.create_challenge(
            self.token, game, players, options, rated, time_control, order, expires_in
        )

    def challenges(self, status: str | None = None, limit: int | None = None) -> list[Doc]:
        return self.api.challenges(self.token, status, limit)

    def challenge(self, challenge_id: str) -> Doc:
        return self.api.challenge(self.token, challenge_id)

    def accept_challenge(self, challenge_id: str) -> Doc:
        return self.api.accept_challenge(self.token, challenge_id)

    def decline_challenge(self, challenge_id: str) -> Doc:
        return self.api.decline_challenge(self.token, challenge_id)

    def cancel_challenge(self, challenge_id: str) -> Doc:
        return self.api.cancel_challenge(self.token, challenge_id)

    def wait_challenge(self, challenge_id: str, timeout: float = 600.0, after: str = "0-0") -> Doc:
        """The challenge once settled (``accepted``, with ``match_id``...): see
        :meth:`Client.wait_challenge`."""
        return self.api.wait_challenge(self.token, challenge_id, timeout, after)

    def leaderboard(
        self, game: str, pool: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Doc:
        """The app's leaderboard of ``game``: see :meth:`Client.leaderboard`."""
        return self.api.leaderboard(self.token, game, pool, cursor, limit)

    def ratings(self, player_id: str | None = None) -> Doc:
        """The ratings of ``player_id`` (of the app's, or ``builtin:<level>``), by default the
        player's own: see :meth:`Client.player_ratings`."""
        return self.api.player_ratings(self.token, player_id if player_id is not None else self.me()["id"])

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

    def cancel(self, match_id: str) -> Doc:
        """Call off a waiting match the player created (its token is the creator's credential)."""
        return self.api.cancel(match_id, self.token)

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


class AppClient(_TournamentCalls):
    """An integration's server-side client, holding its app key: it names the app's players, mints and
    revokes their tokens, creates matches seating them, and reads any of its players' matches and feed
    (``player=``).  Keep the key on a server; hand each player's client only its player token."""

    def __init__(self, base_url: str, key: str, timeout: float = 60.0) -> None:
        self.api = Client(base_url, timeout)
        self.key = self.credential = key

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

    def cancel(self, match_id: str) -> Doc:
        """Call off a waiting match of the app (the key is the creator's credential)."""
        return self.api.cancel(match_id, self.key)

    def my_matches(
        self,
        player: str,
        status: str | None = None,
        my_turn: bool | None = None,
        cursor: str | None = None,
        limit: int | None = None,
        game: str | None = None,
    ) -> Doc:
        """``player``'s matches (see :meth:`Client.my_matches`)."""
        return self.api.my_matches(self.key, status, my_turn, cursor, limit, player, game)

    def results(self, player: str, game: str | None = None) -> Iterator[Doc]:
        """Every finished match of ``player``'s (of ``game``), with its result: see
        :meth:`Client.results`."""
        return self.api.results(self.key, game, player)

    def feed(self, player: str, after: str = "0-0", wait: float = 0) -> Doc:
        """``player``'s feed (see :meth:`Client.feed`)."""
        return self.api.feed(self.key, after, wait, player)

    # -- matchmaking for a player, and the app's ratings: see :meth:`Client.create_seek` and after -----

    def create_seek(
        self,
        player: str,
        game: str,
        players: int,
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        rating_range: Doc | None = None,
        bots: Doc | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """A seek for ``player`` (a bot player's server posts its bots' seeks this way, several at
        once up to ``TABLETOP_BOT_MAX_MATCHES``)."""
        return self.api.create_seek(
            self.key, game, players, options, rated, time_control, rating_range, bots, expires_in, player
        )

    def seeks(
        self, game: str, players: int | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.seeks(self.key, game, players, cursor, limit)

    def seek(self, seek_id: str) -> Doc:
        return self.api.seek(self.key, seek_id)

    def cancel_seek(self, seek_id: str) -> Doc:
        return self.api.cancel_seek(self.key, seek_id)

    def wait_seek(self, player: str, seek_id: str, timeout: float = 600.0, after: str = "0-0") -> Doc:
        """Wait on ``player``'s feed until its seek is settled (see :meth:`Client.wait_seek`)."""
        return self.api.wait_seek(self.key, seek_id, timeout, after, player)

    def create_challenge(
        self,
        player: str,
        game: str,
        players: list[str],
        options: Doc | None = None,
        rated: bool = False,
        time_control: Doc | None = None,
        order: str | None = None,
        expires_in: int | None = None,
    ) -> Doc:
        """``player`` challenges ``players`` (see :meth:`Client.create_challenge`)."""
        return self.api.create_challenge(
            self.key, game, players, options, rated, time_control, order, expires_in, player
        )

    def challenges(self, player: str, status: str | None = None, limit: int | None = None) -> list[Doc]:
        return self.api.challenges(self.key, status, limit, player)

    def challenge(self, challenge_id: str) -> Doc:
        return self.api.challenge(self.key, challenge_id)

    def accept_challenge(self, challenge_id: str, player: str) -> Doc:
        return self.api.accept_challenge(self.key, challenge_id, player)

    def decline_challenge(self, challenge_id: str, player: str) -> Doc:
        return self.api.decline_challenge(self.key, challenge_id, player)

    def cancel_challenge(self, challenge_id: str) -> Doc:
        return self.api.cancel_challenge(self.key, challenge_id)

    def wait_challenge(
        self, player: str, challenge_id: str, timeout: float = 600.0, after: str = "0-0"
    ) -> Doc:
        return self.api.wait_challenge(self.key, challenge_id, timeout, after, player)

    def leaderboard(
        self, game: str, pool: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.leaderboard(self.key, game, pool, cursor, limit)

    def ratings(self, player_id: str) -> Doc:
        """``player_id``'s ratings (or ``builtin:<level>``'s): see :meth:`Client.player_ratings`."""
        return self.api.player_ratings(self.key, player_id)

    # -- webhooks: see :meth:`Client.create_webhook` and the calls after it ----------------------------

    def create_webhook(self, url: str, types: list[str] | None = None, description: str | None = None) -> Doc:
        return self.api.create_webhook(self.key, url, types, description)

    def webhooks(self) -> list[Doc]:
        return self.api.webhooks(self.key)

    def webhook(self, endpoint_id: str) -> Doc:
        return self.api.webhook(self.key, endpoint_id)

    def update_webhook(self, endpoint_id: str, **changes: Any) -> Doc:
        return self.api.update_webhook(self.key, endpoint_id, **changes)

    def delete_webhook(self, endpoint_id: str) -> None:
        self.api.delete_webhook(self.key, endpoint_id)

    def rotate_webhook_secret(self, endpoint_id: str) -> Doc:
        return self.api.rotate_webhook_secret(self.key, endpoint_id)

    def ping_webhook(self, endpoint_id: str) -> Doc:
        return self.api.ping_webhook(self.key, endpoint_id)

    def webhook_deliveries(
        self, endpoint_id: str, status: str | None = None, before: str | None = None, limit: int | None = None
    ) -> Doc:
        return self.api.webhook_deliveries(self.key, endpoint_id, status, before, limit)

    def webhook_delivery(self, endpoint_id: str, message_id: str) -> Doc:
        return self.api.webhook_delivery(self.key, endpoint_id, message_id)

    def redeliver_webhook(self, endpoint_id: str, message_id: str) -> Doc:
        return self.api.redeliver_webhook(self.key, endpoint_id, message_id)
