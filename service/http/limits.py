"""Rate limits per client address and per seat token, counted in the service's own Redis.

Counting in Redis (not in each process) makes a limit hold across every gunicorn worker and API pod.
Both limits are shared by every path a client can call (the API, its spec and docs, metrics, unknown
paths and methods), so a client cannot multiply its budget by spreading requests over routes.  Only
the probes are exempt: ``/healthz`` must never touch Redis, and a throttled probe would restart a
healthy pod.  Match creation has a limit per address of its own besides (a match with bots costs the
workers).  A refused request is a 429 in the API's error shape with ``Retry-After`` in seconds.

The token limit is keyed by the token's SHA-256, so no seat token is ever written to Redis.  The
address is the peer's, or the client's as reported by ``trusted_proxies`` reverse proxies (see
:mod:`service.http.http_policy`).  Empty limits (the default) turn a limiter off: no Redis round trip.
"""

from __future__ import annotations

import math
import time
from typing import Any
from urllib.parse import urlsplit

import redis
from apispec import APISpec, BasePlugin
from flask import Flask, Response, request
from flask_limiter import ApplicationLimit, Limiter
from flask_limiter.errors import RateLimitExceeded
from limits import parse_many

from service import auth
from service.config import Config
from service.http.errors import ApiError

#: The paths never limited: the orchestrator's probes.
PROBES = frozenset({"/healthz", "/readyz"})
#: Redis keys of the counters start with this (outside the ``tt:`` match keys).
KEY_PREFIX = "tt:limits"
#: The OpenAPI response component every limited operation refers to for 429.
RESPONSE = "RATE_LIMITED"


def _address() -> str:
    return request.remote_addr or "unknown"


def _token_key() -> str:
    try:
        token = auth.bearer_token(request.headers.get("Authorization"))
    except ValueError:
        token = None
    return auth.hash_token(token) if token else ""


def _without_token() -> bool:
    return not _token_key()


def _not_a_creation() -> bool:
    return not (request.method == "POST" and request.path == "/v1/matches")


def _exempt() -> bool:
    return request.method == "OPTIONS" or (request.method in ("GET", "HEAD") and request.path in PROBES)


def _storage(config: Config, client: redis.Redis) -> dict[str, Any]:
    """Where the counters live: the state Redis, through the API's own connection pool; on a cluster,
    the limits library's cluster storage (its sliding-window keys share a hash tag per counter)."""
    if not config.redis_cluster:
        return {
            "storage_uri": "redis://",
            "storage_options": {"connection_pool": client.connection_pool, "key_prefix": KEY_PREFIX},
        }
    node = urlsplit(config.redis_url).netloc
    timeout = config.redis_timeout_seconds
    return {
        "storage_uri": f"redis+cluster://{node}",
        "storage_options": {
            "key_prefix": KEY_PREFIX,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
        },
    }


def install(app: Flask, config: Config, client: redis.Redis) -> Limiter | None:
    """Limit every path but the probes as ``config`` says; ``None`` when no limit is set."""
    for name in ("rate_limit_address", "rate_limit_token", "rate_limit_create"):
        try:  # fail at start-up, not with a 500 on the first request
            parse_many(getattr(config, name) or "1/second")
        except ValueError:
            raise ValueError(
                f"TABLETOP_{name.upper()}={getattr(config, name)!r} is not a rate limit"
            ) from None
    limits: list[Any] = []
    if config.rate_limit_address:
        limits.append(ApplicationLimit(config.rate_limit_address, key_function=_address, scope="address"))
    if config.rate_limit_token:
        limits.append(
            ApplicationLimit(
                config.rate_limit_token, key_function=_token_key, scope="token", exempt_when=_without_token
            )
        )
    if config.rate_limit_create:
        limits.append(
            ApplicationLimit(
                config.rate_limit_create, key_function=_address, scope="create", exempt_when=_not_a_creation
            )
        )
    if not limits:
        return None
    limiter = Limiter(
        _address,
        app=app,
        application_limits=limits,
        strategy="sliding-window-counter",
        **_storage(config, client),
        headers_enabled=False,
        # flask-limiter exempts requests by their endpoint: none (an unknown path or method) or a static
        # one (the docs' files).  One name for every request leaves the exemptions to _exempt.
        request_identifier=lambda: "request",
    )
    limiter.request_filter(_exempt)

    @app.errorhandler(RateLimitExceeded)
    def _too_many(exc: RateLimitExceeded) -> Response:
        current = limiter.current_limit
        retry = max(1, math.ceil(current.reset_at - time.time())) if current is not None else 1
        return ApiError(
            429,
            "rate_limited",
            f"rate limit {exc.description} exceeded; retry after {retry} s",
            {"limit": exc.description, "retry_after": retry},
            headers={"Retry-After": str(retry)},
        ).response()

    return limiter


class RateLimitDoc(BasePlugin):
    """apispec plugin: every operation but the probes documents the 429 a deployment's limits may answer."""

    def init_spec(self, spec: APISpec) -> None:
        spec.components.response(
            RESPONSE,
            {
                "description": "Too many requests from this address or seat token, or (event streams and "
                "long-polls) too many waiting clients on this server or from this address; retry after "
                "`Retry-After` seconds.",
                "headers": {
                    "Retry-After": {
                        "description": "Seconds to wait before retrying.",
                        "schema": {"type": "integer", "minimum": 1},
                    }
                },
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            },
        )

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        if path and path not in PROBES and operations:
            for operation in operations.values():
                operation.setdefault("responses", {})["429"] = RESPONSE
