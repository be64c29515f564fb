"""The State of one match: plain lists and ints in ``__slots__``, a hand-written ``clone``.

Bots clone and apply millions of times, so the state is flat: one list per per-seat quantity, palaces as
immutable ``(floors, persons)`` tuples (``persons`` a sorted tuple of tile kinds) so a clone copies list
spines only.  Indices are those of :mod:`components`.
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, Rng

# Decision phases: which pending decision ``to_move`` faces (RULES section 15).
COURT = 0  # DP1: choose the two young tiles of the initial court (R14)
PLACE = 1  # DP2/DP7: put the pending tile into a palace with a free floor (R14, R37)
ACTION = 2  # DP3: choose group + action, or refill (R23-R26)
BUILD = 3  # DP4: place one of the floors still to build (R29)
PRIVILEGE = 4  # DP5: small or large privilege (R34)
PERSON = 5  # DP6: play a person card and choose the tile (R36)
FULL = 6  # DP8: no free floor: replace a person or release the newcomer (R37)
RELEASE = 7  # DP9-DP12: release one person owed to the month's event (R42-R46)
OVER = 8
PHASE_NAMES = ("court", "place", "action", "build", "privilege", "person", "full", "release", "over")
#: The rule of each pending decision; flow.decision_rule refines PLACE (R14 in the initial court) and
#: RELEASE (the rule of the month's event).
PHASE_RULES = {
    COURT: "R14",
    PLACE: "R37",
    ACTION: "R23",
    BUILD: "R29",
    PRIVILEGE: "R34",
    PERSON: "R36",
    FULL: "R37",
    RELEASE: "R40",
}

Palace = tuple[int, tuple[int, ...]]


class State:
    """Explicit game state.  ``round`` is 0 during the initial court, then the month 1..12.

    ``order``/``turn``: the seats of the current phase in the order fixed at its start (R20) and the index
    of the seat to move.  ``pending``: tiles recruited but not yet placed (R14, R37).  ``owed``: releases
    each seat still owes the month's event (R40); ``last``: the key of the last release made for the
    current obligation (releases are named in palace order, so each set of releases is one sequence).
    ``masks``: per seat, per card played, the set (bitmask) of cards that public information allows it to
    have been (R58a); ``played`` holds the cards actually played.  ``_legal`` caches the legal list (see
    engine.core.GameBase); it is never encoded.
    """

    __slots__ = (
        "_legal",
        "arrival",
        "build_left",
        "clock",
        "dragons",
        "final",
        "fireworks",
        "first_player",
        "groups",
        "hands",
        "large",
        "large_cost",
        "last",
        "masks",
        "n",
        "order",
        "owed",
        "pairs",
        "palaces",
        "pending",
        "phase",
        "played",
        "pos",
        "reveal",
        "rice",
        "rng",
        "round",
        "row",
        "small",
        "supply",
        "turn",
        "vp",
        "yuan",
    )

    _legal: list[Action] | None
    n: int
    large_cost: int
    reveal: bool
    first_player: int
    rng: Rng
    round: int
    phase: int
    order: list[int]
    turn: int
    row: list[int]
    supply: list[int]
    groups: list[tuple[int, ...]]
    dragons: list[int]
    yuan: list[int]
    rice: list[int]
    fireworks: list[int]
    vp: list[int]
    pos: list[int]
    arrival: list[int]
    clock: int
    small: list[int]
    large: list[int]
    palaces: list[list[Palace]]
    hands: list[list[int]]
    played: list[list[int]]
    masks: list[list[int]]
    pairs: list[int]
    pending: list[int]
    build_left: int
    owed: list[int]
    last: int
    final: list[list[int]] | None
    legal: list[dict[str, Any]] | None

    def clone(self) -> State:
        c = State.__new__(State)
        c.n = self.n
        c.large_cost = self.large_cost
        c.reveal = self.reveal
        c.first_player = self.first_player
        c.rng = Rng(self.rng.s)
        c.round = self.round
        c.phase = self.phase
        c.order = self.order[:]
        c.turn = self.turn
        c.row = self.row  # never mutated after setup
        c.supply = self.supply[:]
        c.groups = self.groups[:]
        c.dragons = self.dragons[:]
        c.yuan = self.yuan[:]
        c.rice = self.rice[:]
        c.fireworks = self.fireworks[:]
        c.vp = self.vp[:]
        c.pos = self.pos[:]
        c.arrival = self.arrival[:]
        c.clock = self.clock
        c.small = self.small[:]
        c.large = self.large[:]
        c.palaces = [p[:] for p in self.palaces]
        c.hands = [h[:] for h in self.hands]
        c.played = [p[:] for p in self.played]
        c.masks = [m[:] for m in self.masks]
        c.pairs = self.pairs[:]
        c.pending = self.pending[:]
        c.build_left = self.build_left
        c.owed = self.owed[:]
        c.last = self.last
        c.final = self.final  # set once at the end, never mutated
        c._legal = self._legal  # same state, same list (never mutated in place: engine.core.GameBase)
        return c

    def to_json(self) -> dict[str, Any]:
        """Every slot but the legal-action cache, as JSON-ready data (the RNG as its one integer)."""
        d = {name: getattr(self, name) for name in _ENCODED}
        d["rng"] = self.rng.s
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> State:
        s = cls.__new__(cls)
        for name in _ENCODED:
            setattr(s, name, d[name])
        s.rng = Rng(d["rng"])
        s.groups = [tuple(g) for g in d["groups"]]
        s.palaces = [[(f, tuple(ps)) for f, ps in pals] for pals in d["palaces"]]
        s._legal = None
        return s


_ENCODED = tuple(name for name in State.__slots__ if name != "_legal")
