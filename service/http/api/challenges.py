"""Challenges to named players (being built)."""

from __future__ import annotations

from service.http.api import Blueprint

blp = Blueprint(
    "challenges",
    __name__,
    url_prefix="/v1/challenges",
    description="Challenges to named players",
)
