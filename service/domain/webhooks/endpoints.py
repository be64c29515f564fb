"""An app's webhook endpoints: registering, listing, changing, deleting them and rotating their signing
secrets (issue 26, points 1-2; storage in :mod:`service.storage.webhooks`).

An app registers up to ``webhook_max_endpoints`` URLs (checked against server-side request forgery by
:mod:`service.domain.webhooks.urls`), each with the feed entry types it wants
(:data:`service.domain.feeds.feed.ENTRY_TYPES`; none listed: every type) and a signing secret shown once,
on creation and on rotation (:mod:`service.domain.webhooks.signing`).  An endpoint's document never
holds a secret.

**Revocation** (:meth:`EndpointRegistry.disable_app`): every endpoint of a revoked app is disabled with
``disabled_reason`` ``app_revoked`` (:data:`service.domain.accounts.APP_REVOKED`), for good, and its
undelivered messages fail; the lane checks before each send
(:meth:`service.domain.webhooks.delivery.Dispatcher.stopped`) that the endpoint is still enabled and its
app not revoked, so a message claimed just before is not sent either.
"""

from __future__ import annotations

import base64
import json
import secrets
from collections.abc import Callable
from typing import Any

from service.config import Config
from service.domain.accounts import APP_REVOKED
from service.domain.errors import Conflict, invalid, not_found
from service.domain.feeds import feed
from service.domain.webhooks.signing import new_secret
from service.domain.webhooks.urls import Resolver, check_resolved, check_url, split_url
from service.storage.webhooks import WebhookStore

#: An endpoint's statuses.
ENABLED, DISABLED = "enabled", "disabled"
#: The longest description an endpoint may have (characters).
MAX_DESCRIPTION = 500
#: Why an endpoint is disabled, when the app did it.
DISABLED_BY_APP = "disabled by the app"


