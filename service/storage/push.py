"""Redis persistence of Web Push (issue 48): the players' push subscriptions, the marks that queue each
note once per subscription, and the server's VAPID key pair (the only code of the feature that talks to
Redis; the rules are :mod:`service.domain.push`'s).

Key layout.  A player's keys carry the player's hash tag ``{p:<app>:<player>}`` (one cluster slot per
player, beside its feed and tokens, :mod:`service.storage.accounts`):

``tt:{p:<key>}:push``        hash: subscription id -> its JSON (endpoint, keys, types, quiet hours,
                             created_at, updated_at): the keys are the browser's secrets, read only to
                             encrypt a message, never into a document
``tt:{p:<key>}:push:marks``  hash: ``<subscription>|<source>`` -> the newest note number queued for that
                             subscription from that source (a match, a challenge): a note carried twice
                             is queued once, and a ``your_turn`` waiting for a retry learns that a newer
                             note of its match came (collapse).  Expires :data:`MARK_SECONDS` after its
                             last write.

``tt:push:vapid``  string (one global key): the server's VAPID key pair as JSON (``private``: base64url of
the raw 32-byte P-256 key; ``public``: base64url of the uncompressed point; ``created_at``), written once
(``SET NX``) by the first process that needs it when no key is configured.
"""

from __future__ import annotations

import json
from typing import Any

import redis

from service.storage.lua import script
from service.storage.replies import decoded

#: The server's generated VAPID key pair (see the module).
VAPID = "tt:push:vapid"
#: Seconds a player's marks are kept after the last one written (a note carried again later than this
#: is rare: the outbox sweep carries what a dead process left within a minute).
MARK_SECONDS = 7 * 24 * 3600
#: What :meth:`PushStore.put` did.
CREATED, REPLACED, FULL = "created", "replaced", "full"


def push_key(key: str, part: str = "") -> str:
    """A push key of the player ``key`` (``<app>:<player>``), in the player's slot."""
    return f"tt:{{p:{key}}}:push" + (f":{part}" if part else "")


class PushStore:
    """Push subscriptions of every player, and the server's VAPID keys, over the service's Redis."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._put = script(client, "push_put")
        self._mark = script(client, "push_mark")

    # -- subscriptions ------------------------------------------------------------------------------

    def put(self, key: str, subscription_id: str, doc: dict[str, Any], most: int) -> str:
        """Write a subscription (:data:`CREATED`; :data:`REPLACED` when the id was there), unless the
        player has ``most`` already (:data:`FULL`, nothing written)."""
        done = int(self._put(keys=[push_key(key)], args=[subscription_id, json.dumps(doc), most]))
        return {1: CREATED, 2: REPLACED}.get(done, FULL)

    def subscriptions(self, key: str) -> dict[str, dict[str, Any]]:
        """The player's subscriptions by id (keys included: callers pick what they show)."""
        raw = self.redis.hgetall(push_key(key))
        return {decoded(sid): json.loads(doc) for sid, doc in raw.items()}

    def subscription(self, key: str, subscription_id: str) -> dict[str, Any] | None:
        raw = self.redis.hget(push_key(key), subscription_id)
        return json.loads(raw) if raw is not None else None

    def delete(self, key: str, subscription_id: str) -> bool:
        """Delete one subscription; whether it was there."""
        return bool(self.redis.hdel(push_key(key), subscription_id))

    def delete_all(self, key: str) -> int:
        """Delete every subscription of the player and its marks; how many subscriptions there were."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.hlen(push_key(key))
        pipe.delete(push_key(key))  # one key a command: a cluster's pipeline sends no multi-key DEL
        pipe.delete(push_key(key, "marks"))
        count, _, _ = pipe.execute()
        return int(count)

    # -- marks ----------------------------------------------------------------------------------------

    def marked(self, key: str, subscription_id: str, source: str) -> int | None:
        """The newest note number of ``source`` queued for the subscription (``None``: none known)."""
        raw = self.redis.hget(push_key(key, "marks"), f"{subscription_id}|{source}")
        return int(raw) if raw is not None else None

    def mark(self, key: str, subscription_id: str, source: str, number: int) -> bool:
        """Note that note ``number`` of ``source`` is queued for the subscription, unless it or a later
        one was; whether this raised the mark."""
        field = f"{subscription_id}|{source}"
        return bool(self._mark(keys=[push_key(key, "marks")], args=[field, number, MARK_SECONDS]))

    def unmark(self, key: str, subscription_id: str, source: str, number: int) -> None:
        """Give back the mark of note ``number`` (its job could not be queued), unless a later note of
        its source was marked since."""
        field = f"{subscription_id}|{source}"
        if self.redis.hget(push_key(key, "marks"), field) == str(number).encode():
            self.redis.hdel(push_key(key, "marks"), field)

    # -- the server's VAPID keys ----------------------------------------------------------------------

    def vapid(self) -> dict[str, Any] | None:
        """The stored VAPID key pair, if one was generated."""
        raw = self.redis.get(VAPID)
        return json.loads(raw) if raw is not None else None

    def keep_vapid(self, pair: dict[str, Any]) -> dict[str, Any]:
        """Store ``pair`` unless a pair is stored already; the stored pair (the first one written wins,
        so every process signs with the same key)."""
        self.redis.set(VAPID, json.dumps(pair), nx=True)
        stored = self.vapid()
        assert stored is not None
        return stored
