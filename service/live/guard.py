"""Revocation reaching the waiters (issue 42): :class:`Guard` ends every waiter of this process whose
credential (:class:`service.live.credentials.Credential`) was revoked or expired.

Revocations are announced on one channel every reader listens to
(:class:`service.storage.accounts.Revocation`): the reader hands each to :meth:`Guard.revoke`, which ends
at once every waiter it covers in this process; a credential revoked moments before its waiter
subscribed is refused there (:meth:`Guard.refused`: the guard remembers the last :data:`REVOKED_MEMORY`
seconds of revocations).  A guard greenlet ends the waiters whose token expired (every
:data:`GUARD_SWEEP` seconds), and every ``check_seconds`` reads what each distinct credential of its
waiters stands on now, in one round trip, so an announcement missed (the reader was reconnecting)
costs seconds, not an hour.  Nothing the reader had not written before the revocation goes out after
it (:meth:`service.live.subscription.Subscription.revoke`).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque

from service.live.credentials import TOKEN_EXPIRED, Credential
from service.live.per_process import PerProcess
from service.live.subscription import Subscription
from service.storage.accounts import AccountStore, Revocation
from service.storage.client import STORAGE_ERRORS

log = logging.getLogger(__name__)

#: Seconds between two looks of the guard at its waiters' expiry (:meth:`Guard.round`).
GUARD_SWEEP = 1.0
#: Seconds a process remembers the revocations it heard: a waiter whose credential was checked before
#: a revocation and that subscribes after the reader heard it is refused.
REVOKED_MEMORY = 60.0


class Guard:
    """The waiters with a credential, by app (what a :class:`Revocation` names first); the revocations
    heard in the last :data:`REVOKED_MEMORY` seconds; the greenlet that ends expired waiters and every
    ``check_seconds`` reads what their credentials stand on (:meth:`round`).  ``lock`` is the hub's:
    the tagged waiters are kept under it."""

    def __init__(self, accounts: AccountStore, lock: threading.Lock, check_seconds: float) -> None:
        self.accounts = accounts
        self._lock = lock
        self.check_seconds = check_seconds
        #: The waiters with a credential, by app.
        self.tagged: dict[str, set[Subscription]] = {}
        #: The revocations heard lately (``time.monotonic``, the revocation), and the same by what
        #: they name: the player key of a token revocation, else the app.
        self._heard: deque[tuple[float, Revocation]] = deque()
        self._recent: dict[str, list[Revocation]] = {}
        self._thread = PerProcess(self._forever, "live-credentials")
        #: When the next :meth:`round` reads the credentials (``time.monotonic``).
        self.check_at = 0.0

    def tag(self, sub: Subscription) -> None:
        """Keep ``sub`` (with a credential) until it leaves (under the lock)."""
        assert sub.credential is not None
        self.tagged.setdefault(sub.credential.app, set()).add(sub)

    def untag(self, sub: Subscription) -> None:
        """``sub`` left (under the lock)."""
        if sub.credential is None:
            return
        tagged = self.tagged.get(sub.credential.app)
        if tagged is not None:
            tagged.discard(sub)
            if not tagged:
                del self.tagged[sub.credential.app]

    def ensure(self) -> None:
        """Run the guard's greenlet in this process (at its first waiter with a credential)."""
        if self._thread.pid != os.getpid():  # (it never ends by itself)
            self._thread.ensure(self._lock)

    def recheck(self) -> None:
        """Read the credentials at the next round: the reader (re)connected, and what was announced
        meanwhile was missed."""
        self.check_at = 0.0

    def revoke(self, revocation: Revocation) -> int:
        """End every waiter of this process that ``revocation`` covers (the reader calls this for
        each announcement), and remember it a while for the waiters that come just after; how many
        ended."""
        clock = time.monotonic()
        with self._lock:
            self._heard.append((clock, revocation))
            self._recent.setdefault(revocation.player or revocation.app, []).append(revocation)
            while self._heard and self._heard[0][0] < clock - REVOKED_MEMORY:
                _, old = self._heard.popleft()
                named = old.player or old.app
                kept = self._recent[named]
                kept.pop(0)  # in the order heard, as the deque's
                if not kept:
                    del self._recent[named]
            tagged = self.tagged.get(revocation.app, ())
            covered = [s for s in tagged if s.credential is not None and s.credential.revoked_by(revocation)]
            covered = [s for s in covered if s.revoked is None]
            for sub in covered:
                sub.revoke(revocation.reason)
        return len(covered)

    def refused(self, credential: Credential) -> str | None:
        """Why a new waiter with ``credential`` is refused (under the lock): a revocation heard
        lately covers it, or it expired; ``None``: it may wait."""
        if credential.expires_at is not None and credential.expires_at <= time.time():
            return TOKEN_EXPIRED
        for named in (credential.app, credential.player):
            for revocation in self._recent.get(named or "", ()):
                if credential.revoked_by(revocation):
                    return revocation.reason
        return None

    def _forever(self) -> None:
        # Its own greenlet: a reader retrying a lost Redis must not keep an expired token's stream open.
        while True:
            time.sleep(GUARD_SWEEP)
            try:
                self.round()
            except STORAGE_ERRORS as exc:  # read again at the next round
                log.warning("live events: the credentials' check failed (%s)", exc)
            except Exception:
                log.exception("live events: the credentials' check failed")

    def round(self) -> None:
        """End the waiters whose token expired; every ``check_seconds`` (or at once after the reader
        reconnected) also read what each distinct credential of the waiters stands on now, in one
        round trip, and end those revoked: an announcement missed costs seconds."""
        clock, wall = time.monotonic(), time.time()
        with self._lock:
            tagged = [sub for subs in self.tagged.values() for sub in subs]
            for sub in tagged:
                assert sub.credential is not None
                expires = sub.credential.expires_at
                if expires is not None and expires <= wall:
                    sub.revoke(TOKEN_EXPIRED)
            if clock < self.check_at or not tagged:
                return
            self.check_at = clock + self.check_seconds
            credentials = {sub.credential for sub in tagged if sub.revoked is None}
        apps = sorted({c.app for c in credentials if c is not None})
        tokens = sorted({(c.player, c.id) for c in credentials if c is not None and c.player and c.id})
        found_apps, found_tokens = self.accounts.credentials(apps, tokens)
        wall = time.time()
        with self._lock:
            for sub in tagged:
                credential = sub.credential
                if credential is None or sub.revoked is not None:
                    continue
                token = None if credential.player is None else (credential.player, credential.id or "")
                reason = credential.standing(
                    found_apps.get(credential.app), found_tokens.get(token) if token else None, wall
                )
                if reason is not None:
                    sub.revoke(reason)
