"""China's feature vector (see :mod:`research.features.spec` for the conventions).

What a seat sees in China is almost all public: the board (who owns each house space, how many
emissaries each seat has on each province's dragon seal, which provinces have been scored), each
seat's score, supply and hand size, the colours it has seen others take, the face-up display, the draw
and discard piles; plus its own hand.  Each is a slice here, board spaces and provinces in the rules'
order (:data:`engine.games.china.components.SPACES`, :data:`engine.games.china.components.PROVINCES`).
Caps come from the components and the rules: 20 houses, 8 emissaries, a hand of 3 cards (R45).

``SPEC.encode_state`` fills the same vector from the engine state (``_write`` below) for learners that
read one every step; it is held equal to the view's vector by ``tests/research/test_features_from_state.py``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from engine.games.china.components import COLOURS, EMISSARIES, HOUSES, PROVINCES, SPACES
from engine.games.china.legal import MAX_CARDS, MAX_PIECES
from engine.games.china.state import DRAW, OVER, PLACE, UNUSED, State
from research.features.spec import (
    Cells,
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
_SPACE = {space: i for i, space in enumerate(SPACES)}
_PHASES = ("turn", "place", "draw")
_ENDS = ("R52", "R53")
_COUNTS = (3, 4, 5)


def _owners(v: View, s: Seats) -> list[float]:
    """Per space, the owner's relative block one-hot (``max_players`` entries per space)."""
    out = [0.0] * (len(SPACES) * s.max_players)
    for space, owner in v["board"]["houses"].items():
        b = s.block(owner)
        if b is not None:
            out[_SPACE[space] * s.max_players + b] = 1.0
    return out


def _seals(v: View, s: Seats) -> list[float]:
    """Per province, each relative seat's emissaries on its dragon seal / 8."""
    out = [0.0] * (len(PROVINCES) * s.max_players)
    for p, province in enumerate(PROVINCES):
        for absolute, n in enumerate(v["board"]["seals"].get(province, [])):
            b = s.block(absolute)
            if b is not None:
                out[p * s.max_players + b] = min(n / EMISSARIES, 1.0)
    return out


def _display(v: View, s: Seats) -> list[float]:
    out = [0.0] * (4 * len(COLOURS))
    for slot, colour in enumerate(v["display"][:4]):
        if colour in COLOURS:
            out[slot * len(COLOURS) + COLOURS.index(colour)] = 1.0
    return out


def _pending(key: str) -> Any:
    return lambda v, s: (v.get("pending") or {}).get(key)


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


# -- the writer: the same vector straight from the State ---------------------------------------------
#
# An observation is read every step, and view() (every space, seal and card as JSON) followed by
# encode() costs 6-10 engine steps; the writer below reads the State's int lists instead (~1 step).  It must
# equal encode(view(state, seat)) value for value (tests/research/test_features_from_state.py), so
# every value is computed with the spec's own arithmetic: ``min(max(float(v) / cap, 0.0), 1.0)``,
# looked up in tables built with that very expression.  It reads only what view() shows the seat:
# its own hand, and of the others their hand size and the cards seen taken (``known``).
# Entries left at 0 are never written (the caller zeroes ``out``): the item stores are the main cost.


_THIRDS = Scaled(3)  # hand, hand_size, seen_cards (cap 3)
_DISCARD = Scaled(13)
_HOUSES = Scaled(HOUSES)
_EMISSARIES = Scaled(EMISSARIES)  # supply and seals: min(n / 8, 1.0) is the same double
_SCORES = Scaled(100)
#: Province indices of each bit mask (``t_common``, ``t_blocked``): the pending provinces lists.
_BITS = tuple(tuple(p for p in range(len(PROVINCES)) if mask >> p & 1) for mask in range(1 << len(PROVINCES)))
#: [n][seat]: the relative block of each absolute seat, and the absolute seat of each block (Seats).
_REL = {n: [tuple((a - seat) % n for a in range(n)) for seat in range(n)] for n in _COUNTS}
_ORDER = {n: [tuple((seat + k) % n for k in range(n)) for seat in range(n)] for n in _COUNTS}
_PHASE = {phase: i for i, phase in enumerate(_PHASES)}
_END = {end: i for i, end in enumerate(_ENDS)}


