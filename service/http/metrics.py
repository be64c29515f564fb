"""Prometheus metrics: requests by route and status, move latency, active matches, waiting clients.

Each app gets its own registry (tests build many apps).  Under gunicorn with several workers, set
``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's own switch) and ``/metrics`` aggregates all workers.
Active matches are counted in Redis at scrape time, so every worker reports the same true number.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

from flask import Flask, Response, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from service.live.hub import COUNTS, LiveEvents
from service.storage.matches import Store

_LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
#: The methods that get a label of their own; any other (a client may send any token) is ``other``,
#: so invented methods cannot grow the exposition without bound.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


class _ActiveMatches:
    """Collector reading the active-match index at scrape time."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "tabletop_active_matches", "Matches not finished yet", value=self.store.active_count()
        )


class Metrics:
    def __init__(self, store: Store, live: LiveEvents) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "tabletop_http_requests",
            "HTTP requests by method, route template and status",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.moves = Histogram(
            "tabletop_move_seconds",
            "Time to handle POST /v1/matches/{id}/actions (successful moves)",
            buckets=_LATENCY_BUCKETS,
            registry=self.registry,
        )
        # livesum: under several gunicorn processes, the sum over the live ones.
        waiting = Gauge(
            "tabletop_waiting_clients",
            "Clients waiting for events (open streams and long-polls)",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        feeds = Gauge(
            "tabletop_live_feeds",
            "Matches with waiting clients, counted once per API process that holds some",
            registry=self.registry,
            multiprocess_mode="livesum",
        )

        def report(waiters: int, matches: int) -> None:
            waiting.set(waiters)
            feeds.set(matches)

        live.report = report
        # The live reader's work (service.live.hub.COUNTS), summed over the server processes: per
        # committed event it grows with the processes and the seats watched, not with the waiters.
        described = {
            "topic_reads": "Topics the live readers read on a notification",
            "backlog_reads": "Reads of the live readers for a waiting client catching up",
            "events_read": "Events (and feed entries) the live readers read",
            "encodings": "Event batches the live readers encoded (once per seat and wire form)",
            "deliveries": "Events the live readers handed to waiting clients as they came "
            "(not what a waiter caught up on)",
            "metas_spared": "Reads of a match spared a spectator's long-poll (the match as last read, "
            "nothing published since)",
            "revoked_waiters": "Waiting clients ended because their credential was revoked or expired",
        }
        children = {
            name: Counter(f"tabletop_live_{name}", described[name], registry=self.registry) for name in COUNTS
        }
        live.counted = lambda name, n: children[name].inc(n)
        self.exposition = CollectorRegistry()
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            MultiProcessCollector(self.exposition)
        else:
            self.exposition = self.registry
        self.exposition.register(_ActiveMatches(store))

    def install(self, app: Flask) -> None:
        @app.before_request
        def _start() -> None:
            g.started = time.perf_counter()

        # The counter of each (method, route, status) once looked up: prometheus-client's ``labels``
        # checks and locks on every call.  The keys are bounded like the labels themselves.
        counters: dict[tuple[str, str, int], Counter] = {}

        @app.after_request
        def _count(response: Response) -> Response:
            rule = request.url_rule.rule if request.url_rule is not None else "unmatched"
            method = request.method if request.method in METHODS else "other"
            key = (method, rule, response.status_code)
            counter = counters.get(key)
            if counter is None:
                counter = counters[key] = self.requests.labels(method, rule, str(response.status_code))
            counter.inc()
            return response

    def observe_move(self) -> None:
        self.moves.observe(time.perf_counter() - g.started)

    def response(self) -> Response:
        return Response(generate_latest(self.exposition), mimetype=CONTENT_TYPE_LATEST)
