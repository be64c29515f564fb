"""Taj Mahal's feature vector (see :mod:`research.features.spec` for the conventions).

Cards are encoded by id (multi-hot over the 100 card ids of
:data:`engine.games.taj_mahal.components.STANDARD` ``.card_ids``) where the view names them: my hand,
the display, the discard pile, the specials beside the board; the other seats' public cards and tables
by colour and symbol counts.  The board is per city (``.city_ids`` order): the palace owners and the
bonus tile still lying there.
"""

from __future__ import annotations

import threading
from array import array
from itertools import compress
from operator import ne
from typing import Any

import numpy as np

from engine.games.taj_mahal.components import STANDARD as COMP
from engine.games.taj_mahal.state import OVER, PLACE, TAKE, TURN
from engine.games.taj_mahal.view import view as taj_view
from research.features.spec import (
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
CARDS: tuple[str, ...] = tuple(COMP.card_ids)
CITIES: tuple[str, ...] = tuple(COMP.city_ids)
_CITY = {city: i for i, city in enumerate(CITIES)}
PROVINCES: tuple[str, ...] = tuple(COMP.province_ids)
SYMBOLS: tuple[str, ...] = tuple(COMP.symbols)
INFLUENCE = ("vizier", "general", "monk", "princess")
GOODS = ("rice", "tea", "spices", "jewels")
CARD_COLOURS = ("green", "purple", "red", "yellow", "white", "special")
_DECISIONS = ("crown", "palace", "play_or_withdraw", "take")
_BONUS_KINDS = ("points", "good", "card")


def _ids(cards: Any) -> list[str]:
    return [c["id"] for c in cards or ()]


def _colour(card: dict[str, Any]) -> str:
    return str(card["colour"] or card["kind"])


def _cards_by(get: Any) -> Any:
    """Colour counts, then symbol counts, of a list of cards."""

    def read(p: dict[str, Any], s: Seats) -> list[float]:
        cards = get(p) or []
        colours = [_colour(c) for c in cards]
        symbols = [x for c in cards for x in c["symbols"]]
        return [min(colours.count(c) / 10, 1.0) for c in CARD_COLOURS] + [
            min(symbols.count(x) / 10, 1.0) for x in SYMBOLS
        ]

    return read


def _palaces(v: View, s: Seats) -> list[float]:
    """Per city: the relative seat of its regular palace, then of its crowned palace (5 + 5)."""
    width = 2 * s.max_players
    out = [0.0] * (len(CITIES) * width)
    for city, palace in v["palaces"].items():
        base = _CITY[city] * width
        for k, who in enumerate((palace["regular"], palace["crowned"])):
            b = s.block(who)
            if b is not None:
                out[base + k * s.max_players + b] = 1.0
    return out


def _bonus(v: View, s: Seats) -> list[float]:
    """Per city: the kind of the bonus tile lying there (one-hot points, good, card) and its points / 4."""
    width = len(_BONUS_KINDS) + 1
    out = [0.0] * (len(CITIES) * width)
    for city, tile in v["bonus_tiles"].items():
        base = _CITY[city] * width
        if tile["kind"] in _BONUS_KINDS:
            out[base + _BONUS_KINDS.index(tile["kind"])] = 1.0
        if tile["kind"] == "points":
            out[base + len(_BONUS_KINDS)] = min(tile["value"] / 4, 1.0)
    return out


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


def _write(state: Any, seat: int, out: np.ndarray) -> None:
    """``SPEC.encode(view(state, seat), seat)`` into the zeroed ``out``, from the state's fields."""
    s = state
    n = s.n
    seating = _KEPT.seating.get((n, seat))
    if s.comp is not COMP or seating is None:
        # a scenario's own kit (the tables below describe the standard cards) or player count
        SPEC.encode(taj_view(s, seat), seat, out)
        return
    block, relative, kept = seating
    board = _KEPT.board
    m: Any = out.data  # a memoryview: item assignment without numpy's per-call cost
    # players, to_move (None once over), decision (view "pending")
    m[_O_PLAYERS + n - 3] = 1.0
    phase = s.phase
    if phase != OVER:
        m[_O_TO_MOVE + block[s.current]] = 1.0
        if phase == TURN:
            m[_O_DECISION + _DECISION_TURN] = 1.0
        elif phase == PLACE:
            m[_O_DECISION + (_DECISION_PALACE if s.to_place > 0 else _DECISION_CROWN)] = 1.0
        elif phase == TAKE:
            m[_O_DECISION + _DECISION_TAKE] = 1.0
    # Reading the board means scanning the 12 tiles and 49 cities, yet it changes only when a seat
    # withdraws or a visit ends.  So ``board`` (``_Board``) holds the rendered blocks that read the same
    # from every seat (province_order, bonus tiles, discard pile, court, supply, and each seat's blocks
    # that name no seat: see ``_write_players``), and per player count and seat ``kept`` (``_Kept``)
    # the one that names seats (palaces), each with a copy of the lists it renders; where a list now
    # differs, it is rendered anew (the long ones only where they differ, found by a comparison in C).
    # A block so always equals a fresh reading of the state: the vector stays exact, whatever
    # game, seat or order the states come in (a state of another game only costs a bigger patch).
    # Kept per thread (``_KEPT``), so environments stepped in threads never patch each other's blocks.
    tiles = s.tile_province
    if board.tile_province != tiles:
        board.renew_order(tiles)
    visit = s.visit
    if visit > 0:
        m[_O_ROUND] = visit / 12 if visit < 12 else 1.0
    m[_O_START + block[s.start]] = 1.0
    # current_province: ``province_ids[tile_province[visit]]`` (index -1 names the last province)
    m[_O_PROVINCE + tiles[visit] % _N_PROVINCES] = 1.0
    m[_O_ORDER : _O_ORDER + _N_PROVINCES] = board.order
    # court (symbols whose prize is there), supply / 5, specials beside the board
    if board.court != s.court:
        board.court = s.court[:]
        board.court_block = _scaled(_ONE, s.court)
    m[_COURT] = board.court_block
    if board.supply != s.supply:
        board.supply = s.supply[:]
        board.supply_block = _scaled(_FIFTHS, s.supply)
    m[_SUPPLY] = board.supply_block
    for c in s.unowned_specials:
        m[_O_BESIDE + _SPECIAL_POS[c]] = 1.0
    # board_bonus_tiles: per city, the kind of the tile there (one-hot) and its points / 4
    bonus = s.bonus_on
    was = board.bonus_on
    if was != bonus:
        km = board.bonus
        for c in compress(_CITY_NUMBERS, map(ne, was, bonus)):
            o = c * _BONUS_WIDTH
            b = was[c]
            if b >= 0:  # the tile it rendered there: its entries back to 0
                km[o + _BONUS[b][0]] = 0.0
                km[o + 3] = 0.0
            b = bonus[c]
            if b >= 0:
                kind, points = _BONUS[b]
                km[o + kind] = 1.0
                if points:
                    km[o + 3] = points
        was[:] = bonus
    m[_O_BOARD_BONUS:] = board.bonus
    # palaces: per city, the block of its regular owner, then of its crowned owner
    if kept.regular != s.regular:
        _patch_palaces(kept.palaces, kept.regular, s.regular, 0, block)
    if kept.crowned != s.crowned:
        _patch_palaces(kept.palaces, kept.crowned, s.crowned, MAX_PLAYERS, block)
    m[_O_PALACES:_O_CROWNED] = kept.palaces
    # crowned_palace_owner: the crowned palace of the current province's city, if placed
    city = s.crown_city
    if city >= 0:
        r = s.crowned[city]
        if r >= 0:
            m[_O_CROWNED + block[r]] = 1.0
    # the cards: display, discard pile, my own hand (even once all hands are shown, R66)
    o = _O_DISPLAY
    for c in s.display:
        m[o + c] = 1.0
    # the discard pile only grows (R46) until a reshuffle empties it (R49): its block is kept like the
    # palaces, extended by the cards added since, rendered anew when it is not an extension
    discard = s.discard
    if board.discard != discard:
        km = board.pile
        k = len(board.discard)
        if discard[:k] != board.discard:
            km[:] = _NO_CARDS
            k = 0
        for c in discard[k:]:
            km[c] = 1.0
        board.discard = discard[:]
    m[_O_DISCARD:_O_DECK] = board.pile
    k = len(s.deck)
    if k:
        m[_O_DECK] = k / 100 if k < 100 else 1.0
    players = s.players
    o = _O_HAND
    for c in players[seat].hand:  # my own hand only, even once all hands are shown (R66)
        m[o + c] = 1.0
    _write_players(m, players, relative, board)


def _patch_palaces(km: Any, was: list[int], now: list[int], o: int, block: tuple[int, ...]) -> None:
    """The palaces block's entries of the cities whose owner in ``now`` differs from ``was`` (the
    list it renders), and ``was`` made equal to ``now``."""
    for c in compress(_CITY_NUMBERS, map(ne, was, now)):
        r = was[c]
        if r >= 0:  # the owner it rendered there: back to 0
            km[c * 2 * MAX_PLAYERS + o + block[r]] = 0.0
        r = now[c]
        if r >= 0:
            km[c * 2 * MAX_PLAYERS + o + block[r]] = 1.0
    was[:] = now


class _Board:
    """What ``_write`` keeps of one game's board for every seat of a thread: the blocks that read the
    same from any seat, as float32 memoryviews or arrays (copied into the vector with one memcpy
    each), and the lists they render.  The seats' own blocks that name no seat (their card tallies,
    tiles, goods) are kept here too, per absolute seat."""

    __slots__ = (
        "bonus",
        "bonus_on",
        "counts",
        "court",
        "court_block",
        "discard",
        "goods",
        "known",
        "order",
        "pile",
        "supply",
        "supply_block",
        "table",
        "tile_province",
        "tiles",
    )

    def __init__(self) -> None:
        # The blocks start as the rendering of an empty board, the lists as an empty board.
        self.tile_province: list[int] = []
        self.order: Any = np.zeros(_N_PROVINCES, np.float32).data
        self.bonus_on = [-1] * len(CITIES)
        self.bonus: Any = np.zeros(len(CITIES) * _BONUS_WIDTH, np.float32).data  # a float memoryview
        self.discard: list[int] = []
        self.pile: Any = np.zeros(len(CARDS), np.float32).data
        self.court: list[bool] = []  # matches no state's court or supply: the first call renders them
        self.court_block = array("f")
        self.supply: list[int] = []
        self.supply_block = array("f")
        self.known = _SeatLists()
        self.table = _SeatLists()
        self.counts = _SeatLists()
        self.tiles = _SeatLists()
        self.goods = _SeatLists()

    def renew_order(self, tiles: list[int]) -> None:
        """province_order of a tile layout: the view's dict keeps the last tile number given to a
        province."""
        order = np.zeros(_N_PROVINCES, np.float32)
        for t, pr in enumerate(tiles):
            if pr >= 0:
                order[pr] = t / 12 if t < 12 else 1.0
        self.order = order.data
        self.tile_province = tiles[:]


class _SeatLists:
    """One per-seat list of every absolute seat, as last rendered (``lists``), and its block
    (``blocks``, float32 arrays).  A list starts empty with no block: the first call with a non-empty
    list renders it.  Kept per seat rather than in a cache by value: random play met a new card tally
    0.6 times a step, each a miss of such a cache (3-5 µs a miss in the features loop)."""

    __slots__ = ("blocks", "lists")

    def __init__(self) -> None:
        self.lists: list[list[int]] = [[] for _ in range(MAX_PLAYERS)]
        self.blocks: list[array[float]] = [array("f")] * MAX_PLAYERS


class _Kept:
    """What ``_write`` keeps for one seat of one player count: the palaces block (it names the owners'
    relative seats) and the owner lists it renders."""

    __slots__ = ("crowned", "palaces", "regular")

    def __init__(self) -> None:
        self.regular = [-1] * len(CITIES)
        self.crowned = [-1] * len(CITIES)
        self.palaces: Any = np.zeros(len(CITIES) * 2 * MAX_PLAYERS, np.float32).data


def _write_players(m: Any, players: list[Any], relative: tuple[int, ...], board: _Board) -> None:
    """The per-seat slices, block by relative block (one call for all seats: a call costs as much as
    several writes).

    The blocks that name no seat (hand_public and table: colour and symbol counts; symbol counts,
    influence tiles, goods) read the same from any seat, so ``board`` keeps them per absolute seat with
    the lists they render, like the palaces: a list equal to the one rendered (a comparison in C) costs
    one copy of its block; only a seat's list that changed since the last call is rendered again."""
    known_l, known_b = board.known.lists, board.known.blocks
    table_l, table_b = board.table.lists, board.table.blocks
    counts_l, counts_b = board.counts.lists, board.counts.blocks
    tiles_l, tiles_b = board.tiles.lists, board.tiles.blocks
    goods_l, goods_b = board.goods.lists, board.goods.blocks
    for a, o in zip(relative, _PLAYER_OFFSETS, strict=False):  # o: where its slices go
        p = players[a]
        k = p.score
        if k > 0:
            m[o[0]] = k / 100 if k < 100 else 1.0
        k = len(p.hand) + len(p.specials)
        if k:
            m[o[1]] = k / 20 if k < 20 else 1.0
        c = p.known  # an empty list renders as zeros: nothing to copy
        if c:
            if c != known_l[a]:
                known_l[a] = c[:]
                known_b[a] = _tally(c)
            m[o[2]] = known_b[a]
        c = p.table
        if c:
            if c != table_l[a]:
                table_l[a] = c[:]
                table_b[a] = _tally(c)
            m[o[3]] = table_b[a]
        c = p.counts
        if c != counts_l[a]:
            counts_l[a] = c[:]
            counts_b[a] = _scaled(_TENTHS, c)
        m[o[5]] = counts_b[a]
        if p.colour >= 0:
            m[o[6] + _COMMIT_POS[p.colour]] = 1.0
        if p.in_visit:
            m[o[7]] = 1.0
        for k in p.specials:
            m[o[4] + _SPECIAL_POS[k]] = 1.0
        c = p.tiles
        if c != tiles_l[a]:
            tiles_l[a] = c[:]
            tiles_b[a] = _scaled(_THIRDS, c)
        m[o[8]] = tiles_b[a]
        c = p.goods
        if c != goods_l[a]:
            goods_l[a] = c[:]
            goods_b[a] = _scaled(_FIFTHS, c)
        m[o[9]] = goods_b[a]
        k = len(p.province_tiles)
        if k:
            m[o[10]] = k / 12 if k < 12 else 1.0
        k = len(p.bonus_goods)
        if k:
            m[o[11]] = k / 16 if k < 16 else 1.0


def _tally(cards: list[int]) -> array[float]:
    """The hand_public / table block of a card list (``_cards_by``: colour counts, then symbol counts,
    / 10): the cards' packed places summed (a plain loop: ``sum(map(...))`` costs twice as much on
    these short lists), a byte per place (a count never exceeds 2 symbols x every card, 200)."""
    packed = 0
    for c in cards:
        packed += _PACKED[c]
    return array("f", [_TENTHS[k] for k in packed.to_bytes(_WIDTH_CS, "little")])


def _scaled(scale: Scaled, counts: list[int]) -> array[float]:
    """A block of counts scaled as ``counts(..., cap)`` scales them (``scale``: its cap's table)."""
    return array("f", [scale[k] for k in counts])


_SYMBOL_NAMES = ", ".join(CARD_COLOURS) + "; " + ", ".join(SYMBOLS)

SPEC = FeatureSpec(
    "taj_mahal",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot(
            "decision", "the pending decision", _DECISIONS, lambda v, s: (v["pending"] or {}).get("decision")
        ),
        scalar("round", "the round (one per province visit)", 12, lambda v, s: v["round"]),
        seat_onehot("start_player", "the start player of the visit", lambda v, s: v["start_player"]),
        onehot(
            "current_province", "the province being visited", PROVINCES, lambda v, s: v["current_province"]
        ),
        Feature(
            "province_order",
            len(PROVINCES),
            "per province (" + ", ".join(PROVINCES) + "): its place in the visiting order",
            "place / 12; 0 if not yet drawn",
            lambda v, s: [min((v["province_tiles"] or {}).get(p, 0) / 12, 1.0) for p in PROVINCES],
        ),
        counts(
            "court",
            "the court cards (and the elephant) still available to win this visit",
            SYMBOLS,
            1,
            lambda v, s: [k for k, on in v["court"].items() if on],
        ),
        counts("supply", "influence tiles left in the supply", INFLUENCE, 5, lambda v, s: v["supply"]),
        counts(
            "specials_beside_board",
            "special cards still beside the board",
            CARDS[-4:],
            1,
            lambda v, s: _ids(v["specials_beside_board"]),
        ),
        counts("display", "cards in the face-up display, by id", CARDS, 1, lambda v, s: _ids(v["display"])),
        counts("discard", "cards on the discard pile, by id", CARDS, 1, lambda v, s: _ids(v["discard"])),
        scalar("deck_size", "cards left in the deck", 100, lambda v, s: v["deck_size"]),
        counts("hand", "my hand, by card id", CARDS, 1, lambda v, s: _ids(_me(v, s).get("hand"))),
        per_player(scalar("score", "score", 100, lambda p, s: p["score"])),
        per_player(scalar("hand_size", "cards in hand", 20, lambda p, s: p["hand_size"])),
        Feature(
            "hand_public",
            -(len(CARD_COLOURS) + len(SYMBOLS)),
            "per seat (relative blocks): the cards of its hand every seat has seen, by colour ("
            + _SYMBOL_NAMES
            + ")",
            "count / 10, clipped",
            lambda v, s: _per(v, s, _cards_by(lambda p: p["hand_public"])),
        ),
        Feature(
            "table",
            -(len(CARD_COLOURS) + len(SYMBOLS)),
            "per seat (relative blocks): the cards it has played this visit, by colour then symbol ("
            + _SYMBOL_NAMES
            + ")",
            "count / 10, clipped",
            lambda v, s: _per(v, s, _cards_by(lambda p: p["table"])),
        ),
        per_player(counts("specials", "special cards held", CARDS[-4:], 1, lambda p, s: _ids(p["specials"]))),
        per_player(
            counts("counts", "symbols played this visit (R27)", SYMBOLS, 10, lambda p, s: p["counts"])
        ),
        per_player(
            onehot(
                "commitment",
                "the colour committed to this visit (R24)",
                CARD_COLOURS[:4],
                lambda p, s: p["commitment"],
            )
        ),
        per_player(flag("in_visit", "still in the visit (has not withdrawn)", lambda p, s: p["in_visit"])),
        per_player(
            counts("influence_tiles", "influence tiles held", INFLUENCE, 3, lambda p, s: p["influence_tiles"])
        ),
        per_player(counts("goods", "goods held", GOODS, 5, lambda p, s: p["goods"])),
        per_player(scalar("province_tiles", "province tiles won", 12, lambda p, s: len(p["province_tiles"]))),
        per_player(scalar("bonus_tiles", "bonus tiles taken", 16, lambda p, s: len(p["bonus_tiles"]))),
        Feature(
            "palaces",
            len(CITIES) * 2 * MAX_PLAYERS,
            "per city (in order "
            + ", ".join(CITIES)
            + "): the relative seat of its palace, then of the crowned palace: "
            "entry city × 10 + k × 5 + seat",
            "one-hot per city and kind; all 0 if none",
            _palaces,
        ),
        seat_onehot(
            "crowned_palace_owner",
            "the seat whose palace is crowned in the current province",
            lambda v, s: (
                (v["palaces"].get(v["crowned_palace"]) or {}).get("crowned") if v["crowned_palace"] else None
            ),
        ),
        Feature(
            "board_bonus_tiles",
            len(CITIES) * (len(_BONUS_KINDS) + 1),
            "per city (order as for palaces): the kind of the bonus tile there (points, good, card) and "
            "its points: entry city × 4 + k",
            "one-hot; points / 4",
            _bonus,
        ),
    ],
    writer=_write,
)


