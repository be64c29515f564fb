"""Setup (R10-R18): province tiles, bonus tiles, the deck, the hands, the first display and player.

The scenario builder reuses :func:`place_province_tiles` so fixture maps get their tiles the same way.
"""

from __future__ import annotations

from typing import Any

from engine.core import Rng

from .components import STANDARD, Components
from .flow import deal_display
from .state import State


def setup(players: int, options: dict[str, Any], seed: int, comp: Components = STANDARD) -> State:
    """R10-R18: a fresh game on the standard board (or any kit with one province per tile); Taj Mahal
    has no options."""
    s = State(comp, players, seed)
    rng = s.rng
    place_province_tiles(s, rng)
    # R11: the Taj Mahal tile on Agra, the square tiles shuffled onto the other fortified cities.
    loose = [b for b, city in enumerate(comp.bonus_fixed_city) if city is None]
    taken = {comp.city_index[city] for city in comp.bonus_fixed_city if city is not None}
    forts = [c for c, fort in enumerate(comp.city_fortified) if fort and c not in taken]
    if len(loose) != len(forts):
        raise ValueError("setup needs one bonus tile per fortified city (R11)")
    for b, city in enumerate(comp.bonus_fixed_city):
        if city is not None:
            s.bonus_on[comp.city_index[city]] = b
    rng.shuffle(loose)
    for b, fort in zip(loose, forts, strict=True):
        s.bonus_on[fort] = b
    # R12, R13 are the State defaults (court full, supply 5 each, special cards beside the board).
    s.deck = list(comp.normal_cards)
    rng.shuffle(s.deck)  # R14
    for p in s.players:
        for _ in range(comp.hand_size[players]):
            p.hand.append(s.deck.pop())
    deal_display(s, [])  # R15
    s.visit = min(t for t, province in enumerate(s.tile_province) if province >= 0)  # R17: tile 1
    s.start = s.current = rng.below(players)  # R18
    return s


def place_province_tiles(s: State, rng: Rng) -> None:
    """R10: tile 12 on Agra (fixed by the data), tiles 1-11 at random on the other provinces."""
    comp = s.comp
    province_of = {pid: i for i, pid in enumerate(comp.province_ids)}
    fixed = {number: province_of[pid] for number, pid in comp.fixed_tiles.items()}
    tiles = [t for t in range(1, len(comp.tile_goods)) if t not in fixed]
    provinces = [p for p in range(len(comp.province_ids)) if p not in fixed.values()]
    if len(tiles) != len(provinces):
        raise ValueError("setup needs exactly one province tile per province (R10)")
    rng.shuffle(tiles)
    for number, province in [*fixed.items(), *zip(tiles, provinces, strict=True)]:
        s.tile_province[number] = province
