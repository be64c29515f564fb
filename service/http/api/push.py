"""Web Push (issue 48): the server's VAPID public key, and a player's push subscriptions.

A browser subscribes to its push service with the server's public key
(``GET /v1/push/vapid-public-key``), and the player registers what that returns
(``POST /v1/me/push-subscriptions``): the player's ``your_turn``, ``challenge_received``,
``match_over`` and ``clock_warning`` notes are then pushed to that browser, encrypted for it, by the push
lane.  The subscription operations are a player's own, like the feed: a player token (scope ``read``),
or the app key naming the player (``?player=<id>``).  The views parse, call
:class:`service.domain.push.push.Push` and serialise.
"""

from __future__ import annotations

from typing import Any

from flask import Response

from service.domain.identity import READ
from service.http.api import Blueprint
from service.http.context import current_caller, services
from service.http.schemas.accounts import MeQuerySchema
from service.http.schemas.push import (
    CreatePushSubscriptionSchema,
    PushSubscriptionListSchema,
    PushSubscriptionSchema,
    VapidPublicKeySchema,
)
from service.http.spec.responses import errors
from service.http.spec.security import REQUIRED_SEAT

blp = Blueprint(
    "push", __name__, url_prefix="/v1", description="Web Push: notifications to players' browsers"
)

NO_SUBSCRIPTION = (404, "No such push subscription of this player.")
TOO_MANY = (409, "`too_many_subscriptions`: the player has `TABLETOP_PUSH_MAX_SUBSCRIPTIONS` already.")


def _me(query: dict[str, Any]) -> str:
    return services().accounts.me(current_caller(), READ, query.get("player"))


@blp.route("/push/vapid-public-key", methods=["GET"])
@blp.response(200, VapidPublicKeySchema)
@blp.doc(operationId="getVapidPublicKey", security=[{}])
def get_vapid_public_key() -> dict[str, Any]:
    """The server's VAPID public key (RFC 8292), for `PushManager.subscribe`'s `applicationServerKey`.
    The same for as long as the server keeps its key pair: a browser subscribed with it receives this
    server's messages, and nobody else's."""
    return {"public_key": services().push.public_key()}


@blp.route("/me/push-subscriptions", methods=["POST"])
@blp.arguments(MeQuerySchema(), location="query")
@blp.arguments(CreatePushSubscriptionSchema())
@blp.response(201, PushSubscriptionSchema)
@blp.doc(
    operationId="createPushSubscription",
    security=REQUIRED_SEAT,
    responses={
        200: {
            "description": "The same endpoint was registered already: replaced (same `id`).",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/PushSubscription"}}},
        },
        **errors(401, 403, 404, TOO_MANY, 422),
    },
)
def create_push_subscription(query: dict[str, Any], body: dict[str, Any]) -> Any:
    """Register a browser's push subscription (what `PushManager.subscribe` gave: `endpoint` and `keys`)
    with the entry `types` to push (all four by default) and optional `quiet_hours`.  201 when new; the
    same endpoint again replaces it (200, same `id`), so a page may register on every load.

    The keys are the browser's secrets: stored to encrypt its messages, never shown again (not in this
    answer, the list, or the player's export).  A push service answering 404 or 410 for it (the browser
    unsubscribed) deletes the subscription."""
    key = _me(query)
    doc, created = services().push.subscribe(
        key, body["endpoint"], body["keys"], body.get("types"), body.get("quiet_hours")
    )
    return doc, 201 if created else 200


@blp.route("/me/push-subscriptions", methods=["GET"])
@blp.arguments(MeQuerySchema(), location="query")
@blp.response(200, PushSubscriptionListSchema)
@blp.doc(operationId="listPushSubscriptions", security=REQUIRED_SEAT, responses=errors(401, 403, 404, 422))
def list_push_subscriptions(query: dict[str, Any]) -> dict[str, Any]:
    """The player's push subscriptions, oldest first (never their keys)."""
    return {"subscriptions": services().push.subscriptions(_me(query))}


@blp.route("/me/push-subscriptions/<subscription_id>", methods=["DELETE"])
@blp.arguments(MeQuerySchema(), location="query")
@blp.response(204)
@blp.doc(
    operationId="deletePushSubscription",
    security=REQUIRED_SEAT,
    responses=errors(401, 403, NO_SUBSCRIPTION, 422),
)
def delete_push_subscription(query: dict[str, Any], subscription_id: str) -> Response:
    """Stop pushing to a browser: its messages still queued are dropped when their turn comes."""
    services().push.unsubscribe(_me(query), subscription_id)
    return Response(status=204)
