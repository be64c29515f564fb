"""Apps and their players: the operator's admin calls (``TABLETOP_ADMIN_TOKEN``) and an app's calls
that name its players and mint their tokens (the app key), on :class:`~tabletop_client.Client` with
the credential as the first argument."""

from __future__ import annotations

from tabletop_client.transport import Doc, Transport, query


class AccountCalls:
    _http: Transport

    # -- apps: the operator's admin API (TABLETOP_ADMIN_TOKEN) ----------------------------------------

    def create_app(self, admin_token: str, name: str, rate: str | None = None) -> Doc:
        """Register an integration; the answer's ``key`` (``ta.…``) is shown only here.  ``rate``: the
        app's own rate limit (e.g. ``"600/minute;20/second"``) in place of the server's."""
        body: Doc = {"name": name, **({"limits": {"rate": rate}} if rate is not None else {})}
        return self._http.call("POST", "/v1/admin/apps", body, admin_token)

    def apps(self, admin_token: str) -> list[Doc]:
        """Every app, active and revoked (never a key)."""
        return self._http.get("/v1/admin/apps", admin_token)["apps"]

    def rotate_app_key(self, admin_token: str, app_id: str) -> Doc:
        """A new key (``key``, shown only here); the old one stops working at once."""
        return self._http.call("POST", f"/v1/admin/apps/{app_id}/rotate", None, admin_token)

    def revoke_app(self, admin_token: str, app_id: str) -> Doc:
        """The app's key and all its players' tokens stop working for good (its matches stay)."""
        return self._http.call("DELETE", f"/v1/admin/apps/{app_id}", None, admin_token)

    # -- players and their tokens: an app's (app key) -------------------------------------------------

    def put_player(self, key: str, player_id: str, name: str, bot: bool = False) -> Doc:
        """Create or update the app's player ``player_id`` (the app's own id: letters, digits, ``_.@-``,
        up to 64); idempotent.  ``name`` is what its seats show."""
        return self._http.call("PUT", f"/v1/players/{player_id}", {"name": name, "bot": bot}, key)

    def player(self, key: str, player_id: str) -> Doc:
        return self._http.get(f"/v1/players/{player_id}", key)

    def players(self, key: str, after: str | None = None, limit: int | None = None) -> Doc:
        """One page of the app's players by id: ``players`` and ``next_cursor`` (the next ``after``)."""
        return self._http.get(f"/v1/players{query(after=after, limit=limit)}", key)

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
        return self._http.call("POST", f"/v1/players/{player_id}/tokens", body, key)

    def player_tokens(self, key: str, player_id: str) -> list[Doc]:
        """The player's live tokens: ids, scopes and expiry (never a token)."""
        return self._http.get(f"/v1/players/{player_id}/tokens", key)["tokens"]

    def revoke_token(self, key: str, player_id: str, token_id: str) -> None:
        """That token stops working at once."""
        self._http.call("DELETE", f"/v1/players/{player_id}/tokens/{token_id}", None, key)

    def revoke_tokens(self, key: str, player_id: str) -> int:
        """Every token of the player stops working; how many did."""
        return int(self._http.call("DELETE", f"/v1/players/{player_id}/tokens", None, key)["revoked"])
