"""Year of the Dragon's feature vector (see :mod:`research.features.spec` for the conventions).

Slices follow the view: the round and the pending decision; the event row; the action groups of this
round; the court pairs; the supply of person tiles; the turn and person-track orders; and per seat its
money, rice, fireworks, points, person track position, privileges, palaces (by person tiles in them) and
the cards it played (its hand only for itself).  Person names are the tiles'
(``pyrotechnist_y`` young, ``_o`` old; court persons have no age).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.games.year_of_dragon.components import ACTION_IDS, CARD_IDS, EVENT_IDS, TILE_IDS, TYPE_IDS
from engine.games.year_of_dragon.state import OVER, PHASE_NAMES, Palace, State
from research.features.spec import (
    Blocks,
    Feature,
    FeatureSpec,
    Scaled,
    Seats,
    View,
    counts,
    flag,
    onehot,
    per_player,
    scalar,
    seat_onehot,
)

MAX_PLAYERS = 5
_PHASES = ("action", "build", "court", "full", "person", "place", "privilege", "release")
EVENTS = ("contagion", "dragon_festival", "drought", "imperial_tribute", "mongol_invasion", "peace")
ACTIONS = ("build", "fireworks", "harvest", "military_parade", "privilege", "research", "taxes")
CARDS = (
    "court_lady", "craftsman", "farmer", "healer", "monk", "pyrotechnist", "scholar", "tax_collector",
    "warrior",
)  # fmt: skip
TILES = (
    "court_lady", "craftsman", "farmer_o", "farmer_y", "healer_o", "healer_y", "monk_o", "monk_y",
    "pyrotechnist_o", "pyrotechnist_y", "scholar_o", "scholar_y", "tax_collector", "warrior_o", "warrior_y",
)  # fmt: skip
_ROUNDS = 12
_GROUPS = 5
_PAIRS = 5


def _event_row(v: View, s: Seats) -> list[float]:
    out = [0.0] * (_ROUNDS * len(EVENTS))
    for i, event in enumerate(v["event_row"][:_ROUNDS]):
        if event in EVENTS:
            out[i * len(EVENTS) + EVENTS.index(event)] = 1.0
    return out


def _groups(v: View, s: Seats) -> list[float]:
    width = len(ACTIONS) + 1
    out = [0.0] * (_GROUPS * width)
    for i, group in enumerate(v["groups"][:_GROUPS]):
        for a in group["actions"]:
            if a in ACTIONS:
                out[i * width + ACTIONS.index(a)] = 1.0
        out[i * width + len(ACTIONS)] = min(group["dragons"] / 3, 1.0)
    return out


def _pairs(v: View, s: Seats) -> list[float]:
    out = [0.0] * (_PAIRS * len(CARDS))
    for i, pair in enumerate(v["court_pairs"][:_PAIRS]):
        for person in pair:
            if person in CARDS:
                out[i * len(CARDS) + CARDS.index(person)] = 1.0
    return out


def _order(key: str) -> Any:
    def read(v: View, s: Seats) -> list[float]:
        out = [0.0] * (s.max_players * s.max_players)
        for position, seat in enumerate((v.get(key) or [])[: s.max_players]):
            b = s.block(seat)
            if b is not None:
                out[position * s.max_players + b] = 1.0
        return out

    return read


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


def _persons(p: dict[str, Any], s: Seats) -> list[str]:
    return [x for palace in p["palaces"] for x in palace["persons"]]


# -- the writer: the same vector straight from the engine state ---------------------------------------
#
# An observer reads a vector every step, and building the view first (every palace, every name, as JSON)
# costs several engine steps; this fills the vector from the state's int fields instead.  It derives
# only what ``view.view(state, seat)`` shows (the seat's own hand, other seats' played cards only under
# ``reveal_played_card``), with the feature functions' float arithmetic, so the two vectors are equal
# value for value (tests/research/test_features_from_state.py).  Speed: entries are set through a
# ``memoryview`` of ``out`` (an item assignment costs two thirds of a numpy one); entries that stay zero
# are skipped where cheap (``out`` arrives zeroed); scaled values come from tables (spec.Scaled), and slices
# that change seldom are copied whole from float32 blocks kept per content (spec.Blocks).  The offsets
# (``_AT_*`` and the per-index tables) are at the end of the module: they read SPEC.

#: Engine index -> column in the feature's value order (the view turns indices into these names).
_PHASE_COL = tuple(_PHASES.index(name) if name in _PHASES else -1 for name in PHASE_NAMES)
_EVENT_COL = tuple(EVENTS.index(e) for e in EVENT_IDS)
_ACTION_COL = tuple(ACTIONS.index(a) for a in ACTION_IDS)
_TILE_COL = tuple(TILES.index(t) for t in TILE_IDS)
_CARD_COL = tuple((*CARDS, "wild").index(c) for c in CARD_IDS)
#: view "court_pairs": a pair is a bitmask over person types; the columns of each mask's persons.
_PAIR_COLS = tuple(
    tuple(CARDS.index(t) for i, t in enumerate(TYPE_IDS) if mask >> i & 1)
    for mask in range(1 << len(TYPE_IDS))
)
_PAIR_MASK = (1 << len(TYPE_IDS)) - 1
#: track_order's tie-break (the lower seat first) as a key that sorts in reverse with (pos, arrival).
_NEG_SEATS = tuple(-p for p in range(MAX_PLAYERS))


class _Dragons(dict[int, float]):
    """``dragons -> min(dragons / 3, 1.0)``: the "groups" feature's own scaling (no lower clip)."""

    def __missing__(self, value: int) -> float:
        return min(value / 3, 1.0)


