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

**Factored encoding** (:func:`factored`, China only: its flat space is the one too wide for an output
layer).  An action is a tuple of small heads, ``kind x target x province x pay x slot x colour``
(7 + 59 + 9 + 55 + 4 + 5 = 139 outputs instead of 31,251); a policy samples them in order, each under
:meth:`FactoredActions.conditional_mask` given the heads before it, and :meth:`FactoredActions.to_flat`
turns the tuple into the flat id every adapter takes.  It is a helper beside the adapters, not an
adapter option: the environments keep their ``Discrete`` flat ids (what masked PPO and OpenSpiel's
algorithms expect), and a factored policy converts at its output.  Its :attr:`FactoredActions.fingerprint`
hashes the heads and the whole id table, and the tests pin it like the flat one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

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


# -- the factored encoding ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Head:
    """One output head of a factored policy: a categorical over ``values``."""

    name: str
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Kind:
    """A value of the first head (``kind``): an action type, the fields it fixes, and the head each of
    its other fields is read from (``field -> head name``)."""

    name: str
    type: str
    fixed: tuple[tuple[str, Any], ...]
    fields: tuple[tuple[str, str], ...]


class FactoredActions:
    """A factored action encoding: an action is a tuple of head values, the first head its *kind*.

    A flat id space like China's (31,251 ids: every piece x target x payment) needs an output layer of
    that width, almost all of it masked.  Factored, a policy has one small head per component (kind,
    target, province, payment, ...) and samples them in order, each conditioned on the ones before:
    :meth:`conditional_mask` is the legal values of the next head given the chosen prefix, so a sampled
    tuple is always legal.  Heads a kind does not use are ignored and canonically 0 (:meth:`used`).

    The mapping to and from the flat ids of :class:`ActionCodec` is exact: :meth:`from_flat` gives
    every flat id its tuple, :meth:`to_flat` takes it back (a tuple that names no action, e.g. a
    fortification on a dragon seal, is :class:`UnencodableAction`; the masks never offer one).
    :attr:`fingerprint` hashes the heads, the kinds and the whole id table, so it changes exactly when
    some tuple would map to another flat id.
    """

    def __init__(self, flat: ActionCodec, heads: Sequence[Head], kinds: Sequence[Kind]) -> None:
        if heads[0].name != "kind" or heads[0].values != tuple(k.name for k in kinds):
            raise ValueError("the first head is 'kind', its values the kinds' names in order")
        self.flat = flat
        self.heads: tuple[Head, ...] = tuple(heads)
        self.kinds: tuple[Kind, ...] = tuple(kinds)
        #: Width of each head: the output layer sizes of a factored policy.
        self.sizes: tuple[int, ...] = tuple(len(h.values) for h in heads)
        position = {h.name: i for i, h in enumerate(heads)}
        self._index = tuple({v: i for i, v in enumerate(h.values)} for h in heads)
        self._fields = tuple(tuple((f, position[h]) for f, h in k.fields) for k in kinds)
        self._used = tuple(
            tuple(i == 0 or i in {p for _, p in fields} for i in range(len(heads))) for fields in self._fields
        )
        table = np.zeros((flat.num_actions, len(heads)), np.int16)
        for code in range(flat.num_actions):
            table[code] = self._heads_of(flat.decode(code))
        table.setflags(write=False)
        #: Row ``id``: the head values of flat id ``id`` (unused heads 0).
        self.table = table
        self._rows = {tuple(int(x) for x in row): code for code, row in enumerate(table)}
        if len(self._rows) != flat.num_actions:
            raise ValueError(f"{flat.game_id}: two flat ids share one factored tuple")
        spec = [[h.name, list(h.values)] for h in heads], [[k.name, k.type, k.fixed, k.fields] for k in kinds]
        digest = hashlib.sha256(json.dumps([flat.fingerprint, spec]).encode())
        digest.update(table.tobytes())
        #: Hash of the heads, the kinds and the table: equal fingerprints mean identical encodings.
        self.fingerprint = digest.hexdigest()[:16]

    def _heads_of(self, action: Action) -> list[int]:
        for k, kind in enumerate(self.kinds):
            if kind.type == action["type"] and all(action.get(f) == v for f, v in kind.fixed):
                row = [0] * len(self.heads)
                row[0] = k
                for field, head in self._fields[k]:
                    row[head] = self._index[head][action[field]]
                return row
        raise UnencodableAction(f"{self.flat.game_id}: no kind for {action!r}")

    def used(self, kind: int) -> tuple[bool, ...]:
        """Which heads ``kind`` reads (the others are ignored; train them on nothing)."""
        return self._used[kind]

    def from_flat(self, code: int) -> tuple[int, ...]:
        """The head values of flat id ``code``."""
        return tuple(int(x) for x in self.table[code])

    def to_flat(self, values: Sequence[int]) -> int:
        """The flat id of head values ``values`` (unused heads ignored)."""
        if len(values) != len(self.heads) or not 0 <= values[0] < len(self.kinds):
            raise UnencodableAction(
                f"{self.flat.game_id}: expected {len(self.heads)} head values, got {values!r}"
            )
        used = self._used[values[0]]
        key = tuple(int(v) if used[i] else 0 for i, v in enumerate(values))
        found = self._rows.get(key)
        if found is None:
            raise UnencodableAction(f"{self.flat.game_id}: head values {values!r} name no action")
        return found

    def encode(self, action: Action) -> tuple[int, ...]:
        """The head values of a game action."""
        return self.from_flat(self.flat.encode(action))

    def decode(self, values: Sequence[int]) -> Action:
        """The game action of head values ``values``."""
        return self.flat.decode(self.to_flat(values))

    def conditional_mask(self, legal: Sequence[int], prefix: Sequence[int]) -> np.ndarray:
        """Legal values (a boolean mask) of head ``len(prefix)`` among the flat ids ``legal``, given the
        values ``prefix`` already chosen for the heads before it.  A head the chosen kind ignores has
        only its value 0 offered."""
        head = len(prefix)
        mask = np.zeros(self.sizes[head], bool)
        rows = self.table[np.asarray(legal, dtype=np.int64)]
        if head > 0:
            used = self._used[prefix[0]]
            if not used[head]:
                mask[0] = True
                return mask
            keep = np.ones(len(rows), bool)
            for i, v in enumerate(prefix):
                if used[i]:
                    keep &= rows[:, i] == v
            rows = rows[keep]
        mask[rows[:, head]] = True
        return mask


