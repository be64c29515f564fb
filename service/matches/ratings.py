"""Ratings of players per game (issue 27: being built)."""

from __future__ import annotations

from typing import Any

from service.config import Config
from service.ratings_store import RatingStore


class Ratings:
    """Players' ratings per app and game; :meth:`record` rates a finished match once."""

    def __init__(self, store: RatingStore, config: Config) -> None:
        self.store = store
        self.config = config

    def record(self, match_id: str, outcome: dict[str, Any]) -> None:
        """Update the ratings of the players of the finished match ``match_id`` by ``outcome``, once
        however often it is asked."""
