"""The State of a China game: explicit fields, plain lists of ints, a hand-written clone.

Cards are colour indices (components.COLOURS); hands, the discard pile and the publicly known part of
each hand are counts per colour, because same-coloured cards are interchangeable (R5).  The draw pile
is a list whose *last* element is the top card.  Spaces and provinces are indices into components.
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, Rng

from .components import COLOURS

#: Phases of a turn: choosing PLACE or SWAP (R23), placing a second piece or stopping (R26), drawing
#: (R45, R49), game over.
TURN, PLACE, DRAW, OVER = "turn", "place", "draw", "over"
#: The rule of each pending decision (named in the view's ``pending``).
PHASE_RULES = {TURN: "R23", PLACE: "R26", DRAW: "R45"}
#: ``State.fort`` value of a fortification still in supply (R21, R64).
UNUSED = -1
#: ``State.owner`` value of a free house space.
FREE = -1


def card_list(counts: list[int] | tuple[int, ...]) -> list[int]:
    """The cards (colour indices, in colour order) of per-colour ``counts``."""
    return [c for c, k in enumerate(counts) for _ in range(k)]


def card_counts(cards: Any) -> list[int]:
    """Per-colour counts of an iterable of cards (colour indices)."""
    counts = [0] * len(COLOURS)
    for c in cards:
        counts[c] += 1
    return counts


class State:
    """Everything about one game; ``_legal`` caches the legal list and is never encoded."""

    __slots__ = (
        "_legal",
        "deck",
        "discard",
        "display",
        "draws_left",
        "end",
        "exhaustions",
        "final",
        "final_round",
        "fort",
        "fortifications",
        "hands",
        "houses",
        "known",
        "n",
        "owner",
        "phase",
        "rng",
        "scored",
        "scores",
        "seals",
        "seat",
        "start",
        "supply",
        "t_blocked",
        "t_cards",
        "t_common",
        "t_pieces",
        "turn",
    )

    _legal: list[Action] | None  # the legal-list cache of engine.core.GameBase, never encoded
    n: int  # number of players (R2)
    fortifications: bool  # the fortification variant is on (R21)
    start: int  # start player, holder of the Emperor (R19)
    seat: int  # seat to move; -1 once the game is over
    phase: str  # TURN, PLACE, DRAW or OVER
    turn: int  # turns begun so far (1 = the start player's first turn)
    hands: list[list[int]]  # [seat][colour] card counts (R17), private
    known: list[list[int]]  # [seat][colour] cards publicly known to be in the hand (taken face up, R62)
    deck: list[int]  # draw pile, top card last (secret order, R61)
    display: list[int]  # face-up cards by slot, -1 = empty slot (R18, R52)
    discard: list[int]  # [colour] counts of the face-up discard pile (R36)
    owner: list[int]  # [space] seat owning the house there, FREE if none (R32)
    houses: list[list[int]]  # [province][seat] houses, border houses counted in both (R13)
    seals: list[list[int]]  # [province][seat] emissaries on the dragon seal (R33)
    scored: list[bool]  # [province] scoring marker (R43)
    supply: list[list[int]]  # [seat] = [houses, emissaries] left in supply (R15, R39)
    scores: list[int]
    fort: list[int]  # [seat] space of the fortified house, UNUSED if still in supply (R64)
    exhaustions: int  # times the draw pile ran out (R50)
    final_round: bool  # set at the second exhaustion (R52)
    end: str  # rule that ended the game ("R52" or "R53"), "" while running
    final: dict[str, list[int]] | None  # final-scoring points per category once over (R56-R59)
    t_cards: int  # cards played this turn (R26)
    t_pieces: int  # pieces placed this turn (R26)
    t_common: int  # mask of provinces holding every piece placed this turn (R30)
    t_blocked: int  # mask of provinces empty at turn start that already got a piece this turn (R31)
    draws_left: int  # cards still to draw in the DRAW phase (R45, R49)
    rng: Rng

    def clone(self) -> State:
        c = State.__new__(State)
        c._legal = self._legal  # shared: replaced, never mutated in place (engine.core.GameBase)
        c.n = self.n
        c.fortifications = self.fortifications
        c.start = self.start
        c.seat = self.seat
        c.phase = self.phase
        c.turn = self.turn
        c.hands = [h[:] for h in self.hands]
        c.known = [k[:] for k in self.known]
        c.deck = self.deck[:]
        c.display = self.display[:]
        c.discard = self.discard[:]
        c.owner = self.owner[:]
        c.houses = [h[:] for h in self.houses]
        c.seals = [s[:] for s in self.seals]
        c.scored = self.scored[:]
        c.supply = [s[:] for s in self.supply]
        c.scores = self.scores[:]
        c.fort = self.fort[:]
        c.exhaustions = self.exhaustions
        c.final_round = self.final_round
        c.end = self.end
        c.final = None if self.final is None else {k: v[:] for k, v in self.final.items()}
        c.t_cards = self.t_cards
        c.t_pieces = self.t_pieces
        c.t_common = self.t_common
        c.t_blocked = self.t_blocked
        c.draws_left = self.draws_left
        c.rng = self.rng.copy()
        return c

    def to_json(self) -> dict[str, Any]:
        """Every field but the cache, as JSON types (the payload of ``encode``)."""
        doc = {name: getattr(self, name) for name in self.__slots__ if name not in ("_legal", "rng")}
        doc["rng"] = self.rng.s
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> State:
        state = cls.__new__(cls)
        state._legal = None
        for name, value in doc.items():
            setattr(state, name, value)
        state.rng = Rng(doc["rng"])
        return state

    # -- small derived facts the rules ask often ---------------------------------------------------

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def can_draw(self) -> bool:
        """A card can be taken from the draw pile or the display (R45, R47, R49)."""
        return bool(self.deck) or max(self.display) >= 0

    def seal_limit(self, province: int) -> int:
        """Most houses any one player has in ``province``: the emissary limit (R33, R34)."""
        return max(self.houses[province])

    def is_empty(self, province: int) -> bool:
        """No house and no emissary in ``province`` (R31)."""
        return not (any(self.houses[province]) or any(self.seals[province]))

    def action_taken(self) -> str:
        """Which action this turn took, for naming the rule behind a pending draw or a refusal:
        ``"place"``, ``"swap"`` (R49), ``"fortify"`` (R64), or ``""`` before any.

        No field records it because the turn counters already tell: only PLACE puts pieces, a swap
        discards exactly one card (R49) and a fortification pays at least two (R64)."""
        if self.t_pieces:
            return "place"
        if self.phase != DRAW:
            return ""
        return "swap" if self.t_cards == 1 else "fortify"