_ROUND_Q, _SUPPLY_Q, _HAND_Q, _PLAYED_Q, _PERSONS_Q = (Scaled(c) for c in (_ROUNDS, 10, 3, 2, 4))
_YUAN_Q, _RICE_Q, _VP_Q, _POS_Q, _PRIV_Q = (Scaled(c) for c in (20, 6, 100, 60, 5))
_HAND_SIZE_Q, _PALACES_Q, _FLOORS_Q = (Scaled(c) for c in (12, 10, 30))
_DRAGONS_Q = _Dragons()


def _counts_of(cols: tuple[int, ...], scaled: Scaled) -> Callable[[tuple[int, ...], array[float]], None]:
    """The maker of a "counts" slice from a list of engine indices (spec.counts: count / cap each)."""

    def make(key: tuple[int, ...], block: array[float]) -> None:
        for k in set(key):
            block[cols[k]] = scaled[key.count(k)]

    return make


def _tallies_of(cols: tuple[int, ...], scaled: Scaled) -> Callable[[tuple[int, ...], array[float]], None]:
    """The maker of a "counts" slice from a count per engine index (the view's dict of counts)."""

    def make(key: tuple[int, ...], block: array[float]) -> None:
        for k, count in enumerate(key):
            if count:
                block[cols[k]] = scaled[count]

    return make


def _row_block(key: tuple[int, ...], block: array[float]) -> None:
    """The "event_row" slice of a row of event indices: one-hot per round."""
    for r, e in enumerate(key[:_ROUNDS]):
        block[r * len(EVENTS) + _EVENT_COL[e]] = 1.0


class _PalaceRows(dict[tuple[Palace, ...], tuple[float, float, memoryview]]):
    """A seat's palaces (the engine's immutable ``(floors, tiles)`` pairs) -> its "palaces" and
    "floors" values and its "persons" slice as a float32 block: they change a few times a game, and
    one lookup replaces the sum, the sort and the count per tile.  Forgotten, all at once, past
    ``_BLOCKS_KEPT`` keys."""

    def __missing__(self, owned: tuple[Palace, ...]) -> tuple[float, float, memoryview]:
        if len(self) >= _BLOCKS_KEPT:
            self.clear()
        persons = [x for _, tiles in owned for x in tiles]
        block = array("f", bytes(4 * len(TILES)))
        for k in set(persons):
            block[_TILE_COL[k]] = _PERSONS_Q[persons.count(k)]
        self[owned] = found = (_PALACES_Q[len(owned)], _FLOORS_Q[sum(f for f, _ in owned)], memoryview(block))
        return found


