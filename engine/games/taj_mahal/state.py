"""The Taj Mahal state: explicit fields in ``__slots__`` objects, hand-written clone and JSON form.

Cards, cities, provinces, symbols and goods are integers indexing the state's :class:`Components`; the
deck is a list whose *end* is the top card, so a draw is ``pop()``.
"""

from __future__ import annotations

from typing import Any

from engine.core import Rng

from .components import STANDARD, Components

# Phases: whose decision is pending and which one (RULES.md §14).
TURN, PLACE, TAKE, OVER = 0, 1, 2, 3  # D1 play or withdraw, D2 palaces, D3 display cards, game over
PHASE_NAMES = ("turn", "place", "take", "over")
#: The rule of each pending decision: D1 the turn (R22), D2 the withdrawal's palaces (R40; the view
#: names the palace's own rule, R36 or R37), D3 the display cards (R48).
PHASE_RULES = {TURN: "R22", PLACE: "R40", TAKE: "R48"}


class Player:
    """One seat.  ``hand`` holds normal cards only; ``known`` is the part of it everybody saw arrive
    (display picks, R65); ``specials`` are special cards in hand, always public (R59)."""

    __slots__ = (
        "bonus_goods",
        "colour",
        "counts",
        "goods",
        "hand",
        "in_visit",
        "known",
        "province_tiles",
        "score",
        "specials",
        "table",
        "tiles",
    )

    def __init__(self, symbols: int, influence: int, goods: int) -> None:
        self.score = 0
        self.hand: list[int] = []
        self.known: list[int] = []
        self.specials: list[int] = []
        self.table: list[int] = []  # R29: cards played this visit, specials included
        self.counts = [0] * symbols  # R30: symbol counts of ``table``, kept incrementally
        self.colour = -1  # R25: commitment colour of this visit, -1 = none yet
        self.in_visit = True
        self.tiles = [0] * influence  # influence tiles owned, per type
        self.goods = [0] * goods  # goods owned (province tiles + kept bonus tiles), per good (R43)
        self.province_tiles: list[int] = []  # numbers of province tiles won (R39)
        self.bonus_goods: list[int] = []  # bonus tiles kept face up (goods, R42)

    def clone(self) -> Player:
        p = Player.__new__(Player)
        p.score = self.score
        p.hand = self.hand[:]
        p.known = self.known[:]
        p.specials = self.specials[:]
        p.table = self.table[:]
        p.counts = self.counts[:]
        p.colour = self.colour
        p.in_visit = self.in_visit
        p.tiles = self.tiles[:]
        p.goods = self.goods[:]
        p.province_tiles = self.province_tiles[:]
        p.bonus_goods = self.bonus_goods[:]
        return p

    def to_json(self) -> list[Any]:
        return [getattr(self, name) for name in _PLAYER_FIELDS]

    @classmethod
    def from_json(cls, row: list[Any]) -> Player:
        p = cls.__new__(cls)
        for name, value in zip(_PLAYER_FIELDS, row, strict=True):
            setattr(p, name, value)
        return p


_PLAYER_FIELDS = Player.__slots__  # encoded in this order


