"""``create_app``: the Flask application over the engine registry and one Redis."""

from __future__ import annotations

from typing import Any

import redis
from flask import Flask
from flask_smorest import Api
from werkzeug.exceptions import HTTPException

from engine.core import Game
from engine.registry import GAMES
from service import errors, http_policy, limits, logs
from service.api import EXTENSION, Services, register_blueprints
from service.config import Config
from service.json_provider import OrjsonProvider
from service.metrics import Metrics
from service.schemas.errors import ErrorSchema
from service.spec import describe_match_request, register_components
from service.store import Store

#: A placeholder URL for apps that never touch Redis (``tabletop spec``): redis-py connects lazily.
OFFLINE_REDIS_URL = "redis://localhost:6379/0"


class TabletopApi(Api):
    """flask-smorest's Api with our error schema and error body."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error: HTTPException) -> Any:
        return errors.from_http_exception(error).response()


def create_app(config: Config | None = None, games: dict[str, Game] | None = None) -> Flask:
    """The API application.  ``games`` defaults to :data:`engine.registry.GAMES`; tests inject others."""
    if config is None:
        config = Config.from_env()
    if games is None:
        games = GAMES
    if not config.redis_url:
        raise ValueError("TABLETOP_REDIS_URL is not set (tabletop serve starts a private Redis without it)")
    app = Flask("tabletop")
    app.json = OrjsonProvider(app)
    app.config.update(
        MAX_CONTENT_LENGTH=config.max_body_bytes,
        API_TITLE="Tabletop",
        API_VERSION="1",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="/docs/static/",
        API_SPEC_OPTIONS={
            "info": {
                "description": "Play rules-exact board games over HTTP. Every response that shows game state "
                "is the caller's own view: seat tokens select it, no token gives the spectator view."
            }
        },
    )
    # redis-py's default 5 s socket timeout would cut the blocking reads of long-polls and event streams
    # (up to max_wait_seconds / heartbeat_seconds): allow those, and still notice a hung Redis.
    blocking = max(config.max_wait_seconds, config.heartbeat_seconds)
    store = Store(redis.Redis.from_url(config.redis_url, socket_timeout=blocking + 5))
    logs.install(app)  # first: every later hook, the rate limiter included, runs with a request id
    limits.install(app, config, store.redis)
    http_policy.install(app, config)
    metrics = Metrics(store)
    app.extensions[EXTENSION] = Services(config, logs.SeatLoggingMatches(store, games, config), metrics)
    api = TabletopApi(app, spec_kwargs={"extra_plugins": [limits.RateLimitDoc()]})
    register_components(api.spec, games)
    register_blueprints(app, api)
    describe_match_request(api.spec, games)
    errors.register(app)
    metrics.install(app)
    return app
