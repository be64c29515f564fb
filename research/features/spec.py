"""The building blocks of a feature spec: named slices of a fixed-length observation vector.

The hashed tensor of :mod:`research.observation` covers every game with no game knowledge, at the price
of collisions and no structure a person can read.  A feature spec is the opposite trade: one module per
game says, slice by slice, what each entry of the vector means, so a learner's input (and a saliency
map over it) can be read back as "my score", "seat +1's hand size", "who holds YAN3".

Conventions every spec keeps, so the vectors of all games read alike:

* **From the seat's view only.**  A feature reads ``game.view(state, seat)`` and nothing else (the same
  rule as the hashed form), so a policy trained on it sees exactly what a client sees over HTTP.
* **Seat-relative.**  Per-player features come in ``max_players`` blocks: block 0 is the observing seat,
  block 1 the next seat in seat order, and so on; blocks past the player count stay zero.  A policy
  learnt in one seat so transfers to another.
* **Normalised to [0, 1].**  Counts are divided by a documented cap from the rules and clipped; flags
  are 0/1; categories are one-hot.  The observation space is therefore ``Box(0, 1)``, which is what
  SuperSuit's ``normalize_obs`` and most network initialisations expect.
* **Stable and fingerprinted.**  :attr:`FeatureSpec.fingerprint` hashes every slice's name, offset,
  length, meaning and normalisation; the tests pin it per game, like the action ids.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

View = dict[str, Any]


class Seats:
    """Who observes: ``seat`` among ``players`` seats, in a layout sized for ``max_players``."""

    __slots__ = ("_blocks", "_relative", "max_players", "players", "seat")

    def __init__(self, seat: int, players: int, max_players: int) -> None:
        self.seat = seat
        self.players = players
        self.max_players = max_players
        self._relative = tuple((seat + k) % players if k < players else None for k in range(max_players))
        self._blocks = {(seat + k) % players: k for k in range(players)}

    def relative(self) -> tuple[int | None, ...]:
        """The absolute seat of each relative block (``None`` past the player count)."""
        return self._relative

    def block(self, absolute: Any) -> int | None:
        """The relative block of an absolute seat number (``None`` for anything else: no seat, a name)."""
        return self._blocks.get(absolute) if type(absolute) is int else None


Reader = Callable[[View, Seats], Sequence[float]]
_NATIVE_F32 = np.dtype(np.float32)
#: Fills a zeroed vector (native float32, contiguous) with a seat's features read from the engine state
#: (:meth:`FeatureSpec.encode_state`).
Writer = Callable[[Any, int, np.ndarray], None]


@dataclass(frozen=True)
class Feature:
    """One slice: ``length`` values read from the view by ``read`` (already normalised).  A negative
    length scales with the layout's seats (see :class:`FeatureSpec`): ``-k`` is ``k`` per seat."""

    name: str
    length: int
    meaning: str
    normalisation: str
    read: Reader


def _clip(value: Any, cap: float) -> float:
    if value is None or isinstance(value, str):
        return 0.0
    return min(max(float(value) / cap, 0.0), 1.0)


def scalar(name: str, meaning: str, cap: float, get: Callable[[View, Seats], Any]) -> Feature:
    """A number divided by ``cap`` and clipped to [0, 1] (``None`` reads as 0)."""
    return Feature(
        name, 1, meaning, f"value / {cap:g}, clipped to [0, 1]", lambda v, s: [_clip(get(v, s), cap)]
    )


def flag(name: str, meaning: str, get: Callable[[View, Seats], Any]) -> Feature:
    """1 if ``get`` is truthy, else 0."""
    return Feature(name, 1, meaning, "0 or 1", lambda v, s: [1.0 if get(v, s) else 0.0])


def onehot(name: str, meaning: str, values: Sequence[Any], get: Callable[[View, Seats], Any]) -> Feature:
    """One entry per value in ``values`` order: 1 where ``get`` equals it (all 0 for anything else)."""
    index = {v: i for i, v in enumerate(values)}

    def read(v: View, s: Seats) -> list[float]:
        out = [0.0] * len(values)
        i = index.get(get(v, s))
        if i is not None:
            out[i] = 1.0
        return out

    names = ", ".join(str(x) for x in values)
    return Feature(name, len(values), meaning, f"one-hot over: {names}", read)


