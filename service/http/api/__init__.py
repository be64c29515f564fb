"""HTTP resources, one blueprint each; views parse HTTP and call :mod:`service.matches.operations`."""

from __future__ import annotations

from dataclasses import dataclass

import flask_smorest
from flask import Flask, current_app, g, request
from flask_smorest import Api

from service.config import Config
from service.http.jsonbody import BodyParser
from service.http.metrics import Metrics
from service.live import LiveEvents
from service.matches.accounts import Accounts
from service.matches.challenges import Challenges
from service.matches.identity import Caller
from service.matches.operations import Matches
from service.matches.seeks import Seeks

#: Where an app keeps its :class:`Services` (``app.extensions[EXTENSION]``).
EXTENSION = "tabletop"

#: Response header docs shared by the versioned resources.
ETAG_HEADER = {"ETag": {"description": 'The match version, e.g. `"12"`.', "schema": {"type": "string"}}}


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, reading JSON bodies with :class:`service.http.jsonbody.BodyParser`."""

    ARGUMENTS_PARSER = BodyParser()


@dataclass(frozen=True)
class Services:
    """The per-app objects the views use."""

    config: Config
    matches: Matches
    metrics: Metrics
    live: LiveEvents
    accounts: Accounts
    seeks: Seeks
    challenges: Challenges


def services() -> Services:
    found: Services = current_app.extensions[EXTENSION]
    return found


#: Where :func:`current_caller` keeps the request's caller on :data:`flask.g`.
_CALLER = "tabletop_caller"


def current_caller() -> Caller:
    """The request's credential, checked once (:meth:`service.matches.accounts.Accounts.identify`: 401
    ``unauthorized`` for a bad app key or player token) and kept on :data:`flask.g`: the rate limiter
    keys its counters by it before the view runs, and the view acts for it, so both see the same one."""
    caller: Caller | None = g.get(_CALLER)
    if caller is None:
        caller = services().accounts.identify(request.headers.get("Authorization"))
        setattr(g, _CALLER, caller)
    return caller


def register_blueprints(app: Flask, api: Api) -> None:
    from service.http.api import (
        accounts,
        actions,
        challenges,
        docs,
        events,
        feed,
        games,
        health,
        hints,
        lifecycle,
        matches,
        quota,
        ratings,
        seeks,
        tournaments,
        webclient,
        webhooks,
    )

    for module in (games, matches, lifecycle, actions, events, feed, hints, health, quota, webhooks):
        api.register_blueprint(module.blp)
    for module in (ratings, seeks, challenges, tournaments):
        api.register_blueprint(module.blp)
    for blueprint in (accounts.admin, accounts.players, accounts.me):
        api.register_blueprint(blueprint)
    app.register_blueprint(docs.blp)  # static files only: not part of the API spec
    app.register_blueprint(webclient.blp)  # the reference browser client, static files too
