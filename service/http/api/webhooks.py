"""Webhook endpoints of the calling app and their deliveries (issue 26, points 1 and 4).

An app's server registers URLs to be POSTed its players' feed entries (``your_turn``, ``match_over``...),
signed the Standard Webhooks way; a delivery lane (workers/webhooks.py) sends them.  Every operation here
is the app key's alone (:func:`service.domain.accounts.require_app`): a player token or a seat token is
401, and an endpoint of another app is 404, as if it did not exist.  The views parse, call
:class:`service.domain.webhooks.webhooks.Webhooks` and serialise.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from service.domain.accounts import require_app
from service.domain.webhooks.webhooks import Webhooks
from service.http.api import Blueprint
from service.http.api.idempotency import idempotent
from service.http.context import current_caller, services
from service.http.schemas.webhooks import (
    CreateWebhookSchema,
    DeliveriesQuerySchema,
    UpdateWebhookSchema,
    WebhookListSchema,
    WebhookMessagePageSchema,
    WebhookMessageSchema,
    WebhookSchema,
    WebhookWithSecretSchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "webhooks",
    __name__,
    url_prefix="/v1/apps/me/webhooks",
    description="Webhook endpoints of the calling app (its app key) and their deliveries",
)

APP_ONLY = (401, "The app key is required (a player token or a seat token is not enough).")
NO_ENDPOINT = (404, "No such endpoint of this app.")
NO_MESSAGE = (404, "No such endpoint of this app, or no such message of the endpoint.")
DISABLED = (409, "`endpoint_disabled`: enable the endpoint first (`PATCH` with `enabled: true`).")


def _webhooks() -> tuple[Webhooks, str]:
    """The domain object and the calling app (401 unless the credential is an app key)."""
    app = require_app(current_caller())
    return services().webhooks, app


@blp.route("", methods=["POST"])
@idempotent
@blp.arguments(CreateWebhookSchema())
@blp.response(201, WebhookWithSecretSchema)
@blp.doc(
    operationId="createWebhook",
    security=REQUIRED_SEAT,
    responses=errors(
        APP_ONLY, (409, "`too_many_endpoints`: the app has `TABLETOP_WEBHOOK_MAX_ENDPOINTS`."), 422
    ),
)
def create_webhook(body: dict[str, Any]) -> Any:
    """Register an endpoint: your players' feed entries of the chosen `types` (all of them if none)
    are POSTed to `url`, signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`,
    `webhook-signature`).  The answer holds the signing `secret` (`whsec_…`): **the only time it is
    shown** (rotate it to get a new one).  With `include_decision`, a `your_turn` message carries the
    pending decision whole (`decision`: the seat's view and legal actions, built when it is sent), so
    a bot decides without another request.

    The URL must be `https` (plain `http` only where the operator allows it) and must not resolve to a
    loopback, private, link-local or metadata address (unless the operator allows it): 422 naming
    `url` says which rule refused it."""
    hooks, app = _webhooks()
    return hooks.create(
        app, body["url"], body.get("types"), body["description"], body["include_decision"]
    ), 201


@blp.route("", methods=["GET"])
@blp.response(200, WebhookListSchema)
@blp.doc(operationId="listWebhooks", security=REQUIRED_SEAT, responses=errors(APP_ONLY))
def list_webhooks() -> dict[str, Any]:
    """The app's endpoints (never a secret), enabled and disabled, each with why it is disabled."""
    hooks, app = _webhooks()
    return {"webhooks": hooks.endpoints(app)}


@blp.route("/<endpoint_id>", methods=["GET"])
@blp.response(200, WebhookSchema)
@blp.doc(operationId="getWebhook", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_ENDPOINT))
def get_webhook(endpoint_id: str) -> dict[str, Any]:
    hooks, app = _webhooks()
    return hooks.endpoint(app, endpoint_id)


@blp.route("/<endpoint_id>", methods=["PATCH"])
@blp.arguments(UpdateWebhookSchema())
@blp.response(200, WebhookSchema)
@blp.doc(operationId="updateWebhook", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_ENDPOINT, 422))
def update_webhook(body: dict[str, Any], endpoint_id: str) -> dict[str, Any]:
    """Change what is given: `url` (checked as when created), `types`, `description`,
    `include_decision`; `enabled`
    turns deliveries off (`false`: messages wait) or on again (`true`, also after the server disabled
    the endpoint for a `410 Gone` or days of failures)."""
    hooks, app = _webhooks()
    return hooks.update(
        app,
        endpoint_id,
        url=body.get("url"),
        types=body.get("types"),
        description=body.get("description"),
        enabled=body.get("enabled"),
        include_decision=body.get("include_decision"),
    )


@blp.route("/<endpoint_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(operationId="deleteWebhook", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_ENDPOINT))
def delete_webhook(endpoint_id: str) -> Response:
    """The endpoint is gone, and the messages still queued for it are dropped."""
    hooks, app = _webhooks()
    hooks.delete(app, endpoint_id)
    return Response(status=204)


@blp.route("/<endpoint_id>/rotate", methods=["POST"])
@blp.response(200, WebhookWithSecretSchema)
@blp.doc(operationId="rotateWebhookSecret", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_ENDPOINT))
def rotate_webhook_secret(endpoint_id: str) -> dict[str, Any]:
    """A new signing `secret`, shown only here.  Until `previous_secret_expires_at`
    (`TABLETOP_WEBHOOK_SECRET_GRACE_SECONDS`, a day) each message carries a signature by the old secret
    too, so your receiver can switch to the new one at its own pace."""
    hooks, app = _webhooks()
    return hooks.rotate_secret(app, endpoint_id)


@blp.route("/<endpoint_id>/ping", methods=["POST"])
@blp.response(202, WebhookMessageSchema)
@blp.doc(operationId="pingWebhook", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_ENDPOINT, DISABLED))
def ping_webhook(endpoint_id: str) -> Any:
    """Queue a test message of type `ping` to the endpoint, signed like every other; follow it in the
    delivery log (`GET …/deliveries/{message_id}`)."""
    hooks, app = _webhooks()
    return hooks.ping(app, endpoint_id), 202


@blp.route("/<endpoint_id>/deliveries", methods=["GET"])
@blp.arguments(DeliveriesQuerySchema(), location="query")
@blp.response(200, WebhookMessagePageSchema)
@blp.doc(
    operationId="listWebhookDeliveries", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_ENDPOINT, 422)
)
def list_webhook_deliveries(query: dict[str, Any], endpoint_id: str) -> dict[str, Any]:
    """The endpoint's delivery log, newest first: each message with its `status`, `attempts`, the
    receiver's last `response_status`, `latency_ms` and `error`, when it is tried next, and its
    `payload`.  Filter by `status`; follow `next_cursor` (as `before`).  The log keeps every message
    not yet delivered or failed, and the last thousand finished ones (for three days at most)."""
    hooks, app = _webhooks()
    limit = query.get("limit", services().config.page_size)
    found, cursor = hooks.deliveries(
        app, endpoint_id, status=query.get("status"), before=query.get("before"), limit=limit
    )
    return {"deliveries": found, "next_cursor": cursor}


@blp.route("/<endpoint_id>/deliveries/<message_id>", methods=["GET"])
@blp.response(200, WebhookMessageSchema)
@blp.doc(operationId="getWebhookDelivery", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_MESSAGE))
def get_webhook_delivery(endpoint_id: str, message_id: str) -> dict[str, Any]:
    hooks, app = _webhooks()
    return hooks.delivery(app, endpoint_id, message_id)


@blp.route("/<endpoint_id>/deliveries/<message_id>/redeliver", methods=["POST"])
@blp.response(202, WebhookMessageSchema)
@blp.doc(
    operationId="redeliverWebhook", security=REQUIRED_SEAT, responses=errors(APP_ONLY, NO_MESSAGE, DISABLED)
)
def redeliver_webhook(endpoint_id: str, message_id: str) -> Any:
    """Send a past message again: the same message, with the same `webhook-id` (deduplicate on it), queued
    behind what its match has pending.  Useful after fixing a receiver that failed it."""
    hooks, app = _webhooks()
    return hooks.redeliver(app, endpoint_id, message_id), 202
