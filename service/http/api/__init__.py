"""HTTP resources, one blueprint each; views parse HTTP and call :mod:`service.matches.operations`."""

from __future__ import annotations

from dataclasses import dataclass

import flask_smorest
from flask import Flask, current_app
from flask_smorest import Api

from service.config import Config
from service.http.jsonbody import BodyParser
from service.http.metrics import Metrics
from service.live import LiveEvents
from service.matches.operations import Matches

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


def services() -> Services:
    found: Services = current_app.extensions[EXTENSION]
    return found


def register_blueprints(app: Flask, api: Api) -> None:
    from service.http.api import actions, docs, events, games, health, hints, lifecycle, matches, webclient

    for module in (games, matches, lifecycle, actions, events, hints, health):
        api.register_blueprint(module.blp)
    app.register_blueprint(docs.blp)  # static files only: not part of the API spec
    app.register_blueprint(webclient.blp)  # the reference browser client, static files too
