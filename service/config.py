"""Service settings, read from environment variables that all start with ``TABLETOP_``.

One frozen object built once per app, so a request never reads the environment and tests can build a
config by keyword.  The configuration table of docs/operating.md lists the same names and defaults.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

PREFIX = "TABLETOP_"


@dataclass(frozen=True)
class Config:
    """Every knob of the service; the field name upper-cased with the prefix is its variable."""

    #: Redis to use; empty means "start a private one" (``tabletop serve`` only, development mode).
    redis_url: str = ""
    #: ``redis_url`` names any node of a Redis Cluster holding the match state (then
    #: ``queue_redis_url`` is required: RQ does not run on a cluster).
    redis_cluster: bool = False
    #: Redis for RQ's queues, its scheduler and the worker heartbeats; empty: ``redis_url``.
    queue_redis_url: str = ""
    #: On a cluster: replicas that must confirm a match's write (``WAIT``) before the API answers it, so
    #: a master killed right after cannot lose an acknowledged move; 0 trusts the master alone.
    redis_wait_replicas: int = 1
    host: str = "127.0.0.1"
    port: int = 8000
    #: Request bodies larger than this are refused with 413.
    max_body_bytes: int = 64 * 1024
    #: Seconds a finished match (state, events, log) is kept before Redis expires it.
    retention_seconds: int = 7 * 24 * 3600
    #: Seconds a waiting match (open seats, or a rematch offer not yet taken by every player) is kept
    #: from its creation; unless it started by then, Redis expires it (a GET is then 404).
    waiting_seconds: int = 24 * 3600
    #: Seconds an Idempotency-Key record is kept (Stripe keeps them at least a day).
    idempotency_seconds: int = 24 * 3600
    #: The operator's token for the apps' admin API (``/v1/admin/apps``); empty turns that API off
    #: (``tabletop apps`` works on the Redis directly either way).
    admin_token: str = ""
    #: Whether a caller without an app key or a player token may create matches (anonymous play); the
    #: Helm chart turns it off.  Joining, seat tokens and spectating work either way.
    anonymous: bool = True
    #: The longest default warning: a time control without its own ``warning_seconds`` warns its
    #: player (``clock_warning``) a share of the decision's time before the deadline, at most this
    #: many seconds (0: no warning unless the control asks; see service/domain/matches/clocks.py).
    clock_warning_seconds: float = 3600.0
    #: Webhooks (issue 26, see service/domain/webhooks/): whether endpoint URLs may be plain
    #: ``http``; whether they may resolve to loopback, private, link-local or metadata addresses
    #: (``tabletop serve``'s development mode turns it on); seconds one delivery may take; deliveries
    #: one endpoint has in flight at once; seconds a message is retried from its creation; seconds an
    #: endpoint may fail throughout before it is disabled; seconds a rotated secret stays valid;
    #: endpoints per app.
    webhook_allow_http: bool = False
    webhook_allow_private: bool = False
    webhook_timeout_seconds: float = 5.0
    webhook_concurrency: int = 4
    webhook_retry_seconds: float = 24 * 3600.0
    webhook_disable_after_seconds: float = 3 * 24 * 3600.0
    webhook_secret_grace_seconds: float = 24 * 3600.0
    webhook_max_endpoints: int = 20
    #: Web Push (issue 48, see service/domain/push/): the server's VAPID private key (base64url of the
    #: raw 32-byte P-256 key, or PEM; empty: generated once and kept in Redis), the contact push services
    #: see in every signature (``mailto:`` or ``https:``), subscriptions one player may have, and seconds
    #: a message is retried at most (never past its TTL).  Subscription URLs obey the webhook settings
    #: above (https, public addresses) and are sent with ``webhook_timeout_seconds``.
    vapid_private_key: str = ""
    vapid_subject: str = "mailto:operator@localhost"
    push_max_subscriptions: int = 10
    push_retry_seconds: float = 3600.0
    #: Matchmaking (issue 27): seconds an open seek lives unless it says otherwise, seconds a challenge
    #: waits for its answers, and rated matches one bot player may play at once.
    seek_seconds: int = 15 * 60
    challenge_seconds: int = 24 * 3600
    bot_max_matches: int = 10
    #: Takebacks (issue 47, service/domain/matches/takebacks.py): requests one seat may make in one
    #: match (0: no takebacks), and seconds a request waits for its answers when the pending decision has
    #: no deadline (with one, it expires with the clock).
    takeback_limit: int = 3
    takeback_seconds: float = 300.0
    #: Chat (issue 47, service/domain/chat/): messages one author may write in one match's chat per
    #: window of ``chat_rate_seconds`` (429 ``chat_rate_limited`` beyond), and characters of a message
    #: at most after normalisation (422 beyond).  All at least 1.
    chat_rate_limit: int = 5
    chat_rate_seconds: float = 10.0
    chat_max_length: int = 500
    #: Tournaments (issue 31): matches one tournament has under way at once unless it says otherwise,
    #: matches one tournament may have in all, and seconds between the workers' looks at the running
    #: and scheduled tournaments (what a dead process left half done, a start that came due).
    tournament_parallel: int = 32
    tournament_max_matches: int = 10_000
    tournament_sweep_seconds: float = 5.0
    #: Per app (issue 42): tournaments scheduled or running at once, and their matches not over (made
    #: or still to make) in all; past either, creation is 409 naming it (0: no cap).
    tournament_max_running: int = 10
    tournament_max_scheduled_matches: int = 20_000
    #: Whether ``POST /v1/matches`` honours a client-chosen seed (reproducible tests only).
    allow_seed: bool = False
    #: Upper bound for the events long-poll ``wait`` parameter, in seconds.
    max_wait_seconds: float = 30.0
    #: A streaming events response writes a heartbeat at least this often.
    heartbeat_seconds: float = 15.0
    #: Events arriving within this long of a stream's last write go out together in its next write.
    stream_batch_seconds: float = 0.1
    #: A stream is closed after this long; clients reconnect with ``after``/``Last-Event-ID``.
    stream_max_seconds: float = 3600.0
    #: Each API process reads what the credentials of its open streams and long-polls stand on this
    #: often, and ends those revoked: revocations are announced at once, this catches one a process
    #: missed (its Redis connection was down).  Expired tokens' waiters end within a second anyway.
    credential_check_seconds: float = 5.0
    #: Default and maximum page size of ``GET /v1/matches``.
    page_size: int = 20
    max_page_size: int = 100
    #: Rate limits over all /v1 endpoints, counted in Redis (flask-limiter syntax, e.g.
    #: "1200/minute;50/second"); empty turns a limit off (see service/http/limits.py).
    rate_limit_address: str = ""
    rate_limit_token: str = ""
    #: With an app key or a player token the limits are keyed by app and by player instead of by address
    #: (an app's own ``limits`` override ``rate_limit_app``), see service/http/limits.py.
    rate_limit_app: str = ""
    rate_limit_player: str = ""
    #: Match creations per client address (flask-limiter syntax, e.g. "30/minute"), on top of the above.
    rate_limit_create: str = ""
    #: Reverse proxies in front of the API whose X-Forwarded-For/-Proto to believe (behind an ingress: 1).
    trusted_proxies: int = 0
    #: Comma-separated origins that browsers may call the API from; empty: no cross-origin access.
    cors_origins: str = ""
    #: Level of the JSON logs on stderr (DEBUG, INFO, WARNING, ...).
    log_level: str = "INFO"
    #: Seconds a Redis command may take (connect, or read its reply) before the request fails with 503;
    #: a dropped connection is retried once, a timeout never (a hung Redis must not hold a client).
    redis_timeout_seconds: float = 1.0
    #: Requests one API process works on at once (the others wait in line, in arrival order, at most
    #: ``queue_timeout_seconds``, then get 503).  Also bounds its Redis connections.  Waiting clients
    #: (streams, long-polls) hold no place while they wait, and ``/healthz`` never waits in line.
    max_active_requests: int = 32
    queue_timeout_seconds: float = 10.0
    #: Clients waiting for events (open streams and long-polls) one API process serves at most, and at
    #: most per client address; beyond that a new one gets 429 with Retry-After.
    max_waiters: int = 10_000
    max_waiters_per_address: int = 500
    #: The same caps for callers with credentials: per app (its key and its players' tokens together)
    #: and per player, in place of the address cap.
    max_waiters_per_app: int = 5_000
    max_waiters_per_player: int = 20
    #: Open connections one API process accepts (waiting clients, keep-alive and requests in flight);
    #: beyond that it accepts no more until one closes.
    max_connections: int = 12_000
    #: Seconds a client has to send a request's line and headers (and how long an idle keep-alive
    #: connection is kept), and to send its whole body; slower clients are dropped (the body with 408).
    header_timeout_seconds: float = 10.0
    body_timeout_seconds: float = 10.0
    #: Seconds a response write may wait for a client that does not read (a stalled stream) before
    #: the connection is dropped.
    send_timeout_seconds: float = 30.0
    #: The largest think budget a bot seat or a hint may ask for, in milliseconds (422 beyond).
    max_think_ms: int = 10_000
    #: Hints one client address may have queued or running at once (429 with Retry-After beyond; 0: no
    #: bound), so one client's flood of long hints cannot queue ahead of everyone else's.
    max_hints_per_address: int = 8
    #: Seconds a bot job goes on playing the bots' decisions that follow its own (each its own commit)
    #: before it hands the match back to the queue, so one long all-bot match cannot hold a worker.
    bot_slice_seconds: float = 0.5
    #: Whether ``/readyz`` needs a bot worker with a fresh heartbeat (so an orchestrator sees a dead
    #: fleet); off for an API that serves human matches only.
    ready_needs_workers: bool = True
    #: Seconds between two sweeps for bot turns that have no live job (``tabletop worker``).
    sweep_seconds: int = 30
    #: A running bot job whose worker has sent no heartbeat for this long is presumed dead; the sweep
    #: then enqueues the turn again.  Workers heartbeat every quarter of it.
    bot_stall_seconds: int = 15

    def __post_init__(self) -> None:
        for name in ("chat_rate_limit", "chat_rate_seconds", "chat_max_length"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{PREFIX}{name.upper()} must be positive")
        if self.redis_cluster and not self.queue_redis_url:
            raise ValueError(
                "TABLETOP_REDIS_CLUSTER=true needs TABLETOP_QUEUE_REDIS_URL: RQ (bot turns, hints) does not "
                "run on Redis Cluster; give it a Redis of its own"
            )

    @property
    def queue_url(self) -> str:
        """The Redis of RQ: ``queue_redis_url``, else the state Redis."""
        return self.queue_redis_url or self.redis_url

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Config:
        """Settings from ``TABLETOP_*`` variables (typed like the defaults), then ``overrides``."""
        environ = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = environ.get(PREFIX + f.name.upper())
            if raw is None:
                continue
            kind: type[Any] = type(f.default)
            try:
                values[f.name] = _parse_bool(raw) if kind is bool else kind(raw)
            except ValueError:
                raise ValueError(f"{PREFIX}{f.name.upper()}={raw!r} is not a valid {kind.__name__}") from None
        values.update(overrides)
        return cls(**values)


def _parse_bool(raw: str) -> bool:
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off", ""}:
        return False
    raise ValueError(raw)
