"""An app's webhook endpoints and their delivery log (the app key), on
:class:`~tabletop_client.Client` with the key as the first argument."""

from __future__ import annotations

from typing import Any

from tabletop_client.transport import Doc, Transport, query


class WebhookCalls:
    _http: Transport

    def create_webhook(
        self,
        key: str,
        url: str,
        types: list[str] | None = None,
        description: str | None = None,
        include_decision: bool | None = None,
    ) -> Doc:
        """Register an endpoint for the app's players' feed entries of ``types`` (every type if none);
        the answer's ``secret`` (``whsec_…``, for ``standardwebhooks.Webhook``) is shown only here.
        With ``include_decision`` its ``your_turn`` deliveries carry the decision (view and legal
        actions), as the feed's ``include=decision`` does."""
        body: Doc = {"url": url}
        if types is not None:
            body["types"] = types
        if description is not None:
            body["description"] = description
        if include_decision is not None:
            body["include_decision"] = include_decision
        return self._http.call("POST", "/v1/apps/me/webhooks", body, key)

    def webhooks(self, key: str) -> list[Doc]:
        """The app's endpoints (never a secret)."""
        return self._http.get("/v1/apps/me/webhooks", key)["webhooks"]

    def webhook(self, key: str, endpoint_id: str) -> Doc:
        return self._http.get(f"/v1/apps/me/webhooks/{endpoint_id}", key)

    def update_webhook(self, key: str, endpoint_id: str, **changes: Any) -> Doc:
        """Change ``url``, ``types``, ``description``, ``include_decision`` or ``enabled`` (``False``
        pauses deliveries, ``True`` resumes them, also after the server disabled the endpoint)."""
        return self._http.call("PATCH", f"/v1/apps/me/webhooks/{endpoint_id}", changes, key)

    def delete_webhook(self, key: str, endpoint_id: str) -> None:
        """The endpoint is gone; its queued messages are dropped."""
        self._http.call("DELETE", f"/v1/apps/me/webhooks/{endpoint_id}", None, key)

    def rotate_webhook_secret(self, key: str, endpoint_id: str) -> Doc:
        """A new ``secret`` (shown only here); the old one signs too until ``previous_secret_expires_at``."""
        return self._http.call("POST", f"/v1/apps/me/webhooks/{endpoint_id}/rotate", None, key)

    def ping_webhook(self, key: str, endpoint_id: str) -> Doc:
        """Queue a ``ping`` message to the endpoint; its delivery-log entry (follow it by its ``id``)."""
        return self._http.call("POST", f"/v1/apps/me/webhooks/{endpoint_id}/ping", None, key)

    def webhook_deliveries(
        self,
        key: str,
        endpoint_id: str,
        status: str | None = None,
        before: str | None = None,
        limit: int | None = None,
    ) -> Doc:
        """One page of the endpoint's delivery log, newest first: ``deliveries`` (each message's
        ``status``, ``attempts``, ``response_status``, ``latency_ms``, ``error``, ``payload``) and
        ``next_cursor`` (the next ``before``)."""
        page = query(status=status or None, before=before or None, limit=limit or None)
        return self._http.get(f"/v1/apps/me/webhooks/{endpoint_id}/deliveries{page}", key)

    def webhook_delivery(self, key: str, endpoint_id: str, message_id: str) -> Doc:
        return self._http.get(f"/v1/apps/me/webhooks/{endpoint_id}/deliveries/{message_id}", key)

    def redeliver_webhook(self, key: str, endpoint_id: str, message_id: str) -> Doc:
        """Send a past message again, with the same ``webhook-id``; its delivery-log entry."""
        path = f"/v1/apps/me/webhooks/{endpoint_id}/deliveries/{message_id}/redeliver"
        return self._http.call("POST", path, None, key)
