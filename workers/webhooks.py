"""The webhook delivery lane: a process of its own that sends the apps' queued webhook messages
(issue 26, point 3; the rules are :mod:`service.domain.webhooks.delivery`' and
:mod:`service.domain.webhooks.retries`', the storage :mod:`service.storage.webhooks`'s, the HTTP client
:mod:`workers.webhook_http`'s).

Why a process of its own, and not an RQ queue: a delivery mostly waits on someone else's server (up to
``webhook_timeout_seconds``), and hundreds wait at once.  RQ runs a job at a time per worker; here each
delivery is a greenlet (gevent, the standard library patched when the process starts), so one process
keeps up to :data:`MAX_IN_FLIGHT` deliveries going, and nothing it does shares a queue, a worker or a
process with bot turns, hints or clocks.  ``tabletop worker`` starts it beside its bot lanes
(:func:`spawn`); ``python -m workers.webhooks`` starts one alone (it re-executes itself under
``python -m gevent.monkey`` so the patching comes before any import).

The loop: every :data:`POLL_SECONDS` (at once when a delivery of its own made work due) it reads the
endpoints due from the global index, takes each (an atomic move of its score: several lanes share the
index safely, each endpoint is taken by one at a time), claims up to ``webhook_concurrency`` minus
those in flight of its due messages with a lease (``webhook_timeout_seconds`` + 10 s), and delivers
each in a greenlet: check that it may still be sent
(:meth:`~service.domain.webhooks.webhooks.Webhooks.stopped`: the endpoint still enabled, its app not revoked,
read at most a second before), sign, POST (``timeout``: ``webhook_timeout_seconds``, and a hard stop a second
after), record the outcome.  A slow or dead receiver holds at most ``webhook_concurrency`` greenlets of the
lane, for at most the timeout each, so it never delays another endpoint's deliveries.  When a failing endpoint
answers 2xx again, recording that outcome makes its waiting messages due at once (the catch-up) and wakes the
loop, so the backlog follows the first success without waiting for the retries' pauses.

Failures: a lane killed mid-delivery leaves its messages leased; when the leases end a lane claims them
again and sends them with the same ``webhook-id`` (at least once).  Redis away: the loop waits with
backoff (like the bot lanes in :mod:`workers.worker`) and resumes from what Redis kept; a delivery whose
outcome cannot be recorded retries the write until its lease ends (after that the message is sent
again anyway).  SIGTERM: no more claims; deliveries in flight get up to the timeout to finish.

Every setting comes from ``TABLETOP_*`` (:meth:`service.config.Config.from_env`): tests and benchmarks
run lanes with short timeouts or retry windows that way (``TABLETOP_WEBHOOK_RETRY_SECONDS=240`` makes
the longest pause between two attempts 10 s).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import fields
from typing import Any

import gevent
import gevent.event
import gevent.pool

from service import logs
from service.config import PREFIX, Config
from service.domain.webhooks.delivery import Delivery
from service.domain.webhooks.webhooks import Webhooks
from service.storage.client import STORAGE_ERRORS
from service.wiring import delivery_webhooks
from workers import webhook_http

log = logging.getLogger(__name__)

#: Deliveries one lane process has in flight at most (greenlets, each a socket).
MAX_IN_FLIGHT = 1000
#: Seconds between two looks at the due index when nothing happened meanwhile.
POLL_SECONDS = 0.02
#: Endpoints read from the due index per look.
DUE_BATCH = 200
#: Redis connections of the lane (the deliveries share them; a command holds one for a round trip).
REDIS_CONNECTIONS = 64
#: Seconds between two attempts to reach a Redis that went away (doubling up to the second).
BACKOFF = (0.5, 5.0)
#: Seconds after the timeout at which a delivery is stopped whatever the client does.
HARD_STOP_MARGIN = 1.0
#: Seconds between two lines of the lane's counts in the log (only when it delivered something).
STATS_SECONDS = 60.0

Post = Callable[..., webhook_http.Reply]


class Lane:
    """One delivery lane: the loop claiming due messages and the greenlets delivering them."""

    def __init__(
        self,
        config: Config,
        *,
        parent: int | None = None,
        post: Post = webhook_http.post,
        webhooks: Webhooks | None = None,
    ) -> None:
        self.config = config
        self.parent = parent
        self.post = post
        if webhooks is None:
            webhooks = delivery_webhooks(config, REDIS_CONNECTIONS)
        self.webhooks = webhooks
        self.pool = gevent.pool.Pool(MAX_IN_FLIGHT)
        self.wakeup = gevent.event.Event()
        self.stopping = False
        self.counts: dict[str, int] = {
            "delivered": 0, "retry": 0, "failed": 0, "gone": 0, "stale": 0, "held": 0
        }  # fmt: skip

    def stop(self) -> None:
        """Claim nothing more; the loop ends once the deliveries in flight are done."""
        self.stopping = True
        self.wakeup.set()

    def alive(self) -> bool:
        return not self.stopping and (self.parent is None or os.getppid() == self.parent)

    def run(self) -> None:
        """Deliver until stopped (or the parent worker is gone), riding out Redis outages."""
        delay = BACKOFF[0]
        stats_at = time.monotonic() + STATS_SECONDS
        while self.alive():
            try:
                started = self.look()
            except STORAGE_ERRORS as exc:
                log.warning("webhooks: redis unavailable (%s); retrying in %.1f s", exc, delay)
                gevent.sleep(delay)
                delay = min(delay * 2, BACKOFF[1])
                continue
            except Exception:  # a bug must not stop every delivery: what it claimed is leased, not lost
                log.exception("webhooks: a look at the due index failed")
                gevent.sleep(delay)
                delay = min(delay * 2, BACKOFF[1])
                continue
            delay = BACKOFF[0]
            if not started:
                self.wakeup.wait(POLL_SECONDS)
                self.wakeup.clear()
            if time.monotonic() >= stats_at:
                stats_at = time.monotonic() + STATS_SECONDS
                self._log_counts()
        self.pool.join(timeout=self.config.webhook_timeout_seconds + HARD_STOP_MARGIN + 1)
        self._log_counts()

    def look(self) -> int:
        """One look at the due index: claim and start what is due; the number of deliveries started."""
        room = self.pool.free_count()
        if room <= 0:
            return 0
        now = time.time()
        started = 0
        for member, score in self.webhooks.due(now, DUE_BATCH):
            room = self.pool.free_count()
            if room <= 0 or not self.alive():
                break
            for delivery in self.webhooks.claim(member, score, now, room):
                self.pool.spawn(self.deliver, delivery)
                started += 1
        return started

    def deliver(self, delivery: Delivery) -> None:
        """Send one message and record the outcome (see the module)."""
        config = self.config
        reply: webhook_http.Reply | None = None
        error: str | None = None
        started = time.monotonic()
        try:
            # The endpoint may have been disabled, or its app revoked, since the claim: never sent then.
            if self.webhooks.stopped(delivery) is not None:
                self.counts["held"] += 1
                return
        except STORAGE_ERRORS as exc:  # unknown: not sent now; the lease puts it back to be tried again
            log.warning("webhooks: could not check endpoint %s before sending (%s)", delivery.endpoint, exc)
            return
        try:
            delivery = self.webhooks.as_sent(delivery)  # a your_turn's decision, as it stands now
        except STORAGE_ERRORS as exc:  # not sent now; the lease puts it back to be tried again
            log.warning("webhooks: could not build the decision of %s (%s)", delivery.id, exc)
            return
        try:
            headers = self.webhooks.headers(delivery, time.time())
            with gevent.Timeout(config.webhook_timeout_seconds + HARD_STOP_MARGIN):
                reply = self.post(
                    delivery.url,
                    delivery.body,
                    headers,
                    timeout=config.webhook_timeout_seconds,
                    allow_private=config.webhook_allow_private,
                    allow_http=config.webhook_allow_http,
                )
        except gevent.Timeout:
            reply = None
            error = f"timeout after {config.webhook_timeout_seconds:g} s"
        except Exception as exc:  # a bug of the client must not lose the message: it is retried
            log.exception("webhooks: delivery of %s to endpoint %s failed", delivery.id, delivery.endpoint)
            error = f"internal error: {type(exc).__name__}"
        latency = (time.monotonic() - started) * 1000.0
        if reply is not None:
            status, reply_headers, latency, error = reply.status, reply.headers, reply.latency_ms, reply.error
        else:
            status, reply_headers = None, {}
        self._record(delivery, status, reply_headers, latency, error)

    def _record(
        self,
        delivery: Delivery,
        status: int | None,
        headers: dict[str, str],
        latency: float,
        error: str | None,
    ) -> None:
        """Record an attempt's outcome, retrying the write while Redis is away (until the lease ends:
        then the message goes out again anyway)."""
        give_up = time.monotonic() + self.webhooks.lease_seconds
        delay = BACKOFF[0] / 5
        while True:
            try:
                recorded = self.webhooks.record(
                    delivery, status=status, headers=headers, latency_ms=latency, error=error, now=time.time()
                )
                break
            except STORAGE_ERRORS as exc:
                if time.monotonic() + delay > give_up:
                    log.warning("webhooks: outcome of %s not recorded (%s); it will be sent again",
                                delivery.id, exc)  # fmt: skip
                    return
                gevent.sleep(delay)
                delay = min(delay * 2, BACKOFF[1])
        key = recorded.outcome if recorded.counted else "stale"
        self.counts[key] = self.counts.get(key, 0) + 1
        if recorded.counted and recorded.next_due is not None and recorded.next_due <= time.time():
            self.wakeup.set()  # the match's next message is due now: claim it without waiting a poll

    def _log_counts(self) -> None:
        if any(self.counts.values()):
            log.info(
                "webhooks: lane %s: %s", os.getpid(), self.counts, extra={"webhook_counts": dict(self.counts)}
            )


def environment(config: Config) -> dict[str, str]:
    """The process environment carrying ``config`` (every setting as its ``TABLETOP_*`` variable), so a
    lane started by ``tabletop worker`` runs with the worker's settings, overrides included."""
    env = dict(os.environ)
    for f in fields(config):
        value: Any = getattr(config, f.name)
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        env[PREFIX + f.name.upper()] = text
    return env


