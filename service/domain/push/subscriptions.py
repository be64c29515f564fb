"""A player's push subscriptions: registering, listing and deleting them, and the player's data part
for export and erasure (issue 48; storage in :mod:`service.storage.push`).

A subscription is what a browser's ``PushManager.subscribe`` returns: the push service's ``endpoint``
URL and the browser's keys (``p256dh``, its P-256 public key; ``auth``, a 16-byte secret), plus the
player's choices: the entry types pushed (:data:`service.domain.push.messages.PUSH_TYPES`, all by
default) and quiet hours (:mod:`service.domain.push.quiet`).

**Checks.**  The endpoint is called from inside the operator's network, like a webhook URL, so it is
checked the same way (:mod:`service.domain.webhooks.urls`): ``https`` only and public addresses only,
unless the operator allows ``http`` or private addresses (``TABLETOP_WEBHOOK_ALLOW_HTTP``,
``TABLETOP_WEBHOOK_ALLOW_PRIVATE``: development mode allows both, so a push service stand-in on
loopback works there and in tests); and again at every delivery, connecting to the address judged.
``p256dh`` must be a point on the P-256 curve (65 bytes, uncompressed) and ``auth`` 16 bytes, both
base64url: a message is encrypted with them, and keys that cannot encrypt are refused at once rather
than failing every delivery.

**Identity.**  A subscription's id is derived from the player and the endpoint, so a browser that
subscribes again (a page reloaded, keys refreshed) replaces its subscription instead of adding one.

**Secrets.**  The keys encrypt messages for that browser alone; they are stored, read to encrypt, and
shown to nobody: no answer, export or log line carries them.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Iterable
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from service.config import Config
from service.domain.errors import Conflict, Invalid, invalid, not_found
from service.domain.identity import player_key
from service.domain.push.delivery import PushQueue
from service.domain.push.messages import PUSH_TYPES
from service.domain.push.quiet import check_quiet_hours
from service.domain.push.vapid import b64url_decode
from service.domain.webhooks.urls import Resolver, check_resolved, check_url, split_url
from service.storage.push import FULL, PushStore


def subscription_id(key: str, endpoint: str) -> str:
    """The id of the player ``key``'s subscription at ``endpoint`` (see the module)."""
    digest = hashlib.sha256(f"{key}\n{endpoint}".encode()).digest()
    return "ps_" + base64.b32encode(digest[:15]).decode().lower()


def check_keys(keys: Any) -> dict[str, str]:
    """The browser's keys as stored, or :class:`Invalid` naming the one that is wrong."""
    if not isinstance(keys, dict):
        raise invalid("keys", 'is {"p256dh": "...", "auth": "..."} (PushSubscription.toJSON().keys)')
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    try:
        point = b64url_decode(p256dh) if isinstance(p256dh, str) else b""
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise invalid(
            "keys.p256dh", "must be a P-256 public key: 65 bytes, uncompressed, base64url"
        ) from None
    try:
        secret = b64url_decode(auth) if isinstance(auth, str) else b""
    except ValueError:
        secret = b""
    if len(secret) != 16:
        raise invalid("keys.auth", "must be the 16-byte authentication secret, base64url")
    return {"p256dh": str(p256dh).rstrip("="), "auth": str(auth).rstrip("=")}


def check_types(types: Any) -> list[str]:
    """The chosen entry types, each once in the spec's order (all of them for ``None``)."""
    if types is None:
        return list(PUSH_TYPES)
    if not isinstance(types, list) or not all(isinstance(t, str) for t in types) or not types:
        raise invalid("types", f"is a non-empty list among {', '.join(PUSH_TYPES)}")
    unknown = [t for t in types if t not in PUSH_TYPES]
    if unknown:
        raise invalid(
            "types", f"{', '.join(map(repr, unknown))} not pushed; choose among {', '.join(PUSH_TYPES)}"
        )
    return [t for t in PUSH_TYPES if t in types]


