"""An app's webhook endpoints and the messages sent to them (issue 26), typed for generated clients.

The documents are :class:`service.domain.webhooks.webhooks.Webhooks`'s; these schemas only describe and bound
them.  The URL is checked by the domain (scheme, host, the addresses it resolves to: issue 26 point 5),
which names the field ``url`` when it refuses one, as the schemas name theirs.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from service.domain.feeds.feed import ENTRY_TYPES
from service.domain.webhooks.endpoints import MAX_DESCRIPTION
from service.domain.webhooks.messages import PING, STATUSES
from service.domain.webhooks.urls import MAX_URL_LENGTH
from service.http.schemas.fields import FullMatch, JsonBoolean

_TYPES_DESCRIPTION = (
    "The player-feed entry types this endpoint is sent (`"
    + "`, `".join(ENTRY_TYPES)
    + "`); empty or absent: every type."
)


def _types(**kwargs: Any) -> fields.List[Any]:
    return fields.List(
        fields.String(validate=validate.OneOf(ENTRY_TYPES)),
        validate=validate.Length(max=len(ENTRY_TYPES)),
        metadata={"description": _TYPES_DESCRIPTION},
        **kwargs,
    )


def _url(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(min=1, max=MAX_URL_LENGTH),
        metadata={
            "description": "Where messages are POSTed: `https://…` (`http://` only where the operator "
            "allows it, `TABLETOP_WEBHOOK_ALLOW_HTTP`). A host that resolves to a loopback, private, "
            "link-local or metadata address is refused (422 naming `url`) unless the operator allows "
            "it (`TABLETOP_WEBHOOK_ALLOW_PRIVATE`, on in development mode). Redirects are not followed."
        },
        **kwargs,
    )


def _description(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(max=MAX_DESCRIPTION),
        metadata={"description": "What the endpoint is for, for your own people."},
        **kwargs,
    )


def _include_decision(**kwargs: Any) -> JsonBoolean:
    return JsonBoolean(
        metadata={
            "description": "`true`: each `your_turn` message carries `decision` (the seat's view and "
            "legal actions, as the feed's `include=decision` gives them), built when the message is sent "
            "(null once the decision is no longer pending); the delivery log shows the payload as "
            "queued, without it. Default `false`."
        },
        **kwargs,
    )


class CreateWebhookSchema(Schema):
    url = _url(required=True)
    types = _types()
    description = _description(load_default="")
    include_decision = _include_decision(load_default=False)


class UpdateWebhookSchema(Schema):
    url = _url()
    types = _types()
    description = _description()
    include_decision = _include_decision()
    enabled = JsonBoolean(
        metadata={
            "description": "`false` disables the endpoint (nothing is sent; messages already queued wait); "
            "`true` enables it again, also one the server disabled, and clears `disabled_reason`."
        }
    )


class WebhookSchema(Schema):
    """A webhook endpoint, never its secret (shown only when created and when rotated)."""

    id = fields.String(required=True)
    url = fields.String(required=True)
    types = fields.List(
        fields.String(validate=validate.OneOf(ENTRY_TYPES)),
        required=True,
        metadata={"description": "The entry types it is sent; empty: every type."},
    )
    description = fields.String(required=True)
    include_decision = fields.Boolean(
        required=True, metadata={"description": "Whether `your_turn` messages carry the decision."}
    )
    status = fields.String(required=True, validate=validate.OneOf(["enabled", "disabled"]))
    disabled_reason = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "Why it is disabled: by you, a `410 Gone` from the receiver, or failing "
            "throughout `TABLETOP_WEBHOOK_DISABLE_AFTER_SECONDS` (3 days) with its last error; null while "
            "enabled."
        },
    )
    failing_since = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "When its deliveries began failing without a success since (epoch s)."},
    )
    created_at = fields.Float(required=True)
    updated_at = fields.Float(required=True)
    previous_secret_expires_at = fields.Float(
        required=True,
        allow_none=True,
        metadata={
            "description": "After a rotation: until when the previous secret signs too (each message "
            "then carries both signatures); null: one secret."
        },
    )


class WebhookWithSecretSchema(WebhookSchema):
    secret = fields.String(
        required=True,
        metadata={
            "description": "The signing secret (`whsec_…`): shown only here. Verify each message with it "
            "(Standard Webhooks: the `standardwebhooks` library, any language)."
        },
    )


class WebhookListSchema(Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema), required=True)


class WebhookMessageSchema(Schema):
    """A message to an endpoint and its delivery: one entry of the delivery log."""

    id = fields.String(
        required=True,
        metadata={"description": "The message id (`msg_…`), sent as `webhook-id`: the same on every retry."},
    )
    endpoint = fields.String(required=True, metadata={"description": "The endpoint's id."})
    type = fields.String(required=True, validate=validate.OneOf([*ENTRY_TYPES, PING]))
    created_at = fields.Float(required=True)
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "`pending`: queued or being retried; `delivered`: the receiver answered 2xx; "
            "`failed`: retried for `TABLETOP_WEBHOOK_RETRY_SECONDS` (a day) without success. A match's "
            "next message to the endpoint goes out once its previous one is delivered or failed."
        },
    )
    attempts = fields.Integer(required=True)
    next_attempt_at = fields.Float(
        required=True, allow_none=True, metadata={"description": "When it is tried next (pending only)."}
    )
    last_attempt_at = fields.Float(required=True, allow_none=True)
    response_status = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "The receiver's HTTP status at the last attempt (null: no answer)."},
    )
    latency_ms = fields.Float(
        required=True, allow_none=True, metadata={"description": "How long the last attempt took."}
    )
    error = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "What went wrong at the last attempt (`timeout`, `connection refused`…)."},
    )
    payload = fields.Dict(
        required=True,
        allow_none=True,
        metadata={
            "description": 'The body sent: `{"type", "timestamp" (ISO 8601), "data"}`; `data` is the '
            "player's feed entry (see `FeedEntry`) with `player`, your id for the player."
        },
    )


class WebhookMessagePageSchema(Schema):
    deliveries = fields.List(
        fields.Nested(WebhookMessageSchema), required=True, metadata={"description": "Newest first."}
    )
    next_cursor = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The next page's `before`; null: no more."},
    )


class DeliveriesQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    before = fields.String(
        validate=FullMatch(r"^[0-9]{1,18}$"),
        metadata={"description": "The `next_cursor` of the last page."},
    )
    limit = fields.Integer(validate=validate.Range(min=1, max=100))
