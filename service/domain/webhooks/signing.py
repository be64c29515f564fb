"""Webhook signatures, the Standard Webhooks way (:mod:`standardwebhooks`, as receivers verify them).

Each endpoint has a signing secret, shown to its app once, on creation and on rotation
(:func:`new_secret`).  A message is signed at each attempt, not when it is queued
(:func:`signed_headers`): the receiver's verifier refuses timestamps five minutes old, so a retry a day
later is signed anew.  After a rotation the previous secret signs too, beside the new one, for
``webhook_secret_grace_seconds``, so a receiver holding either verifies and can switch over without
losing a message.
"""

from __future__ import annotations

import base64
import math
import secrets
from collections.abc import Sequence
from datetime import UTC, datetime

from standardwebhooks import Webhook


def new_secret() -> str:
    """A Standard Webhooks signing secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def signed_headers(mid: str, body: bytes, signing: Sequence[str], now: float) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt to send the message ``mid`` (``body``: its payload),
    signed at ``now`` with every secret in ``signing`` (space-separated signatures: a receiver holding
    any of them verifies)."""
    stamp = math.floor(now)
    when = datetime.fromtimestamp(stamp, UTC)
    text = body.decode()
    signatures = " ".join(Webhook(s).sign(mid, when, text) for s in signing)
    return {
        "webhook-id": mid,
        "webhook-timestamp": str(stamp),
        "webhook-signature": signatures,
    }
