"""What a waiter was let in with (:class:`Credential`), and why it ends when that is revoked or expires.

Each subscription is tagged with the credential it was opened with (issue 42): the app, the player and
the token id of a player token, the key's fingerprint of an app key; its expiry.  Seat tokens are not
revocable: no tag.  An ended long-poll answers 401 ``credential_revoked`` (:class:`CredentialRevoked`,
its ``reason``); an ended stream writes a last line of type ``credential_revoked``
(:func:`service.live.shaping.farewell`).  The hub's guard (:mod:`service.live.guard`) does the ending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.storage.accounts import Revocation

#: The type of a stream's last line after its credential was revoked or expired, and the code of a
#: long-poll's 401 then.
CREDENTIAL_REVOKED = "credential_revoked"
#: Why a waiter ended, besides a :class:`Revocation`'s reasons: its token expired.
TOKEN_EXPIRED = "token_expired"
#: The reasons, for the documentation: an app revoked, an app key rotated away, a player token
#: revoked, a player token expired.
REVOKED_REASONS = ("app_revoked", "key_rotated", "token_revoked", TOKEN_EXPIRED)
_REASON_TEXT = {
    "app_revoked": "the app was revoked",
    "key_rotated": "this app key was rotated away",
    "token_revoked": "this player token was revoked",
    TOKEN_EXPIRED: "this player token expired",
}


def reason_text(reason: str) -> str:
    """A reason of :data:`REVOKED_REASONS` in words."""
    return _REASON_TEXT.get(reason, "the credential was revoked")


@dataclass(frozen=True)
class Credential:
    """What a waiter was let in with, so that revoking it ends the waiter: an app key (``player``
    ``None``; ``id`` its key's fingerprint) or a player token (``player`` its key ``<app>:<player>``,
    ``id`` the token's id, ``expires_at`` its expiry).  Seat tokens are not revocable: no tag."""

    app: str
    player: str | None = None
    id: str | None = None
    expires_at: float | None = None

    def revoked_by(self, revocation: Revocation) -> bool:
        """Whether ``revocation`` covers this credential."""
        if revocation.app != self.app:
            return False
        if revocation.key is not None:
            return self.player is None and self.id == revocation.key
        if revocation.player is None:
            return True  # the whole app: its key and its players' tokens
        return self.player == revocation.player and self.id in revocation.tokens

    def standing(self, app: tuple[str, str] | None, token: float | None, clock: float) -> str | None:
        """Why the credential no longer holds, given what its app (status, key fingerprint) and its
        token (expiry) stand on now (:meth:`service.storage.accounts.AccountStore.credentials`): a reason
        of :data:`REVOKED_REASONS`, or ``None`` while it holds."""
        if app is None or app[0] != "active":
            return "app_revoked"
        if self.player is None:
            return None if app[1] == self.id else "key_rotated"
        if token is None:
            return "token_revoked"
        return TOKEN_EXPIRED if token <= clock else None


class CredentialRevoked(Exception):
    """A waiter ended (or refused) because its credential was revoked or expired; the HTTP layer
    answers 401 ``credential_revoked``, ``details.reason`` one of :data:`REVOKED_REASONS`."""

    code = CREDENTIAL_REVOKED

    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.message = f"{reason_text(reason)}: this request ended"
        self.details: dict[str, Any] = {"reason": reason}
        super().__init__(self.message)
