"""Liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.http.api import Blueprint
from service.http.context import services
from service.http.errors import unavailable
from service.http.schemas.health import StatusSchema
from service.http.spec.responses import errors
from service.storage.client import STORAGE_ERRORS

blp = Blueprint("health", __name__, description="Operations")


@blp.route("/healthz")
@blp.response(200, StatusSchema)
@blp.doc(operationId="getHealth")
def healthz() -> dict[str, Any]:
    """The process serves requests (touches nothing else)."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, StatusSchema)
@blp.doc(operationId="getReadiness", responses=errors(503))
def readyz() -> dict[str, Any]:
    """Redis and the bots queue are reachable, a cluster has the replicas match writes wait for, and a
    bot worker is alive (unless ``TABLETOP_READY_NEEDS_WORKERS`` is off): an orchestrator sees a dead
    bot fleet, and an operator reads what is wrong."""
    matches = services().matches
    try:
        matches.store.ping()
        missing = matches.store.replicas_missing()
    except STORAGE_ERRORS:
        raise unavailable("redis is not reachable") from None
    if missing is not None:
        raise unavailable(missing)
    try:
        matches.bots.reachable()
        workers = matches.bots.live_workers()
    except STORAGE_ERRORS:
        raise unavailable("the bots queue is not reachable") from None
    if not workers and services().config.ready_needs_workers:
        raise unavailable("no bot worker has sent a heartbeat lately")
    return {"status": "ready"}


@blp.route("/metrics")
@blp.response(200, content_type="text/plain", description="Prometheus text exposition")
@blp.doc(
    operationId="getMetrics", responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}}
)
def metrics() -> Response:
    """Requests by route and status, move latency, active matches."""
    return services().metrics.response()