class State:
    """A whole game.  Board-wide lists are indexed by city (``bonus_on``, ``regular``, ``crowned``), by
    symbol (``court``) or by influence type (``supply``).

    ``gen[card]`` is the reshuffle generation a card in a secret hand position was drawn from (0 = the
    first shuffle, k = after the k-th reshuffle of the discard pile, R49), and 0 for every other card:
    everybody saw which pile a draw came from, so ``determinize`` only swaps hidden cards within one
    generation.  The deck always belongs to generation ``reshuffles``.
    """

    __slots__ = (
        "_legal",
        "bonus_on",
        "bonus_taken",
        "comp",
        "court",
        "crown_city",
        "crown_pending",
        "crowned",
        "current",
        "deck",
        "discard",
        "display",
        "final_bonus",
        "gen",
        "n",
        "phase",
        "placed",
        "players",
        "regular",
        "reshuffles",
        "rng",
        "start",
        "supply",
        "tile_province",
        "to_place",
        "to_take",
        "unowned_specials",
        "visit",
        "won_tile",
    )

    def __init__(self, comp: Components, n: int, seed: int) -> None:
        self.comp = comp
        self.n = n
        self.rng = Rng(seed)
        self.visit = 0  # number of the current province tile (R19)
        self.start = 0  # start player of the visit (R18, R55)
        self.current = 0  # seat whose decision is pending
        self.phase = TURN
        self.tile_province = [-1] * len(comp.tile_goods)  # tile number -> province index (R10)
        self.bonus_on = [-1] * len(comp.city_ids)  # city -> bonus tile lying there (R11)
        self.regular = [-1] * len(comp.city_ids)  # city -> owner of its regular palace (R36)
        self.crowned = [-1] * len(comp.city_ids)  # city -> owner of the crowned palace placed there (R37)
        self.crown_city = -1  # city of this visit's crowned palace (R54 makes it ordinary after)
        self.court = [True] * len(comp.symbols)  # symbol -> its prize is in the court (R12, R17)
        self.supply = [comp.influence_per_type - 1] * len(comp.influence)
        self.unowned_specials = list(comp.special_cards)  # R13: beside the board
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.display: list[int] = []
        self.gen = [0] * len(comp.card_ids)
        self.reshuffles = 0
        self.players = [Player(len(comp.symbols), len(comp.influence), len(comp.goods)) for _ in range(n)]
        # The withdrawal in progress (R40): palaces still to place, bonus tiles taken, tile won.
        self.to_place = 0
        self.crown_pending = False
        self.placed = False
        self.bonus_taken: list[int] = []
        self.won_tile = False
        self.to_take = 0
        self.final_bonus: list[int] | None = None  # R61 card bonus per seat, once the game is over
        self._legal: list[dict[str, Any]] | None = None

    def clone(self) -> State:
        s = State.__new__(State)
        s.comp = self.comp
        s.n = self.n
        s.rng = self.rng.copy()
        s.visit = self.visit
        s.start = self.start
        s.current = self.current
        s.phase = self.phase
        s.tile_province = self.tile_province  # fixed after setup, shared
        s.bonus_on = self.bonus_on[:]
        s.regular = self.regular[:]
        s.crowned = self.crowned[:]
        s.crown_city = self.crown_city
        s.court = self.court[:]
        s.supply = self.supply[:]
        s.unowned_specials = self.unowned_specials[:]
        s.deck = self.deck[:]
        s.discard = self.discard[:]
        s.display = self.display[:]
        s.gen = self.gen[:]
        s.reshuffles = self.reshuffles
        s.players = [p.clone() for p in self.players]
        s.to_place = self.to_place
        s.crown_pending = self.crown_pending
        s.placed = self.placed
        s.bonus_taken = self.bonus_taken[:]
        s.won_tile = self.won_tile
        s.to_take = self.to_take
        s.final_bonus = self.final_bonus
        s._legal = self._legal  # shared: replaced, never mutated in place (engine.core.GameBase)
        return s

    def to_json(self) -> dict[str, Any]:
        doc = {name: getattr(self, name) for name in _PLAIN_FIELDS}
        doc["kit"] = None if self.comp is STANDARD else self.comp.raw
        doc["rng"] = self.rng.s
        doc["players"] = [p.to_json() for p in self.players]
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> State:
        comp = STANDARD if doc["kit"] is None else Components(doc["kit"])
        s = cls(comp, doc["n"], doc["rng"])
        for name in _PLAIN_FIELDS:
            setattr(s, name, doc[name])
        s.players = [Player.from_json(row) for row in doc["players"]]
        return s


# State fields encoded as they are (JSON-ready ints, bools and lists of ints).
_PLAIN_FIELDS = (
    "n",
    "visit",
    "start",
    "current",
    "phase",
    "tile_province",
    "bonus_on",
    "regular",
    "crowned",
    "crown_city",
    "court",
    "supply",
    "unowned_specials",
    "deck",
    "discard",
    "display",
    "gen",
    "reshuffles",
    "to_place",
    "crown_pending",
    "placed",
    "bonus_taken",
    "won_tile",
    "to_take",
    "final_bonus",
)
