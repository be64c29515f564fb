"""``create_app``: the Flask application over the engine registry and one Redis."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apispec import APISpec
from flask import Flask
from flask_smorest import Api, Blueprint
from werkzeug.exceptions import HTTPException

from engine.core import Game
from service import wiring
from service.config import Config
from service.http import admission, errors, http_policy, limits, request_log
from service.http.api import idempotency, register_blueprints
from service.http.context import EXTENSION, Services
from service.http.json_provider import OrjsonProvider
from service.http.metrics import Metrics
from service.http.routing import RememberingMap
from service.http.schemas.errors import ErrorSchema
from service.http.spec.components import register_components
from service.http.spec.requests import describe_match_request
from service.live.hub import LiveEvents
from service.storage.matches import connect_store

#: A placeholder URL for apps that never touch Redis (``tabletop spec``): redis-py connects lazily.
OFFLINE_REDIS_URL = "redis://localhost:6379/0"


class TabletopFlask(Flask):
    """Flask that asks once per hook or view whether it needs an event loop.  Flask asks on every
    call of every hook and the view (ten ``inspect`` calls a request, about 15 µs of a health check's
    CPU, issue 30), and a function's answer never changes."""

    #: More distinct callables than an app has hooks and views: something makes them per request.
    MEMO_LIMIT = 1024
    url_map_class = RememberingMap

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        found = self._sync.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._sync) < self.MEMO_LIMIT:
                self._sync[func] = found
        return found


#: The API document built for each set of games.  It depends on the games alone, never on the config,
#: and building it is half of what ``create_app`` costs: a process that makes many apps (the test
#: suite makes many) builds it once.  Keyed by the game objects themselves, held here, so a key is
#: never reused by other objects.
_SPECS: dict[tuple[tuple[str, Game], ...], APISpec] = {}


class TabletopApi(Api):
    """flask-smorest's Api with our error schema and error body, over a document built once."""

    ERROR_SCHEMA = ErrorSchema
    spec: APISpec

    def __init__(self, app: Flask, games: dict[str, Game], plugins: list[Any]) -> None:
        super().__init__(app, spec_kwargs={"extra_plugins": plugins})
        self._key = tuple(games.items())
        built = _SPECS.get(self._key)
        self._document = built is None
        if built is None:
            register_components(self.spec, games)
        else:
            self.spec = built  # served by the document's own view, which reads self.spec per request

    def register_blueprint(self, blp: Blueprint, **options: Any) -> None:
        if self._document:
            super().register_blueprint(blp, **options)
            return
        name = options.get("name", blp.name)  # what super() does, less documenting the views again
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)

    def finish_document(self, games: dict[str, Game]) -> None:
        """Complete a document this app built, and keep it for the next app over the same games."""
        if self._document:
            describe_match_request(self.spec, games)
            _SPECS[self._key] = self.spec
            self._document = False

    def handle_http_exception(self, error: HTTPException) -> Any:
        return errors.from_http_exception(error).response()


def create_app(config: Config | None = None, games: dict[str, Game] | None = None) -> Flask:
    """The API application.  ``games`` defaults to :data:`engine.registry.GAMES`; tests inject others."""
    if config is None:
        config = Config.from_env()
    if not config.redis_url:
        raise ValueError("TABLETOP_REDIS_URL is not set (tabletop serve starts a private Redis without it)")
    app = TabletopFlask("tabletop")
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
    # Nothing blocks on Redis while a client waits (service.live), so every command can fail fast: a
    # hung Redis is a 503 within about redis_timeout_seconds, not a stuck request.
    store = connect_store(
        config,
        timeout=config.redis_timeout_seconds,
        max_connections=config.max_active_requests + admission.SPARE_REDIS_CONNECTIONS,
    )
    domain = wiring.build(config, store=store, games=games, seen=_note_seat)
    live = LiveEvents(
        store,
        accounts=domain.accounts.store,
        max_waiters=config.max_waiters,
        confirm_timeout=2 * config.redis_timeout_seconds,
        batch_seconds=config.stream_batch_seconds,
        heartbeat_seconds=config.heartbeat_seconds,
        credential_check_seconds=config.credential_check_seconds,
    )
    request_log.install(app)  # first: every later hook, the rate limiter included, runs with a request id
    limits.install(app, config, store.redis)  # counters beside the match state (a cluster too)
    http_policy.install(app, config)
    metrics = Metrics(store, live)
    app.extensions[EXTENSION] = Services(
        config=config,
        matches=domain.matches,
        metrics=metrics,
        live=live,
        accounts=domain.accounts,
        seeks=domain.seeks,
        challenges=domain.challenges,
        webhooks=domain.webhooks,
        ratings=domain.ratings,
        tournaments=domain.tournaments,
        tournament_scheduler=domain.tournament_scheduler,
        privacy=domain.privacy,
        outbox=domain.outbox,
        push=domain.push,
        chat=domain.chat,
        moderation=domain.moderation,
    )
    idempotency.install(app, config, store.redis)  # Idempotency-Key records, beside the match state
    plugins = [limits.RateLimitDoc(), idempotency.IdempotencyDoc()]
    api = TabletopApi(app, domain.games, plugins)
    register_blueprints(app, api)
    api.finish_document(domain.games)
    errors.register(app)
    metrics.install(app)
    app.wsgi_app = admission.Admission(  # type: ignore[method-assign]
        app.wsgi_app, config.max_active_requests, config.queue_timeout_seconds
    )
    return app


def _note_seat(seat: int | None) -> None:
    """The access line notes the caller's seat: known only once the token has been checked against
    the match, inside the match operation (:meth:`service.domain.matches.reading.MatchReading.caller`)."""
    request_log.annotate(seat=seat)
