"""What seeks, challenges and tournaments share: the app they act within, the terms their match is
made on, and the one way they make it.

All three make an app's private match among its players (and bots) on terms agreed beforehand, under
an id fixed in advance (the pairing's, the challenge's, ``<tournament>-<number>``), so a process that
makes it again after a crash finds it made.  :class:`MatchMaker` is that one way; the composition root
hands it to them (with a note sink, :class:`service.domain.feeds.sources.NoteSink`, and a
:data:`Clock`), and they build nothing themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine.core import Game
from service.domain.accounts import require_scope
from service.domain.errors import Conflict, invalid, unauthorized
from service.domain.games import checked_terms
from service.domain.identity import APP, PLAYER, SCOPES, Caller
from service.domain.matches import clocks, seating

#: The time of their records and deadlines (epoch seconds); tests pass their own.
Clock = Callable[[], float]


class CreateMatch(Protocol):
    """How a match is created (:meth:`service.domain.matches.creation.MatchCreation.create`), as far as
    :class:`MatchMaker` calls it."""

    def __call__(
        self,
        request: dict[str, Any],
        *,
        caller: Caller | None = ...,
        match_id: str | None = ...,
        tournament: str | None = ...,
    ) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Terms:
    """What a seek, a challenge or a tournament asks of its matches, checked against the game."""

    game: Game
    players: int
    options: dict[str, Any]
    rated: bool
    time_control: dict[str, Any] | None


def time_control(control: dict[str, Any] | None) -> dict[str, Any] | None:
    """A time control with its defaults filled in (:func:`service.domain.matches.clocks.with_defaults`),
    as its matches are made with it: two seeks with the same control compare equal however each was
    spelled."""
    if not control:
        return None
    if control.get("per_move_seconds") is None and control.get("budget_seconds") is None:
        raise invalid("time_control.per_move_seconds", "give per_move_seconds, budget_seconds or both")
    return clocks.with_defaults(control)


def match_terms(
    games: Mapping[str, Game], request: dict[str, Any], players: int, players_field: str
) -> Terms:
    """The game, player count, options (checked and resolved as a match's creation does them,
    :func:`service.domain.games.checked_terms`), ``rated`` and time control of a request, or a 422
    naming the field."""
    game, options = checked_terms(games, request["game"], players, request.get("options"), players_field)
    rated = bool(request.get("rated", False))
    return Terms(game, players, options, rated, time_control(request.get("time_control")))


def app_caller(app: str) -> Caller:
    """The app itself, as matchmaking creates its matches (seats may name any of its players)."""
    return Caller(APP, app=app, scopes=frozenset(SCOPES))


def caller_app(caller: Caller, scope: str) -> str:
    """The app of an app key or a player token (with ``scope``): matchmaking is within one app."""
    if caller.kind not in (APP, PLAYER) or caller.app is None:
        raise unauthorized("an app key or a player token is required")
    require_scope(caller, scope)
    return caller.app


class MakeMatch(Protocol):
    """What :class:`MatchMaker` is to the objects handed it (tests may hand another)."""

    def __call__(
        self, app: str, match_id: str, terms: Terms, seats: list[dict[str, Any]], tournament: str | None = ...
    ) -> None: ...


class MatchMaker:
    """Makes an app's private match on agreed terms, once per id: the one way seeks, challenges and
    tournaments make their matches."""

    def __init__(self, create: CreateMatch, exists: Callable[[str], bool]) -> None:
        self.create = create
        self.exists = exists

    def __call__(
        self,
        app: str,
        match_id: str,
        terms: Terms,
        seats: list[dict[str, Any]],
        tournament: str | None = None,
    ) -> None:
        """Make the match ``match_id`` of ``app`` (private, its players named; ``tournament``, a
        tournament's tag ``<app>:<id>``, marks a tournament's match), unless it exists: however often
        this runs for one id, there is one match."""
        request: dict[str, Any] = {
            "game": terms.game.id,
            "seats": seats,
            "options": terms.options,
            "rated": terms.rated,
            "visibility": seating.PRIVATE,
        }
        if terms.time_control is not None:
            request["time_control"] = terms.time_control
        if self.exists(match_id):
            return
        try:
            self.create(request, caller=app_caller(app), match_id=match_id, tournament=tournament)
        except Conflict as exc:
            if exc.code != "match_exists":
                raise
