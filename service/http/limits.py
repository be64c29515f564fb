"""Rate limits keyed by who is calling, counted in the service's own Redis, and the IETF ``RateLimit``
headers that tell a client how much budget it has left before it is refused.

Counting in Redis (not in each process) makes a limit hold across every gunicorn worker and API pod.
Each request is counted under the partitions of its credential (:func:`service.http.context.
current_caller`), each a scope with its own setting:

========  ===========================================  ======================================
scope     counts                                       setting
========  ===========================================  ======================================
address   anonymous and seat-token calls, per address  ``rate_limit_address``
token     seat-token calls, per token (its SHA-256)    ``rate_limit_token``
app       app-key and player-token calls, per app      the app's ``limits["rate"]``, else
                                                       ``rate_limit_app``
player    player-token calls, per player               ``rate_limit_player``
create    match and tournament creations, per          ``rate_limit_create``
          address / app / player
========  ===========================================  ======================================

So an integration's backend, proxying many users from one address, spends its app's budget, not the
address cap meant for abusers, and one greedy player spends its own budget before its app's.  A
credential that does not resolve (a revoked app key) is counted as anonymous, by its address: the view
answers 401 itself.  Counters are keyed by ids (address, token hash, app id, player key), never by a
token.

The limits are shared by every path a client can call (the API, its spec and docs, metrics, unknown
paths and methods), so a client cannot multiply its budget by spreading requests over routes.  Only
the probes are exempt: ``/healthz`` must never touch Redis, and a throttled probe would restart a
healthy pod.  An empty setting turns its scope off; a request no limit applies to (anonymous, with no
address limit set) costs no Redis round trip.

Every limited response carries the most constrained of the limits that applied, in the structured
fields of draft-ietf-httpapi-ratelimit-headers: ``RateLimit-Policy: "app-60s";q=1200;w=60`` (the quota
and its window in seconds) and ``RateLimit: "app-60s";r=17;t=4`` (what remains, and the seconds until
more is available).  A policy is named ``<scope>-<window>s``.  A refused request is a 429 in the API's
error shape naming the limit and its policy, with ``Retry-After`` in seconds.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import redis
from apispec import APISpec, BasePlugin
from flask import Flask, Response, g, request
from flask.globals import request_ctx
from flask_limiter import ApplicationLimit, Limiter, RequestLimit
from flask_limiter.errors import RateLimitExceeded
from limits import RateLimitItem, parse_many

from service import auth
from service.config import Config
from service.domain.errors import NotFound, Unauthorized
from service.domain.identity import ANONYMOUS_CALLER, APP, PLAYER, Caller
from service.http.context import current_caller, services
from service.http.errors import ApiError
from service.storage.client import STORAGE_ERRORS

log = logging.getLogger(__name__)

#: The paths never limited: the orchestrator's probes.
PROBES = frozenset({"/healthz", "/readyz"})
#: Redis keys of the counters start with this (outside the ``tt:`` match keys).
KEY_PREFIX = "tt:limits"
#: The OpenAPI response component every limited operation refers to for 429.
RESPONSE = "RATE_LIMITED"
#: The scopes, as named in policies and in ``GET /v1/apps/me``.
ADDRESS, TOKEN, APP_SCOPE, PLAYER_SCOPE, CREATE = "address", "token", "app", "player", "create"
#: The headers (draft-ietf-httpapi-ratelimit-headers, the structured-field form).
POLICY_HEADER, LIMIT_HEADER = "RateLimit-Policy", "RateLimit"
#: The key of an app's own request limit in its ``limits`` (set by the operator).
APP_RATE = "rate"

#: The settings of the scopes, checked at start-up.
SETTINGS = (
    "rate_limit_address",
    "rate_limit_token",
    "rate_limit_create",
    "rate_limit_app",
    "rate_limit_player",
)

_CALLER = "tabletop_limits_caller"
_APP_LIMITS = "tabletop_limits_app"
_CREDENTIALED = (APP, PLAYER)
_WARNED: set[str] = set()


def policy_name(scope: str, item: RateLimitItem) -> str:
    """A policy's name: its scope and its window (``app-60s``), the same in every response."""
    return f"{scope}-{item.get_expiry()}s"


