"""Seat tokens: random bearer secrets, stored only as hashes, compared in constant time.

A token is handed out once, when the match is created; the store keeps its SHA-256 so that a Redis dump
does not hand out seats.  SHA-256 without salt is enough because a token carries 256 random bits: there
is nothing to brute-force with a dictionary.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh seat token (256 random bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header; ``None`` when the header is absent.

    Raises ``ValueError`` for a header that is present but not a bearer token.
    """
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise ValueError("expected 'Authorization: Bearer <seat token>'")
    return token


def seat_of_token(token: str, token_hashes: list[str]) -> int | None:
    """The seat whose stored hash matches ``token``, or ``None``.

    Every seat is compared (no early exit) so the time taken does not say which seat came close.
    """
    digest = hash_token(token)
    found = None
    for seat, stored in enumerate(token_hashes):
        if hmac.compare_digest(digest, stored) and found is None:
            found = seat
    return found
