"""Redis persistence of the ``Idempotency-Key`` records of creating requests (issue 42; see
:mod:`service.domain.idempotency` for what they mean).  Beside the other stores, the only code that
talks to Redis about them.

**A record** is one hash, ``tt:{i:<record id>}`` (its own cluster slot), the id a one-way function of
the caller's credential and the key (the store never sees either):

``state``   ``pending`` while the first request runs, ``done`` once its answer is in
``fp``      the request's fingerprint (keyed: the same request under the same key gives the same)
``owner``   while ``pending``: a random token of the request that claimed it, so only it finishes or
            releases the record
``sealed``  once ``done``: the answer, encrypted (only a caller with the credential and the key can
            read it)

A pending record expires after the claim's time (a process that died mid-request frees its key), a
done one after ``TABLETOP_IDEMPOTENCY_SECONDS``.  Every change is a script that checks the owner: a
claim that expired and was taken again by another request is not finished by the first.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from service.storage.lua import script
from service.storage.replies import decoded

PENDING, DONE = "pending", "done"


def record_key(record: str) -> str:
    return f"tt:{{i:{record}}}"


@dataclass(frozen=True)
class Found:
    """A record another request made: its state, fingerprint, and sealed answer (``""`` while pending)."""

    state: str
    fingerprint: str
    sealed: str


class IdempotencyStore:
    """Idempotency records over the service's Redis client."""

    def __init__(self, client: redis.Redis) -> None:
        self.redis = client
        self._claim = script(client, "idempotency_claim")
        self._finish = script(client, "idempotency_finish")
        self._release = script(client, "idempotency_release")

    def claim(self, record: str, owner: str, fingerprint: str, claim_seconds: float) -> Found | None:
        """Claim ``record`` for a request (``None``: claimed now), or the record found there."""
        ms = max(int(claim_seconds * 1000), 1)
        out = [decoded(x) for x in self._claim(keys=[record_key(record)], args=[owner, fingerprint, ms])]
        if out[0] == "claimed":
            return None
        return Found(out[0], out[1], out[2])

    def finish(self, record: str, owner: str, sealed: str, keep_seconds: int) -> bool:
        return bool(self._finish(keys=[record_key(record)], args=[owner, sealed, max(int(keep_seconds), 1)]))

    def release(self, record: str, owner: str) -> bool:
        return bool(self._release(keys=[record_key(record)], args=[owner]))