def _write(st: State, seat: int, out: np.ndarray) -> None:
    """``SPEC.encode(view(st, seat), seat)`` into the zeroed ``out``, from the State (see above)."""
    # an item store on a memoryview costs half of one on the ndarray (the float32 cast is the same)
    cells = cast(Cells, out.data)
    n = st.n
    rel = _REL[n][seat]
    cells[_PLAYERS + _COUNTS.index(n)] = 1.0
    phase = st.phase
    if phase != OVER:  # view: to_move is None and pending is None once over
        cells[_TO_MOVE + rel[st.seat]] = 1.0
        cells[_PHASE_AT + _PHASE[phase]] = 1.0
        if phase == DRAW:
            cells[_DRAWS_LEFT] = min(max(float(st.draws_left) / 3, 0.0), 1.0)
        else:
            cells[_PIECES_LEFT] = min(max(float(MAX_PIECES - st.t_pieces) / 2, 0.0), 1.0)
            cells[_CARDS_LEFT] = min(max(float(MAX_CARDS - st.t_cards) / 3, 0.0), 1.0)
            if phase == PLACE:  # pending provinces / blocked (R30, R31)
                for p in _BITS[st.t_common]:
                    cells[_PLACED_IN + p] = 1.0
                for p in _BITS[st.t_blocked]:
                    cells[_BLOCKED + p] = 1.0
    cells[_TURN] = min(max(float(st.turn) / 100, 0.0), 1.0)
    for c, k in enumerate(st.hands[seat]):  # my hand, the only hand the view shows
        if k:
            cells[_HAND + c] = _THIRDS[k]
    _write_players(st, _ORDER[n][seat], cells)
    _write_board(st, rel, cells)
    for base, c in zip(_DISPLAY_SLOTS, st.display, strict=False):  # display[:4]; -1 is an empty slot
        if c >= 0:
            cells[base + c] = 1.0
    cells[_DECK_SIZE] = min(max(float(len(st.deck)) / 64, 0.0), 1.0)
    for c, k in enumerate(st.discard):
        if k:
            cells[_DISCARD_AT + c] = _DISCARD[k]
    if st.exhaustions:
        cells[_EXHAUSTIONS] = min(max(float(st.exhaustions) / 2, 0.0), 1.0)
    if st.final_round:
        cells[_FINAL_ROUND] = 1.0
    if st.fortifications:
        cells[_FORTIFICATIONS] = 1.0
    end = _END.get(st.end)
    if end is not None:
        cells[_ENDED_BY + end] = 1.0


def _write_players(st: State, order: tuple[int, ...], cells: Cells) -> None:
    """The per-player slices (view ``players``), block k being absolute seat ``order[k]``."""
    scores, supply, hands, known = st.scores, st.supply, st.hands, st.known
    forts = st.fort if st.fortifications else None  # view: "fortification" only with the variant
    thirds = _THIRDS
    for k, a in enumerate(order):
        score = scores[a]
        if score > 0:
            cells[_SCORE + k] = _SCORES[score]
        houses, emissaries = supply[a]
        if houses:
            cells[_HOUSES_AT + k] = _HOUSES[houses]
        if emissaries:
            cells[_EMISSARIES_AT + k] = _EMISSARIES[emissaries]
        size = sum(hands[a])
        if size:
            cells[_HAND_SIZE + k] = thirds[size]
        seen = _SEEN + k * len(COLOURS)
        for c, x in enumerate(known[a]):
            if x:
                cells[seen + c] = thirds[x]
        if a == st.start:
            cells[_EMPEROR + k] = 1.0
        if forts is not None and forts[a] != UNUSED:
            cells[_FORTIFIED + k] = 1.0


def _write_board(st: State, rel: tuple[int, ...], cells: Cells) -> None:
    """The board slices (view ``board``): house owners, dragon seals, scored provinces."""
    for at, o in zip(_OWNER_AT, st.owner, strict=True):
        if o >= 0:  # FREE is -1
            cells[at + rel[o]] = 1.0
    fractions = _EMISSARIES
    for at, row in zip(_SEALS_AT, st.seals, strict=True):
        if any(row):  # most seals are empty most of the game: skip them in C
            for a, k in enumerate(row):
                if k:
                    cells[at + rel[a]] = fractions[k]
    for p, done in enumerate(st.scored):
        if done:
            cells[_SCORED + p] = 1.0


