"""Pure scoring functions: goods (R43), palace connections (R44), the final card bonus (R61), result (R62).

They read the state and return points; the rules module adds them, so each rule has one home and the
scenario tests can check a formula without playing up to it.
"""

from __future__ import annotations

from typing import Any

from .components import COLORED, WHITE, Components
from .state import State


def gain_good(goods: list[int], good: int) -> int:
    """R43: a good scores 1 plus one per good of its kind already owned; ``goods`` then counts it too.

    Used for bonus goods one after another and for each good of a province tile (after the bonus goods
    of the same withdrawal, excluding the tile's own goods; a repeated good on one tile counts the
    earlier copy, X7)."""
    points = 1 + goods[good]
    goods[good] += 1
    return points


def palace_points(comp: Components, state: State, seat: int, province: int) -> int:
    """R44: 1 for ``province`` plus 1 per other province reached from ``seat``'s palaces there along
    roads through cities holding a palace of ``seat`` (regular or crowned, N6).  Cities holding only
    other players' palaces, or none, break the chain; a shared city belongs to both owners' chains."""
    regular, crowned, neighbours = state.regular, state.crowned, comp.neighbours
    stack = [c for c in comp.province_cities[province] if regular[c] == seat or crowned[c] == seat]
    if not stack:
        return 0
    seen = set(stack)
    provinces = {province}
    city_province = comp.city_province
    while stack:
        for nb in neighbours[stack.pop()]:
            if nb not in seen and (regular[nb] == seat or crowned[nb] == seat):
                seen.add(nb)
                stack.append(nb)
                provinces.add(city_province[nb])
    return len(provinces)


def card_bonus(comp: Components, hand: list[int], specials: list[int]) -> int:
    """R61: 1 per special card, 1 per white card, 1 per card of the colour held most (ties count once)."""
    per_colour = [0] * len(comp.colours)
    whites = 0
    for c in hand:
        kind = comp.card_kind[c]
        if kind == COLORED:
            per_colour[comp.card_colour[c]] += 1
        elif kind == WHITE:
            whites += 1
    return len(specials) + whites + max(per_colour, default=0)


def competition_ranks(scores: list[int]) -> list[int]:
    """X5: standard competition ranking (1, 1, 3): tied seats share a rank, the next rank is skipped."""
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


def result(state: State) -> dict[str, Any] | None:
    """R62 / X5: most points wins; no tie-break exists, so tied players share the victory.

    ``ranking`` (the contract's total order) lists tied seats in seat order; ``ranks`` and ``winners``
    say who actually shares which place."""
    if state.final_bonus is None:
        return None
    scores = [p.score for p in state.players]
    ranks = competition_ranks(scores)
    ranking = sorted(range(state.n), key=lambda seat: (ranks[seat], seat))
    return {
        "scores": scores,
        "ranking": ranking,
        "ranks": ranks,
        "winners": [seat for seat in ranking if ranks[seat] == 1],
        "card_bonus": list(state.final_bonus),
        "tiebreak": None,
    }
