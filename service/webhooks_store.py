"""Redis persistence of webhooks (being built)."""

from __future__ import annotations

import redis


class WebhookStore:
    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
