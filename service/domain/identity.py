"""Who is calling: the one credential a request carries, resolved once, and what it may do.

Four kinds of bearer token share the ``Authorization: Bearer`` header, told apart by their form alone
(a ``.`` never occurs in a seat token, which is URL-safe base64):

- a **seat token** (or a creator token, or nothing): anonymous play, one match at a time;
- an **app key** ``ta.<app>.<secret>``: an integration's server, registered by the operator; it names
  its own players and mints their tokens (see :mod:`service.domain.accounts`);
- a **player token** ``tp.<app>.<player>.<token id>.<secret>`` (the player id base64url-encoded):
  acts for its player's seats in every match, within its scopes, until it expires or is revoked;
- the **admin token** (``TABLETOP_ADMIN_TOKEN``): the operator, for the apps' admin API only.

A token's form only says where to look; every credential is checked against its stored hash (in
constant time) before a :class:`Caller` names its app or player, so nothing is keyed by a claim.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field

APP_PREFIX = "ta"
PLAYER_PREFIX = "tp"
#: What a player token may do: ``read`` (match documents, legal actions, events, my matches, my feed)
#: and ``play`` (moves, hints, joins, resigns, returns, rematches; creating matches).
SCOPES = ("read", "play")
READ, PLAY = SCOPES

ANONYMOUS, SEAT, APP, PLAYER, ADMIN = "anonymous", "seat", "app", "player", "admin"


@dataclass(frozen=True)
class Caller:
    """A resolved credential.  ``token`` is a seat (or creator, or invite) token, kept to be matched
    against a match's hashes; ``app``/``player`` are set for an app key and a player token (``player``
    for a player token only)."""

    kind: str = ANONYMOUS
    token: str | None = None
    app: str | None = None
    player: str | None = None
    scopes: frozenset[str] = field(default_factory=frozenset)
    #: Which credential of its app or player this is, for revocation to find what it opened (its open
    #: streams and long-polls): a player token's id, an app key's fingerprint; and when it expires.
    credential: str | None = None
    expires_at: float | None = None

    @property
    def player_key(self) -> str | None:
        """The player's key, ``<app>:<player>`` (the hash tag of its storage): see :func:`player_key`."""
        if self.app is None or self.player is None:
            return None
        return player_key(self.app, self.player)

    def may(self, scope: str) -> bool:
        """Whether a player token carries ``scope`` (``play`` includes ``read``: a client that may move
        may see what it moves in); every other credential's rights are its own."""
        return self.kind != PLAYER or scope in self.scopes or (scope == READ and PLAY in self.scopes)


ANONYMOUS_CALLER = Caller()


def player_key(app: str, player: str) -> str:
    return f"{app}:{player}"


def split_player_key(key: str) -> tuple[str, str]:
    app, _, player = key.partition(":")
    return app, player


@dataclass(frozen=True)
class AppKey:
    app: str
    secret: str


@dataclass(frozen=True)
class PlayerToken:
    app: str
    player: str
    token_id: str
    secret: str


def app_key(app: str, secret: str) -> str:
    return f"{APP_PREFIX}.{app}.{secret}"


def player_token(app: str, player: str, token_id: str, secret: str) -> str:
    encoded = base64.urlsafe_b64encode(player.encode()).decode().rstrip("=")
    return f"{PLAYER_PREFIX}.{app}.{encoded}.{token_id}.{secret}"


def parse(token: str) -> AppKey | PlayerToken | None:
    """What an app key or a player token names (unverified), ``None`` for any other token; ``ValueError``
    for a token of one of those forms that is malformed."""
    parts = token.split(".")
    if len(parts) == 1:
        return None
    if parts[0] == APP_PREFIX and len(parts) == 3 and all(parts):
        return AppKey(parts[1], parts[2])
    if parts[0] == PLAYER_PREFIX and len(parts) == 5 and all(parts):
        try:
            player = base64.urlsafe_b64decode(parts[2] + "=" * (-len(parts[2]) % 4)).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise ValueError("malformed player token") from None
        return PlayerToken(parts[1], player, parts[3], parts[4])
    raise ValueError("malformed token: expected a seat token, an app key (ta.…) or a player token (tp.…)")