def counts(
    name: str, meaning: str, values: Sequence[Any], cap: float, get: Callable[[View, Seats], Any]
) -> Feature:
    """One entry per value: how many times it occurs in ``get``'s list (or its count in ``get``'s dict),
    divided by ``cap`` and clipped."""

    index = {x: i for i, x in enumerate(values)}

    def read(v: View, s: Seats) -> list[float]:
        out = [0.0] * len(values)
        found = get(v, s)
        if found:
            for key, n in (found if isinstance(found, dict) else Counter(found)).items():
                i = index.get(key)
                if i is not None:
                    out[i] = _clip(n, cap)
        return out

    names = ", ".join(str(x) for x in values)
    return Feature(name, len(values), meaning, f"count / {cap:g} per value ({names}), clipped", read)


def seat_onehot(name: str, meaning: str, get: Callable[[View, Seats], Any]) -> Feature:
    """A seat number as a one-hot over relative blocks (block 0 = the observer); all 0 for none."""

    def read(v: View, s: Seats) -> list[float]:
        out = [0.0] * s.max_players
        b = s.block(get(v, s))
        if b is not None:
            out[b] = 1.0
        return out

    return Feature(name, -1, meaning, "one-hot over relative seats (0 = me, 1 = next, ...)", read)


def per_player(feature: Feature) -> Feature:
    """``feature`` read once per relative seat from ``view["players"][seat]`` (passed as the view)."""

    def read(v: View, s: Seats) -> list[float]:
        out: list[float] = []
        for absolute in s.relative():
            if absolute is None:
                out.extend([0.0] * feature.length)
            else:
                out.extend(feature.read(v["players"][absolute], s))
        return out

    blocks = "relative blocks" if feature.length == 1 else f"relative blocks of {feature.length}"
    meaning = f"per seat ({blocks}): {feature.meaning}"
    return Feature(feature.name, -feature.length, meaning, feature.normalisation, read)


# -- building blocks of the writers (FeatureSpec.encode_state) -----------------------------------------


class Cells(Protocol):
    """A writer's view of the vector: ``out.data``, a float32 memoryview (an item store costs about half
    of one on the ndarray; it takes floats, rounded to float32 as numpy rounds them, and a block's
    memoryview for a slice).  typeshed types a memoryview's items as ints, hence this protocol."""

    def __setitem__(self, index: int | slice, value: float | memoryview, /) -> None: ...


class Scaled(dict[int, float]):
    """``value -> _clip(value, cap)``: the arithmetic of :func:`scalar` and :func:`counts`, so a writer's
    float32 entries round exactly as the view's do; a lookup costs a fraction of the call.  Values from
    0 to twice the cap are tabled; any other is computed on the spot (and not kept)."""

    def __init__(self, cap: float) -> None:
        super().__init__((v, _clip(v, cap)) for v in range(int(2 * cap) + 1))
        self.cap = cap

    def __missing__(self, value: int) -> float:
        return _clip(value, self.cap)


#: Fills a zeroed float32 block with the slice of one key (:class:`Blocks`).
BlockMaker = Callable[[Any, "array[float]"], None]


class Blocks(dict[Hashable, memoryview]):
    """A key made of state values -> its slice as a float32 block, made by ``make`` on first use: a slice
    that changes seldom (an event row, a hand, the ministries) is then one copy instead of a store per
    value.  A block never changes once made, so blocks may be shared by threads.  Forgotten all at once
    past ``kept`` keys, so memory stays bounded."""

    def __init__(self, width: int, make: BlockMaker, kept: int = 10_000) -> None:
        super().__init__()
        self.width, self.make, self.kept = width, make, kept

    def __missing__(self, key: Hashable) -> memoryview:
        if len(self) >= self.kept:
            self.clear()
        block = array("f", bytes(4 * self.width))
        self.make(key, block)
        self[key] = found = memoryview(block)
        return found


