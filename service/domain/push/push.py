"""Web Push as the rest of the server sees it: :class:`Push`, the one face of the players' push
subscriptions, the server's VAPID key and the deliveries (issue 48; storage in
:mod:`service.storage.push`, the lane's job ``workers/push.py``).  The HTTP layer calls it for the
players' requests, the outbox's notes for every note (:meth:`Push.enqueue`, beside the webhooks), the
push lane to send (:meth:`Push.deliver`), the privacy domain for export and erasure (:attr:`Push.data`).

The work lives in its parts, each an object with methods over the same store:

* :class:`~service.domain.push.subscriptions.Subscriptions`: registering, listing, deleting;
* :class:`~service.domain.push.vapid.VapidKeys`: the key pair and the signatures;
* :class:`~service.domain.push.delivery.PushDelivery`: queueing and each attempt;
* :class:`~service.domain.push.subscriptions.PushSubscriptionData`: the player data part.

And the pure rules they share: what a message is (:mod:`service.domain.push.messages`: types, TTL,
urgency, topics, payload) and quiet hours (:mod:`service.domain.push.quiet`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from service.config import Config
from service.domain.push.delivery import JOB_MARGIN_SECONDS, PushDelivery, PushQueue, Send
from service.domain.push.subscriptions import PushSubscriptionData, Subscriptions
from service.domain.push.vapid import VapidKeys
from service.domain.webhooks.urls import Resolver, resolve_host
from service.storage.push import PushStore


class Push:
    """The players' push subscriptions and their deliveries, over one store (the state Redis) and the
    push lane's queues (``queue_connection``: the queue Redis).  ``clock``: the time of subscriptions
    and messages (queueing, TTL, quiet hours); ``resolve``: an endpoint's host to its addresses, for
    the check at registration; ``rng``: the retry pauses' draws."""

    def __init__(
        self,
        store: PushStore,
        queue_connection: Any,
        config: Config,
        clock: Callable[[], float] = time.time,
        resolve: Resolver = resolve_host,
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.config = config
        # Signatures expire by the real clock, whatever time the messages' rules are tested at.
        self.vapid = VapidKeys(store, config.vapid_private_key, config.vapid_subject)
        self.registry = Subscriptions(store, config, clock, resolve)
        timeout = int(config.webhook_timeout_seconds) + JOB_MARGIN_SECONDS
        self.queue = PushQueue(queue_connection, timeout)
        self.delivery = PushDelivery(store, self.queue, self.vapid, config, clock, rng)
        #: The player data part (export, erasure) handed to the privacy domain.
        self.data = PushSubscriptionData(store, self.queue)

    def public_key(self) -> str:
        return self.vapid.public_key()

    def subscribe(
        self, key: str, endpoint: Any, keys: Any, types: Any = None, quiet_hours: Any = None
    ) -> tuple[dict[str, Any], bool]:
        return self.registry.subscribe(key, endpoint, keys, types, quiet_hours)

    def subscriptions(self, key: str) -> list[dict[str, Any]]:
        return self.registry.subscriptions(key)

    def unsubscribe(self, key: str, subscription_id: str) -> None:
        self.registry.unsubscribe(key, subscription_id)

    def enqueue(self, key: str, source: str, number: int, entry: dict[str, Any]) -> int:
        return self.delivery.enqueue(key, source, number, entry)

    def deliver(self, message: dict[str, Any], send: Send) -> str:
        return self.delivery.deliver(message, send)
