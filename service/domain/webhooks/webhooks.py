"""Webhooks as the rest of the server sees them: :class:`Webhooks`, the one face of an app's webhook
endpoints, the messages each is sent and their delivery (issue 26; storage in
:mod:`service.storage.webhooks`, the delivering process ``workers/webhooks.py``).  The HTTP layer calls
it for the apps' requests, the outbox for every note (:meth:`Webhooks.enqueue`), the delivery lane to
send, an app's revocation to stop everything (:meth:`Webhooks.disable_app`).

The work lives in its parts, each an object with methods over the same store and clock:

* :class:`~service.domain.webhooks.endpoints.EndpointRegistry`: registering, listing, changing and
  deleting endpoints, rotating their secrets, disabling an app's;
* :class:`~service.domain.webhooks.queueing.MessageQueue`: what puts a message in line (a note, a
  ping, a redelivery);
* :class:`~service.domain.webhooks.log.DeliveryLog`: an endpoint's delivery log as its app reads it;
* :class:`~service.domain.webhooks.delivery.Dispatcher`: the lanes' side: claiming, signing, the check
  before a send, recording outcomes.

And the pure rules they share: what a message is (:mod:`service.domain.webhooks.messages`), its
signatures (:mod:`service.domain.webhooks.signing`), an attempt's outcome
(:mod:`service.domain.webhooks.retries`), which URLs and addresses may be called
(:mod:`service.domain.webhooks.urls`).  :class:`Webhooks` puts the parts together and names each
operation once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from service.config import Config
from service.domain.webhooks.delivery import Decide, Delivery, Dispatcher, Recorded
from service.domain.webhooks.endpoints import EndpointRegistry
from service.domain.webhooks.log import DeliveryLog
from service.domain.webhooks.queueing import MessageQueue
from service.domain.webhooks.urls import Resolver, resolve_host
from service.storage.webhooks import WebhookStore


class Webhooks:
    """An app's webhook endpoints, their messages and their delivery, over one store.

    ``clock``: the time of changes and queueing (epoch seconds); ``resolve``: a URL's host to its
    addresses, for the check at registration; ``rng``: the retry pauses' draws; ``app_status`` tells an
    app's status (``active``, ``revoked``; ``None``: unknown): the lanes pass it so that nothing is sent
    for a revoked app; without it only the endpoint's own status is checked before a send."""

    def __init__(
        self,
        store: WebhookStore,
        config: Config,
        clock: Callable[[], float] = time.time,
        resolve: Resolver = resolve_host,
        rng: random.Random | None = None,
        app_status: Callable[[str], str | None] | None = None,
        decide: Decide | None = None,
    ) -> None:
        self.store = store
        self.config = config
        self.registry = EndpointRegistry(store, config, clock, resolve)
        self.log = DeliveryLog(store, self.registry)
        self.queue = MessageQueue(store, clock, self.registry, self.log)
        self.dispatch = Dispatcher(
            store, config, clock, rng or random.Random(), app_status, self.registry.disable_app, decide
        )

    # -- endpoints (EndpointRegistry) ---------------------------------------------------------------

    def create(
        self, app: str, url: str, types: list[str] | None, description: str, include_decision: bool = False
    ) -> dict[str, Any]:
        return self.registry.create(app, url, types, description, include_decision)

    def endpoints(self, app: str) -> list[dict[str, Any]]:
        return self.registry.endpoints(app)

    def endpoint(self, app: str, endpoint_id: str) -> dict[str, Any]:
        return self.registry.endpoint(app, endpoint_id)

    def update(
        self,
        app: str,
        endpoint_id: str,
        *,
        url: str | None = None,
        types: list[str] | None = None,
        description: str | None = None,
        enabled: bool | None = None,
        include_decision: bool | None = None,
    ) -> dict[str, Any]:
        return self.registry.update(
            app,
            endpoint_id,
            url=url,
            types=types,
            description=description,
            enabled=enabled,
            include_decision=include_decision,
        )

    def disable_app(self, app: str, reason: str) -> int:
        return self.registry.disable_app(app, reason)

    def delete(self, app: str, endpoint_id: str) -> None:
        self.registry.delete(app, endpoint_id)

    def rotate_secret(self, app: str, endpoint_id: str) -> dict[str, Any]:
        return self.registry.rotate_secret(app, endpoint_id)

    # -- queueing (MessageQueue) --------------------------------------------------------------------

    def enqueue(self, key: str, source: str, number: int, entry: dict[str, Any]) -> None:
        self.queue.enqueue(key, source, number, entry)

    def ping(self, app: str, endpoint_id: str) -> dict[str, Any]:
        return self.queue.ping(app, endpoint_id)

    def redeliver(self, app: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
        return self.queue.redeliver(app, endpoint_id, message_id)

    # -- the delivery log (DeliveryLog) -------------------------------------------------------------

    def deliveries(
        self, app: str, endpoint_id: str, *, status: str | None, before: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        return self.log.deliveries(app, endpoint_id, status=status, before=before, limit=limit)

    def delivery(self, app: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
        return self.log.delivery(app, endpoint_id, message_id)

    # -- delivery, the lanes' side (Dispatcher) -----------------------------------------------------

    @property
    def lease_seconds(self) -> float:
        return self.dispatch.lease_seconds

    def due(self, now: float, limit: int) -> list[tuple[str, float]]:
        return self.dispatch.due(now, limit)

    def claim(self, member: str, score: float, now: float, most: int) -> list[Delivery]:
        return self.dispatch.claim(member, score, now, most)

    def as_sent(self, delivery: Delivery) -> Delivery:
        return self.dispatch.as_sent(delivery)

    def headers(self, delivery: Delivery, now: float) -> dict[str, str]:
        return self.dispatch.headers(delivery, now)

    def record(
        self,
        delivery: Delivery,
        *,
        status: int | None,
        headers: dict[str, str],
        latency_ms: float | None,
        error: str | None,
        now: float,
    ) -> Recorded:
        return self.dispatch.record(
            delivery, status=status, headers=headers, latency_ms=latency_ms, error=error, now=now
        )

    def stopped(self, delivery: Delivery) -> str | None:
        return self.dispatch.stopped(delivery)

    def wake(self, app: str, endpoint_id: str) -> None:
        self.dispatch.wake(app, endpoint_id)
