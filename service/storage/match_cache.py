"""This process's copies of matches: one cache, with one validity rule, for the move and the live reader.

A copy is a match as this process last saw it, at the version it names: as its own write left it (a
creation or a commit: the meta's fields and the encoded state, :meth:`MatchCache.keep_write`), or as
the live reader read it (the meta, :meth:`MatchCache.keep_read`).

**The rule.**  A match's meta and state change only by a commit, which bumps the version, stamps
``updated_at`` and publishes the new version on the match's channel, in one script
(``lua/match_commit.lua``).  So a copy is the match exactly while the match is still at the copy's
version.  The cache cannot see when that stops: it hands a copy out only for the version asked for,
and whoever acts on it proves first that the match is still there:

- a move (:meth:`service.storage.matches.Store.recent`, :meth:`service.domain.matches.play.MatchPlay.move`)
  is decided on the written copy of the version the mover names, and its commit's compare-and-set on
  the version and ``updated_at`` lets it land only on that very version (a refusal decided on the copy
  wrote nothing, so the move decides it again on a load);
- the live reader (:class:`service.live.cache.MetaCache`) answers a spectator's poll from the read copy
  of the version it read while the match's channel was confirmed, if nothing came on the channel
  since that read began: any commit since would have spoken there first.

Each kind of copy is the latest of its kind (a write's, a read's), so neither user's proof depends on
the other's.  Only matches in play are worth keeping (a match that is over or not started has no move
to come, and its keys may expire); the cache holds at most :data:`RECENT_MATCHES` matches, the least
recently kept dropped first: a few kilobytes each.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Generic, TypeVar

#: Matches a process keeps copies of (the least recently kept are dropped).
RECENT_MATCHES = 1024

#: What the live reader keeps of a match (:class:`service.storage.matches.MatchMeta`; this module sits
#: below the match store, which keeps its copies here).
Meta = TypeVar("Meta")


@dataclass(frozen=True)
class Written:
    """A match at ``version`` as a write of this process left it: all of its meta's ``fields``, and its
    encoded ``state``."""

    version: int
    fields: dict[str, str]
    state: bytes


@dataclass
class _Copies(Generic[Meta]):
    """What the cache holds of one match: the last write's copy, and the last read's."""

    written: Written | None = None
    read: tuple[int, Meta] | None = None


class MatchCache(Generic[Meta]):
    """This process's copies of the matches in play (see the module for when a copy may be used)."""

    def __init__(self) -> None:
        self._copies: OrderedDict[str, _Copies[Meta]] = OrderedDict()
        self._lock = threading.Lock()

    def write_at(self, match_id: str, version: int) -> Written | None:
        """The copy this process's last write of the match left, if it is of ``version``."""
        copies = self._copies.get(match_id)
        written = copies.written if copies is not None else None
        return written if written is not None and written.version == version else None

    def read_at(self, match_id: str, version: int) -> Meta | None:
        """The meta the live reader last read of the match, if it is of ``version``."""
        copies = self._copies.get(match_id)
        read = copies.read if copies is not None else None
        return read[1] if read is not None and read[0] == version else None

    def keep_write(self, match_id: str, version: int, fields: dict[str, str], state: bytes) -> None:
        """Keep the match at ``version`` as a write of this process left it (``fields``: all of its
        meta's), in place of the copy of an earlier write."""
        with self._lock:
            self._touch(match_id).written = Written(version, fields, state)

    def forget_write(self, match_id: str) -> None:
        """Keep no write's copy of the match: a write of this process left nothing worth keeping (a
        change of who holds the seats, which has no state to keep; a match over, or not started)."""
        with self._lock:
            copies = self._copies.get(match_id)
            if copies is not None:
                copies.written = None
                if copies.read is None:
                    del self._copies[match_id]

    def keep_read(self, match_id: str, version: int, meta: Meta) -> None:
        """Keep ``meta``, the match at ``version`` as the live reader read it."""
        with self._lock:
            self._touch(match_id).read = (version, meta)

    def _touch(self, match_id: str) -> _Copies[Meta]:
        """The match's copies, made the most recently kept (the least recent go beyond the bound)."""
        copies = self._copies.pop(match_id, None)
        if copies is None:
            copies = _Copies()
            while len(self._copies) >= RECENT_MATCHES:
                self._copies.popitem(last=False)
        self._copies[match_id] = copies
        return copies