class EndpointRegistry:
    """The endpoints of every app over one store: what an app registers and changes.  ``resolve``
    resolves a URL's host for the address check (tests make any name resolve anywhere)."""

    def __init__(
        self, store: WebhookStore, config: Config, clock: Callable[[], float], resolve: Resolver
    ) -> None:
        self.store = store
        self.config = config
        self.clock = clock
        self.resolve = resolve

    def create(
        self, app: str, url: str, types: list[str] | None, description: str, include_decision: bool = False
    ) -> dict[str, Any]:
        """Register an endpoint: its document with its signing ``secret``, the only time it is shown.
        ``include_decision``: its ``your_turn`` messages carry the decision, built at send time."""
        checked = self._url(url)
        wanted = self._types(types)
        text = self._description(description)
        now = self.clock()
        endpoint = "ep_" + base64.b32encode(secrets.token_bytes(10)).decode().lower()
        secret = new_secret()
        fields = {
            "url": checked,
            "types": json.dumps(wanted),
            "types_csv": ",".join(wanted),
            "description": text,
            "include_decision": "1" if include_decision else "",
            "status": ENABLED,
            "disabled_reason": "",
            "failing_since": "",
            "created_at": repr(now),
            "updated_at": repr(now),
            "secret": secret,
            "previous_secret": "",
            "previous_secret_expires_at": "",
        }
        cap = self.config.webhook_max_endpoints
        if not self.store.create_endpoint(app, endpoint, fields, cap):
            raise Conflict(
                "too_many_endpoints", f"an app has at most {cap} webhook endpoints", {"max_endpoints": cap}
            )
        return {**self.endpoint(app, endpoint), "secret": secret}

    def endpoints(self, app: str) -> list[dict[str, Any]]:
        """The app's endpoints, oldest first (never a secret)."""
        docs = []
        for endpoint in self.store.endpoint_ids(app):
            stored = self.store.endpoint(app, endpoint)
            if stored is not None:
                docs.append(self._doc(endpoint, stored))
        return sorted(docs, key=lambda d: (d["created_at"], d["id"]))

    def endpoint(self, app: str, endpoint_id: str) -> dict[str, Any]:
        """One endpoint of the app (404 for an id of another app's, as for one that never was)."""
        return self._doc(endpoint_id, self.stored(app, endpoint_id))

    def stored(self, app: str, endpoint_id: str) -> dict[str, str]:
        """The endpoint's stored fields, secrets included (for the other parts, never for an answer);
        :class:`~service.domain.errors.NotFound` if the app has no such endpoint."""
        stored = self.store.endpoint(app, endpoint_id)
        if stored is None:
            raise not_found(f"webhook endpoint {endpoint_id!r}")
        return stored

    def update(
        self,
        app: str,
        endpoint_id: str,
        *,
        url: str | None = None,
        types: list[str] | None = None,
        description: str | None = None,
        enabled: bool | None = None,
        include_decision: bool | None = None,
    ) -> dict[str, Any]:
        """Change what is given.  Enabling clears the reason it was disabled and its failing streak, and
        its pending messages are due at once (in per-match order); disabling stops deliveries (messages
        already queued wait).  An endpoint disabled because its app was revoked is never enabled again
        (:class:`Conflict` ``app_revoked``; the app's key is refused before it could ask anyway)."""
        self.stored(app, endpoint_id)
        now = self.clock()
        fields: dict[str, str] = {}
        if url is not None:
            fields["url"] = self._url(url)
        if types is not None:
            wanted = self._types(types)
            fields["types"] = json.dumps(wanted)
            fields["types_csv"] = ",".join(wanted)
        if description is not None:
            fields["description"] = self._description(description)
        if include_decision is not None:
            fields["include_decision"] = "1" if include_decision else ""
        if enabled is True:
            fields.update(status=ENABLED, disabled_reason="", failing_since="")
        elif enabled is False:
            fields.update(status=DISABLED, disabled_reason=DISABLED_BY_APP)
        fields["updated_at"] = repr(now)
        done = self.store.update_endpoint(app, endpoint_id, fields, unless_disabled_for=APP_REVOKED)
        if done == 0:
            raise not_found(f"webhook endpoint {endpoint_id!r}")
        if done == 2:
            raise Conflict("app_revoked", "this endpoint was disabled when its app was revoked", {})
        if enabled is True:
            # Its pending messages, if any, go out again now, not when their retries were due.
            self.store.catch_up(app, endpoint_id, round(now, 3))
            self.store.wake(app, endpoint_id, now)
        return self.endpoint(app, endpoint_id)

    def disable_app(self, app: str, reason: str) -> int:
        """Disable every endpoint of the app with ``reason`` (``app_revoked`` when the app is revoked)
        and fail every message they had not delivered yet, so nothing more is sent (a lane holding one
        finds its lease gone; the check before a send catches one already under way).  How many
        endpoints this disabled (those already disabled for ``reason`` are not counted again)."""
        now = round(self.clock(), 3)
        error = f"not sent: the endpoint was disabled ({reason})"
        return sum(
            bool(self.store.disable(app, endpoint, reason, error, now))
            for endpoint in self.store.endpoint_ids(app)
        )

    def delete(self, app: str, endpoint_id: str) -> None:
        """Delete an endpoint and every message it had (queued ones are never sent)."""
        if not self.store.delete_endpoint(app, endpoint_id):
            raise not_found(f"webhook endpoint {endpoint_id!r}")

    def rotate_secret(self, app: str, endpoint_id: str) -> dict[str, Any]:
        """A new signing secret (shown once, in the answer); the old one goes on signing beside it until
        ``previous_secret_expires_at``."""
        now = self.clock()
        secret = new_secret()
        expires = now + self.config.webhook_secret_grace_seconds
        if not self.store.rotate_secret(app, endpoint_id, secret, expires, now):
            raise not_found(f"webhook endpoint {endpoint_id!r}")
        return {**self.endpoint(app, endpoint_id), "secret": secret}

    # -- checks and documents -----------------------------------------------------------------------

    def _url(self, url: str) -> str:
        checked = check_url(url, allow_http=self.config.webhook_allow_http)
        target = split_url(checked, allow_http=self.config.webhook_allow_http)
        check_resolved(
            target.host, target.port, allow_private=self.config.webhook_allow_private, resolve=self.resolve
        )
        return checked

    @staticmethod
    def _types(types: list[str] | None) -> list[str]:
        if types is None:
            return []
        if not isinstance(types, list) or not all(isinstance(t, str) for t in types):
            raise invalid("types", "is a list of feed entry types")
        unknown = [t for t in types if t not in feed.ENTRY_TYPES]
        if unknown:
            raise invalid(
                "types", f"{', '.join(map(repr, unknown))} unknown; known: {', '.join(feed.ENTRY_TYPES)}"
            )
        return [t for t in feed.ENTRY_TYPES if t in types]  # each once, in the spec's order

    @staticmethod
    def _description(description: str | None) -> str:
        text = description or ""
        if not isinstance(text, str) or len(text) > MAX_DESCRIPTION:
            raise invalid("description", f"is text of at most {MAX_DESCRIPTION} characters")
        return text

    def _doc(self, endpoint_id: str, stored: dict[str, str]) -> dict[str, Any]:
        """An endpoint's document: never a secret."""
        expires = _float(stored.get("previous_secret_expires_at"))
        return {
            "id": endpoint_id,
            "url": stored["url"],
            "types": json.loads(stored.get("types") or "[]"),
            "description": stored.get("description", ""),
            "include_decision": stored.get("include_decision") == "1",
            "status": stored.get("status", ENABLED),
            "disabled_reason": stored.get("disabled_reason") or None,
            "failing_since": _float(stored.get("failing_since")),
            "created_at": float(stored["created_at"]),
            "updated_at": float(stored["updated_at"]),
            "previous_secret_expires_at": expires if expires is not None and expires > self.clock() else None,
        }


def _float(text: str | None) -> float | None:
    return float(text) if text else None
