"""What the match domain refuses, and why: one exception per kind of refusal, each with a stable
machine-readable ``code``, a message for people and ``details`` for programs.

The domain knows nothing of HTTP: the HTTP layer maps each kind to a status in one table
(:data:`service.http.errors.STATUSES`), the workers and the command line read the same exceptions.
"""

from __future__ import annotations

from typing import Any

from engine.core import IllegalAction
from service import auth


class MatchError(Exception):
    """A refusal: ``code`` (stable, e.g. ``seat_taken``), ``message`` and ``details``."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}


class NotFound(MatchError):
    """No such match, game, job... (or one the caller may not know exists)."""


class Unauthorized(MatchError):
    """No credential, or one that holds nothing here; ``challenge`` says what would."""

    def __init__(self, message: str, challenge: str = "Bearer") -> None:
        super().__init__("unauthorized", message)
        self.challenge = challenge


class Forbidden(MatchError):
    """The caller is known, and may not do this (another seat's decision, a seat left...)."""


class Conflict(MatchError):
    """The match is not in a state that allows this (waiting, over, a seat taken, out of time...)."""


class Invalid(MatchError):
    """A request that is well-formed but wrong in ``field``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__("invalid_request", f"{field}: {message}", {"field": field})


class Illegal(MatchError):
    """An action the rules refuse; ``rule`` names the rule (RULES.md id, or ``schema``)."""

    def __init__(self, exc: IllegalAction, version: int) -> None:
        super().__init__("illegal_action", exc.message, {"field": exc.field, "version": version})
        self.rule = exc.rule


class Stale(MatchError):
    """A decision based on an old version of the match; ``current`` is the match's version and
    ``source`` where the caller's version came from (``header`` or ``body``)."""

    def __init__(self, current: int, source: str) -> None:
        super().__init__(
            "stale_version",
            f"the match is at version {current}; reload and decide again",
            {"current_version": current},
        )
        self.current = current
        self.source = source


class VersionRequired(MatchError):
    """A move that says nothing of the version it was decided on."""


class TooMany(MatchError):
    """Past a limit of this server; ``retry_after`` seconds until trying again can help."""

    def __init__(self, code: str, message: str, details: dict[str, Any], retry_after: int) -> None:
        super().__init__(code, message, details)
        self.retry_after = retry_after


def unauthorized(message: str, challenge: str = "Bearer") -> Unauthorized:
    return Unauthorized(message, challenge)


def bearer_or_401(authorization: str | None) -> str | None:
    """The bearer token of an ``Authorization`` value (``None`` without one); a malformed one is
    refused as :class:`Unauthorized`."""
    try:
        return auth.bearer_token(authorization)
    except ValueError as exc:
        raise unauthorized(str(exc)) from None


def not_found(what: str) -> NotFound:
    return NotFound("not_found", f"{what} not found")


def invalid(field: str, message: str) -> Invalid:
    return Invalid(field, message)