def _per(v: View, s: Seats, read: Any) -> list[float]:
    out: list[float] = []
    width = len(CARD_COLOURS) + len(SYMBOLS)
    for absolute in s.relative():
        out.extend([0.0] * width if absolute is None else read(v["players"][absolute], s))
    return out


# --- The writer: the same vector straight from the engine state -------------------------------------
#
# A learner reads a vector every step, and the view (every card as a JSON object) costs dozens of
# engine steps; the writer reads the state's int fields instead.  It writes through a memoryview of
# ``out`` (an item costs a third of numpy's item assignment, a slice is a memcpy), only the non-zero
# entries (the caller hands it a zeroed vector) or whole blocks kept from earlier calls (``_Board``,
# ``_Kept``).
# Every value is computed with the same float arithmetic as the view's feature (``v / cap`` on an int
# equals ``float(v) / cap``), so the float32 entries agree.

_OFF = {s.name: s.offset for s in SPEC.slices}
_WIDTH_CS = len(CARD_COLOURS) + len(SYMBOLS)  # hand_public / table: one block per seat
# The fast path reads component indices as feature positions; it holds for the standard kit only (a
# scenario's own kit is encoded through its view, see ``_write``).
assert COMP.symbols == SYMBOLS and COMP.influence == INFLUENCE and COMP.goods == GOODS
assert COMP.province_ids == PROVINCES and COMP.city_ids == CITIES
assert tuple(COMP.card_ids[c] for c in COMP.special_cards) == CARDS[-4:]
#: card -> its place among the specials (``CARDS[-4:]``).
_SPECIAL_POS = {c: CARDS[-4:].index(COMP.card_ids[c]) for c in COMP.special_cards}
#: card -> its places in a hand_public / table block: its colour (``_colour``), then each symbol shown.
_CARD_CS: tuple[tuple[int, ...], ...] = tuple(
    (CARD_COLOURS.index(colour or kind), *(len(CARD_COLOURS) + SYMBOLS.index(x) for x in symbols))
    for _, kind, colour, symbols in COMP.card_printed
)
#: card -> its ``_CARD_CS`` places as one int, a byte per place: a card list's counts are a sum.
_PACKED: tuple[int, ...] = tuple(sum(1 << (8 * j) for j in places) for places in _CARD_CS)
#: colour index -> its place in the commitment one-hot (``CARD_COLOURS[:4]``).
_COMMIT_POS = tuple(CARD_COLOURS[:4].index(c) for c in COMP.colours)
#: phase -> the ``decision`` one-hot place (TURN, TAKE; PLACE depends on ``to_place``; OVER: none).
_DECISION_TURN = _DECISIONS.index("play_or_withdraw")
_DECISION_TAKE = _DECISIONS.index("take")
_DECISION_PALACE = _DECISIONS.index("palace")
_DECISION_CROWN = _DECISIONS.index("crown")
#: bonus tile -> (its kind's place in ``_BONUS_KINDS``, its points / 4 or 0.0 for a non-points tile).
_BONUS_KIND_NAME = ("points", "card", "good")  # components' POINTS, CARD, GOOD
_BONUS = tuple(
    (
        _BONUS_KINDS.index(_BONUS_KIND_NAME[kind]),
        min(value / 4, 1.0) if _BONUS_KIND_NAME[kind] == "points" else 0.0,
    )
    for kind, value in zip(COMP.bonus_kind, COMP.bonus_value, strict=True)
)
_CITY_NUMBERS = range(len(CITIES))
_BONUS_WIDTH = len(_BONUS_KINDS) + 1
_NO_CARDS = np.zeros(len(CARDS), np.float32).data
#: (players, seat) -> absolute seat per relative block, and absolute seat -> block.
_RELATIVE = {(n, seat): tuple((seat + k) % n for k in range(n)) for n in (3, 4, 5) for seat in range(n)}
_BLOCK = {key: tuple(rel.index(a) for a in range(key[0])) for key, rel in _RELATIVE.items()}