_BLOCKS_KEPT = 10_000
_EVENT_BLOCKS = Blocks(_ROUNDS * len(EVENTS), _row_block)
_SUPPLY_BLOCKS = Blocks(len(TILES), _tallies_of(_TILE_COL, _SUPPLY_Q))
_HAND_BLOCKS = Blocks(len(_CARD_COL), _tallies_of(_CARD_COL, _HAND_Q))
_PLAYED_BLOCKS = Blocks(len(_CARD_COL), _counts_of(_CARD_COL, _PLAYED_Q))
_PALACE_ROWS = _PalaceRows()


def _write(state: State, seat: int, out: np.ndarray) -> None:
    """Fill ``out`` (zeroed) with ``seat``'s features, as ``SPEC.encode(view(state, seat), seat)``."""
    m: Any = out.data  # a memoryview of float32 ("f"); typeshed types its items as int only
    n = state.n
    _write_table(state, seat, n, m)
    _write_orders(state, seat, n, m)
    _write_players(state, seat, _SEATS_OF[n][seat], m)


def _write_table(state: State, seat: int, n: int, m: Any) -> None:
    """The shared features: players .. hand (view fields options, round, phase, to_move, first_player,
    event_row, groups, court_pairs, supply and the seat's own hand)."""
    if 2 <= n <= 5:  # "players": one-hot over (2, 3, 4, 5)
        m[_AT_PLAYERS + n - 2] = 1.0
    phase = state.phase
    if phase != OVER:  # "to_move": None once over; "phase": "over" is not in _PHASES
        m[_AT_TO_MOVE + (state.order[state.turn] - seat) % n] = 1.0
    col = _PHASE_COL[phase]
    if col >= 0:
        m[_AT_PHASE + col] = 1.0
    if state.round:
        m[_AT_ROUND] = _ROUND_Q[state.round]
    if state.large_cost in (6, 7):
        m[_AT_LARGE_COST + state.large_cost - 6] = 1.0
    if state.reveal:
        m[_AT_REVEAL] = 1.0
    m[_AT_FIRST + (state.first_player - seat) % n] = 1.0
    m[_EVENT_ROW] = _EVENT_BLOCKS[tuple(state.row)]  # "event_row": one-hot per round
    for (a_actions, a_dragons), g, d in zip(_GROUP_AT, state.groups, state.dragons, strict=False):
        for a in g:  # "groups" (5 at most): its actions and dragons / 3
            m[a_actions[a]] = 1.0
        if d:
            m[a_dragons] = _DRAGONS_Q[d]
    m[_PAIRS_ON] = _PAIR_BLOCKS[tuple(state.pairs)]  # "court_pairs" (5 at most): set a few times a round
    m[_SUPPLY] = _SUPPLY_BLOCKS[tuple(state.supply)]  # "supply": count / 10 per tile
    m[_HAND] = _HAND_BLOCKS[tuple(state.hands[seat])]  # "hand": shown to its owner only (R58a)


def _write_orders(state: State, seat: int, n: int, m: Any) -> None:
    """The view's "turn_order" (state.order, set once a round: one block kept per order and seat) and
    "track_order" (palaces.track_order: by person-track position, the later arrival first, then the
    lower seat): entry position × 5 + relative seat."""
    m[_TURN_ORDER] = _TURN_BLOCKS[(seat, n, *state.order)]
    at = _AT_TRACK_ORDER
    for _, _, neg in sorted(zip(state.pos, state.arrival, _NEG_SEATS[:n], strict=False), reverse=True):
        m[at + (-neg - seat) % n] = 1.0
        at += MAX_PLAYERS


def _turn_block(key: tuple[int, ...], block: array[float]) -> None:
    """ "turn_order" from ``(seat, n, *order)``."""
    seat, n, *order = key
    for at, p in enumerate(order[:MAX_PLAYERS]):
        block[at * MAX_PLAYERS + (p - seat) % n] = 1.0


def _pairs_block(key: tuple[int, ...], block: array[float]) -> None:
    """ "court_pairs" from state.pairs: a pair is a bitmask over person types (entry pair × 9 + person)."""
    for i, pair in enumerate(key[:_PAIRS]):
        for c in _PAIR_COLS[pair & _PAIR_MASK]:
            block[i * len(CARDS) + c] = 1.0


