"""Full records of finished matches, built once and kept beside them (issue 45: an export of 10,000
matches streams at least 1,000 records a second).

Building a record from a match's parts (its meta, events and action log) costs about as much as
reading those parts: together about a millisecond for a Year of the Dragon match of 26 KB.  A finished
match's full record never changes while the match stays as it is, so it is built once, when the match
finishes (:class:`service.domain.outbox.records.RecordSubscriber`) or else at its first read, and kept
in storage (:meth:`service.storage.records.RecordStore.keep`, compressed, expiring with the match); an
export then writes the kept bytes as they are, and a seat's or a spectator's record of the finished
match is derived from them (:func:`engine.records.restrict`, as a fresh build derives it).

The kept record is the one a caller of the match's own app reads (its seats name their players: the
exports' callers), or, for a match made without an app, anyone's; any other caller's, and any record
with views, is built afresh.  Storage stamps what
a record was built from, :func:`builder_id` included: a record kept by other code or other rules is
never served (it is built again, and kept again, at its next read).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import records as engine_records
from engine.core import Game
from engine.records import FORMAT, FULL, engine_version, rules_version
from service.domain.matches import clocks, reading
from service.domain.records import building
from service.domain.records.building import SERVICE_EVENT_TYPES, build
from service.encoding import dumps_bytes, loads
from service.storage.matches import FINISHED, MatchMeta
from service.storage.records import RecordStore, Stored

log = logging.getLogger(__name__)

#: The modules whose code decides what a full record holds: a change to any of them changes
#: :func:`builder_id`, so records kept before it are built again.
BUILDERS: tuple[ModuleType, ...] = (building, engine_records, reading, clocks)


def builder_id(games: Mapping[str, Game]) -> str:
    """What makes a full record: its format, the engine's version, each game's rules version, the
    event types left out and the code of :data:`BUILDERS`.  A record is kept under it."""
    return _builder_id(tuple(sorted(games.items())))


@cache
def _builder_id(games: tuple[tuple[str, Game], ...]) -> str:
    digest = hashlib.sha256()
    for part in (
        FORMAT,
        engine_version(),
        *sorted(SERVICE_EVENT_TYPES),
        *(f"{gid}={rules_version(game)}" for gid, game in games),
    ):
        digest.update(part.encode() + b"\0")
    for module in BUILDERS:
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:32]


def owner(meta: MatchMeta) -> str | None:
    """The app whose callers read the kept record: the match's (its seats name its players to them);
    ``None`` for a match made without an app (every caller reads the same record)."""
    app = meta.life.get("app")
    return str(app) if app else None


class Keeper:
    """Builds the full records of finished matches and keeps them (see the module)."""

    def __init__(self, reads: RecordStore, games: Mapping[str, Game]) -> None:
        self.reads = reads
        self.games = games
        #: The builder's id (:func:`builder_id`), made once a process: its code does not change under it.
        self.build_id = builder_id(games)

    def usable(self, stored: Stored, viewer: str | None) -> bytes | None:
        """The kept full record of ``stored``, if there is one and it is what ``viewer`` reads."""
        if stored.kept is not None and viewer == owner(stored.meta):
            return stored.kept
        return None

    def full(self, game: Game, stored: Stored, viewer: str | None) -> bytes:
        """The full record of the finished match ``stored`` (its parts, read without a kept record) as
        ``viewer`` reads it, as JSON: built now."""
        return dumps_bytes(build(game, stored, FULL, None, viewer=viewer, raw=True))

    def keepable(self, stored: Stored, viewer: str | None) -> bool:
        """Whether a full record built from ``stored`` for ``viewer`` is the one to keep: the match is
        finished, the read was stamped and ``viewer`` is its app (:func:`owner`)."""
        return stored.stamp is not None and stored.meta.status == FINISHED and viewer == owner(stored.meta)

    def keep_built(self, built: list[tuple[str, str, bytes]]) -> None:
        """Keep records built by a read ((match id, stamp, JSON)); a failure only costs the next read a
        build, so it is logged, never raised to the reader."""
        try:
            self.reads.keep(self.build_id, built)
        except Exception:  # a cache's write: the read it follows has its answer already
            log.warning("keeping %d match records failed", len(built), exc_info=True)

    def keep(self, match_ids: list[str]) -> int:
        """Build and keep the full record of each of these matches that is finished and has none kept
        as it is now (what the outbox does as a match finishes); how many were kept."""
        built: list[tuple[str, str, bytes]] = []
        for stored in self.reads.load_many(match_ids, SERVICE_EVENT_TYPES, self.build_id):
            if stored is None or stored.kept is not None:
                continue
            game = self.games.get(stored.meta.game)
            viewer = owner(stored.meta)
            if game is None or stored.stamp is None or not self.keepable(stored, viewer):
                continue
            built.append((stored.meta.id, stored.stamp, self.full(game, stored, viewer)))
        return self.reads.keep(self.build_id, built)


def restricted(kept: bytes, looker: int | None) -> dict[str, Any]:
    """A seat's (``looker``) or the spectator's record derived from a kept full record, without views:
    what :func:`service.domain.records.building.build` gives for that perspective."""
    return engine_records.restrict(loads(kept), looker)
