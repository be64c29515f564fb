"""Apps, players and their tokens: identities that outlive a match.

An operator registers an **app** (an integration: a mobile backend, a bot author) and hands its key to
it once; the key authenticates the app's server.  The app names its **players** by its own ids and
mints **player tokens** for its clients; a player token acts for that player's seats in every match
(:meth:`service.domain.matches.operations.Matches.caller`), within its scopes, until it expires or is revoked.
 Nothing of one app is visible to another app's key: every lookup here is within the caller's own app, and a
player or token of another app is "not found", never "forbidden".

Secrets are shown once (an app key when created or rotated, a player token when minted) and stored
as SHA-256 hashes, compared in constant time (see :mod:`service.auth`).
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from service import auth
from service.config import Config
from service.domain import identity, names
from service.domain.errors import Forbidden, NotFound, bearer_or_401, invalid, not_found, unauthorized
from service.domain.identity import ADMIN, APP, PLAYER, SEAT, AppKey, Caller, PlayerToken
from service.storage.accounts import AccountStore, Revocation, StoredApp, StoredPlayer, fingerprint

#: A player id as apps name them: letters, digits and ``_ . @ -``, 1 to 64 of them.
PLAYER_ID = re.compile(r"^[A-Za-z0-9_.@-]{1,64}$")
ACTIVE, REVOKED = "active", "revoked"
#: Why an app's webhook endpoints are disabled and its tournaments cancelled when it is revoked.
APP_REVOKED = "app_revoked"
#: Seconds a player token lives unless the app asks otherwise, and at most.
DEFAULT_TOKEN_SECONDS = 30 * 24 * 3600
MAX_TOKEN_SECONDS = 365 * 24 * 3600
INVALID_TOKEN = 'Bearer error="invalid_token"'

log = logging.getLogger(__name__)


def app_document(app: StoredApp) -> dict[str, Any]:
    """An app as its owner and the operator see it (never its key)."""
    return {
        "id": app.id,
        "name": app.name,
        "status": app.status,
        "limits": app.limits,
        "created_at": app.created_at,
    }


def player_document(player: StoredPlayer) -> dict[str, Any]:
    return {
        "id": player.id,
        "name": player.name,
        "bot": player.bot,
        "created_at": player.created_at,
        "updated_at": player.updated_at,
    }


def token_document(token_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """A player token as listed: what it may do and until when; never the token itself."""
    return {
        "id": token_id,
        "scopes": record["scopes"],
        "expires_at": record["expires_at"],
        "created_at": record["created_at"],
    }


class Accounts:
    """Operations on apps, players and tokens; :meth:`identify` resolves a request's credential."""

    def __init__(self, store: AccountStore, config: Config, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.config = config
        self.now = clock
        #: What else an app's revocation reaches, each called with the app and the reason
        #: (:data:`APP_REVOKED`): its webhook endpoints, its tournaments, its seeks and challenges.
        #: Wired by :class:`service.domain.matches.operations.Matches`, which holds them.
        self.app_revoked: list[Callable[[str, str], object]] = []

    # -- who is calling -----------------------------------------------------------------------------

    def identify(self, authorization: str | None) -> Caller:
        """The credential of an ``Authorization`` header, checked: 401 for an app key or player token
        that is unknown, revoked or expired (a seat token is checked against its match later)."""
        token = bearer_or_401(authorization)
        if token is None:
            return identity.ANONYMOUS_CALLER
        if self.config.admin_token and hmac.compare_digest(token.encode(), self.config.admin_token.encode()):
            return Caller(ADMIN)
        try:
            claim = identity.parse(token)
        except ValueError as exc:
            raise unauthorized(str(exc), INVALID_TOKEN) from None
        if claim is None:
            return Caller(SEAT, token=token)
        if isinstance(claim, AppKey):
            app = self._active_app(claim.app)
            if app is None or not hmac.compare_digest(auth.hash_token(token), app.key_hash):
                raise unauthorized("this app key is unknown or was rotated or revoked", INVALID_TOKEN)
            key = fingerprint(app.key_hash)
            return Caller(APP, app=app.id, scopes=frozenset(identity.SCOPES), credential=key)
        return self._player_caller(token, claim)

    def _player_caller(self, token: str, claim: PlayerToken) -> Caller:
        key = identity.player_key(claim.app, claim.player)
        record = self.store.token(key, claim.token_id)
        refused = unauthorized("this player token is unknown, expired or revoked", INVALID_TOKEN)
        if record is None or not hmac.compare_digest(auth.hash_token(token), record["hash"]):
            raise refused
        if record["expires_at"] <= self.now() or self._active_app(claim.app) is None:
            raise refused
        return Caller(
            PLAYER,
            app=claim.app,
            player=claim.player,
            scopes=frozenset(record["scopes"]),
            credential=claim.token_id,
            expires_at=float(record["expires_at"]),
        )

    def _active_app(self, app_id: str) -> StoredApp | None:
        app = self.store.app(app_id)
        return app if app is not None and app.status == ACTIVE else None

    # -- the operator's: apps -----------------------------------------------------------------------

    def create_app(self, name: str, limits: dict[str, Any] | None = None) -> dict[str, Any]:
        """Register an app; the answer holds its key, the only time it is shown."""
        name = _display_name(name, "name")
        while True:
            app_id = secrets.token_hex(6)
            key = identity.app_key(app_id, auth.new_token())
            stored = StoredApp(app_id, name, auth.hash_token(key), ACTIVE, dict(limits or {}), self.now())
            if self.store.create_app(stored):
                return {**app_document(stored), "key": key}

    def apps(self) -> list[dict[str, Any]]:
        return [app_document(a) for a in self.store.apps()]

    def app(self, app_id: str) -> dict[str, Any]:
        return app_document(self._app(app_id))

    def rotate_key(self, app_id: str) -> dict[str, Any]:
        """A new key for the app; the old one stops working at once.  Shown once."""
        app = self._app(app_id)
        if app.status != ACTIVE:
            raise invalid("app", "a revoked app gets no new key")
        key = identity.app_key(app.id, auth.new_token())
        self.store.update_app(app.id, key_hash=auth.hash_token(key))
        self.store.announce(Revocation(app.id, key=fingerprint(app.key_hash)))  # its streams end too
        return {**app_document(app), "key": key}

    def revoke_app(self, app_id: str) -> dict[str, Any]:
        """The app's key and every token of its players stop working, for good (its matches stay), and
        what of it lives on stops within seconds: every API process ends the open streams and
        long-polls of its key and its players' tokens (announced: :class:`Revocation`), and
        :attr:`app_revoked` disables its webhook endpoints, cancels its tournaments and closes its
        seeks and challenges.  Revoking it again does all of that again: a revocation cut short by a
        failure (its answer a 503) is finished by a retry."""
        app = self._app(app_id)
        self.store.update_app(app.id, status=REVOKED, key_hash="")
        self.store.announce(Revocation(app.id))
        failed: Exception | None = None
        for reach in self.app_revoked:  # each one, whatever another's fate
            try:
                reach(app.id, APP_REVOKED)
            except Exception as exc:
                log.exception("revoking app %s: %r failed", app.id, reach)
                failed = failed or exc
        if failed is not None:
            raise failed
        return {**app_document(app), "status": REVOKED}

    def _app(self, app_id: str) -> StoredApp:
        app = self.store.app(app_id)
        if app is None:
            raise not_found(f"app {app_id!r}")
        return app

    # -- an app's: players and their tokens ---------------------------------------------------------

    def put_player(self, caller: Caller, player_id: str, name: str, bot: bool) -> tuple[dict[str, Any], bool]:
        """Create or update the caller's player ``player_id`` (idempotent); the player and whether it
        was created."""
        app = require_app(caller)
        _check_player_id(player_id)
        player, created = self.store.put_player(app, player_id, _display_name(name, "name"), bot, self.now())
        return player_document(player), created

    def player(self, caller: Caller, player_id: str) -> dict[str, Any]:
        return player_document(self._player(require_app(caller), player_id))

    def players(
        self, caller: Caller, after: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        found, cursor = self.store.players(require_app(caller), after, limit)
        return [player_document(p) for p in found], cursor

    def stored_player(self, app: str, player_id: str) -> StoredPlayer:
        return self._player(app, player_id)

    def _player(self, app: str, player_id: str) -> StoredPlayer:
        player = self.store.player(app, player_id) if PLAYER_ID.match(player_id) else None
        if player is None:
            raise not_found(f"player {player_id!r}")
        return player

    def mint_token(
        self, caller: Caller, player_id: str, scopes: list[str], seconds: int | None
    ) -> dict[str, Any]:
        """A new token for the caller's player; shown once."""
        app = require_app(caller)
        self._player(app, player_id)
        unknown = sorted(set(scopes) - set(identity.SCOPES))
        if not scopes or unknown:
            raise invalid("scopes", f"choose from {list(identity.SCOPES)}")
        seconds = DEFAULT_TOKEN_SECONDS if seconds is None else seconds
        if not 0 < seconds <= MAX_TOKEN_SECONDS:
            raise invalid("expires_in", f"from 1 to {MAX_TOKEN_SECONDS} seconds")
        token_id = secrets.token_hex(6)
        token = identity.player_token(app, player_id, token_id, auth.new_token())
        created = self.now()
        record = {
            "hash": auth.hash_token(token),
            "scopes": sorted(set(scopes)),
            "expires_at": round(created + seconds, 3),
            "created_at": created,
        }
        key = identity.player_key(app, player_id)
        self.store.add_token(key, token_id, record)
        return {**token_document(token_id, record), "token": token, "player": player_id}

    def tokens(self, caller: Caller, player_id: str) -> list[dict[str, Any]]:
        app = require_app(caller)
        self._player(app, player_id)
        now = self.now()
        listed = self.store.tokens(identity.player_key(app, player_id)).items()
        return [token_document(tid, rec) for tid, rec in sorted(listed) if rec["expires_at"] > now]

    def revoke_token(self, caller: Caller, player_id: str, token_id: str) -> None:
        """The token stops working, and its open streams and long-polls end in every API process."""
        app = require_app(caller)
        self._player(app, player_id)
        key = identity.player_key(app, player_id)
        if not self.store.revoke_token(key, token_id):
            raise not_found(f"token {token_id!r}")
        self.store.announce(Revocation(app, key, (token_id,)))

    def revoke_tokens(self, caller: Caller, player_id: str) -> int:
        """Every token of the player stops working (a lost phone), its streams and long-polls too."""
        app = require_app(caller)
        self._player(app, player_id)
        key = identity.player_key(app, player_id)
        revoked = self.store.revoke_tokens(key)
        if revoked:
            self.store.announce(Revocation(app, key, tuple(revoked)))
        return len(revoked)

    # -- "me" ---------------------------------------------------------------------------------------

    def me(self, caller: Caller, scope: str, player_id: str | None = None) -> str:
        """The player key a ``me`` request is about: the player token's own player, or the player an
        app key names (``player_id``); 401 without either, 403 for a token without ``scope``."""
        if caller.kind == PLAYER:
            if player_id not in (None, caller.player):
                raise invalid("player", "a player token speaks for its own player only")
            require_scope(caller, scope)
            assert caller.player_key is not None
            return caller.player_key
        if caller.kind == APP:
            assert caller.app is not None
            if player_id is None:
                raise invalid("player", "an app key names the player: ?player=<id>")
            self._player(caller.app, player_id)
            return identity.player_key(caller.app, player_id)
        raise unauthorized("a player token (or an app key naming a player) is required")


def require_app(caller: Caller) -> str:
    """The app of an app key: players and tokens are managed by their app's server only."""
    if caller.kind != APP or caller.app is None:
        raise unauthorized("an app key is required (Authorization: Bearer ta.…)")
    return caller.app


def require_admin(caller: Caller, enabled: bool) -> None:
    if not enabled:
        raise NotFound("admin_disabled", "the admin API is off: set TABLETOP_ADMIN_TOKEN to turn it on")
    if caller.kind != ADMIN:
        raise unauthorized("the admin token is required (TABLETOP_ADMIN_TOKEN)")


def require_scope(caller: Caller, scope: str) -> None:
    """403 ``insufficient_scope`` for a player token without ``scope``."""
    if not caller.may(scope):
        raise Forbidden(
            "insufficient_scope",
            f"this player token lacks the {scope!r} scope",
            {"scope": scope, "scopes": sorted(caller.scopes)},
        )


def _check_player_id(player_id: str) -> None:
    if not PLAYER_ID.match(player_id):
        raise invalid("player_id", "1 to 64 letters, digits or _ . @ -")


def _display_name(name: str, field: str) -> str:
    try:
        return names.normalise(name)
    except names.BadName as exc:
        raise invalid(field, str(exc)) from None
