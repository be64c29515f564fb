"""The player-data export's format (issue 48): NDJSON, one JSON object a line, written as the parts
yield their items, so the export's memory does not grow with the player's history.

Lines, in order (``docs/api/privacy.md`` documents each section's items):

1. ``{"type": "header", "format": "tabletop-player-export/1", "version": 1, "app", "player",
   "exported_at", "sections": [...]}``: the sections that follow, in order;
2. ``{"type": "item", "section": <name>, "data": {...}}`` for every item of every section, a section's
   items together;
3. ``{"type": "end", "counts": {<section>: <items>}}``: the last line; an export without it was cut
   short (a client checks it, as for any stream).

A reader that meets a section it does not know skips its items: new kinds of data add sections, and
the format's ``version`` changes only if a line's meaning does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime

from service.domain.privacy.parts import PlayerData
from service.encoding import dumps_bytes

FORMAT = "tabletop-player-export/1"
VERSION = 1


def iso(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def lines(parts: Sequence[PlayerData], app: str, player: str, at: float) -> Iterator[bytes]:
    """The export of the player ``player`` of ``app``, a line at a time."""
    header = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "app": app,
        "player": player,
        "exported_at": iso(at),
        "sections": [part.section for part in parts],
    }
    yield dumps_bytes(header) + b"\n"
    counts: dict[str, int] = {}
    for part in parts:
        counts[part.section] = 0
        for item in part.export(app, player):
            yield dumps_bytes({"type": "item", "section": part.section, "data": item}) + b"\n"
            counts[part.section] += 1
    yield dumps_bytes({"type": "end", "counts": counts}) + b"\n"