def valid_rate(value: Any) -> str | None:
    """``value`` if it is a rate limit string flask-limiter reads (``"1200/minute;50/second"``)."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        parse_many(value)
    except ValueError:
        return None
    return value


def app_rate(config: Config, app_limits: dict[str, Any]) -> str:
    """The request limit of an app: its own ``limits["rate"]`` when the operator set one (a malformed
    one is ignored, so one bad setting cannot fail every request of the app), else the default."""
    own = app_limits.get(APP_RATE)
    if own is not None and valid_rate(own) is None and repr(own) not in _WARNED:
        _WARNED.add(repr(own))  # once per process: it would be every request of that app
        log.warning("ignoring an app's malformed rate limit %r", own)
    return valid_rate(own) or config.rate_limit_app


#: Where :func:`install` keeps the app's :class:`Quotas` (``app.extensions[QUOTAS]``), for the view
#: of an app's own limits and usage (:mod:`service.http.api.quota`).
QUOTAS = "tabletop.quotas"


# -- who is counted ---------------------------------------------------------------------------------


def _caller() -> Caller:
    """The request's caller, or anonymous when its credential does not resolve (resolved once)."""
    found: Caller | None = g.get(_CALLER)
    if found is None:
        try:
            found = current_caller()
        except Unauthorized:
            found = ANONYMOUS_CALLER
        setattr(g, _CALLER, found)
    return found


def _credentialed() -> bool:
    return _caller().kind in _CREDENTIALED


def _address() -> str:
    return request.remote_addr or "unknown"


def _token_key() -> str:
    try:
        token = auth.bearer_token(request.headers.get("Authorization"))
    except ValueError:
        token = None
    return auth.hash_token(token) if token else ""


def _without_seat_token() -> bool:
    return not _token_key() or _credentialed()


def _app_id() -> str:
    return _caller().app or ""


def _player_key() -> str:
    return _caller().player_key or ""


def _uncredentialed() -> bool:
    return not _credentialed()


def _not_a_player() -> bool:
    return _caller().kind != PLAYER


def _creator_key() -> str:
    """Whose creation budget a creation spends: the player's, the app's, else the address's."""
    caller = _caller()
    if caller.kind == PLAYER:
        return f"player:{caller.player_key}"
    if caller.kind == APP:
        return f"app:{caller.app}"
    return _address()


#: The requests the create scope counts: a match, and a tournament (issue 42: one request that may
#: make thousands of matches spends the same budget as one match).
CREATIONS = frozenset({"/v1/matches", "/v1/tournaments"})


def _not_a_creation() -> bool:
    return not (request.method == "POST" and request.path in CREATIONS)


def _exempt() -> bool:
    return request.method == "OPTIONS" or (request.method in ("GET", "HEAD") and request.path in PROBES)


def _unlimited(config: Config) -> Callable[[], bool]:
    """The limiter's request filter: exempt (:func:`_exempt`), or a request no configured limit applies
    to.  An anonymous or seat-token caller is counted only by the address, token and create scopes
    (the app and player scopes exempt it); with those off, or a non-creation and only the create scope
    on, nothing counts it, and the limiter's own bookkeeping (about 5% of a move's CPU, issue 30) is
    skipped.  App keys and player tokens always go through: their app may have a limit of its own."""
    per_caller = bool(config.rate_limit_address or config.rate_limit_token)

    def unlimited() -> bool:
        if _exempt():
            return True
        if per_caller or _credentialed():
            return False
        return not config.rate_limit_create or _not_a_creation()

    return unlimited


def _app_limits(app_id: str) -> dict[str, Any]:
    """The app's ``limits`` (once per request): the caller was resolved, so the app exists, unless it
    was removed since."""
    found: dict[str, Any] | None = g.get(_APP_LIMITS)
    if found is None:
        try:
            found = dict(services().accounts.app(app_id)["limits"] or {})
        except NotFound:
            found = {}
        setattr(g, _APP_LIMITS, found)
    return found


# -- the budget left --------------------------------------------------------------------------------


def _wait(item: RateLimitItem, reset: float, remaining: int, now: float) -> int:
    """Whole seconds until more of ``item`` is available: 0 for an untouched budget, else at least 1
    (the sliding window's reset can land on ``now`` exactly, which would read as "all back now") and
    at most the window (``now`` read a moment before the limiter's own clock must not make 61 s of a
    minute)."""
    if remaining >= item.amount:
        return 0
    return max(1, min(item.get_expiry(), math.ceil(reset - now)))


def _scope(limit: RequestLimit) -> str:
    return str(limit.request_args[-1])  # flask-limiter's arguments of a shared limit: key, scope


def _budget(limit: RequestLimit, now: float) -> tuple[int, int]:
    """What is left of ``limit`` and the seconds until more is: a breached one has nothing left until
    ``Retry-After``, whatever the sliding window's rounding says."""
    reset, remaining = limit.window
    if limit.breached:
        return 0, _wait(limit.limit, reset, 0, now)
    return remaining, _wait(limit.limit, reset, remaining, now)


def _headers(limit: RequestLimit, remaining: int, wait: int) -> dict[str, str]:
    """The two fields for one limit (one policy item each)."""
    item = limit.limit
    name = policy_name(_scope(limit), item)
    return {
        POLICY_HEADER: f'"{name}";q={item.amount};w={item.get_expiry()}',
        LIMIT_HEADER: f'"{name}";r={remaining};t={wait}',
    }


