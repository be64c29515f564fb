"""Matchmaking: open seeks paired into matches (being built)."""

from __future__ import annotations

from service.http.api import Blueprint

blp = Blueprint(
    "seeks",
    __name__,
    url_prefix="/v1/seeks",
    description="Matchmaking: open seeks paired into matches",
)
