"""Scenario builder: a valid China state at the start of a turn, from a compact description.

Tests and examples build positions with :func:`build` instead of touching State fields, and the builder
refuses positions no legal game can reach (``ScenarioError`` names the rule).  The description keys:

``players``        3-5 (R2), required.
``start``          start player, holder of the Emperor (R19); default 0.
``to_move``        seat whose turn begins; default ``start``.
``houses``         ``{space id: seat}``.
``emissaries``     ``{province id: {seat: count}}``.
``hands``          ``{seat: [card ids]}`` (``"R01"``...); seats not given are dealt 3 cards.
``display``        4 card ids (``None`` for a slot left empty, final round only); default dealt.
``deck``           the draw pile, top card first; default: every card not placed elsewhere.
``discard``        card ids on the discard pile; default empty, or the leftover cards when ``deck``
                   is given (or empty in the final round).
``scores``         list per seat; default zeros.
``exhaustions``    0, 1 or 2 (R50); 2 means the final round (R52) and an empty draw pile, so
                   ``to_move`` cannot be the start player (the round ends before his turn).
``fortifications`` the variant flag (R21); ``fortified``: ``{seat: space id}`` (R64).
``seed``           seeds the dealing of unspecified cards and the state's RNG; default 0.

Card ids only name a colour: cards of one colour are interchangeable (R5), so the state keeps colours.
Derived, never given: supplies (R15: 20 houses and 8 emissaries minus those on the board), scored
flags (R37: a province is scored exactly when all its house spaces are occupied).
"""

from __future__ import annotations

from typing import Any

from engine.core import Rng

from .components import (
    CARD_COLOUR,
    CARDS_IN_PLAY,
    COLOURS,
    DISPLAY_SIZE,
    EMISSARIES,
    HAND_SIZE,
    HOUSES,
    PLAYER_COUNTS,
    PROVINCE_INDEX,
    PROVINCE_SPACES,
    PROVINCES,
    SPACE_INDEX,
    SPACE_PROVINCES,
    SPACES,
)
from .flow import begin_turn, board_blocked
from .state import FREE, UNUSED, State, card_counts, card_list

_KEYS = {
    "players",
    "start",
    "to_move",
    "houses",
    "emissaries",
    "hands",
    "display",
    "deck",
    "discard",
    "scores",
    "exhaustions",
    "fortifications",
    "fortified",
    "seed",
}


class ScenarioError(ValueError):
    """The description is not a position a legal game can reach; ``rule`` says why."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule


def _check(ok: Any, rule: str, message: str) -> None:
    if not ok:
        raise ScenarioError(rule, message)


def build(desc: dict[str, Any]) -> State:
    """A state at the start of ``to_move``'s turn matching ``desc`` (see the module docstring)."""
    unknown = set(desc) - _KEYS
    _check(not unknown, "schema", f"unknown keys {sorted(unknown)}")
    n = desc.get("players")
    _check(n in PLAYER_COUNTS, "R2", f"players must be one of {PLAYER_COUNTS}, not {n!r}")
    assert isinstance(n, int)  # for the type checker: _check refused anything else
    seats = range(n)
    st = State.__new__(State)
    st._legal = None
    st.n = n
    st.start = desc.get("start", 0)
    st.seat = desc.get("to_move", st.start)
    _check(st.start in seats and st.seat in seats, "R19", "start and to_move must be seats")
    _check(
        desc.get("exhaustions") != 2 or st.seat != st.start,
        "R52",
        "the final round ends before the start player's turn comes round again",
    )
    _board(st, desc)
    _cards(st, desc, Rng(desc.get("seed", 0)))
    scores = desc.get("scores", [0] * n)
    _check(len(scores) == n and min(scores) >= 0, "R20", "scores: one non-negative total per seat")
    st.scores = list(scores)
    st.end = ""
    st.final = None
    st.turn = 0
    _check(not board_blocked(st), "R53", "nobody can place any piece: the game would be over")
    _check(begin_turn(st, []), "R55", f"seat {st.seat} can neither place nor swap: the turn is skipped")
    return st


