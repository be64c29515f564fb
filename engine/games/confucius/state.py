"""The complete state of a Confucius game: explicit fields of ints and flat int lists.

Flat lists indexed ``player * width + item`` (and ``ministry * 7 + space - 1`` for the officials) keep
``clone`` to a handful of list copies, which the bots do millions of times.  Identical components are
stored by kind, not identity: a Confucius card is its coin value (hands are counts per value), an
official tile is its bribe cost, a candidate tile its ministry kind, a reward card its kind.  Nothing
distinguishes two cards of a kind, so nothing is lost.
"""

from __future__ import annotations

from typing import Any, Final

from engine.core import Action, Rng

# Phases: whose decision is pending and what it is about (R23; decision points of section 21).
CHOOSE_CM: Final = 0  # D1: previous Chief Minister names the new one
ACTION: Final = 1  # D2: a turn in the Actions Phase
EXTRA: Final = 2  # D10: the box action of an Extra Action card
FAVOUR: Final = 3  # D8: the Chief Minister's Imperial Favour
PAY: Final = 4  # D3: which Confucius cards pay the price of the action in ctx
LAND: Final = 5  # D4: the Distant Land of a completed voyage
TUTOR: Final = 6  # D5: tutoring a student
PLACE: Final = 7  # D6: where the exam winner puts the candidate
GIVE: Final = 8  # D7: receiver of the weakest participant's influence
KEEP: Final = 9  # D9: which 4 Confucius cards to keep
OVER: Final = 10

PHASE_NAMES = (
    "choose_chief_minister",
    "action",
    "extra_action",
    "imperial_favour",
    "pay",
    "choose_distant_land",
    "tutor",
    "place_candidate",
    "give_influence",
    "keep_cards",
    "over",
)

#: The rule of each pending decision (named in views and when an action of another decision is refused).
PHASE_RULES = ("R26", "R29", "R72", "R77", "R37", "R47", "R83", "R88", "R91", "R98", "R100")

# Gift states (R53).
NOT_AVAILABLE: Final = 0
AVAILABLE: Final = 1
ACTIVE: Final = 2
REMOVED: Final = 3
GIFT_STATE_NAMES = ("not_available", "available", "active", "removed")

# Foreign land tile states (R93-R96).
OPEN: Final = 0
CONQUERED: Final = 1
FAILED: Final = 2
LAND_STATE_NAMES = ("unresolved", "success", "failed")

# Tile values on an official space: EMPTY, CANDIDATE, or the official's bribe cost (2..7).
EMPTY: Final = -1
CANDIDATE: Final = 0

_LISTS = (
    "tile",
    "owner",
    "secured",
    "resolved",
    "minister",
    "secretary",
    "chits",
    "stack",
    "candidates",
    "students",
    "hands",
    "deck",
    "discard",
    "held",
    "tutor",
    "reward_deck",
    "gift",
    "given",
    "score",
    "cubes",
    "placed",
    "commercial",
    "passed",
    "stock",
    "colonies",
    "foreign",
    "land_state",
    "shipyard",
    "ocean",
    "reached",
    "land_chit",
)
_SCALARS = (
    "n",
    "advanced",
    "admiral_variant",
    "round",
    "wall",
    "phase",
    "seat",
    "mode",
    "turn",
    "cm",
    "candidate",
    "forced",
    "insulted",
    "supply",
    "res_m",
    "court",
)