def document(doc: dict[str, Any]) -> dict[str, Any]:
    """A subscription as its player reads it: never its keys."""
    return {
        "id": doc["id"],
        "endpoint": doc["endpoint"],
        "types": list(doc["types"]),
        "quiet_hours": doc.get("quiet_hours"),
        "created_at": doc["created_at"],
        "updated_at": doc["updated_at"],
    }


class Subscriptions:
    """The push subscriptions of every player over one store.  ``resolve`` resolves an endpoint's host
    for the address check (tests make any name resolve anywhere)."""

    def __init__(
        self, store: PushStore, config: Config, clock: Callable[[], float], resolve: Resolver
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.resolve = resolve

    def subscribe(
        self, key: str, endpoint: Any, keys: Any, types: Any = None, quiet_hours: Any = None
    ) -> tuple[dict[str, Any], bool]:
        """Register (or replace: the same endpoint) a subscription of the player ``key``; its document
        and whether it is new.  409 ``too_many_subscriptions`` past ``push_max_subscriptions``."""
        doc_keys = check_keys(keys)
        wanted = check_types(types)
        quiet = check_quiet_hours(quiet_hours)
        checked = self._endpoint(endpoint)  # last: it may ask DNS
        sid = subscription_id(key, checked)
        now = round(self.clock(), 3)
        old = self.store.subscription(key, sid)
        doc = {
            "id": sid,
            "endpoint": checked,
            "keys": doc_keys,
            "types": wanted,
            "quiet_hours": quiet,
            "created_at": old["created_at"] if old else now,
            "updated_at": now,
        }
        most = self.config.push_max_subscriptions
        done = self.store.put(key, sid, doc, most)
        if done == FULL:
            raise Conflict(
                "too_many_subscriptions",
                f"a player has at most {most} push subscriptions; delete one first",
                {"max_subscriptions": most},
            )
        return document(doc), old is None

    def subscriptions(self, key: str) -> list[dict[str, Any]]:
        """The player's subscriptions, oldest first (never their keys)."""
        docs = [document(d) for d in self.store.subscriptions(key).values()]
        return sorted(docs, key=lambda d: (d["created_at"], d["id"]))

    def unsubscribe(self, key: str, subscription_id: str) -> None:
        """Delete one of the player's subscriptions (404 for another player's, as for none)."""
        if not self.store.delete(key, subscription_id):
            raise not_found(f"push subscription {subscription_id!r}")

    def _endpoint(self, endpoint: Any) -> str:
        """The endpoint checked like a webhook URL (see the module), refusals naming ``endpoint``."""
        allow_http = self.config.webhook_allow_http
        try:
            checked = check_url(endpoint, allow_http=allow_http)
            target = split_url(checked, allow_http=allow_http)
            check_resolved(
                target.host,
                target.port,
                allow_private=self.config.webhook_allow_private,
                resolve=self.resolve,
            )
        except Invalid as exc:
            raise invalid("endpoint", exc.message.removeprefix("url: ").replace("webhook", "push")) from None
        return checked


class PushSubscriptionData:
    """The player data part of push subscriptions (:class:`service.domain.privacy.parts.PlayerData`):
    the export lists each subscription's endpoint, types, quiet hours and times, never its keys (the
    browser's secrets); erasure deletes them all, with the marks of what was queued and the messages
    still in the push lane's queue (``queue``), whose jobs name the player."""

    section = "push_subscriptions"

    def __init__(self, store: PushStore, queue: PushQueue | None = None) -> None:
        self.store = store
        self.queue = queue

    def export(self, app: str, player: str) -> Iterable[dict[str, Any]]:
        docs = [document(d) for d in self.store.subscriptions(player_key(app, player)).values()]
        return sorted(docs, key=lambda d: (d["created_at"], d["id"]))

    def erase(self, app: str, player: str, placeholder: str) -> int:
        done = self.store.delete_all(player_key(app, player))
        if self.queue is not None:
            self.queue.drop(player_key(app, player))
        return done