def _board(st: State, desc: dict[str, Any]) -> None:
    n = st.n
    st.owner = [FREE] * len(SPACES)
    st.houses = [[0] * n for _ in PROVINCES]
    st.seals = [[0] * n for _ in PROVINCES]
    for space_id, seat in desc.get("houses", {}).items():
        _check(space_id in SPACE_INDEX, "R10", f"no house space {space_id!r}")
        _check(seat in range(n), "R15", f"{space_id}: no seat {seat!r}")
        space = SPACE_INDEX[space_id]
        st.owner[space] = seat
        for p in SPACE_PROVINCES[space]:
            st.houses[p][seat] += 1
    for province_id, counts in desc.get("emissaries", {}).items():
        _check(province_id in PROVINCE_INDEX, "R10", f"no province {province_id!r}")
        p = PROVINCE_INDEX[province_id]
        for seat, count in counts.items():
            _check(seat in range(n) and count >= 0, "R15", f"{province_id}: bad emissaries {seat!r}")
            st.seals[p][seat] += count
        limit = st.seal_limit(p)
        _check(limit or not any(st.seals[p]), "R34", f"emissaries in {province_id}, which has no house")
        _check(sum(st.seals[p]) <= limit, "R33", f"more emissaries in {province_id} than its limit {limit}")
    st.supply = []
    for seat in range(n):
        houses = st.owner.count(seat)
        emissaries = sum(seals[seat] for seals in st.seals)
        _check(houses <= HOUSES, "R6", f"seat {seat} has only {HOUSES} houses")
        _check(emissaries <= EMISSARIES, "R6", f"seat {seat} has only {EMISSARIES} placeable emissaries")
        st.supply.append([HOUSES - houses, EMISSARIES - emissaries])
    st.scored = [all(st.owner[s] != FREE for s in PROVINCE_SPACES[p]) for p in range(len(PROVINCES))]  # R37
    st.fortifications = desc.get("fortifications", False)
    st.fort = [UNUSED] * n
    for seat, space_id in desc.get("fortified", {}).items():
        _check(st.fortifications, "R21", "fortified houses need the fortification variant")
        _check(SPACE_INDEX.get(space_id) is not None, "R10", f"no house space {space_id!r}")
        _check(st.owner[SPACE_INDEX[space_id]] == seat, "R64", f"{space_id} is not a house of seat {seat}")
        st.fort[seat] = SPACE_INDEX[space_id]


def _colours(ids: list[str], seen: set[str]) -> list[int]:
    """Colours of the card ids, refusing unknown or repeated ids (R5)."""
    out = []
    for card in ids:
        _check(card in CARD_COLOUR, "R5", f"no card {card!r}")
        _check(card not in seen, "R5", f"card {card} appears twice")
        seen.add(card)
        out.append(CARD_COLOUR[card])
    return out


def _cards(st: State, desc: dict[str, Any], rng: Rng) -> None:
    """Hands, display, draw pile and discard pile: given ones as given, the rest dealt from the cards
    still unaccounted for, which must all end up somewhere (R16)."""
    n = st.n
    st.exhaustions = desc.get("exhaustions", 0)
    _check(st.exhaustions in (0, 1, 2), "R50", "exhaustions is 0, 1 or 2")
    st.final_round = st.exhaustions == 2
    seen: set[str] = set()
    given_hands = {seat: _colours(ids, seen) for seat, ids in desc.get("hands", {}).items()}
    _check(set(given_hands) <= set(range(n)), "R17", "hands: unknown seat")
    display = desc.get("display")
    display_cards = (
        None if display is None else [None if c is None else _colours([c], seen)[0] for c in display]
    )
    deck = None if "deck" not in desc else _colours(desc["deck"], seen)
    discard = _colours(desc.get("discard", []), seen)
    pool = card_list(CARDS_IN_PLAY[n])
    placed = [c for hand in given_hands.values() for c in hand]
    for c in [*placed, *(display_cards or []), *(deck or []), *discard]:
        if c is None:
            continue
        _check(c in pool, "R16", f"more {COLOURS[c]} cards than the {n}-player deck holds")
        pool.remove(c)
    rng.shuffle(pool)
    st.hands = []
    for seat in range(n):
        hand = given_hands[seat] if seat in given_hands else [pool.pop() for _ in range(HAND_SIZE) if pool]
        _check(len(hand) <= HAND_SIZE, "R17", f"seat {seat} holds more than {HAND_SIZE} cards")
        _check(len(hand) == HAND_SIZE or st.final_round, "R45", f"seat {seat} must hold {HAND_SIZE} cards")
        st.hands.append(card_counts(hand))
    if display_cards is None:
        display_cards = [pool.pop() if pool else None for _ in range(DISPLAY_SIZE)]
    _check(len(display_cards) == DISPLAY_SIZE, "R18", f"the display has {DISPLAY_SIZE} slots")
    _check(None not in display_cards or st.final_round, "R46", "empty display slots only in the final round")
    st.display = [-1 if c is None else c for c in display_cards]
    if deck is None:
        deck, pool = ([], pool) if st.final_round else (pool, [])
    _check(bool(deck) != st.final_round, "R50", "the draw pile is empty exactly in the final round")
    if "discard" in desc:
        _check(not pool, "R16", f"{len(pool)} cards are neither in hands, display, draw pile nor discards")
    discard += pool
    st.deck = deck[::-1]  # the state keeps the top card last
    st.discard = card_counts(discard)
    st.known = [[0] * len(COLOURS) for _ in range(n)]
    st.rng = rng
