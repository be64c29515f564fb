"""Which cards may pay for a piece (R27-R29, R64), and how payments are named in actions.

A payment is named by its cards' colours joined with ``+`` in colour order (``"red"``,
``"green+green"``, ``"red+violet"``, ``"red+green+green"``), so every distinct choice of cards has
exactly one name: the same-coloured cards are interchangeable (R5), so naming card ids would only
list equivalent actions several times.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import combinations_with_replacement

from .components import COLOURS

_N = len(COLOURS)


def pay_name(cards: tuple[int, ...]) -> str:
    return "+".join(COLOURS[c] for c in sorted(cards))


#: Every payment name of 1 to 3 cards -> the colours of its cards (sorted).
PAY_CARDS: dict[str, tuple[int, ...]] = {
    pay_name(cards): cards for size in (1, 2, 3) for cards in combinations_with_replacement(range(_N), size)
}
SINGLE: tuple[str, ...] = tuple(pay_name((c,)) for c in range(_N))
DOUBLE: tuple[str, ...] = tuple(pay_name((c, c)) for c in range(_N))


def piece_payments(hand: Sequence[int], colour: int, budget: int) -> list[str]:
    """Payments for one piece in a province of ``colour`` (not a border house) using at most
    ``budget`` cards: a single card of that colour, or a wild pair of another colour (R27, R29)."""
    out = [SINGLE[colour]] if hand[colour] else []
    if budget >= 2:
        out += [DOUBLE[d] for d in range(_N) if d != colour and hand[d] >= 2]
    return out


@cache
def border_payments(hand: tuple[int, ...], a: int, b: int, budget: int) -> tuple[str, ...]:
    """Payments for a house on the border of provinces of colours ``a`` and ``b``: exactly two cards,
    one of each colour or two of either; never a wild pair (R27, R29)."""
    if budget < 2:
        return ()
    mixed = (pay_name((a, b)),) if hand[a] and hand[b] else ()
    return mixed + tuple(DOUBLE[c] for c in (a, b) if hand[c] >= 2)


@cache
def payments_by_colour(hand: tuple[int, ...], budget: int) -> tuple[tuple[str, ...], ...]:
    """:func:`piece_payments` for every colour at once, memoised: a hand holds at most 3 cards, so
    few (hand, budget) pairs exist, and legal_actions asks for them at every decision."""
    return tuple(tuple(piece_payments(hand, c, budget)) for c in range(_N))


def fortify_payments(hand: Sequence[int], colour: int) -> list[str]:
    """Two payments for one province of ``colour``: two cards of its colour, or one plus a wild pair
    of another colour (R64)."""
    if not hand[colour]:
        return []
    out = [DOUBLE[colour]] if hand[colour] >= 2 else []
    return out + [pay_name((colour, d, d)) for d in range(_N) if d != colour and hand[d] >= 2]
