"""``Idempotency-Key`` for the requests that create something (issue 42): matches, tournaments, seeks,
challenges, webhook endpoints, player tokens, apps.  A client whose connection dropped mid-request
sends it again with the same key and gets the first answer, not a second thing.

**Semantics** (those of a move's key, :meth:`service.domain.matches.operations.Matches.move`):

* the same key, the same caller and the same request (method, path and body) replay the first
  answer: its status, its body and its ``Location``, byte for byte (e.g. 201 and the same id);
* the same key with another request is 422 naming ``Idempotency-Key``;
* while the first request runs, the same key again is 409 ``idempotency_in_progress`` (retry after
  a second): it never makes the thing twice;
* only a success (2xx) is kept, for ``TABLETOP_IDEMPOTENCY_SECONDS``: a refusal or a failure frees
  the key, so a retry after fixing the request runs it.  A process that dies mid-request frees its
  key after :data:`CLAIM_SECONDS` (its request may have made the thing: the key cannot tell).

**Scope.**  A key belongs to one caller: its bearer credential (app key, player token, seat token,
admin token) or, without one, its address.  Two callers never meet under one key.

**Secrets at rest.**  Answers carry secrets (tokens, a webhook secret, seat tokens, a creator token,
an app key), so the store holds neither the answer in clear nor anything to open it with.  Every
key of a record derives from ``k = HMAC-SHA256(credential, "tabletop idempotency v1" | key)``, which
the server never stores (it keeps credentials only hashed, keys not at all): the record's id is a hash
of ``k``, the request's fingerprint an HMAC under ``k``, and the answer is sealed under keys derived
from ``k`` (AES-256-GCM with a random nonce, the record's id as associated data).  Only the same
caller presenting the same key can find the record and open it; a copy of Redis opens nothing.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
import zlib
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.domain.errors import Conflict, invalid
from service.storage.idempotency import DONE, IdempotencyStore

HEADER = "Idempotency-Key"
#: The longest key (as a move's).
MAX_KEY = 255
#: Seconds a request's claim on its key holds (longer than any creating request runs): a process that
#: dies mid-request frees the key after this.
CLAIM_SECONDS = 120.0
#: Seconds a client is told to wait before retrying a key in progress.
RETRY_AFTER = 1
_CONTEXT = b"tabletop idempotency v1\x00"
_NONCE = 12  # AES-GCM's standard nonce


@dataclass(frozen=True)
class Answer:
    """A stored answer: status, the headers worth replaying, body."""

    status: int
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Claim:
    """The right to run a request under a key, and to store its answer."""

    record: str
    owner: str
    secret: bytes = field(repr=False)


def _derive(secret: bytes, label: bytes) -> bytes:
    return hmac.new(secret, label, hashlib.sha256).digest()


def seal(secret: bytes, plain: bytes, record: str) -> str:
    """``plain`` encrypted and authenticated under a key derived from ``secret``, bound to ``record``
    (a sealed answer moved under another record's id does not open)."""
    nonce = os.urandom(_NONCE)
    cipher = AESGCM(_derive(secret, b"seal")).encrypt(nonce, plain, record.encode())
    return base64.b64encode(nonce + cipher).decode()


def unseal(secret: bytes, sealed: str, record: str) -> bytes | None:
    """What :func:`seal` sealed, or ``None`` if it does not open under ``secret`` (or was altered)."""
    try:
        raw = base64.b64decode(sealed, validate=True)
        return AESGCM(_derive(secret, b"seal")).decrypt(raw[:_NONCE], raw[_NONCE:], record.encode())
    except (ValueError, InvalidTag):
        return None


def check_key(key: str) -> str:
    """The key if it is 1 to :data:`MAX_KEY` printable ASCII characters; else 422 naming the header."""
    if not 0 < len(key) <= MAX_KEY or not all(" " <= c <= "~" for c in key):
        raise invalid(HEADER, f"1 to {MAX_KEY} printable ASCII characters")
    return key


class Idempotency:
    """Claims, replays and stores the answers of creating requests under their ``Idempotency-Key``."""

    def __init__(self, store: IdempotencyStore, keep_seconds: int, claim_seconds: float = CLAIM_SECONDS):
        self.store = store
        self.keep_seconds = keep_seconds
        self.claim_seconds = claim_seconds

    def begin(self, credential: str, key: str, request: bytes) -> Claim | Answer:
        """Claim ``key`` for ``request`` (the method, path and body, as the HTTP layer spells them) of
        the caller ``credential``: a :class:`Claim` to run it under, or the stored :class:`Answer` of
        the same request.  422 for a key used with another request, 409 ``idempotency_in_progress``
        while the first runs."""
        check_key(key)
        secret = hmac.new(credential.encode(), _CONTEXT + key.encode(), hashlib.sha256).digest()
        record = hashlib.sha256(b"record\x00" + secret).hexdigest()
        fingerprint = hmac.new(_derive(secret, b"request"), request, hashlib.sha256).hexdigest()
        owner = secrets.token_hex(16)
        found = self.store.claim(record, owner, fingerprint, self.claim_seconds)
        if found is None:
            return Claim(record, owner, secret)
        if not hmac.compare_digest(found.fingerprint, fingerprint):
            raise invalid(HEADER, "this key was used with a different request (method, path or body)")
        if found.state != DONE:
            raise Conflict(
                "idempotency_in_progress",
                f"a request with this {HEADER} is still running; retry in {RETRY_AFTER} s",
                {"retry_after": RETRY_AFTER},
            )
        plain = unseal(secret, found.sealed, record)
        if plain is None:  # not ours to open: cannot happen for the same caller and key
            raise invalid(HEADER, "the stored answer of this key cannot be read")
        stored = json.loads(zlib.decompress(plain))
        return Answer(int(stored["status"]), dict(stored["headers"]), base64.b64decode(stored["body"]))

    def finish(self, claim: Claim, answer: Answer) -> bool:
        """Keep the answer of the claimed request (a success); whether it was kept (``False``: the claim
        had expired)."""
        plain = json.dumps(
            {
                "status": answer.status,
                "headers": answer.headers,
                "body": base64.b64encode(answer.body).decode(),
            }
        ).encode()
        sealed = seal(claim.secret, zlib.compress(plain), claim.record)
        return self.store.finish(claim.record, claim.owner, sealed, self.keep_seconds)

    def release(self, claim: Claim) -> None:
        """Free the key (the request was refused or failed): a retry runs it."""
        self.store.release(claim.record, claim.owner)