def _write_players(state: State, seat: int, blocks: tuple[int, ...], m: Any) -> None:
    """The per-seat blocks ("yuan" .. "persons"): block b is seat ``blocks[b]``, ``(seat + b) % n``."""
    yuan, rice, fireworks, vp, pos = state.yuan, state.rice, state.fireworks, state.vp, state.pos
    small, large, hands, played, palaces = state.small, state.large, state.hands, state.played, state.palaces
    reveal = state.reveal
    for ats, p in zip(_BLOCK_AT, blocks, strict=False):
        a_yuan, a_rice, a_fw, a_vp, a_pos, a_small, a_large, a_hand, a_played, a_pal, a_floors, a_persons = (
            ats
        )
        m[a_yuan] = _YUAN_Q[yuan[p]]
        m[a_rice] = _RICE_Q[rice[p]]
        v = fireworks[p]
        if v:  # often none: zero stays zero (fireworks, privileges)
            m[a_fw] = _RICE_Q[v]  # the same cap, 6
        m[a_vp] = _VP_Q[vp[p]]
        m[a_pos] = _POS_Q[pos[p]]
        v = small[p]
        if v:
            m[a_small] = _PRIV_Q[v]
        v = large[p]
        if v:
            m[a_large] = _PRIV_Q[v]
        m[a_hand] = _HAND_SIZE_Q[sum(hands[p])]
        cards = played[p]
        if cards and (p == seat or reveal):  # "played": the discard pile, public unless hidden (R58a)
            m[a_played] = _PLAYED_BLOCKS[tuple(cards)]  # in play order: sorting costs more than misses
        owned = palaces[p]
        if owned:  # "palaces", "floors" and "persons" (the tiles in them), kept per set of palaces
            m[a_pal], m[a_floors], m[a_persons] = _PALACE_ROWS[tuple(owned)]


SPEC = FeatureSpec(
    "year_of_dragon",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (2, 3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot("phase", "the pending decision", _PHASES, lambda v, s: v["phase"]),
        scalar("round", "the round (month)", _ROUNDS, lambda v, s: v["round"]),
        onehot(
            "large_privilege_cost",
            "option: price of the large privilege (R65)",
            (6, 7),
            lambda v, s: v["options"]["large_privilege_cost"],
        ),
        flag(
            "reveal_played_card",
            "option: the played person card is shown (R58a)",
            lambda v, s: v["options"]["reveal_played_card"],
        ),
        seat_onehot("first_player", "the first player (R13)", lambda v, s: v["first_player"]),
        Feature(
            "turn_order",
            MAX_PLAYERS * MAX_PLAYERS,
            "this round's turn order: entry position × 5 + relative seat",
            "one-hot per position",
            _order("turn_order"),
        ),
        Feature(
            "track_order",
            MAX_PLAYERS * MAX_PLAYERS,
            "the person track order: entry position × 5 + relative seat",
            "one-hot per position",
            _order("track_order"),
        ),
        Feature(
            "event_row",
            _ROUNDS * len(EVENTS),
            "the event of each round: entry round × 6 + event (" + ", ".join(EVENTS) + ")",
            "one-hot per round",
            _event_row,
        ),
        Feature(
            "groups",
            _GROUPS * (len(ACTIONS) + 1),
            "this round's action groups (up to 5): the actions in each ("
            + ", ".join(ACTIONS)
            + ") and its dragons",
            "0 or 1; dragons / 3",
            _groups,
        ),
        Feature(
            "court_pairs",
            _PAIRS * len(CARDS),
            "the court pairs on offer: entry pair × 9 + person (" + ", ".join(CARDS) + ")",
            "0 or 1",
            _pairs,
        ),
        counts("supply", "person tiles left in the supply", TILES, 10, lambda v, s: v["supply"]),
        counts("hand", "my person cards", (*CARDS, "wild"), 3, lambda v, s: _me(v, s).get("hand")),
        per_player(scalar("yuan", "money", 20, lambda p, s: p["yuan"])),
        per_player(scalar("rice", "rice", 6, lambda p, s: p["rice"])),
        per_player(scalar("fireworks", "fireworks", 6, lambda p, s: p["fireworks"])),
        per_player(scalar("vp", "victory points", 100, lambda p, s: p["vp"])),
        per_player(scalar("person_pos", "position on the person track", 60, lambda p, s: p["person_pos"])),
        per_player(
            counts("privileges", "privileges held", ("small", "large"), 5, lambda p, s: p["privileges"])
        ),
        per_player(scalar("hand_size", "person cards in hand", 12, lambda p, s: p["hand_size"])),
        per_player(
            counts(
                "played",
                "person cards played (as far as shown)",
                (*CARDS, "wild"),
                2,
                lambda p, s: p.get("played"),
            )
        ),
        per_player(scalar("palaces", "palaces owned", 10, lambda p, s: len(p["palaces"]))),
        per_player(
            scalar("floors", "palace floors in all", 30, lambda p, s: sum(x["floors"] for x in p["palaces"]))
        ),
        per_player(counts("persons", "person tiles in its palaces", TILES, 4, _persons)),
    ],
    writer=_write,
)

