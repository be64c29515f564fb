"""This process's copy of a followed match's meta (:class:`MetaCache`), for the spectators' long-polls.

Every write of a match's meta is a commit, which publishes on the match's channel in the same script
(``match_commit.lua``), and a lost connection unconfirms the channel.  So the validity rule: a copy read once
the channel was confirmed is the match's until the reader notes the channel's next message (or loses
Redis), no older than the events the reader hands out.  The hub tells the cache what it notes
(:meth:`MetaCache.stir`, :meth:`MetaCache.stir_all`) and which matches it follows (``followed``).  The
copies themselves are kept in the process's one cache of matches, beside the match store's own
writes (:mod:`service.storage.match_cache`, whose rule this is for the reader); this module holds
what proves a copy current: the channel's generation when it was read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from service.live.topics import Topic
from service.storage.match_cache import MatchCache
from service.storage.matches import MatchMeta


class _MetaRead:
    """A read of a match's meta that began at ``generation``: its outcome (the meta, or the error it
    raised) is also that of the polls that came while it was under way."""

    def __init__(self, generation: int) -> None:
        self.generation = generation
        self.meta: MatchMeta | None = None
        self.error: Exception | None = None
        self.done = threading.Event()


@dataclass
class _Kept:
    """A followed match's channel: what came on it (messages, confirmations, and the reader's losses
    of Redis: a match read while it stays the same is the match now, as far as this process can know),
    the version of the meta read at ``meta_generation`` (its copy is in the match cache), and the read
    of it under way, if any."""

    generation: int = 0
    meta_version: int = -1
    meta_generation: int = -1
    read: _MetaRead | None = field(default=None)


class MetaCache:
    """Matches' metas as this process last read them while it followed them.  ``lock`` is the hub's
    (every method but :meth:`match_meta` runs under it); ``followed`` tells, under it, whether a
    channel is followed, caught up and confirmed; ``count`` is the hub's counters'; ``copies`` is the
    process's cache of matches (the match store's), where the metas read are kept."""

    def __init__(
        self,
        lock: threading.Lock,
        followed: Callable[[str], bool],
        count: Callable[[str, int], None],
        copies: MatchCache[MatchMeta],
    ) -> None:
        self._lock = lock
        self._copies = copies
        self._followed = followed
        self._count = count
        self._kept: dict[str, _Kept] = {}

    def stir(self, channel: str) -> None:
        """Something came on a followed topic's channel: a copy read before is out of date."""
        self._entry(channel).generation += 1

    def _entry(self, channel: str) -> _Kept:
        kept = self._kept.get(channel)
        if kept is None:
            kept = self._kept[channel] = _Kept()
        return kept

    def stir_all(self) -> None:
        """The reader lost Redis: what came meanwhile is unknown."""
        for kept in self._kept.values():
            kept.generation += 1

    def forget(self, channel: str) -> None:
        """The topic is no longer followed."""
        self._kept.pop(channel, None)

    def generation(self, channel: str) -> int:
        """How many times the channel was stirred since the topic was followed (for tests)."""
        with self._lock:
            kept = self._kept.get(channel)
            return 0 if kept is None else kept.generation

    def match_meta(
        self, match_id: str, read: Callable[[], MatchMeta], keep: Callable[[MatchMeta], bool]
    ) -> MatchMeta:
        """The match's meta as this process last read it (``read``) while it followed the match, if
        nothing came on the match's channel since that read began; else read now, and kept if ``keep``.
        A read under way since the channel's last message is joined, not repeated, failure included
        (a poll waits for one read at most: during a Redis stall, one timeout): a commit wakes a
        match's long-polls together, and they poll again together.  No read holds the hub's lock.

        ``keep`` is the caller's to say: a copy must refuse nobody the match would let in, and must
        not outlive keys that expire."""
        channel = Topic.match(match_id).channel
        leading = False
        with self._lock:
            if not self._followed(channel):
                kept = None  # not followed: nothing would tell when a copy goes out of date
            else:
                kept = self._entry(channel)
                copy = self._copies.read_at(match_id, kept.meta_version)
                if copy is not None and kept.meta_generation == kept.generation:
                    self._count("metas_spared", 1)
                    return copy
                if kept.read is not None and kept.read.generation == kept.generation:
                    under_way = kept.read
                else:
                    under_way = kept.read = _MetaRead(kept.generation)
                    leading = True
        if kept is None:
            return read()
        if not leading:  # a read began since the channel's last message: its outcome will do
            under_way.done.wait()
            if under_way.error is not None:
                raise under_way.error
            if under_way.meta is None:  # its poll was stopped before it read: read anew
                return read()
            self._count("metas_spared", 1)
            return under_way.meta
        try:
            meta = under_way.meta = read()
        except Exception as exc:
            under_way.error = exc
            raise
        finally:
            keeping = under_way.meta is not None and keep(under_way.meta)
            with self._lock:
                if kept.read is under_way:
                    kept.read = None
                if keeping and under_way.meta is not None and kept.generation == under_way.generation:
                    kept.meta_version, kept.meta_generation = under_way.meta.version, under_way.generation
                    self._copies.keep_read(match_id, under_way.meta.version, under_way.meta)  # else stale
            under_way.done.set()
        return meta
