"""The server's VAPID key pair (RFC 8292): what identifies this server to the browsers' push services.

A browser subscribes with the server's public key (``applicationServerKey``); from then on its push
service accepts messages for that subscription only when signed by the matching private key.  So the
key pair must stay the same for as long as any subscription lives: a new key orphans every subscription
(the browsers must subscribe again).

Where the key comes from, in order:

1. ``TABLETOP_VAPID_PRIVATE_KEY`` (the chart's secret): base64url of the raw 32-byte P-256 private key
   (what ``vapid --gen`` and most Web Push tools print), or a PEM (``-----BEGIN EC PRIVATE KEY-----`` or
   PKCS#8), or base64 DER.  Checked when the process starts: a key that is not a P-256 private key stops
   it with a message naming the setting.
2. Otherwise the first process that needs a key generates one and stores it in Redis
   (:data:`service.storage.push.VAPID`, written once: every process of the deployment signs with the
   same key).  Convenient, and it survives restarts with Redis's data; but the private key then sits in
   Redis in the clear, readable by whoever can read Redis: production should set it from a secret.

The private key never leaves the server: the API shows the public key only
(``GET /v1/push/vapid-public-key``), and no document or log line carries the private one.

Each message is signed for its push service's origin (``aud``), with ``TABLETOP_VAPID_SUBJECT`` as the
contact (``sub``, a ``mailto:`` or ``https:`` URL the push service's operator may write to) and an
expiry :data:`TOKEN_SECONDS` ahead (RFC 8292 allows at most a day).
"""

from __future__ import annotations

import base64
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid.jwt import sign

from service.storage.push import PushStore

#: Seconds a signature (the JWT of ``Authorization: vapid t=...``) is valid.
TOKEN_SECONDS = 12 * 3600
#: The setting's variable, as its errors name it.
SETTING = "TABLETOP_VAPID_PRIVATE_KEY"


def b64url(data: bytes) -> str:
    """Base64url without padding (what Web Push writes keys in)."""
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64url_decode(text: str) -> bytes:
    """The bytes of base64url text with or without padding (``ValueError`` if it is not base64url)."""
    cleaned = text.strip()
    if not cleaned or any(c not in _B64URL for c in cleaned.rstrip("=")):
        raise ValueError("not base64url")
    return base64.urlsafe_b64decode(cleaned + "=" * (-len(cleaned) % 4))


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def parse_private_key(text: str) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from the setting's text (raw base64url, PEM or base64 DER), or
    ``ValueError`` naming the setting."""
    key: Any
    try:
        if "-----BEGIN" in text:
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            cleaned = text.strip().replace("-", "+").replace("_", "/")
            raw = base64.b64decode(cleaned + "=" * (-len(cleaned) % 4))
            if len(raw) == 32:
                key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
            else:
                key = serialization.load_der_private_key(raw, password=None)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{SETTING} is not a private key (raw base64url, PEM or DER): {exc}") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError(f"{SETTING} must be an EC key on the P-256 curve (prime256v1), as VAPID requires")
    return key


def raw_private(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def raw_public(key: ec.EllipticCurvePrivateKey) -> str:
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def check_subject(subject: str) -> str:
    """The contact signed into every message (``TABLETOP_VAPID_SUBJECT``), or ``ValueError``."""
    if not (subject.startswith("mailto:") and "@" in subject) and not subject.startswith("https://"):
        raise ValueError(
            f"TABLETOP_VAPID_SUBJECT={subject!r}: a contact is required (mailto:you@example.com or https://...)"
        )
    return subject


class VapidKeys:
    """The server's key pair (see the module), loaded once per process: from the setting (checked at
    once), or from Redis on first use (generated there if none is stored)."""

    def __init__(
        self, store: PushStore, private_key: str, subject: str, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.subject = check_subject(subject)
        self.clock = clock
        self._lock = threading.Lock()
        self._key: ec.EllipticCurvePrivateKey | None = None
        self._public = ""
        if private_key:
            self._use(parse_private_key(private_key))

    def _use(self, key: ec.EllipticCurvePrivateKey) -> None:
        self._public = raw_public(key)
        self._key = key

    def _loaded(self) -> ec.EllipticCurvePrivateKey:
        if self._key is None:
            with self._lock:
                if self._key is None:
                    stored = self.store.vapid()
                    if stored is None:
                        fresh = ec.generate_private_key(ec.SECP256R1())
                        pair = {
                            "private": raw_private(fresh),
                            "public": raw_public(fresh),
                            "created_at": self.clock(),
                        }
                        stored = self.store.keep_vapid(pair)
                    self._use(parse_private_key(str(stored["private"])))
        assert self._key is not None
        return self._key

    def public_key(self) -> str:
        """The public key as browsers take it (``applicationServerKey``): base64url of the 65-byte
        uncompressed P-256 point."""
        self._loaded()
        return self._public

    def authorization(self, endpoint: str) -> str:
        """The ``Authorization`` header of a message to ``endpoint`` (RFC 8292:
        ``vapid t=<JWT>, k=<public key>``), signed for the endpoint's origin."""
        parts = urlsplit(endpoint)
        claims = {
            "aud": f"{parts.scheme}://{parts.netloc}",
            "sub": self.subject,
            "exp": int(self.clock()) + TOKEN_SECONDS,
        }
        token: str = sign(claims, self._loaded())
        return f"vapid t={token}, k={self._public}"