_O_PLAYERS = _OFF["players"]
_O_TO_MOVE = _OFF["to_move"]
_O_DECISION = _OFF["decision"]
_O_ROUND = _OFF["round"]
_O_START = _OFF["start_player"]
_O_PROVINCE = _OFF["current_province"]
_O_ORDER = _OFF["province_order"]
_O_COURT = _OFF["court"]
_O_SUPPLY = _OFF["supply"]
_O_BESIDE = _OFF["specials_beside_board"]
_O_DISPLAY = _OFF["display"]
_O_DISCARD = _OFF["discard"]
_O_DECK = _OFF["deck_size"]
_O_HAND = _OFF["hand"]
_O_SCORE = _OFF["score"]
_O_HAND_SIZE = _OFF["hand_size"]
_O_HAND_PUBLIC = _OFF["hand_public"]
_O_TABLE = _OFF["table"]
_O_SPECIALS = _OFF["specials"]
_O_COUNTS = _OFF["counts"]
_O_COMMIT = _OFF["commitment"]
_O_IN_VISIT = _OFF["in_visit"]
_O_INFLUENCE = _OFF["influence_tiles"]
_O_GOODS = _OFF["goods"]
_O_PROVINCE_TILES = _OFF["province_tiles"]
_O_BONUS_TILES = _OFF["bonus_tiles"]
_O_PALACES = _OFF["palaces"]
_O_CROWNED = _OFF["crowned_palace_owner"]
_O_BOARD_BONUS = _OFF["board_bonus_tiles"]
_N_SYMBOLS = len(SYMBOLS)
_N_INFLUENCE = len(INFLUENCE)
_N_GOODS = len(GOODS)
_N_PROVINCES = len(PROVINCES)
#: relative block -> where its per-seat slices go, in ``_write_players``' order: an offset for a single
#: value, a slice for a block stored whole.
_PLAYER_OFFSETS = tuple(
    (
        _O_SCORE + b,
        _O_HAND_SIZE + b,
        slice(_O_HAND_PUBLIC + b * _WIDTH_CS, _O_HAND_PUBLIC + (b + 1) * _WIDTH_CS),
        slice(_O_TABLE + b * _WIDTH_CS, _O_TABLE + (b + 1) * _WIDTH_CS),
        _O_SPECIALS + b * 4,
        slice(_O_COUNTS + b * _N_SYMBOLS, _O_COUNTS + (b + 1) * _N_SYMBOLS),
        _O_COMMIT + b * 4,
        _O_IN_VISIT + b,
        slice(_O_INFLUENCE + b * _N_INFLUENCE, _O_INFLUENCE + (b + 1) * _N_INFLUENCE),
        slice(_O_GOODS + b * _N_GOODS, _O_GOODS + (b + 1) * _N_GOODS),
        _O_PROVINCE_TILES + b,
        _O_BONUS_TILES + b,
    )
    for b in range(MAX_PLAYERS)
)
_COURT = slice(_O_COURT, _O_COURT + _N_SYMBOLS)
_SUPPLY = slice(_O_SUPPLY, _O_SUPPLY + _N_INFLUENCE)
# value -> ``counts``' entry for it (value / cap, clipped), per cap
_ONE, _THIRDS, _FIFTHS, _TENTHS = Scaled(1), Scaled(3), Scaled(5), Scaled(10)


class _PerThread(threading.local):
    """Each thread's board blocks (``_write``): ``seating[(players, seat)]`` is the block of each seat,
    the seat of each block, and the palaces kept for that seat; ``board`` the blocks every seat shares."""

    def __init__(self) -> None:
        self.seating = {key: (_BLOCK[key], relative, _Kept()) for key, relative in _RELATIVE.items()}
        self.board = _Board()


_KEPT = _PerThread()
