"""Redis persistence of the ``Idempotency-Key`` records of creating requests (issue 42; see
:mod:`service.matches.idempotency` for what they mean).  Beside the other stores, the only code that
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

PENDING, DONE = "pending", "done"

#: Claim a record, or read it.  KEYS: the record.  ARGV: owner, fingerprint, claim ms.  Returns
#: ``{"claimed"}``, or ``{state, fingerprint, sealed}`` of the record there.
_CLAIM = """
local found = redis.call('HMGET', KEYS[1], 'state', 'fp', 'sealed')
if not found[1] then
  redis.call('HSET', KEYS[1], 'state', 'pending', 'fp', ARGV[2], 'owner', ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return {'claimed'}
end
return {found[1], found[2] or '', found[3] or ''}
"""

#: Store the answer of the request that claimed the record.  ARGV: owner, sealed answer, seconds
#: kept.  Returns 1 if stored, 0 if the claim was lost (expired, taken by another).
_FINISH = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'sealed', ARGV[2])
redis.call('HDEL', KEYS[1], 'owner')
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""

#: Give a claim up (its request was refused, or failed): the key is free again.  ARGV: owner.
_RELEASE = """
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])
"""


def record_key(record: str) -> str:
    return f"tt:{{i:{record}}}"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


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
        self._claim = client.register_script(_CLAIM)
        self._finish = client.register_script(_FINISH)
        self._release = client.register_script(_RELEASE)

    def claim(self, record: str, owner: str, fingerprint: str, claim_seconds: float) -> Found | None:
        """Claim ``record`` for a request (``None``: claimed now), or the record found there."""
        ms = max(int(claim_seconds * 1000), 1)
        out = [_text(x) for x in self._claim(keys=[record_key(record)], args=[owner, fingerprint, ms])]
        if out[0] == "claimed":
            return None
        return Found(out[0], out[1], out[2])

    def finish(self, record: str, owner: str, sealed: str, keep_seconds: int) -> bool:
        return bool(self._finish(keys=[record_key(record)], args=[owner, sealed, max(int(keep_seconds), 1)]))

    def release(self, record: str, owner: str) -> bool:
        return bool(self._release(keys=[record_key(record)], args=[owner]))
