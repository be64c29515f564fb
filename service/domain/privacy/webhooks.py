"""The webhook deliveries that named the player (issue 48): every message of the app's endpoints whose
payload is for the player (``data.player``) or names them (a challenger, a joiner, who declined).

Export: each such message as the delivery log shows it (status, attempts, the payload; never an
endpoint's secret).  Erasure: a finished message (delivered or failed) for the player leaves the log
(its state and payload); every other one naming them, finished or still to be delivered, keeps its
place but its payload names the placeholder instead (a message still pending is delivered so, under
its own id).  What remains is the message's id in the endpoint's dedup set, a one-way hash
(:func:`service.domain.webhooks.messages.message_id`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from service.domain.privacy.rewriting import scrub
from service.domain.webhooks.messages import PENDING, message_doc
from service.storage.webhooks import WebhookStore


class WebhookData:
    """The messages of the app's endpoints that named the player."""

    section = "webhook_deliveries"

    def __init__(self, store: WebhookStore) -> None:
        self.store = store

    def _naming(self, app: str, player: str) -> Iterator[tuple[str, str, dict[str, Any], bytes]]:
        """(endpoint, message id, state, payload) of each message naming the player."""
        for endpoint in self.store.endpoint_ids(app):
            for mid, body in self.store.bodies(app, endpoint):
                try:
                    doc = json.loads(body)
                except ValueError:
                    continue
                if not scrub(doc.get("data"), player, "")[1]:
                    continue
                found = self.store.message(app, endpoint, mid)
                if found is not None:
                    yield endpoint, mid, found[0], found[1]

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        for endpoint, _, state, body in self._naming(app, player):
            yield message_doc(endpoint, state, body)

    def erase(self, app: str, player: str, placeholder: str) -> int:
        done = 0
        for endpoint, mid, state, body in list(self._naming(app, player)):
            doc = json.loads(body)
            if state.get("status") != PENDING and doc.get("data", {}).get("player") == player:
                self.store.forget_message(app, endpoint, mid)
            else:
                doc["data"] = scrub(doc.get("data"), player, placeholder)[0]
                new = json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
                self.store.replace_body(app, endpoint, mid, new)
            done += 1
        return done
