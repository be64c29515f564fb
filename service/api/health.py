"""Liveness, readiness and Prometheus metrics."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.api import Blueprint, services
from service.errors import ApiError
from service.schemas.health import StatusSchema
from service.spec import errors
from service.store import STORAGE_ERRORS

blp = Blueprint("health", __name__, description="Operations")


@blp.route("/healthz")
@blp.response(200, StatusSchema)
def healthz() -> dict[str, Any]:
    """The process serves requests (touches nothing else)."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, StatusSchema)
@blp.doc(responses=errors(503))
def readyz() -> dict[str, Any]:
    """Redis and the bots queue are reachable, and a bot worker is alive (unless
    ``TABLETOP_READY_NEEDS_WORKERS`` is off): an orchestrator sees a dead bot fleet."""
    matches = services().matches
    try:
        matches.store.ping()
    except STORAGE_ERRORS:
        raise ApiError(503, "unavailable", "redis is not reachable") from None
    try:
        matches.bots.reachable()
        workers = matches.bots.live_workers()
    except STORAGE_ERRORS:
        raise ApiError(503, "unavailable", "the bots queue is not reachable") from None
    if not workers and services().config.ready_needs_workers:
        raise ApiError(503, "unavailable", "no bot worker has sent a heartbeat lately")
    return {"status": "ready"}


@blp.route("/metrics")
@blp.response(200, content_type="text/plain", description="Prometheus text exposition")
@blp.doc(responses={200: {"content": {"text/plain": {"schema": {"type": "string"}}}}})
def metrics() -> Response:
    """Requests by route and status, move latency, active matches."""
    return services().metrics.response()
