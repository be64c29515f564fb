"""Confucius cards as money: hand totals, the card sets that may pay a price, drawing and discarding.

A hand is three counts (cards worth 1, 2 and 3 coins); a card's licence value is 4 minus its coins (R9).
A price is paid in coins or in licences, never mixed (R37): any set of the payer's cards whose value
covers the price, over-payment included (no change is given).
"""

from __future__ import annotations

from functools import cache
from typing import Final

from engine.core import Action, Event, event

from .components import COIN_VALUES, HAND_LIMIT, LICENCE_VALUES
from .state import State

COINS: Final = 0
LICENCES: Final = 1
VALUES = (COIN_VALUES, LICENCE_VALUES)
CURRENCY_NAMES = ("coins", "licences")
KINDS = range(len(COIN_VALUES))
#: Field names of a card set in actions and views: how many 1-, 2- and 3-coin cards.
CARD_FIELDS = tuple(f"c{v}" for v in COIN_VALUES)


def card_set(action: Action) -> tuple[int, int, int]:
    """The card counts an action names in its ``c1/c2/c3`` fields."""
    return action["c1"], action["c2"], action["c3"]


def card_fields(counts: list[int] | tuple[int, ...]) -> dict[str, int]:
    """Card counts as the ``c1/c2/c3`` fields of a view or event."""
    return dict(zip(CARD_FIELDS, counts, strict=True))


def coins(hands: list[int], p: int) -> int:
    h = 3 * p
    return hands[h] * COIN_VALUES[0] + hands[h + 1] * COIN_VALUES[1] + hands[h + 2] * COIN_VALUES[2]


def licences(hands: list[int], p: int) -> int:
    h = 3 * p
    return hands[h] * LICENCE_VALUES[0] + hands[h + 1] * LICENCE_VALUES[1] + hands[h + 2] * LICENCE_VALUES[2]


def hand_size(hands: list[int], p: int) -> int:
    h = 3 * p
    return hands[h] + hands[h + 1] + hands[h + 2]


@cache
def _covering(a: int, b: int, c: int, price: int, currency: int) -> tuple[tuple[int, int, int], ...]:
    v1, v2, v3 = VALUES[currency]
    return tuple(
        (x, y, z)
        for x in range(a + 1)
        for y in range(b + 1)
        for z in range(c + 1)
        if x * v1 + y * v2 + z * v3 >= price
    )


def payments(hands: list[int], p: int, price: int, currency: int) -> tuple[tuple[int, int, int], ...]:
    """R37: the card sets of seat ``p`` worth at least ``price``; empty when it cannot pay."""
    h = 3 * p
    return _covering(hands[h], hands[h + 1], hands[h + 2], price, currency)


@cache
def _subsets_up_to(a: int, b: int, c: int, limit: int) -> tuple[tuple[int, int, int], ...]:
    v1, v2, v3 = COIN_VALUES
    return tuple(
        (x, y, z)
        for x in range(a + 1)
        for y in range(b + 1)
        for z in range(c + 1)
        if x * v1 + y * v2 + z * v3 <= limit
    )


def commercial_sets(hands: list[int], p: int, limit: int) -> tuple[tuple[int, int, int], ...]:
    """Card sets whose coin total is 0..limit: what Commercial Income may discard (R54)."""
    h = 3 * p
    return _subsets_up_to(min(hands[h], limit), min(hands[h + 1], limit), min(hands[h + 2], limit), limit)


@cache
def _keep_sets(a: int, b: int, c: int) -> tuple[tuple[int, int, int], ...]:
    return tuple(
        (x, y, HAND_LIMIT - x - y)
        for x in range(min(a, HAND_LIMIT) + 1)
        for y in range(min(b, HAND_LIMIT - x) + 1)
        if HAND_LIMIT - x - y <= c
    )


def keep_sets(hands: list[int], p: int) -> tuple[tuple[int, int, int], ...]:
    """The ways to keep exactly HAND_LIMIT cards of a larger hand (R98)."""
    h = 3 * p
    return _keep_sets(hands[h], hands[h + 1], hands[h + 2])


def discard(state: State, p: int, cards: tuple[int, int, int] | list[int]) -> None:
    """Move cards from seat ``p``'s hand face up to the discard pile (R37: payments are public)."""
    h = 3 * p
    hands, pile = state.hands, state.discard
    for k in KINDS:
        hands[h + k] -= cards[k]
        pile[k] += cards[k]


def draw(state: State, p: int, count: int, ev: list[Event]) -> None:
    """Seat ``p`` draws ``count`` cards; an empty deck is rebuilt from the discard pile (R38)."""
    deck, hands, h = state.deck, state.hands, 3 * p
    got = [0, 0, 0]
    for _ in range(count):
        if not deck:
            pile = state.discard
            if not (pile[0] or pile[1] or pile[2]):
                break  # R38: both empty, the remaining draws are lost
            deck.extend(k for k in KINDS for _ in range(pile[k]))
            state.rng.shuffle(deck)
            state.discard = [0, 0, 0]
            ev.append(event("deck_reshuffled", cards=len(deck)))
        kind = deck.pop()
        hands[h + kind] += 1
        got[kind] += 1
    ev.append(event("drew", [p], seat=p, c1=got[0], c2=got[1], c3=got[2]))
    ev.append(event("drew", "others", seat=p, count=got[0] + got[1] + got[2]))
