"""Evaluation of a state for one seat, for the greedy and search bots.

Points on the track count in full.  What a seat would win by withdrawing now (its current strict
majorities, R32) counts at a discount while rivals may still outbid it, and in full once it is alone
(R23); a withdrawal in progress (palaces still to place, tiles taken, R40) counts in full.  A card in
hand is worth a fraction of a point as a future play, less as the game nears its end.  The weights were
tuned against random play (200 four-player games per setting).
"""

from __future__ import annotations

from . import scoring
from .components import CARD, GOOD, POINTS
from .state import OVER, TURN, State

CARD_VALUE = 0.35  # a card in hand at the start: a future play
HAND_CAP = 10  # cards beyond this many are rarely played
SPECIAL_VALUE = 2.0  # a special card: reusable every visit, and a final point (R58, R61)
TILE_VALUE = 0.7  # an influence tile: half of a special card (R51)
PALACE_VALUE = 2.0  # a palace still to be placed: its province point, connections, bonus tiles
CROWN_VALUE = 1.2
MAJORITY_DISCOUNT = 0.6  # a prize not yet won while a rival may still tie or outbid
LAST_VISIT = 12


def heuristic(s: State, seat: int) -> float:
    p = s.players[seat]
    if s.phase == OVER:
        return float(p.score)
    card = CARD_VALUE * (1 - s.visit / LAST_VISIT)
    value = (
        p.score
        + card * min(len(p.hand), HAND_CAP)
        + SPECIAL_VALUE * len(p.specials)
        + TILE_VALUE * sum(p.tiles)
    )
    if s.phase == TURN:
        if p.in_visit:
            alone = sum(q.in_visit for q in s.players) == 1  # R23: nobody can outbid him any more
            value += (1.0 if alone else MAJORITY_DISCOUNT) * _majorities(s, seat)
    elif s.current == seat:
        value += _withdrawal_in_progress(s, seat, card)
    return value


def _tile_goods_value(s: State, seat: int) -> float:
    """R43: what the current province tile would score for ``seat``."""
    goods = s.players[seat].goods
    return sum(1 + goods[g] for g in s.comp.tile_goods[s.visit])


def _majorities(s: State, seat: int) -> float:
    """The prizes ``seat`` would take by withdrawing now (R32, R33), in points."""
    comp = s.comp
    mine = s.players[seat].counts
    rivals = [q.counts for i, q in enumerate(s.players) if i != seat and q.in_visit]
    value = 0.0
    palace = False
    for sym, here in enumerate(s.court):
        if not here or not mine[sym] or any(r[sym] >= mine[sym] for r in rivals):
            continue
        if sym == comp.elephant:
            value += _tile_goods_value(s, seat)
        elif sym == comp.grand_mogul:
            value += CROWN_VALUE
            palace = True
        else:
            value += PALACE_VALUE + TILE_VALUE
            palace = True
    return value + palace  # R44: the current province's point


def _withdrawal_in_progress(s: State, seat: int, card: float) -> float:
    """Palaces and crown still to place, bonus tiles and province tile not yet scored (R40 steps
    3-6), display cards still to take (R48)."""
    comp = s.comp
    goods = s.players[seat].goods
    value = PALACE_VALUE * s.to_place + CROWN_VALUE * s.crown_pending + card * s.to_take
    for b in s.bonus_taken:
        kind = comp.bonus_kind[b]
        if kind == POINTS:
            value += comp.bonus_value[b]
        elif kind == CARD:
            value += card * comp.bonus_value[b]
        elif kind == GOOD:
            value += 1 + goods[comp.bonus_value[b]]
    if s.placed:
        value += scoring.palace_points(comp, s, seat, s.tile_province[s.visit])
    elif s.to_place or s.crown_pending:
        value += 1  # R44: the current province's point
    if s.won_tile:
        value += _tile_goods_value(s, seat)
    return value
