"""What a webhook message is: its id, its payload, its state in the delivery log and the document the
app reads of it (pure: no store, no clock).

**The id** (the ``webhook-id`` receivers dedup by) of a note's message is derived from the endpoint,
the player, the note's source and number (:func:`message_id`), so the same note carried twice (two
drains of one outbox) is queued once, and every retry carries the same id.  A ping's is random.

**The payload** is the Standard Webhooks shape: ``{"type", "timestamp", "data": <the feed entry, plus
the app's own player id>}``: what the player's feed shows, never a token or a secret (keys that name one
are dropped, whatever a feed entry holds: :func:`scrub`).  It is built once, when the message is
queued; the lanes sign those very bytes at each attempt (:mod:`service.domain.webhooks.signing`), but
for one thing added at send time: a ``your_turn`` message to an endpoint that asked for decisions
(``include_decision``) carries the decision as it stands when it is sent (:func:`with_decision`),
which the delivery log's stored payload does not show.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from datetime import UTC, datetime
from typing import Any

from service.domain.feeds.feed import YOUR_TURN

#: The message type of a ping (an endpoint receives pings whatever types it wants).
PING = "ping"
#: Message statuses, as the delivery log shows and filters them.
PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
STATUSES = (PENDING, DELIVERED, FAILED)
#: Keys dropped from a payload's data wherever they occur: a feed entry never holds one, and a
#: webhook must never carry one even if a later entry did.
_SECRET_WORDS = ("token", "secret", "password")


def iso(at: float) -> str:
    """An epoch time as ISO 8601 UTC with milliseconds (``2024-05-01T12:00:00.000Z``)."""
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def message_id(endpoint: str, key: str, source: str, number: int) -> str:
    """The id of the message carrying note ``number`` of ``source`` for the player ``key`` to
    ``endpoint``: the same for every enqueue of that note, different for every endpoint."""
    digest = hashlib.sha256(f"{endpoint}\n{key}\n{source}\n{number}".encode()).digest()
    return "msg_" + base64.b32encode(digest[:15]).decode().lower()


def random_message_id() -> str:
    """The id of a message that carries no note (a ping): random, in the shape of :func:`message_id`."""
    return "msg_" + base64.b32encode(secrets.token_bytes(15)).decode().lower()


def scrub(value: Any) -> Any:
    """``value`` without any mapping key naming a token, a secret or a password, at any depth."""
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in value.items() if not any(w in str(k).lower() for w in _SECRET_WORDS)}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def payload(kind: str, data: dict[str, Any], at: float) -> bytes:
    """A message's body, the bytes signed and sent (Standard Webhooks: type, timestamp, data)."""
    doc = {"type": kind, "timestamp": iso(at), "data": scrub(data)}
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def new_state(mid: str, kind: str, source: str, now: float) -> dict[str, Any]:
    """The state of a message just queued: pending, due at once, never tried.  ``source`` orders it:
    a source's next message waits for the previous one (see :mod:`service.storage.webhooks`)."""
    return {
        "id": mid,
        "type": kind,
        "source": source,
        "created_at": now,
        "queued_at": now,
        "status": PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "last_attempt_at": None,
        "response_status": None,
        "latency_ms": None,
        "error": None,
        "backoff": None,
    }


def message_doc(endpoint_id: str, state: dict[str, Any], body: bytes) -> dict[str, Any]:
    """A message as the delivery log shows it: its state's public fields and the payload sent."""
    return {
        "id": state["id"],
        "endpoint": endpoint_id,
        "type": state["type"],
        "created_at": state["created_at"],
        "status": state["status"],
        "attempts": state["attempts"],
        "next_attempt_at": state.get("next_attempt_at"),
        "last_attempt_at": state.get("last_attempt_at"),
        "response_status": state.get("response_status"),
        "latency_ms": state.get("latency_ms"),
        "error": state.get("error"),
        "payload": json.loads(body) if body else None,
    }


def decision_asked(state: dict[str, Any], endpoint: dict[str, str]) -> bool:
    """Whether the message (its ``state``) to the endpoint (its stored fields) carries a decision:
    a ``your_turn`` message, to an endpoint created or updated with ``include_decision``."""
    return state.get("type") == YOUR_TURN and endpoint.get("include_decision") == "1"


def with_decision(body: bytes, decision: dict[str, Any] | None) -> bytes:
    """A ``your_turn`` message's body with its ``data.decision`` (:mod:`service.domain.feeds.decisions`:
    the seat's own view and legal actions, nobody else's; ``None`` once the decision is no longer
    pending).  Encoded as :func:`payload` encodes."""
    doc = json.loads(body)
    doc["data"]["decision"] = decision
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()