class State:
    """One game.  Field meanings (n = players, p = seat):

    n, advanced, admiral_variant
        player count and options (R22)
    rng
        the game's own RNG (secret)
    round, wall
        round number (1..9) and Great Wall pieces placed (R78)
    phase, seat, mode, ctx
        the pending decision: its phase, the seat that decides, for box actions whether cubes are paid
        (mode ACTION), free through an Extra Action card (EXTRA) or Imperial Favour (FAVOUR), and a
        small JSON context (the action being paid for, voyages left, tutoring queue, receivers...)
    turn, cm
        the seat whose Actions Phase turn it is, and the Chief Minister
    tile, owner, secured  [ministry * 7 + space - 1]
        official spaces: tile (EMPTY, CANDIDATE or cost), marker owner (-1 none), secured flag
    resolved, minister, secretary  [ministry]; chits [2 * ministry + (0 minister, 1 secretary)]
    stack
        face-down official tiles (costs; drawn from the end)
    candidates, candidate
        face-down candidate stack (kinds; top is the end) and the face-up current candidate (-1: none)
    students [0 red, 1 orange], forced
        student markers (-1 none) and whether Force Imperial Examination was taken this round
    hands [p * 3 + kind], deck, discard [kind]
        Confucius cards: counts per kind (kind = coins - 1) in hands, deck order (top is the end), and
        the face-up discard pile as counts
    held [p * 3 + kind]
        cards discarded at the End of Round discard, face down until everybody has chosen (R98)
    tutor [p * 4]
        student tutored (-1) and the face-down cards laid there, per kind (R83, R116)
    rewards [p], reward_deck
        reward cards in hand (sorted kinds) and the face-down reward stack
    gift [p * 6 + value - 1], given [giver * n + receiver]
        gift states (R53) and the Gift Tracker: value of the active gift, 0 for none
    score, cubes, placed [p * spaces + space], commercial, passed
        VP, active cubes left, cubes on each action space, Commercial Income used, passed this round
    stock, colonies, foreign [position], boxes [position][box], land_state [position], insulted
        armies in stock and in the military colonies, foreign-land tile per position, army owners in
        its boxes (-1 empty), tile state, seat holding the Emperor Insulted! card (-1)
    supply, shipyard, ocean, reached (bit mask of Distant Lands), land_chit (blue chit, 0 once taken)
    court
        the Court / End of Round step the round has reached (flow.STAGES), so a step interrupted by a
        decision resumes where it stopped
    transferred
        bit mask over the official spaces: the officials whose marker changed hands by Transfer
        Influence this round (R62a: at most once per official per round)
    res_m, res_hold
        Ministry Resolution in progress: its ministry (-1 none) and the seat holding each space's
        influence (own or temporary marker)
    outcome
        the result once the game is over
    colours
        the colour of each seat, as indices into components.COLOURS: seat order by default, the
        scenario builder's when it names the players by colour (a tuple, never mutated, so clones
        share it)
    """

    __slots__ = (
        *_LISTS,
        *_SCALARS,
        "_legal",
        "boxes",
        "colours",
        "ctx",
        "outcome",
        "res_hold",
        "rewards",
        "rng",
        "transferred",
    )
    tile: list[int]
    owner: list[int]
    secured: list[int]
    resolved: list[int]
    minister: list[int]
    secretary: list[int]
    chits: list[int]
    stack: list[int]
    candidates: list[int]
    students: list[int]
    hands: list[int]
    deck: list[int]
    discard: list[int]
    held: list[int]
    tutor: list[int]
    reward_deck: list[int]
    gift: list[int]
    given: list[int]
    score: list[int]
    cubes: list[int]
    placed: list[int]
    commercial: list[int]
    passed: list[int]
    stock: list[int]
    colonies: list[int]
    foreign: list[int]
    land_state: list[int]
    shipyard: list[int]
    ocean: list[int]
    reached: list[int]
    land_chit: list[int]
    n: int
    advanced: bool
    admiral_variant: bool
    round: int
    wall: int
    phase: int
    seat: int
    mode: int
    turn: int
    cm: int
    candidate: int
    forced: int
    insulted: int
    supply: int
    res_m: int
    court: int
    boxes: list[list[int]]
    rewards: list[list[int]]
    res_hold: list[int]
    ctx: Any
    outcome: dict[str, Any] | None
    colours: tuple[int, ...]
    rng: Rng
    transferred: int
    _legal: list[Action] | None

    def clone(self) -> State:
        """Every field of ``_SCALARS`` and ``_LISTS`` (the lists copied) written out: a loop over the
        names with ``getattr``/``setattr`` costs twice as much, and search clones at every node."""
        new = State.__new__(State)
        new.n = self.n
        new.advanced = self.advanced
        new.admiral_variant = self.admiral_variant
        new.round = self.round
        new.wall = self.wall
        new.phase = self.phase
        new.seat = self.seat
        new.mode = self.mode
        new.turn = self.turn
        new.cm = self.cm
        new.candidate = self.candidate
        new.forced = self.forced
        new.insulted = self.insulted
        new.supply = self.supply
        new.res_m = self.res_m
        new.court = self.court
        new.tile = self.tile[:]
        new.owner = self.owner[:]
        new.secured = self.secured[:]
        new.resolved = self.resolved[:]
        new.minister = self.minister[:]
        new.secretary = self.secretary[:]
        new.chits = self.chits[:]
        new.stack = self.stack[:]
        new.candidates = self.candidates[:]
        new.students = self.students[:]
        new.hands = self.hands[:]
        new.deck = self.deck[:]
        new.discard = self.discard[:]
        new.held = self.held[:]
        new.tutor = self.tutor[:]
        new.reward_deck = self.reward_deck[:]
        new.gift = self.gift[:]
        new.given = self.given[:]
        new.score = self.score[:]
        new.cubes = self.cubes[:]
        new.placed = self.placed[:]
        new.commercial = self.commercial[:]
        new.passed = self.passed[:]
        new.stock = self.stock[:]
        new.colonies = self.colonies[:]
        new.foreign = self.foreign[:]
        new.land_state = self.land_state[:]
        new.shipyard = self.shipyard[:]
        new.ocean = self.ocean[:]
        new.reached = self.reached[:]
        new.land_chit = self.land_chit[:]
        new.rng = self.rng.copy()
        new.transferred = self.transferred
        new.boxes = [b[:] for b in self.boxes]
        new.rewards = [r[:] for r in self.rewards]
        new.res_hold = self.res_hold[:]
        new.ctx = self.ctx  # treated as immutable: always replaced, never mutated
        new.colours = self.colours
        new.outcome = self.outcome
        new._legal = self._legal  # shared: replaced, never mutated in place (engine.core.GameBase)
        return new

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {name: getattr(self, name) for name in (*_SCALARS, *_LISTS)}
        doc.update(
            rng=self.rng.s,
            boxes=self.boxes,
            rewards=self.rewards,
            res_hold=self.res_hold,
            ctx=self.ctx,
            outcome=self.outcome,
            colours=self.colours,
            transferred=self.transferred,
        )
        return doc

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> State:
        new = cls.__new__(cls)
        for name in (*_SCALARS, *_LISTS, "boxes", "rewards", "res_hold", "ctx", "outcome"):
            setattr(new, name, doc[name])
        new.rng = Rng(doc["rng"])
        # States stored before seats had colours of their own: seat order.
        new.colours = tuple(doc.get("colours", range(new.n)))
        # States stored before R62a: no transfer recorded this round.
        new.transferred = doc.get("transferred", 0)
        new._legal = None
        return new
