"""Keeping a number of seeks open for a bot, and withdrawing them when it stops.

A person has one open seek at a time; a bot player (``put_player(..., bot=True)``) has up to the
server's ``TABLETOP_BOT_MAX_MATCHES`` matches and seeks together, so a bot keeps several open and
plays the matches they make side by side.  The keeper posts seeks until ``count`` are open, taking the
specs in turn; it posts again when one is settled (matched or expired, told by the feed) or a match
ends (which frees a place under the server's cap).  A refusal for the cap (409) only means "later": the
next settled seek or finished match tries again (not every feed entry: a bot at its cap would spend a
request on each).
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable

from tabletop_client.client import Client
from tabletop_client.runner.terms import SeekSpec
from tabletop_client.transport import ApiError, Doc

log = logging.getLogger("tabletop_client.runner")

#: Answers that mean "not now" for a new seek: the player's open seek or its bot cap.
FULL = frozenset({409})


class SeekKeeper:
    """The seeks a runner keeps open (``open``: seek id -> its spec)."""

    def __init__(self, specs: list[SeekSpec], count: int) -> None:
        if count and not specs:
            raise ValueError("keeping seeks open needs at least one seek spec")
        self.count = count
        self.specs = list(specs)
        self.open: dict[str, SeekSpec] = {}
        self._turns = itertools.cycle(specs) if specs else None
        self._lock = threading.Lock()
        self._blocked = False

    def adopt(self, api: Client, token: str, me: str) -> None:
        """Count as ours the open seeks a previous run of this player left (killed before it could
        withdraw them), so a restart does not post more than ``count``."""
        if not self.count:
            return
        for game in sorted({spec.game for spec in self.specs}):
            spec = next(s for s in self.specs if s.game == game)
            for seek in api.seeks(token, game)["seeks"]:
                if seek["player"]["id"] == me:
                    with self._lock:
                        self.open.setdefault(seek["id"], spec)

    def top_up(self, send: Callable[[SeekSpec], Doc]) -> None:
        """Post seeks (``send`` posts one) until ``count`` are open or the server says not now."""
        while self._turns is not None:
            with self._lock:
                if len(self.open) >= self.count or self._blocked:
                    return
                spec = next(self._turns)
            try:
                seek = send(spec)
            except ApiError as exc:
                if exc.status in FULL:
                    log.debug("seek not posted now: %s", exc)
                    with self._lock:
                        self._blocked = True
                    return
                raise
            if seek["status"] in ("open", "pairing"):
                with self._lock:
                    self.open[seek["id"]] = spec
            log.info("seek %s (%s, %d players): %s", seek["id"], spec.game, spec.players, seek["status"])

    def settled(self, seek_id: str) -> None:
        """The seek was matched or expired: it no longer holds a place."""
        with self._lock:
            self.open.pop(seek_id, None)
            self._blocked = False

    def freed(self) -> None:
        """A match ended: a place under the server's cap may be free again."""
        with self._lock:
            self._blocked = False

    def withdraw(self, cancel: Callable[[str], object]) -> list[str]:
        """Cancel every seek still open (``cancel`` withdraws one); the ids withdrawn.  One matched or
        expired meanwhile (409) is simply gone."""
        with self._lock:
            ids, self.open = list(self.open), {}
        done = []
        for seek_id in ids:
            try:
                cancel(seek_id)
                done.append(seek_id)
            except ApiError as exc:
                if exc.status not in (404, 409):
                    raise
        return done
