"""The legal actions of the pending decision: exactly the set ``apply`` accepts.

A turn is split into small decisions (DP2-DP5): at the start of a turn the player places a first
piece, swaps a card or (variant) fortifies; after a first piece he may place a second one or finish;
then he draws one card at a time.  The two-piece constraints (R26 three cards, R30 one province,
R31 one piece into a province empty at turn start) are kept as masks on the state, so the first and
the second piece are enumerated by the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from engine.core import Action, ActionTable

from .components import (
    COLOURS,
    IS_BORDER,
    PROVINCE_COLOUR,
    PROVINCE_SPACES,
    PROVINCES,
    SPACE_MASK,
    SPACE_PROVINCES,
    SPACES,
)
from .payments import border_payments, fortify_payments, payments_by_colour
from .state import DRAW, FREE, OVER, PLACE, TURN, UNUSED, State

#: Most cards one turn may play (R26).
MAX_CARDS = 3
#: Most pieces one turn may place (R26).
MAX_PIECES = 2
#: Mask of all provinces: the first piece of a turn may go anywhere (R30).
ALL_PROVINCES = (1 << len(PROVINCES)) - 1
#: Card colours of each space's provinces: one, or two for a border space (R27).
SPACE_COLOURS: tuple[tuple[int, ...], ...] = tuple(
    tuple(PROVINCE_COLOUR[p] for p in provs) for provs in SPACE_PROVINCES
)
_PROVINCE_RANGE = range(len(PROVINCES))
_COLOUR_RANGE = range(len(COLOURS))


def _placing(piece: str, target: str) -> ActionTable[str]:
    """The place actions of one piece on one target, by payment name: prebuilt action objects
    (engine.core.ActionTable), since placements list dozens at every decision."""
    return ActionTable(lambda pay: {"type": "place", "piece": piece, "target": target, "pay": pay})


_HOUSE = tuple(_placing("house", target) for target in SPACES)
#: Non-border house spaces grouped by the colour paying for them: (space, its house actions,
#: province mask).
_PLAIN_SPACES_BY_COLOUR: tuple[tuple[tuple[int, ActionTable[str], int], ...], ...] = tuple(
    tuple((s, _HOUSE[s], SPACE_MASK[s]) for s in range(len(SPACES)) if SPACE_COLOURS[s] == (c,))
    for c in _COLOUR_RANGE
)
#: Border spaces: (space, its house actions, province mask, colour of each province) (R13, R27).
_BORDER_SPACES: tuple[tuple[int, ActionTable[str], int, int, int], ...] = tuple(
    (s, _HOUSE[s], SPACE_MASK[s], SPACE_COLOURS[s][0], SPACE_COLOURS[s][1])
    for s in range(len(SPACES))
    if IS_BORDER[s]
)
#: Dragon seals: (province, its emissary actions, province bit, colour) (R33).
_SEALS = tuple((p, _placing("emissary", PROVINCES[p]), 1 << p, PROVINCE_COLOUR[p]) for p in _PROVINCE_RANGE)
_SWAP = tuple({"type": "swap", "discard": colour} for colour in COLOURS)
_FINISH: Action = {"type": "finish"}
_DRAW_DECK: Action = {"type": "draw_deck"}
_DRAW_DISPLAY: ActionTable[int] = ActionTable(lambda slot: {"type": "draw_display", "slot": slot})


def _fortifying(space: int, province: int) -> ActionTable[str]:
    """The fortify actions of one house space for one of its provinces, by payment name (R64)."""
    return ActionTable(
        lambda pay: {"type": "fortify", "space": SPACES[space], "province": PROVINCES[province], "pay": pay}
    )


#: ``_FORTIFY[province][space]``, for the spaces of each province.
_FORTIFY = tuple({s: _fortifying(s, p) for s in PROVINCE_SPACES[p]} for p in _PROVINCE_RANGE)


def legal_actions(st: State) -> list[Action]:
    """The pending decision's actions, a new list (GameBase caches it on the state)."""
    return _BUILDERS[st.phase](st)


def _turn_start(st: State) -> list[Action]:
    """PLACE (a first piece), SWAP, or with the variant FORTIFY (R23, R24, R64)."""
    out = placements(st)
    seat = st.seat
    hand = st.hands[seat]
    if any(hand) and st.can_draw():  # R49
        out += [_SWAP[c] for c in _COLOUR_RANGE if hand[c]]
    if st.fortifications and st.fort[seat] == UNUSED:
        out += _fortifications(st)
    return out


def _second_piece(st: State) -> list[Action]:
    out = placements(st)
    out.append(_FINISH)
    return out


def _draws(st: State) -> list[Action]:
    """One draw: the top of the pile or any face-up card (R45, R46, R49)."""
    out: list[Action] = [_DRAW_DECK] if st.deck else []
    out += [_DRAW_DISPLAY[i] for i, card in enumerate(st.display) if card >= 0]
    return out


_BUILDERS: dict[str, Callable[[State], list[Action]]] = {
    TURN: _turn_start,
    PLACE: _second_piece,
    DRAW: _draws,
    OVER: lambda st: [],
}


