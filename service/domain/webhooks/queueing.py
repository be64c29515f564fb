"""What puts a message in line for an endpoint: a player's note (:meth:`MessageQueue.enqueue`, from the
outbox), an app's ping, an app's asking for a past message again.  Each message waits behind its
source's unfinished ones (per-match order) until a lane claims it (:mod:`service.domain.webhooks.delivery`).

Every note a player's feed gets (:class:`service.domain.outbox.notes.Notes`) is handed to
:meth:`MessageQueue.enqueue`, which queues one message per enabled endpoint of the player's app that
wants its type, under an id derived from the note (:func:`service.domain.webhooks.messages.message_id`):
the same note carried twice is queued once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.errors import Conflict, not_found
from service.domain.identity import split_player_key
from service.domain.webhooks.endpoints import ENABLED, EndpointRegistry
from service.domain.webhooks.log import DeliveryLog
from service.domain.webhooks.messages import PING, message_id, new_state, payload, random_message_id
from service.storage.webhooks import WebhookStore


class MessageQueue:
    """Queues messages over one store; ``registry`` and ``log`` check the endpoint and answer what an
    app's request queued as its log shows it."""

    def __init__(
        self, store: WebhookStore, clock: Callable[[], float], registry: EndpointRegistry, log: DeliveryLog
    ) -> None:
        self.store = store
        self.clock = clock
        self.registry = registry
        self.log = log

    def enqueue(self, key: str, source: str, number: int, entry: dict[str, Any]) -> None:
        """Queue the note ``number`` of ``source`` for the player ``key`` to every endpoint of the
        player's app that wants its type, once per endpoint however often it is asked.  One round trip
        when the app has no endpoint."""
        app, player = split_player_key(key)
        routes = self.store.routes(app)
        if not routes:
            return
        kind = str(entry.get("type", ""))
        targets = [e for e, (on, types) in sorted(routes.items()) if on and (not types or kind in types)]
        if not targets:
            return
        now = round(self.clock(), 3)
        body = payload(kind, {**entry, "player": player}, now)
        for endpoint in targets:
            mid = message_id(endpoint, key, source, number)
            self.store.enqueue(app, endpoint, mid, new_state(mid, kind, source, now), body, now)

    def ping(self, app: str, endpoint_id: str) -> dict[str, Any]:
        """Queue a ``ping`` message to the endpoint (its delivery shows in the log like any other)."""
        stored = self.registry.stored(app, endpoint_id)
        if stored.get("status") != ENABLED:
            raise Conflict("endpoint_disabled", "this endpoint is disabled; enable it to ping it", {})
        now = round(self.clock(), 3)
        mid = random_message_id()
        body = payload(PING, {"endpoint": endpoint_id}, now)
        self.store.enqueue(app, endpoint_id, mid, new_state(mid, PING, f"ping:{mid}", now), body, now)
        return self.log.delivery(app, endpoint_id, mid)

    def redeliver(self, app: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
        """Send a past message again: the same message (same ``webhook-id``, same payload), queued
        behind its source's unfinished messages, retried like a new one.  A message still pending is
        due at once (if it was waiting for a retry)."""
        stored = self.registry.stored(app, endpoint_id)
        if stored.get("status") != ENABLED:
            raise Conflict("endpoint_disabled", "this endpoint is disabled; enable it to redeliver", {})
        if self.store.redeliver(app, endpoint_id, message_id, self.clock()) is None:
            raise not_found(f"message {message_id!r}")
        return self.log.delivery(app, endpoint_id, message_id)