@dataclass(frozen=True)
class Slice:
    """A feature's place in the vector."""

    name: str
    offset: int
    length: int
    meaning: str
    normalisation: str


class FeatureSpec:
    """The feature vector of one game: an ordered list of features and their offsets.

    Lengths written as negative numbers above are resolved here: ``-1`` (a seat one-hot) is
    ``max_players`` and ``-k`` (a per-player feature of ``k`` entries) is ``max_players * k``.
    """

    def __init__(
        self, game_id: str, max_players: int, features: Sequence[Feature], writer: Writer | None = None
    ) -> None:
        self.game_id = game_id
        self.max_players = max_players
        #: Writes the same vector from the engine state (see :meth:`encode_state`); ``None``: none yet.
        self.writer = writer
        names = [f.name for f in features]
        if len(set(names)) != len(names):
            raise ValueError(f"{game_id}: duplicate feature names")
        self.features: tuple[Feature, ...] = tuple(features)
        slices: list[Slice] = []
        offset = 0
        for f in features:
            length = f.length if f.length > 0 else max_players * -f.length
            slices.append(Slice(f.name, offset, length, f.meaning, f.normalisation))
            offset += length
        self.slices: tuple[Slice, ...] = tuple(slices)
        self._by_name = {s.name: s for s in slices}
        #: Length of the vector.
        self.size = offset
        table = [[s.name, s.offset, s.length, s.meaning, s.normalisation] for s in slices]
        #: Hash of the whole layout: equal fingerprints mean identical slices.
        self.fingerprint = hashlib.sha256(json.dumps([game_id, max_players, table]).encode()).hexdigest()[:16]

    def slice(self, name: str) -> slice:
        """Where feature ``name`` lies in the vector."""
        s = self._by_name[name]
        return slice(s.offset, s.offset + s.length)

    def encode(self, view: View, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The feature vector of ``seat``'s ``view`` (``float32``, length :attr:`size`, within [0, 1]).

        The slices are gathered in one Python list and copied into the array once: a numpy slice
        assignment per feature cost more than reading the features."""
        seats = Seats(seat, len(view["players"]), self.max_players)
        values: list[float] = []
        for f in self.features:
            values.extend(f.read(view, seats))
        if len(values) != self.size:
            for f, s in zip(self.features, self.slices, strict=True):
                if len(f.read(view, seats)) != s.length:
                    raise AssertionError(f"{self.game_id}: feature {f.name} gave a wrong number of values")
        if out is None:
            return np.array(values, np.float32)
        out[:] = values
        return out

    def encode_state(self, game: Any, state: Any, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """``encode(game.view(state, seat), seat)``, written straight from the engine state when the game
        has a writer: a learner reads a vector every step, and the view it would otherwise build first
        (every card, every palace, as JSON) costs several engine moves.  A writer reads the full state,
        so it is held to the view's vector exactly: ``tests/research/test_features_from_state.py``
        compares the two, value for value, for every seat at every step of random games in every player
        count and option set (so a writer that read a hidden thing would differ there)."""
        if self.writer is None:
            return self.encode(game.view(state, seat), seat, out)
        if out is None:
            out = np.zeros(self.size, np.float32)
        elif out.dtype != _NATIVE_F32 or not out.flags.c_contiguous:
            # Writers store through a memoryview of native float32; another array gets a copy.
            out[:] = self.encode_state(game, state, seat)
            return out
        else:
            out.fill(0.0)
        self.writer(state, seat, out)
        return out

    def markdown(self) -> str:
        """The documentation table of this spec (one row per slice)."""
        lines = [
            "| offset | length | name | meaning | normalisation |",
            "| --- | --- | --- | --- | --- |",
        ]
        for s in self.slices:
            lines.append(f"| {s.offset} | {s.length} | `{s.name}` | {s.meaning} | {s.normalisation} |")
        return "\n".join(lines)