SPEC = FeatureSpec(
    "china",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", _COUNTS, lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot(
            "phase", "the phase of the turn (R23 turn, R26 place, R45 draw)", _PHASES, lambda v, s: v["phase"]
        ),
        scalar("pieces_left", "pieces the mover may still place this turn (R26)", 2, _pending("pieces_left")),
        scalar("cards_left", "cards the mover may still pay this turn (R26)", 3, _pending("cards_left")),
        scalar("draws_left", "cards still to draw (R45, R49)", 3, _pending("draws_left")),
        scalar("turn", "turns played", 100, lambda v, s: v["turn"]),
        counts(
            "placed_in",
            "provinces the mover's first piece this turn went to, which limit the second (R30, R31)",
            PROVINCES,
            1,
            _pending("provinces"),
        ),
        counts(
            "blocked",
            "provinces the mover's second piece may not go to (R30, R31)",
            PROVINCES,
            1,
            _pending("blocked"),
        ),
        counts("hand", "my hand, cards per colour", COLOURS, 3, lambda v, s: _me(v, s).get("hand")),
        per_player(scalar("score", "score", 100, lambda p, s: p["score"])),
        per_player(scalar("houses", "houses left in supply", HOUSES, lambda p, s: p["houses"])),
        per_player(
            scalar("emissaries", "emissaries left in supply", EMISSARIES, lambda p, s: p["emissaries"])
        ),
        per_player(scalar("hand_size", "cards in hand", 3, lambda p, s: p["hand_size"])),
        per_player(
            counts(
                "seen_cards",
                "cards of each colour seen taken into that hand",
                COLOURS,
                3,
                lambda p, s: p["seen_cards"],
            )
        ),
        per_player(flag("emperor", "holds the Emperor (start player, R19)", lambda p, s: p["emperor"])),
        per_player(
            flag(
                "fortified",
                "has placed its fortification (variant, R64)",
                lambda p, s: p.get("fortification"),
            )
        ),
        Feature(
            "house_owner",
            len(SPACES) * MAX_PLAYERS,
            "per board space, the relative seat owning a house there: entry space × 5 + seat; "
            "spaces in order " + ", ".join(SPACES),
            "one-hot per space over relative seats; all 0 if free",
            _owners,
        ),
        Feature(
            "seals",
            len(PROVINCES) * MAX_PLAYERS,
            "per province, each relative seat's emissaries on its dragon seal (R33): "
            "entry province × 5 + seat; "
            "provinces in order " + ", ".join(PROVINCES),
            "count / 8",
            _seals,
        ),
        counts("scored", "provinces already scored", PROVINCES, 1, lambda v, s: v["board"]["scored"]),
        Feature(
            "display",
            4 * len(COLOURS),
            "the four face-up display slots, each a colour one-hot: entry slot × 5 + colour",
            "one-hot per slot over: " + ", ".join(COLOURS) + "; all 0 if empty",
            _display,
        ),
        scalar("deck_size", "cards left in the draw pile", 64, lambda v, s: v["deck_size"]),
        counts("discard", "cards of each colour on the discard pile", COLOURS, 13, lambda v, s: v["discard"]),
        scalar("exhaustions", "times the draw pile ran out", 2, lambda v, s: v["exhaustions"]),
        flag("final_round", "the final round is under way", lambda v, s: v["final_round"]),
        flag(
            "fortifications", "the fortification variant is in play (R21)", lambda v, s: v["fortifications"]
        ),
        onehot("ended_by", "the rule that ended the game, once over", _ENDS, lambda v, s: v["ended_by"]),
    ],
    writer=_write,
)

# Offsets of the slices the writer fills (read from the spec, so the layout has one source).
_PLAYERS = SPEC.slice("players").start
_TO_MOVE = SPEC.slice("to_move").start
_PHASE_AT = SPEC.slice("phase").start
_PIECES_LEFT = SPEC.slice("pieces_left").start
_CARDS_LEFT = SPEC.slice("cards_left").start
_DRAWS_LEFT = SPEC.slice("draws_left").start
_TURN = SPEC.slice("turn").start
_PLACED_IN = SPEC.slice("placed_in").start
_BLOCKED = SPEC.slice("blocked").start
_HAND = SPEC.slice("hand").start
_SCORE = SPEC.slice("score").start
_HOUSES_AT = SPEC.slice("houses").start
_EMISSARIES_AT = SPEC.slice("emissaries").start
_HAND_SIZE = SPEC.slice("hand_size").start
_SEEN = SPEC.slice("seen_cards").start
_EMPEROR = SPEC.slice("emperor").start
_FORTIFIED = SPEC.slice("fortified").start
_OWNER_AT = tuple(range(SPEC.slice("house_owner").start, SPEC.slice("house_owner").stop, MAX_PLAYERS))
_SEALS_AT = tuple(range(SPEC.slice("seals").start, SPEC.slice("seals").stop, MAX_PLAYERS))
_SCORED = SPEC.slice("scored").start
_DISPLAY_SLOTS = tuple(range(SPEC.slice("display").start, SPEC.slice("display").stop, len(COLOURS)))
_DECK_SIZE = SPEC.slice("deck_size").start
_DISCARD_AT = SPEC.slice("discard").start
_EXHAUSTIONS = SPEC.slice("exhaustions").start
_FINAL_ROUND = SPEC.slice("final_round").start
_FORTIFICATIONS = SPEC.slice("fortifications").start
_ENDED_BY = SPEC.slice("ended_by").start
