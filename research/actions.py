"""A stable integer id for every action of every game: the action space OpenSpiel and PettingZoo need.

Our actions are small JSON objects (``{"type": "place", "piece": "house", ...}``) whose shapes each game
declares in ``game.actions`` (action type -> JSON schema).  Learning frameworks want a fixed, finite
``Discrete(n)`` space instead, and a trained policy is only reusable if the same action keeps the same id
across runs and releases.  So the ids are *derived from the schemas*, never from the order in which
``legal_actions`` happens to list actions:

1. Action types are taken in sorted order of their names; each type owns one contiguous block of ids.
2. Within a type, the fields (all but ``"type"``) are taken in sorted order of their names, and the
   block enumerates the Cartesian product of their domains in mixed radix, the *last* field varying
   fastest (row-major, like ``itertools.product``).
3. A field's domain, as an ordered list of values:

   - ``enum``: the enum values, sorted (so reordering an enum in a schema changes no id);
   - ``boolean``: ``[False, True]``;
   - ``integer`` with ``minimum`` and ``maximum``: that range, ascending;
   - anything the schema leaves open (a string without ``enum``, an integer without a ``maximum``):
     the explicit list in :data:`OPEN_DOMAINS` below, which this module owns and only ever extends at
     the end.  Integer fields naming a seat take ``range(game.max_players)``.

So ``id = offset[type] + sum(index(field_i) * prod(len(domain_j) for j > i))``.  A type without fields
has exactly one id.  The ids change only when a game's declared action schema changes (a type, field or
enum value added or removed); :attr:`ActionCodec.fingerprint` is a hash of the whole domain table, so
a saved policy can check it was trained on the same encoding.

Many ids are never legal (China's ``place`` block is every piece x target x payment), which is normal
for these frameworks: the legal-action mask says which ids are playable now.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core import Action, Game

_COLOURS = ("green", "purple", "red", "yellow")
_TAJ_PROVINCES = (
    "agra", "ajmer", "allahabad", "awadh", "delhi", "gujarat",
    "kabul", "kashmir", "lahore", "malwa", "multan", "thatta",
)  # fmt: skip
_TAJ_SPECIALS = ("special-any-colour", "special-elephant", "special-grand-mogul", "special-two-points")
_TAJ_WHITES = tuple(f"white-{i:02d}" for i in range(1, 13))
_TAJ_CARDS = tuple(f"{c}-{i:02d}" for c in _COLOURS for i in range(1, 22)) + _TAJ_WHITES + _TAJ_SPECIALS
_TAJ_CITIES = ("agra-city", *(f"{p}-{d}" for p in _TAJ_PROVINCES for d in "ensw"))

#: Domains of the fields a game's schema leaves open, keyed by game id, then ``(action type, field)``
#: with ``"*"`` as a wildcard type.  Integer caps are generous bounds from the rules (Confucius has 25
#: junks; a Year of the Dragon player rarely owns more than a dozen palaces); the tests check every
#: legal action of random playouts fits.  Append only: an existing value never moves.
OPEN_DOMAINS: dict[str, dict[tuple[str, str], tuple[Any, ...]]] = {
    "taj_mahal": {
        ("*", "card"): _TAJ_CARDS,
        ("play", "extra"): ("", *_TAJ_WHITES, *_TAJ_SPECIALS),
        ("*", "city"): _TAJ_CITIES,
    },
    "year_of_dragon": {
        ("*", "palace"): tuple(range(24)),
        ("action", "group"): tuple(range(8)),
    },
    "confucius": {
        ("*", "count"): tuple(range(26)),
        ("*", "box"): tuple(range(8)),
        ("*", "to_box"): tuple(range(8)),
        ("*", "c1"): tuple(range(12)),
        ("*", "c2"): tuple(range(12)),
        ("*", "c3"): tuple(range(12)),
        ("tutor", "coins"): tuple(range(12)),
    },
}

#: Integer fields whose value is a seat number: their domain is ``range(game.max_players)``.
SEAT_FIELDS = frozenset({"seat", "recipient", "source", "destination"})


class UnencodableAction(ValueError):
    """An action outside the declared id space (a value beyond an open field's documented domain)."""


@dataclass(frozen=True)
class _Block:
    kind: str
    offset: int
    fields: tuple[str, ...]
    domains: tuple[tuple[Any, ...], ...]
    index: tuple[dict[Any, int], ...]  # value -> position, per field
    strides: tuple[int, ...]
    size: int


def _domain(game: Game, kind: str, name: str, spec: dict[str, Any]) -> tuple[Any, ...]:
    extra = OPEN_DOMAINS.get(game.id, {})
    if "enum" in spec:
        return tuple(sorted(spec["enum"]))
    if spec.get("type") == "boolean":
        return (False, True)
    if spec.get("type") == "integer" and "minimum" in spec and "maximum" in spec:
        return tuple(range(spec["minimum"], spec["maximum"] + 1))
    if (kind, name) in extra:
        return extra[(kind, name)]
    if ("*", name) in extra:
        return extra[("*", name)]
    if spec.get("type") == "integer" and name in SEAT_FIELDS:
        return tuple(range(game.max_players))
    raise ValueError(f"{game.id}: field {kind}.{name} has no finite domain; add it to OPEN_DOMAINS")


class ActionCodec:
    """The id space of one game: ``encode(action) -> int`` and ``decode(id) -> action``.

    Built once per game from its schemas (see the module docstring for the exact order); encoding is a
    few dict lookups, cheap enough to run on every legal action of every search step.
    """

    def __init__(self, game: Game) -> None:
        self.game_id = game.id
        blocks: list[_Block] = []
        offset = 0
        for kind in sorted(game.actions):
            props = game.actions[kind]["properties"]
            fields = tuple(sorted(f for f in props if f != "type"))
            domains = tuple(_domain(game, kind, f, props[f]) for f in fields)
            strides = []
            size = 1
            for dom in reversed(domains):
                strides.append(size)
                size *= len(dom)
            strides.reverse()
            index = tuple({v: i for i, v in enumerate(dom)} for dom in domains)
            blocks.append(_Block(kind, offset, fields, domains, index, tuple(strides), size))
            offset += size
        self.blocks: tuple[_Block, ...] = tuple(blocks)
        self._by_kind = {b.kind: b for b in blocks}
        self._offsets = [b.offset for b in blocks]
        #: Number of distinct ids: ids are ``range(num_actions)``.
        self.num_actions = offset
        table = [[b.kind, list(b.fields), [list(d) for d in b.domains]] for b in blocks]
        #: Hash of the whole domain table: equal fingerprints mean identical ids.
        self.fingerprint = hashlib.sha256(json.dumps(table).encode()).hexdigest()[:16]

    def encode(self, action: Action) -> int:
        """The id of ``action``; :class:`UnencodableAction` if it lies outside the declared domains."""
        block = self._by_kind.get(action.get("type"))
        if block is None:
            raise UnencodableAction(f"{self.game_id}: unknown action type {action.get('type')!r}")
        code = block.offset
        for name, index, stride in zip(block.fields, block.index, block.strides, strict=True):
            try:
                code += index[action[name]] * stride
            except KeyError:
                raise UnencodableAction(
                    f"{self.game_id}: {block.kind}.{name}={action.get(name)!r} is outside the id space"
                ) from None
        return code

    def decode(self, code: int) -> Action:
        """The action with id ``code`` (whether or not it is legal anywhere)."""
        if not 0 <= code < self.num_actions:
            raise ValueError(f"{self.game_id}: action id {code} outside 0..{self.num_actions - 1}")
        lo, hi = 0, len(self._offsets) - 1
        while lo < hi:  # last block whose offset <= code
            mid = (lo + hi + 1) // 2
            if self._offsets[mid] <= code:
                lo = mid
            else:
                hi = mid - 1
        block = self.blocks[lo]
        rest = code - block.offset
        action: Action = {"type": block.kind}
        for name, dom, stride in zip(block.fields, block.domains, block.strides, strict=True):
            action[name] = dom[rest // stride]
            rest %= stride
        return action

    def encode_all(self, actions: Sequence[Action]) -> list[int]:
        """Sorted, de-duplicated ids of ``actions`` (OpenSpiel wants legal actions ascending)."""
        return sorted({self.encode(a) for a in actions})


_CODECS: dict[str, ActionCodec] = {}


def codec(game: Game) -> ActionCodec:
    """The (cached) codec of ``game``."""
    found = _CODECS.get(game.id)
    if found is None:
        found = _CODECS[game.id] = ActionCodec(game)
    return found


def action_string(action: Action) -> str:
    """Canonical text of an action (sorted keys, no spaces): unique per action, so usable as OpenSpiel's
    action string and as a dictionary key."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))
