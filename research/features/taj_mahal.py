"""Taj Mahal's feature vector (see :mod:`research.features.spec` for the conventions).

Cards are encoded by id (multi-hot over the 100 card ids of
:data:`engine.games.taj_mahal.components.STANDARD` ``.card_ids``) where the view names them: my hand,
the display, the discard pile, the specials beside the board; the other seats' public cards and tables
by colour and symbol counts.  The board is per city (``.city_ids`` order): the palace owners and the
bonus tile still lying there.
"""

from __future__ import annotations

import struct
import threading
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
    # from every seat (province_order, bonus tiles, discard pile), and per player count and seat
    # ``kept`` (``_Kept``) the one that names seats (palaces), each with a copy of the lists it renders;
    # where a list now differs, only the entries that differ (found by a comparison in C) are rendered
    # anew.  A block so always equals a fresh reading of the state: the vector stays exact, whatever
    # game, seat or order the states come in (a state of another game only costs a bigger patch).
    # Kept per thread (``_KEPT``), so environments stepped in threads never patch each other's blocks.
    tiles = s.tile_province
    if board.tiles != tiles:
        board.renew_order(tiles)
    visit = s.visit
    if visit > 0:
        m[_O_ROUND] = visit / 12 if visit < 12 else 1.0
    m[_O_START + block[s.start]] = 1.0
    # current_province: ``province_ids[tile_province[visit]]`` (index -1 names the last province)
    m[_O_PROVINCE + tiles[visit] % _N_PROVINCES] = 1.0
    m[_O_ORDER : _O_ORDER + _N_PROVINCES] = board.order
    # court (symbols whose prize is there), supply / 5, specials beside the board
    for i, here in enumerate(s.court):
        if here:
            m[_O_COURT + i] = 1.0
    for i, k in enumerate(s.supply):
        if k > 0:
            m[_O_SUPPLY + i] = k / 5 if k < 5 else 1.0
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
    for now, was, o in ((s.regular, kept.regular, 0), (s.crowned, kept.crowned, MAX_PLAYERS)):
        if was != now:
            km = kept.palaces
            for c in compress(_CITY_NUMBERS, map(ne, was, now)):
                r = was[c]
                if r >= 0:  # the owner it rendered there: back to 0
                    km[c * 2 * MAX_PLAYERS + o + block[r]] = 0.0
                r = now[c]
                if r >= 0:
                    km[c * 2 * MAX_PLAYERS + o + block[r]] = 1.0
            was[:] = now
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
    _write_players(m, players, relative)


class _Board:
    """What ``_write`` keeps of one game's board for every seat of a thread: the blocks that read the
    same from any seat, as float32 memoryviews (copied into the vector with one memcpy each), and the
    lists they render."""

    __slots__ = ("bonus", "bonus_on", "discard", "order", "pile", "tiles")

    def __init__(self) -> None:
        # The blocks start as the rendering of an empty board, the lists as an empty board.
        self.tiles: list[int] = []
        self.order: Any = np.zeros(_N_PROVINCES, np.float32).data
        self.bonus_on = [-1] * len(CITIES)
        self.bonus: Any = np.zeros(len(CITIES) * _BONUS_WIDTH, np.float32).data  # a float memoryview
        self.discard: list[int] = []
        self.pile: Any = np.zeros(len(CARDS), np.float32).data

    def renew_order(self, tiles: list[int]) -> None:
        """province_order of a tile layout: the view's dict keeps the last tile number given to a
        province."""
        order = np.zeros(_N_PROVINCES, np.float32)
        for t, pr in enumerate(tiles):
            if pr >= 0:
                order[pr] = t / 12 if t < 12 else 1.0
        self.order = order.data
        self.tiles = tiles[:]


class _Kept:
    """What ``_write`` keeps for one seat of one player count: the palaces block (it names the owners'
    relative seats) and the owner lists it renders."""

    __slots__ = ("crowned", "palaces", "regular")

    def __init__(self) -> None:
        self.regular = [-1] * len(CITIES)
        self.crowned = [-1] * len(CITIES)
        self.palaces: Any = np.zeros(len(CITIES) * 2 * MAX_PLAYERS, np.float32).data