def _most_constrained(limiter: Limiter) -> RequestLimit | None:
    """The breached limit, else the one with the least left (the one that would refuse first), the
    longer wait breaking a tie."""
    current = limiter.current_limit
    if current is None or current.breached:
        return current
    return min(limiter.current_limits, key=lambda lim: (lim.remaining, -lim.window.reset_time))


class Quotas:
    """What ``GET /v1/apps/me`` shows of an app's limits: the limits in effect and its own counters."""

    def __init__(self, config: Config, limiter: Limiter) -> None:
        self.config = config
        self.limiter = limiter

    def rates(self, app_limits: dict[str, Any]) -> dict[str, str | None]:
        """The request limits that apply to an app's calls, per scope (``None``: off)."""
        return {
            APP_SCOPE: app_rate(self.config, app_limits) or None,
            PLAYER_SCOPE: self.config.rate_limit_player or None,
            CREATE: self.config.rate_limit_create or None,
        }

    def usage(self, app_id: str, app_limits: dict[str, Any]) -> list[dict[str, Any]]:
        """The app's own counters (its key's and its players' requests; its key's creations): per
        limit, what is left and when more will be."""
        now = time.time()
        rates = self.rates(app_limits)
        counters = ((APP_SCOPE, app_id), (CREATE, f"app:{app_id}"))
        found = []
        for scope, key in counters:
            rate = rates[scope]
            for item in parse_many(rate) if rate else []:
                reset, remaining = self.limiter.limiter.get_window_stats(item, key, scope)
                found.append(
                    {
                        "scope": scope,
                        "policy": policy_name(scope, item),
                        "limit": str(item),
                        "quota": item.amount,
                        "window": item.get_expiry(),
                        "remaining": remaining,
                        "reset": _wait(item, reset, remaining, now),
                    }
                )
        return found


# -- installing -------------------------------------------------------------------------------------


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


def _limits(config: Config) -> list[str | Callable[[], str] | ApplicationLimit]:
    def app_rate_now() -> str:
        # Called for every request (flask-limiter reads a callable limit each time): only an app's
        # own calls look its limits up.
        app_id = _app_id() if _credentialed() else ""
        return app_rate(config, _app_limits(app_id)) if app_id else config.rate_limit_app

    def limit(
        value: str | Callable[[], str], key: Callable[[], str], scope: str, **kw: Any
    ) -> ApplicationLimit:
        return ApplicationLimit(value, key_function=key, scope=scope, **kw)

    found: list[str | Callable[[], str] | ApplicationLimit] = [
        limit(app_rate_now, _app_id, APP_SCOPE, exempt_when=_uncredentialed)
    ]
    if config.rate_limit_address:
        found.append(limit(config.rate_limit_address, _address, ADDRESS, exempt_when=_credentialed))
    if config.rate_limit_token:
        found.append(limit(config.rate_limit_token, _token_key, TOKEN, exempt_when=_without_seat_token))
    if config.rate_limit_player:
        found.append(limit(config.rate_limit_player, _player_key, PLAYER_SCOPE, exempt_when=_not_a_player))
    if config.rate_limit_create:
        found.append(limit(config.rate_limit_create, _creator_key, CREATE, exempt_when=_not_a_creation))
    return found


#: Where flask-limiter keeps its per-request context (on the request context).
_LIMITER_CONTEXT = "_limiter_request_context"


def _checked() -> bool:
    """Whether flask-limiter looked at this request (it keeps a context on the request's then)."""
    return hasattr(request_ctx._get_current_object(), _LIMITER_CONTEXT)  # type: ignore[attr-defined]


def _only_when_limited(app: Flask) -> None:
    """flask-limiter's after-request and teardown hooks read (and so create) its per-request context
    on every request: about 25 µs of a health check's CPU (issue 30).  A request no check ran for has
    no such context, and for it both are no-ops (our headers are off, no limit deducts by response):
    they run only when it exists."""

    def gated(hook: Callable[[Any], Any], passes_through: bool) -> Callable[[Any], Any]:
        def run(arg: Any) -> Any:
            if _checked():
                return hook(arg)
            return arg if passes_through else None

        return run

    for funcs, method, passes_through in (
        (app.after_request_funcs.get(None, []), Limiter._Limiter__inject_headers, True),  # type: ignore[attr-defined]
        (app.teardown_request_funcs.get(None, []), Limiter._Limiter__release_context, False),  # type: ignore[attr-defined]
    ):
        for i, hook in enumerate(funcs):
            # after-request: a partial of the function; teardown: a bound method
            if getattr(hook, "func", None) is method or getattr(hook, "__func__", None) is method:
                funcs[i] = gated(hook, passes_through)


