"""Evaluation for the greedy and search bots: VP scored plus a discounted guess of VP still to come.

The weights are rough, hand-tuned against random play; what matters is the shape: a lead in an
unresolved ministry is worth much of its Minister chit (ministries pay the most and every ministry is
resolved by the end, R101), junks and armies are worth part of the voyage or box they head for, and
Confucius cards are worth a fraction of their coins, so that spending them must buy something.
"""

from __future__ import annotations

from .cards import coins
from .components import BOX_VP, JUNKS_PER_VOYAGE
from .ministries import SPACES_OF, influence_table
from .state import OPEN, State

LEAD_SHARE = 0.7  # of the Minister chit, for the ministry leader
SECOND_SHARE = 0.5  # of the Secretary chit, for the runner-up
MARKER = 0.3  # every official held
SECURED = 0.3  # extra for a marker nobody can take (R42)
VOYAGE_VP = 4.0  # a blue chit (2-4) plus a reward card, first or not
BOX_SHARE = 0.5  # of a box's VP, for an army on an unresolved foreign land
ARMY = 0.8  # an army in the colonies: a future box or the General
COIN = 0.25  # a coin in hand
REWARD_CARD = 1.0  # an unplayed reward card
WIN = 100.0  # a finished game: winning dwarfs everything


def heuristic(state: State, seat: int) -> float:
    if state.outcome is not None:
        ranking: list[int] = state.outcome["ranking"]
        return WIN * (ranking[0] == seat) + state.score[seat]
    value = float(state.score[seat])
    table = influence_table(state)
    owner, secured = state.owner, state.secured
    for m, row in enumerate(table):
        if state.resolved[m]:
            continue
        mine = row[seat]
        if not mine:
            continue
        rivals = sorted((row[q] for q in range(state.n) if q != seat), reverse=True)
        if mine > rivals[0]:
            value += LEAD_SHARE * state.chits[2 * m]
        elif mine >= rivals[1]:
            value += SECOND_SHARE * state.chits[2 * m + 1]
        value += MARKER * mine + SECURED * sum(1 for i in SPACES_OF[m] if owner[i] == seat and secured[i])
    value += VOYAGE_VP * (state.ocean[seat] + 0.5 * state.shipyard[seat]) / JUNKS_PER_VOYAGE
    for pos, boxes in enumerate(state.boxes):
        if state.land_state[pos] == OPEN:
            vps = BOX_VP[state.foreign[pos]]
            value += BOX_SHARE * sum(vp for vp, o in zip(vps, boxes, strict=True) if o == seat)
    value += ARMY * state.colonies[seat]
    value += COIN * coins(state.hands, seat) + REWARD_CARD * len(state.rewards[seat])
    return value