def _write_players(m: Any, players: list[Any], relative: tuple[int, ...]) -> None:
    """The per-seat slices, block by relative block (one call for all seats: a call costs as much as
    several writes)."""
    for a, o in zip(relative, _PLAYER_OFFSETS, strict=False):  # o: its block's slice offsets
        p = players[a]
        k = p.score
        if k > 0:
            m[o[0]] = k / 100 if k < 100 else 1.0
        k = len(p.hand) + len(p.specials)
        if k:
            m[o[1]] = k / 20 if k < 20 else 1.0
        # hand_public, table: colour and symbol counts, summed as one packed int per card list (a
        # plain loop: ``sum(map(...))`` costs twice as much on these short lists)
        if p.known:
            packed = 0
            for c in p.known:
                packed += _PACKED[c]
            base = o[2]
            m[base : base + _WIDTH_CS] = _TALLIES.get(packed) or _tally(packed)
        if p.table:
            packed = 0
            for c in p.table:
                packed += _PACKED[c]
            base = o[3]
            m[base : base + _WIDTH_CS] = _TALLIES.get(packed) or _tally(packed)
        if any(p.counts):
            base = o[5]
            for k in p.counts:
                if k > 0:
                    m[base] = k / 10 if k < 10 else 1.0
                base += 1
        if p.colour >= 0:
            m[o[6] + _COMMIT_POS[p.colour]] = 1.0
        if p.in_visit:
            m[o[7]] = 1.0
        for c in p.specials:
            m[o[4] + _SPECIAL_POS[c]] = 1.0
        if any(p.tiles):
            base = o[8]
            for k in p.tiles:
                if k > 0:
                    m[base] = k / 3 if k < 3 else 1.0
                base += 1
        if any(p.goods):
            base = o[9]
            for k in p.goods:
                if k > 0:
                    m[base] = k / 5 if k < 5 else 1.0
                base += 1
        k = len(p.province_tiles)
        if k:
            m[o[10]] = k / 12 if k < 12 else 1.0
        k = len(p.bonus_goods)
        if k:
            m[o[11]] = k / 16 if k < 16 else 1.0


def _tally(packed: int) -> memoryview[float]:
    """A hand_public / table block (``_cards_by``: colour counts, then symbol counts, / 10) from its
    packed counts, cached: a seat's cards change one at a time, so the same sums recur.

    The block is a read-only float32 memoryview over bytes (immutable, so the module-level cache
    shares nothing mutable), joined from per-count float32 bytes: about 40% cheaper than building a
    numpy array, which matters because most misses are first sightings that no key or cache size
    avoids (random play, 3 players: 0.53 misses per step at 4,096 entries, 0.47 at 8,192, 0.40 at
    16,384; the packed counts are already the smallest key, as the block is a function of them)."""
    if len(_TALLIES) >= _CACHE_SIZE:
        _TALLIES.clear()
    block = b"".join([_TENTH_F32[k] for k in packed.to_bytes(_WIDTH_CS, "little")])
    found = _TALLIES[packed] = memoryview(block).cast("f")
    return found


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
#: k -> ``min(k / 10, 1.0)``, a hand_public / table entry (a count never exceeds 2 symbols x every card).
_TENTH = tuple(min(k / 10, 1.0) for k in range(2 * len(CARDS) + 1))
#: k -> ``_TENTH[k]`` as the 4 bytes of a native float32 (a ``_tally`` block is 12 of them joined).
_TENTH_F32 = tuple(struct.pack("f", x) for x in _TENTH)
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
#: relative block -> the offsets of its per-seat slices, in ``_write_players``' order.
_PLAYER_OFFSETS = tuple(
    (
        _O_SCORE + b,
        _O_HAND_SIZE + b,
        _O_HAND_PUBLIC + b * _WIDTH_CS,
        _O_TABLE + b * _WIDTH_CS,
        _O_SPECIALS + b * 4,
        _O_COUNTS + b * _N_SYMBOLS,
        _O_COMMIT + b * 4,
        _O_IN_VISIT + b,
        _O_INFLUENCE + b * _N_INFLUENCE,
        _O_GOODS + b * _N_GOODS,
        _O_PROVINCE_TILES + b,
        _O_BONUS_TILES + b,
    )
    for b in range(MAX_PLAYERS)
)


class _PerThread(threading.local):
    """Each thread's board blocks (``_write``): ``seating[(players, seat)]`` is the block of each seat,
    the seat of each block, and the palaces kept for that seat; ``board`` the blocks every seat shares."""

    def __init__(self) -> None:
        self.seating = {key: (_BLOCK[key], relative, _Kept()) for key, relative in _RELATIVE.items()}
        self.board = _Board()


_KEPT = _PerThread()
# The cache of ``_tally`` (by packed counts); emptied when full, so a long run keeps it bounded.
_CACHE_SIZE = 4096
_TALLIES: dict[int, memoryview[float]] = {}
