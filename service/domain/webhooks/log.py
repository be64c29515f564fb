"""An endpoint's delivery log, as its app reads it: every message queued for the endpoint, newest first,
with its status, attempts, last response and payload (storage in :mod:`service.storage.webhooks`,
which keeps every unfinished message and the newest finished ones).
"""

from __future__ import annotations

from typing import Any

from service.digits import digits
from service.domain.errors import invalid, not_found
from service.domain.webhooks.endpoints import EndpointRegistry
from service.domain.webhooks.messages import STATUSES, message_doc
from service.storage.webhooks import WebhookStore


class DeliveryLog:
    """The delivery logs of every endpoint over one store; ``registry`` answers 404 for an endpoint the
    app does not have, before anything of its log is read."""

    def __init__(self, store: WebhookStore, registry: EndpointRegistry) -> None:
        self.store = store
        self.registry = registry

    def deliveries(
        self, app: str, endpoint_id: str, *, status: str | None, before: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The endpoint's messages, newest first, ``limit`` of them (only those in ``status`` if given),
        and the cursor of the next page (``None``: no more)."""
        self.registry.stored(app, endpoint_id)
        if status is not None and status not in STATUSES:
            raise invalid("status", f"is one of {', '.join(STATUSES)}")
        if not 1 <= limit <= 1000:
            raise invalid("limit", "is from 1 to 1000")
        cursor: int | None = None
        if before is not None:
            if not digits(before):
                raise invalid("before", "is the next_cursor of a previous page")
            cursor = int(before)
        found: list[tuple[dict[str, Any], int]] = []
        while len(found) <= limit:
            page = self.store.log_page(app, endpoint_id, cursor, max(limit + 1, 100))
            if not page:
                break
            rows = self.store.messages(app, endpoint_id, [mid for mid, _ in page])
            for (_, seq), row in zip(page, rows, strict=True):
                if row is not None and (status is None or row[0]["status"] == status):
                    found.append((message_doc(endpoint_id, *row), seq))
            cursor = page[-1][1]
        more = len(found) > limit
        found = found[:limit]
        return [doc for doc, _ in found], (str(found[-1][1]) if more and found else None)

    def delivery(self, app: str, endpoint_id: str, message_id: str) -> dict[str, Any]:
        """One message of the endpoint's log."""
        self.registry.stored(app, endpoint_id)
        found = self.store.message(app, endpoint_id, message_id)
        if found is None:
            raise not_found(f"message {message_id!r}")
        return message_doc(endpoint_id, *found)