def install(app: Flask, config: Config, client: redis.Redis) -> Limiter:
    """Limit every path but the probes as ``config`` (and each app's own ``limits``) say.

    The app scope is always installed, even with no default, since an operator may give one app a
    limit of its own; a caller no configured limit applies to costs no Redis round trip."""
    for name in SETTINGS:
        value = getattr(config, name)
        if value and valid_rate(value) is None:  # fail at start-up, not with a 500 on the first request
            raise ValueError(f"TABLETOP_{name.upper()}={value!r} is not a rate limit")
    limiter = Limiter(
        _address,
        app=app,
        application_limits=_limits(config),
        strategy="sliding-window-counter",
        **_storage(config, client),
        headers_enabled=False,  # ours are the IETF draft's, below
        # flask-limiter exempts requests by their endpoint: none (an unknown path or method) or a static
        # one (the docs' files).  One name for every request leaves the exemptions to _exempt.
        request_identifier=lambda: "request",
    )
    unlimited = _unlimited(config)
    limiter.request_filter(unlimited)
    # flask-limiter's check costs a health check or a move a few per cent of its CPU even when the
    # filter exempts the request (it still evaluates an empty set of limits): skip it then, so only a
    # request some limit may count pays for it.  Its outcome would be the same: nothing counted, no
    # limit for the headers.
    checks = app.before_request_funcs.setdefault(None, [])
    check = limiter._check_request_limit
    if check in checks:

        def _check_limits() -> None:
            if not unlimited():
                check()

        checks[checks.index(check)] = _check_limits
    _only_when_limited(app)
    app.extensions[QUOTAS] = Quotas(config, limiter)

    @app.errorhandler(RateLimitExceeded)
    def _too_many(exc: RateLimitExceeded) -> Response:
        current = limiter.current_limit  # the breached limit
        headers, policy, retry = {}, None, 1
        if current is not None:
            remaining, retry = _budget(current, time.time())
            headers = _headers(current, remaining, retry)
            policy = policy_name(_scope(current), current.limit)
        return ApiError(
            429,
            "rate_limited",
            f"rate limit {exc.description} ({policy}) exceeded; retry after {retry} s",
            {"limit": exc.description, "policy": policy, "retry_after": retry},
            headers={**headers, "Retry-After": str(retry)},
        ).response()

    @app.after_request
    def _rate_limit_headers(response: Response) -> Response:
        if LIMIT_HEADER in response.headers or not _checked():  # a 429 (above), or no limit applied
            return response
        try:
            limit = _most_constrained(limiter)
            if limit is not None:
                response.headers.update(_headers(limit, *_budget(limit, time.time())))
        except STORAGE_ERRORS as exc:  # the answer matters more than its budget hint
            log.warning("rate limit headers left out: %s", exc)
        return response

    return limiter


# -- the spec ---------------------------------------------------------------------------------------

_HEADER_DOCS = {
    POLICY_HEADER: {
        "description": "The most constrained rate limit that applied to this request "
        "(draft-ietf-httpapi-ratelimit-headers): its policy name (`<scope>-<window>s`, the scope one of "
        "`address`, `token`, `app`, `player`, `create`), quota `q` and window `w` in seconds, e.g. "
        '`"app-60s";q=1200;w=60`. Absent when no limit applies.',
        "schema": {"type": "string"},
    },
    LIMIT_HEADER: {
        "description": "What is left of that policy's quota (`r`) and the seconds until more is "
        'available (`t`), e.g. `"app-60s";r=17;t=4`. Absent when no limit applies.',
        "schema": {"type": "string"},
    },
}


class RateLimitDoc(BasePlugin):
    """apispec plugin: every operation but the probes documents the 429 a deployment's limits may
    answer, and the ``RateLimit`` headers its successful answers carry."""

    def init_spec(self, spec: APISpec) -> None:
        for name, doc in _HEADER_DOCS.items():
            spec.components.header(name, doc)
        spec.components.response(
            RESPONSE,
            {
                "description": "Too many requests: from this address or seat token, or (with an app key or "
                "a player token) from this app or player; `details.limit` and `details.policy` name the "
                "limit. Or (event streams and long-polls) too many waiting clients on this server, from "
                "this address, app or player. Retry after `Retry-After` seconds.",
                "headers": {
                    "Retry-After": {
                        "description": "Seconds to wait before retrying.",
                        "schema": {"type": "integer", "minimum": 1},
                    },
                    **_header_refs(),
                },
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
            },
        )

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        if not path or path in PROBES or not operations:
            return
        for operation in operations.values():
            responses = operation.setdefault("responses", {})
            for status, response in responses.items():
                if str(status).startswith("2") and isinstance(response, dict):
                    response.setdefault("headers", {}).update(_header_refs())
            responses["429"] = RESPONSE


def _header_refs() -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in _HEADER_DOCS}