def _china_factoring(game: Game) -> FactoredActions:
    """China: kind x target x province x payment x slot x colour (7 + 59 + 9 + 55 + 4 + 5 = 139 outputs
    instead of 31,251).  ``target`` is a place's target or a fortification's space (the board spaces,
    then the provinces' dragon seals, in sorted order); ``province`` a fortification's province;
    ``pay`` the cards paid; ``slot`` a display slot taken; ``colour`` a card swapped away."""
    flat = codec(game)
    props = game.actions
    heads = [
        Head(
            "kind",
            ("draw_deck", "draw_display", "finish", "fortify", "place_emissary", "place_house", "swap"),
        ),
        Head("target", tuple(sorted(props["place"]["properties"]["target"]["enum"]))),
        Head("province", tuple(sorted(props["fortify"]["properties"]["province"]["enum"]))),
        Head("pay", tuple(sorted(props["place"]["properties"]["pay"]["enum"]))),
        Head("slot", tuple(range(4))),
        Head("colour", tuple(sorted(props["swap"]["properties"]["discard"]["enum"]))),
    ]
    kinds = [
        Kind("draw_deck", "draw_deck", (), ()),
        Kind("draw_display", "draw_display", (), (("slot", "slot"),)),
        Kind("finish", "finish", (), ()),
        Kind("fortify", "fortify", (), (("space", "target"), ("province", "province"), ("pay", "pay"))),
        Kind("place_emissary", "place", (("piece", "emissary"),), (("target", "target"), ("pay", "pay"))),
        Kind("place_house", "place", (("piece", "house"),), (("target", "target"), ("pay", "pay"))),
        Kind("swap", "swap", (), (("discard", "colour"),)),
    ]
    return FactoredActions(flat, heads, kinds)


#: The games with a factored encoding, and how each is built.
FACTORINGS = {"china": _china_factoring}
_FACTORED: dict[str, FactoredActions] = {}


def factored(game: Game) -> FactoredActions:
    """The (cached) factored encoding of ``game``; ``ValueError`` for a game without one."""
    found = _FACTORED.get(game.id)
    if found is None:
        build = FACTORINGS.get(game.id)
        if build is None:
            raise ValueError(
                f"{game.id}: no factored action encoding (known: {', '.join(sorted(FACTORINGS))})"
            )
        found = _FACTORED[game.id] = build(game)
    return found
