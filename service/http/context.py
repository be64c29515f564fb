"""What a view works with besides its request: the app's domain objects (:class:`Services`, built by
:func:`service.wiring.build` in the app factory) and the request's caller (:func:`current_caller`).

Its own module, apart from the blueprints (:mod:`service.http.api`), so the rate limiter
(:mod:`service.http.limits`), which counts by caller before any view runs, depends on it and not on
the views.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, request

from service.config import Config
from service.domain.accounts import Accounts
from service.domain.chat.chat import Chat
from service.domain.chat.moderation import Moderation
from service.domain.identity import Caller
from service.domain.matches.operations import Matches
from service.domain.matchmaking.challenges import Challenges
from service.domain.matchmaking.seeks import Seeks
from service.domain.outbox.entries import Outbox
from service.domain.privacy.erasure import Privacy
from service.domain.push.push import Push
from service.domain.ratings import Ratings
from service.domain.tournaments.scheduler import TournamentScheduler
from service.domain.tournaments.tournaments import Tournaments
from service.domain.webhooks.webhooks import Webhooks
from service.http.metrics import Metrics
from service.live.hub import LiveEvents

#: Where an app keeps its :class:`Services` (``app.extensions[EXTENSION]``).
EXTENSION = "tabletop"

@dataclass(frozen=True)
class Services:
    """The per-app objects the views use (the domain's built by :func:`service.wiring.build`)."""

    config: Config
    matches: Matches
    metrics: Metrics
    live: LiveEvents
    accounts: Accounts
    seeks: Seeks
    challenges: Challenges
    webhooks: Webhooks
    ratings: Ratings
    tournaments: Tournaments
    tournament_scheduler: TournamentScheduler
    #: Player data: exports, deletions and the app's audit log of them (issue 48).
    privacy: Privacy
    outbox: Outbox
    push: Push
    chat: Chat
    moderation: Moderation


def services() -> Services:
    found: Services = current_app.extensions[EXTENSION]
    return found


#: Where :func:`current_caller` keeps the request's caller on :data:`flask.g`.
_CALLER = "tabletop_caller"


def current_caller() -> Caller:
    """The request's credential, checked once (:meth:`service.domain.accounts.Accounts.identify`: 401
    ``unauthorized`` for a bad app key or player token) and kept on :data:`flask.g`: the rate limiter
    keys its counters by it before the view runs, and the view acts for it, so both see the same one."""
    caller: Caller | None = g.get(_CALLER)
    if caller is None:
        caller = services().accounts.identify(request.headers.get("Authorization"))
        setattr(g, _CALLER, caller)
    return caller
