"""Ratings and leaderboards (being built)."""

from __future__ import annotations

from service.http.api import Blueprint

blp = Blueprint(
    "ratings",
    __name__,
    url_prefix="/v1",
    description="Ratings and leaderboards",
)
