"""Redis persistence of seeks (being built)."""

from __future__ import annotations

import redis


class SeekStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
