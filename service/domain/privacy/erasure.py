"""Player data requests (issue 48): export everything stored about a player, delete a player, and the
app's audit log of both.

**Parts.**  Each kind of data is one :class:`service.domain.privacy.parts.PlayerData`, given by
:mod:`service.wiring` in a list that features append theirs to: the export writes the profile's
section first and then theirs in that order; the deletion erases them in that order and the player's
own slot last (:class:`service.domain.privacy.players.ProfileData`: the other parts read the player's
match index and claims from it).

**Deletion** (the app's key only):

1. every token of the player is revoked, and the revocation announced: open streams and long-polls of
   the player's tokens end in every API process (:class:`service.storage.accounts.Revocation`);
2. the app's erasure mark is written: the player's id as a one-way HMAC (the deployment's secret,
   :class:`service.storage.privacy.PrivacyStore`), with the placeholder and when;
3. every part erases its data (seeks and challenges withdrawn, seats given up by the match's leave
   policy, the name replaced by the placeholder where others' data must stay consistent, ratings and
   board places dropped, the slot deleted);
4. the audit log gets an entry: who (the key's fingerprint), when, which player, what each part removed.

**Idempotent.**  A second ``DELETE`` of the same player finds the mark, runs the parts again (each is
idempotent: it finishes what a first call cut short by a failure left) and answers the same
document; a player the app never had (or another app's) is 404.

**The placeholder** is ``deleted-`` and 12 hex digits of HMAC-SHA256(secret, app and player id): the
same for every match of the player and every retry, different per app and player, and nobody without
the secret can tell whose it is (an app's ids are often guessable; a plain hash of them would not be).
"""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from service.digits import digits
from service.domain.accounts import PLAYER_ID, Accounts, require_scope
from service.domain.errors import Forbidden, invalid, not_found, unauthorized
from service.domain.identity import APP, PLAYER, READ, Caller, player_key
from service.domain.privacy import export
from service.domain.privacy.parts import PlayerData
from service.storage.accounts import Revocation
from service.storage.privacy import PrivacyStore

DELETED, EXPORTED = "player_deleted", "player_exported"
#: Audit entries a page, at most.
MAX_PAGE = 1000


class Privacy:
    """Exports and deletions of an app's players, over the parts that hold their data."""

    def __init__(
        self,
        accounts: Accounts,
        store: PrivacyStore,
        profile: PlayerData,
        parts: Sequence[PlayerData],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.accounts = accounts
        self.store = store
        #: The player's own slot: exported first, erased last.
        self.profile = profile
        #: The kinds of player data, in order (see the module); features append theirs in the wiring.
        self.parts = parts
        self.now = clock

    # -- names --------------------------------------------------------------------------------------

    def _mac(self, purpose: str, app: str, player: str) -> str:
        message = f"{purpose}\0{app}\0{player}".encode()
        return hmac.new(self.store.secret(), message, hashlib.sha256).hexdigest()

    def placeholder(self, app: str, player: str) -> str:
        """The stable name that replaces the player's (see the module)."""
        return "deleted-" + self._mac("placeholder", app, player)[:12]

    # -- export -------------------------------------------------------------------------------------

    def export(self, caller: Caller, player: str) -> Iterator[bytes]:
        """Everything stored about the player, as NDJSON lines (:mod:`.export`): for the app's key, or
        the player's own token (``read``).  Checked (401/403/404) before the first line; audited."""
        app = self._reader(caller, player)
        if not PLAYER_ID.match(player) or self.accounts.store.player(app, player) is None:
            raise not_found(f"player {player!r}")
        at = self.now()
        self._audit(app, caller, EXPORTED, player, at, {})
        return export.lines([self.profile, *self.parts], app, player, at)

    def _reader(self, caller: Caller, player: str) -> str:
        if caller.kind == APP and caller.app is not None:
            return caller.app
        if caller.kind == PLAYER and caller.app is not None:
            if caller.player != player:
                raise Forbidden("not_your_data", "a player token exports its own player's data only")
            require_scope(caller, READ)
            return caller.app
        raise unauthorized("the app key, or the player's own token, is required")

    # -- deletion -----------------------------------------------------------------------------------

    def delete(self, caller: Caller, player: str) -> dict[str, Any]:
        """Delete the player (see the module); the answer is the same for every call about them."""
        if caller.kind == PLAYER:
            raise Forbidden("app_key_required", "only the app's key deletes a player")
        if caller.kind != APP or caller.app is None:
            raise unauthorized("an app key is required (Authorization: Bearer ta.…)")
        app = caller.app
        if not PLAYER_ID.match(player):
            raise invalid("player_id", "1 to 64 letters, digits or _ . @ -")
        digest = self._mac("erased", app, player)
        mark = self.store.erased(app, digest)
        exists = self.accounts.store.player(app, player) is not None
        if mark is None and not exists:
            raise not_found(f"player {player!r}")
        key = player_key(app, player)
        revoked = self.accounts.store.revoke_tokens(key)
        if revoked:
            self.accounts.store.announce(Revocation(app, key, tuple(revoked)))
        if mark is None:
            mark = {"placeholder": self.placeholder(app, player), "at": round(self.now(), 3)}
            self.store.mark_erased(app, digest, mark)
            mark = self.store.erased(app, digest) or mark  # a concurrent first call's, if it won
        placeholder = str(mark["placeholder"])
        removed = {part.section: part.erase(app, player, placeholder) for part in [*self.parts, self.profile]}
        removed["tokens"] = len(revoked)
        self._audit(
            app, caller, DELETED, player, self.now(), {"placeholder": placeholder, "removed": removed}
        )
        return {
            "player": player,
            "status": "deleted",
            "placeholder": placeholder,
            "deleted_at": export.iso(float(mark["at"])),
        }

    # -- the audit log ------------------------------------------------------------------------------

    def _audit(
        self, app: str, caller: Caller, action: str, player: str, at: float, extra: dict[str, Any]
    ) -> None:
        by = {"kind": caller.kind, "credential": caller.credential}
        if caller.kind == PLAYER:
            by["player"] = caller.player
        self.store.audit(app, {"action": action, "player": player, "by": by, "at": export.iso(at), **extra})

    def audit_log(
        self, caller: Caller, after: str | None, limit: int
    ) -> tuple[list[dict[str, Any]], str | None]:
        """The app's audit entries, oldest first, ``limit`` after the cursor ``after``; and the next
        cursor (``None``: no more for now)."""
        if caller.kind != APP or caller.app is None:
            raise unauthorized("an app key is required (Authorization: Bearer ta.…)")
        if not 1 <= limit <= MAX_PAGE:
            raise invalid("limit", f"from 1 to {MAX_PAGE}")
        start = after or "0-0"
        if not _is_stream_id(start):
            raise invalid("after", "not a cursor of this log: pass the one a page gave")
        rows = self.store.audit_page(caller.app, start, limit + 1)
        entries = [{"id": eid, **entry} for eid, entry in rows[:limit]]
        return entries, entries[-1]["id"] if len(rows) > limit else None


def _is_stream_id(text: str) -> bool:
    ms, sep, seq = text.partition("-")
    return bool(sep) and digits(ms) and digits(seq) and len(text) <= 41