def placements(st: State) -> list[Action]:
    """Every legal next piece with its payment (R26-R34, R39).

    A piece is allowed where its province mask meets ``t_common`` (R30) and misses ``t_blocked``
    (R31); its payment must fit in the cards the turn has left (R26).  Spaces are visited grouped by
    the colour that pays for them, so colours the hand cannot pay for cost nothing, and only those
    the two masks allow (:func:`_open_to`), in the order of the full lists.
    """
    seat = st.seat
    hand = tuple(st.hands[seat])
    budget = MAX_CARDS - st.t_cards
    houses_left, emissaries_left = st.supply[seat]
    pays = payments_by_colour(hand, budget)
    plain, border, seals = _open_to(st.t_common, st.t_blocked)
    out: list[Action] = []
    add = out.append  # plain loops: a comprehension per space costs more than its dicts (CPython 3.11)
    if houses_left:  # R32, R39
        owner = st.owner
        for colour, spaces in enumerate(plain):
            opts = pays[colour]
            if opts:
                for s, house in spaces:
                    if owner[s] == FREE:
                        for pay in opts:
                            add(house[pay])
        if budget >= 2:
            for s, house, a, b in border:
                if owner[s] == FREE:
                    for pay in border_payments(hand, a, b, budget):
                        add(house[pay])
    if emissaries_left:  # R33, R34, R39
        houses, seals_on = st.houses, st.seals
        for p, emissary, colour in seals:
            opts = pays[colour]
            # State.seal_limit inlined: this loop runs at every decision
            if opts and sum(seals_on[p]) < max(houses[p]):
                for pay in opts:
                    add(emissary[pay])
    return out


#: The spaces and seals the turn's masks allow: per colour, its plain spaces (space, house actions);
#: the border spaces (space, house actions, the colour of each province); the seals (province,
#: emissary actions, colour).
_Open = tuple[
    tuple[tuple[tuple[int, ActionTable[str]], ...], ...],
    tuple[tuple[int, ActionTable[str], int, int], ...],
    tuple[tuple[int, ActionTable[str], int], ...],
]
#: Pairs of masks the two caches below keep (a determinized state may bring any pair).
_MASKS_KEPT = 4096


@lru_cache(maxsize=_MASKS_KEPT)
def _open_to(common: int, blocked: int) -> _Open:
    """The spaces and seals allowed where the piece's province mask meets ``common`` (R30) and misses
    ``blocked`` (R31).  A turn's masks take few values (all provinces, then those of the pieces
    placed), so the filter runs once per pair, not for every space at every decision."""
    plain = tuple(
        tuple((s, house) for s, house, mask in spaces if mask & common and not mask & blocked)
        for spaces in _PLAIN_SPACES_BY_COLOUR
    )
    border = tuple(
        (s, house, a, b) for s, house, mask, a, b in _BORDER_SPACES if mask & common and not mask & blocked
    )
    seals = tuple(
        (p, emissary, colour) for p, emissary, bit, colour in _SEALS if bit & common and not bit & blocked
    )
    return plain, border, seals


def second_piece_conceivable(st: State) -> bool:
    """Whether public facts alone leave room for a second piece this turn: a card left in hand and in
    the turn's budget (R26), a piece left (R32, R33), and a free space or open seal in a province the
    turn may still use (R30, R31; a border space needs two cards, R27).  Only when this is False may
    the engine end the placing without asking: otherwise the question itself keeps the hand secret.
    """
    seat = st.seat
    budget = min(MAX_CARDS - st.t_cards, st.hand_size(seat))
    allowed = st.t_common & ~st.t_blocked
    if st.t_pieces >= MAX_PIECES or budget < 1 or not allowed:
        return False
    houses_left, emissaries_left = st.supply[seat]
    spaces, provinces = _meeting(allowed)
    owner = st.owner
    if houses_left and any(owner[s] == FREE and (budget >= 2 or not border) for s, border in spaces):
        return True
    return bool(emissaries_left) and any(sum(st.seals[p]) < max(st.houses[p]) for p in provinces)


@lru_cache(maxsize=_MASKS_KEPT)
def _meeting(allowed: int) -> tuple[tuple[tuple[int, bool], ...], tuple[int, ...]]:
    """The spaces that touch a province of ``allowed`` (space, whether on a border) and those
    provinces, as :func:`second_piece_conceivable` reads them (R30, R31 from public facts)."""
    spaces = tuple((s, IS_BORDER[s]) for s in range(len(SPACES)) if SPACE_MASK[s] & allowed)
    provinces = tuple(p for p in _PROVINCE_RANGE if allowed >> p & 1)
    return spaces, provinces


def _fortifications(st: State) -> list[Action]:
    """Fortify one of one's houses, paying two payments for one of its provinces (R64)."""
    seat = st.seat
    hand = st.hands[seat]
    out: list[Action] = []
    for p in _PROVINCE_RANGE:
        opts = fortify_payments(hand, PROVINCE_COLOUR[p])
        if not opts or not st.houses[p][seat]:
            continue
        for s in PROVINCE_SPACES[p]:
            if st.owner[s] == seat:
                fortify = _FORTIFY[p][s]
                out += [fortify[pay] for pay in opts]
    return out