_AT_PLAYERS = SPEC.slice("players").start
_AT_TO_MOVE = SPEC.slice("to_move").start
_AT_PHASE = SPEC.slice("phase").start
_AT_ROUND = SPEC.slice("round").start
_AT_LARGE_COST = SPEC.slice("large_privilege_cost").start
_AT_REVEAL = SPEC.slice("reveal_played_card").start
_AT_FIRST = SPEC.slice("first_player").start
_AT_TURN_ORDER = SPEC.slice("turn_order").start
_AT_TRACK_ORDER = SPEC.slice("track_order").start
_AT_GROUPS = SPEC.slice("groups").start
_AT_PAIRS = SPEC.slice("court_pairs").start
_AT_YUAN = SPEC.slice("yuan").start
_AT_RICE = SPEC.slice("rice").start
_AT_FIREWORKS = SPEC.slice("fireworks").start
_AT_VP = SPEC.slice("vp").start
_AT_POS = SPEC.slice("person_pos").start
_AT_PRIVILEGES = SPEC.slice("privileges").start
_AT_HAND_SIZE = SPEC.slice("hand_size").start
_AT_PLAYED = SPEC.slice("played").start
_AT_PALACES = SPEC.slice("palaces").start
_AT_FLOORS = SPEC.slice("floors").start
_AT_PERSONS = SPEC.slice("persons").start
#: Per relative block, the offsets of its entries: the scalars (yuan .. hand_size), then "played" (a
#: slice), "palaces", "floors", "persons" (a slice).
_BLOCK_AT = tuple(
    (
        _AT_YUAN + b,
        _AT_RICE + b,
        _AT_FIREWORKS + b,
        _AT_VP + b,
        _AT_POS + b,
        _AT_PRIVILEGES + 2 * b,  # "privileges": (small, large)
        _AT_PRIVILEGES + 2 * b + 1,
        _AT_HAND_SIZE + b,
        slice(_AT_PLAYED + b * len(_CARD_COL), _AT_PLAYED + (b + 1) * len(_CARD_COL)),
        _AT_PALACES + b,
        _AT_FLOORS + b,
        slice(_AT_PERSONS + b * len(TILES), _AT_PERSONS + (b + 1) * len(TILES)),
    )
    for b in range(MAX_PLAYERS)
)
#: Per group, the offset of each action (by engine index) and of its dragons.
_GROUP_AT = tuple(
    (
        tuple(_AT_GROUPS + i * (len(ACTIONS) + 1) + col for col in _ACTION_COL),
        _AT_GROUPS + i * (len(ACTIONS) + 1) + len(ACTIONS),
    )
    for i in range(_GROUPS)
)
#: The slices written whole from a spec.Blocks table.
_EVENT_ROW, _SUPPLY, _HAND = SPEC.slice("event_row"), SPEC.slice("supply"), SPEC.slice("hand")
#: _SEATS_OF[n][seat]: the absolute seat of each relative block.
_SEATS_OF = {
    n: tuple(tuple((seat + b) % n for b in range(n)) for seat in range(n)) for n in range(1, MAX_PLAYERS + 1)
}
#: "turn_order" and "court_pairs", written whole from a spec.Blocks table.
_TURN_ORDER, _PAIRS_ON = SPEC.slice("turn_order"), SPEC.slice("court_pairs")
_TURN_BLOCKS = Blocks(_TURN_ORDER.stop - _TURN_ORDER.start, _turn_block)
_PAIR_BLOCKS = Blocks(_PAIRS_ON.stop - _PAIRS_ON.start, _pairs_block)