def spawn(config: Config, *, parent: int | None = None, **popen: Any) -> subprocess.Popen[bytes]:
    """Start a lane process with ``config``'s settings; with ``parent``, it stops when that process is
    gone (even killed), like the worker's other children."""
    args = [sys.executable, "-m", "gevent.monkey", "--module", "workers.webhooks"]
    if parent is not None:
        args += ["--parent", str(parent)]
    return subprocess.Popen(args, env=environment(config), **popen)


def main(argv: list[str] | None = None) -> int:
    """The lane process (run under gevent's patching, see the module)."""
    parser = argparse.ArgumentParser(prog="python -m workers.webhooks", description=__doc__.split("\n")[0])
    parser.add_argument("--parent", type=int, help="stop when this process is gone")
    args = parser.parse_args(argv)
    config = Config.from_env()
    if not config.redis_url:
        print("workers.webhooks: TABLETOP_REDIS_URL is not set", file=sys.stderr)
        return 2
    logs.configure(config.log_level)
    lane = Lane(config, parent=args.parent)
    for signum in (signal.SIGTERM, signal.SIGINT):
        gevent.signal_handler(signum, lane.stop)
    log.info("webhooks: delivery lane %s started", os.getpid())
    lane.run()
    return 0


if __name__ == "__main__":
    from gevent import monkey

    if not monkey.is_module_patched("socket"):
        # Started plainly (python -m workers.webhooks): become the same process under gevent's
        # patching, which must come before redis-py and the HTTP client import the standard library.
        os.execv(sys.executable, [sys.executable, "-m", "gevent.monkey", "--module", "workers.webhooks",
                                  *sys.argv[1:]])  # fmt: skip
    sys.exit(main())
