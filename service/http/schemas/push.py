"""Web Push subscriptions and the server's VAPID public key (issue 48), typed for generated clients.

The documents are :class:`service.domain.push.push.Push`'s; these schemas only describe and bound them.
The domain checks what a schema cannot (the endpoint's scheme and addresses, the keys being a P-256
point and a 16-byte secret, the time zone) and names the field it refuses, as the schemas name theirs.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.push.messages import PUSH_TYPES
from service.domain.webhooks.urls import MAX_URL_LENGTH

_HHMM = r"([01][0-9]|2[0-3]):[0-5][0-9]"


class PushKeysSchema(Schema):
    p256dh = fields.String(
        required=True,
        validate=validate.Length(min=1, max=200),
        metadata={"description": "The browser's P-256 public key (65 bytes, uncompressed), base64url."},
    )
    auth = fields.String(
        required=True,
        validate=validate.Length(min=1, max=100),
        metadata={"description": "The browser's 16-byte authentication secret, base64url."},
    )


class QuietHoursSchema(Schema):
    time_zone = fields.String(
        required=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "An IANA time zone (`Europe/Paris`): the window follows its clock."},
    )
    start = fields.String(
        required=True,
        validate=validate.Regexp(_HHMM),
        metadata={"description": "Local time the quiet hours start, `HH:MM` (24-hour).", "example": "22:00"},
    )
    end = fields.String(
        required=True,
        validate=validate.Regexp(_HHMM),
        metadata={"description": "Local time they end (before `start`: the next day).", "example": "07:00"},
    )


_TYPES = (
    "The feed entry types pushed to this browser (`" + "`, `".join(PUSH_TYPES) + "`); absent: all of them."
)
_QUIET = (
    "Quiet hours: nothing is pushed from `start` to `end` in `time_zone`; what comes meanwhile is sent "
    "when they end if its TTL lasts till then (a `your_turn`), else dropped (a clock warning whose "
    "deadline passed). `null` or absent: none."
)


class CreatePushSubscriptionSchema(Schema):
    endpoint = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_URL_LENGTH),
        metadata={
            "description": "The push service's URL for this browser (`PushSubscription.endpoint`): "
            "`https://…`, on a public address (checked like a webhook URL; `http` and private addresses "
            "only where the operator allows them for webhooks, as development mode does)."
        },
    )
    keys = fields.Nested(
        PushKeysSchema, required=True, metadata={"description": "`PushSubscription.toJSON().keys`."}
    )
    expiration_time = fields.Float(
        data_key="expirationTime",
        allow_none=True,
        load_only=True,
        metadata={"description": "`PushSubscription.toJSON().expirationTime`, accepted and ignored."},
    )
    types = fields.List(
        fields.String(validate=validate.OneOf(PUSH_TYPES)),
        validate=validate.Length(min=1, max=len(PUSH_TYPES)),
        metadata={"description": _TYPES},
    )
    quiet_hours = fields.Nested(QuietHoursSchema, allow_none=True, metadata={"description": _QUIET})


class PushSubscriptionSchema(Schema):
    id = fields.String(
        required=True,
        metadata={
            "description": "`ps_…`: the same for the same player and endpoint (subscribing again replaces)."
        },
    )
    endpoint = fields.String(required=True)
    types = fields.List(fields.String(validate=validate.OneOf(PUSH_TYPES)), required=True)
    quiet_hours = fields.Nested(QuietHoursSchema, allow_none=True, required=True)
    created_at = fields.Float(required=True, metadata={"description": "Epoch seconds."})
    updated_at = fields.Float(required=True, metadata={"description": "Epoch seconds of the last subscribe."})


class PushSubscriptionListSchema(Schema):
    subscriptions = fields.List(fields.Nested(PushSubscriptionSchema), required=True)


class VapidPublicKeySchema(Schema):
    public_key = fields.String(
        required=True,
        metadata={
            "description": "The server's VAPID public key, base64url of the 65-byte uncompressed P-256 "
            "point: `PushManager.subscribe({userVisibleOnly: true, applicationServerKey})`."
        },
    )
