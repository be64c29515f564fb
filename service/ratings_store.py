"""Redis persistence of ratings (being built)."""

from __future__ import annotations

import redis


class RatingStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
