"""Webhook endpoints of an app and the messages they are sent (issue 26: being built)."""

from __future__ import annotations

from typing import Any

from service.config import Config
from service.webhooks_store import WebhookStore


class Webhooks:
    """An app's webhook endpoints; :meth:`enqueue` queues a note for those that want it."""

    def __init__(self, store: WebhookStore, config: Config) -> None:
        self.store = store
        self.config = config

    def enqueue(self, key: str, source: str, number: int, entry: dict[str, Any]) -> None:
        """Queue the note ``number`` of ``source`` for the player ``key`` to every endpoint of the
        player's app that wants its type, once per endpoint however often it is asked."""
