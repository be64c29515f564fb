"""Replacing a deleted player by their placeholder inside what stays (issue 48): another player's feed
entry, a webhook payload, a match's events.  One home for what "names the player" means in a JSON
document, and for rewriting a Stream's entries with it.

A document names the player where a field that holds a player id (:data:`ID_FIELDS`) holds theirs,
where a list of ids (``challenged``) lists it, and where an object with their id (``{"id", "name"}``:
a challenger) or with ``joined_player`` set to it carries a ``name``.  A display name alone is no
proof (two players may share one), so a bare name is replaced only where the caller knows the object
is about the player (:mod:`service.domain.privacy.matches` knows the seat).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from service.encoding import loads
from service.storage.privacy import PrivacyStore

#: Fields whose value is a player id of the app, wherever they occur.
ID_FIELDS = frozenset({"player", "joined_player", "declined_by", "challenger", "challenged", "id"})
#: Compare-and-set attempts of one stream rewrite before it gives up (a second ``DELETE`` finishes it).
REWRITES = 5


def scrub(value: Any, player: str, placeholder: str) -> tuple[Any, bool]:
    """``value`` with the player's id (and the name beside it) replaced by ``placeholder``, and whether
    anything was."""
    if isinstance(value, list):
        out, changed = [], False
        for item in value:
            if item == player:
                out.append(placeholder)
                changed = True
            else:
                new, did = scrub(item, player, placeholder)
                out.append(new)
                changed = changed or did
        return out, changed
    if not isinstance(value, dict):
        return value, False
    about = value.get("id") == player or value.get("joined_player") == player
    result: dict[str, Any] = {}
    changed = False
    for key, item in value.items():
        if (key in ID_FIELDS and item == player) or (key == "name" and about and isinstance(item, str)):
            result[key] = placeholder
            changed = True
        else:
            new, did = scrub(item, player, placeholder)
            result[key] = new
            changed = changed or did
    return result, changed


def rewrite_stream(
    store: PrivacyStore,
    key: str,
    rename: Callable[[Any], bool],
    encode: Callable[[Any], bytes | str] = lambda doc: json.dumps(doc).encode(),
) -> int:
    """Rewrite the entries of the Stream ``key`` (field ``e``, JSON) that ``rename`` changes in place
    (it returns whether it did), keeping every id; how many.  Compare-and-set on the stream's newest
    entry: a stream written meanwhile is read again."""
    for _ in range(REWRITES):
        rows = store.stream(key)
        if not rows:
            return 0
        values: dict[str, bytes | str] = {}
        for entry_id, fields in rows:
            doc = loads(fields[b"e"])
            if rename(doc):
                values[entry_id] = encode(doc)
        if not values:
            return 0
        if store.rewrite_stream(key, rows[-1][0], values) != 0:
            return len(values)
    return 0


def scrubbing(
    player: str, placeholder: str, where: Callable[[dict[str, Any]], bool]
) -> Callable[[Any], bool]:
    """A ``rename`` for :func:`rewrite_stream`: scrub the entries ``where`` says, in place."""

    def rename(doc: Any) -> bool:
        if not isinstance(doc, dict) or not where(doc):
            return False
        new, changed = scrub(doc, player, placeholder)
        if changed:
            doc.clear()
            doc.update(new)
        return changed

    return rename
