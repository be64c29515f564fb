"""Redis persistence of what player-data requests need beyond the other stores (issue 48): the server's
placeholder secret, the apps' erasure marks and audit logs, and the few rewrites an erasure makes in
place (:mod:`service.domain.privacy`).  Beside the other stores, the only code that talks to Redis
about them.

Key layout:

``tt:privacy:secret``        string: a random secret, made once (``SET NX``), that keys the placeholders,
                             the erasure marks and spectators' chat handles (HMAC-SHA256): stable for
                             the deployment, and no one without Redis can tell whose a placeholder or
                             a handle is
``tt:{a:<app>}:erased``      hash: HMAC of a player id -> ``{"placeholder", "at"}`` (JSON): the players
                             the app deleted, by a one-way name, so a second ``DELETE`` is told apart
                             from a player that never was, without keeping the id
``tt:{a:<app>}:audit``       a Stream: the app's player-data requests (export, delete): who asked (the
                             kind of credential and its id), when, about which player; capped at
                             :data:`AUDIT_LENGTH` entries and trimmed to :data:`AUDIT_SECONDS`

A stream's rewrite (``lua/privacy_rewrite_stream.lua``) is a compare-and-set: a stream written since
it was read is left alone, and the caller reads it again.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from typing import Any, cast

import redis

from service.storage.accounts import app_key
from service.storage.lua import script
from service.storage.replies import decoded

SECRET_KEY = "tt:privacy:secret"
#: Audit entries an app keeps, at most (approximately: Redis trims whole nodes), and for how long.
AUDIT_LENGTH = 10_000
AUDIT_SECONDS = 365 * 24 * 3600


class PrivacyStore:
    """The placeholder secret, erasure marks, audit logs and in-place rewrites over one Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._rewrite_stream = script(client, "privacy_rewrite_stream")

    # -- the secret ---------------------------------------------------------------------------------

    def secret(self) -> bytes:
        """The deployment's secret, made by the first process that asks (one read once it is made)."""
        found = self.redis.get(SECRET_KEY)
        if found is None:
            self.redis.set(SECRET_KEY, secrets.token_hex(32), nx=True)
            found = self.redis.get(SECRET_KEY)
        assert isinstance(found, bytes)
        return found

    # -- erasure marks ------------------------------------------------------------------------------

    def erased(self, app: str, digest: str) -> dict[str, Any] | None:
        raw = self.redis.hget(app_key(app, "erased"), digest)
        return json.loads(raw) if raw is not None else None

    def mark_erased(self, app: str, digest: str, mark: dict[str, Any]) -> None:
        self.redis.hsetnx(app_key(app, "erased"), digest, json.dumps(mark))

    # -- audit --------------------------------------------------------------------------------------

    def audit(self, app: str, entry: dict[str, Any]) -> str:
        """Append ``entry`` to the app's audit log; its id.  Entries older than :data:`AUDIT_SECONDS`
        go at the same time."""
        key = app_key(app, "audit")
        oldest = int((time.time() - AUDIT_SECONDS) * 1000)
        pipe = self.redis.pipeline(transaction=False)
        pipe.xadd(key, {"e": json.dumps(entry)}, maxlen=AUDIT_LENGTH, approximate=True)
        pipe.xtrim(key, minid=f"{oldest}-0", approximate=False)
        entry_id, _ = pipe.execute()
        return decoded(entry_id)

    def audit_page(self, app: str, after: str, count: int) -> list[tuple[str, dict[str, Any]]]:
        """Up to ``count`` audit entries after the id ``after`` (``"0-0"``: from the oldest), oldest first."""
        rows = cast(
            list[Any], self.redis.xrange(app_key(app, "audit"), min=f"({after}", max="+", count=count)
        )
        return [(decoded(eid), json.loads(data[b"e"])) for eid, data in rows]

    # -- rewrites -----------------------------------------------------------------------------------

    def stream(self, key: str) -> list[tuple[str, dict[bytes, bytes]]]:
        """Every entry of a stream (a feed is capped, a match's events are bounded by its game)."""
        rows = cast(list[tuple[bytes, dict[bytes, bytes]]], self.redis.xrange(key, "-", "+"))
        return [(decoded(eid), fields) for eid, fields in rows]

    def rewrite_stream(self, key: str, last: str, values: dict[str, bytes | str]) -> int:
        """Replace the field ``e`` of the entries ``values`` names (entry id -> new value), if the
        stream's newest entry is still ``last``: 1 done, 0 changed since, -1 gone."""
        args: list[Any] = [last]
        for entry_id, value in values.items():
            args += [entry_id, value]
        return int(self._rewrite_stream(keys=[key], args=args))

    def scan(self, pattern: str) -> Iterator[str]:
        """Keys matching ``pattern`` (``SCAN``: a few at a time, never blocking Redis)."""
        for key in self.redis.scan_iter(match=pattern, count=500):
            yield decoded(key)

    def delete(self, *keys: str) -> int:
        """Drop ``keys`` (each its own command: on a cluster they may live in different slots)."""
        pipe = self.redis.pipeline(transaction=False)
        for key in keys:
            pipe.delete(key)
        return sum(int(n) for n in pipe.execute()) if keys else 0
