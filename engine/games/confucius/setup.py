"""Setup (R14-R21) in rule order, then round 1 starts (R23)."""

from __future__ import annotations

from typing import Any

from engine.core import Rng

from . import flow
from .components import (
    ANY_MINISTRY,
    ARMIES,
    BLUE_CHITS,
    BOX_VP,
    CANDIDATE_KINDS,
    CARDS_PER_KIND,
    COIN_VALUES,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    FOREIGN_POSITIONS,
    GIFT_START_AVAILABLE,
    GREEN_CHITS,
    JUNKS,
    MINISTRIES,
    OFFICIAL_COSTS,
    OPENING_HAND,
    REWARD_COUNTS,
    SPACES,
    START_SPACES,
)
from .state import AVAILABLE, EMPTY, NOT_AVAILABLE, OPEN, State


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """R14-R21 in order, then round 1 starts (R23)."""
    s = State.__new__(State)
    rng = s.rng = Rng(seed)
    s.n, s.advanced, s.admiral_variant = players, options["advanced"], options["admiral_variant"]
    green = list(GREEN_CHITS)  # R14: two chits per ministry, the higher for the Minister
    rng.shuffle(green)
    s.chits = []
    for _ in MINISTRIES:
        a, b = green.pop(), green.pop()
        s.chits += [max(a, b), min(a, b)]
    blue = list(BLUE_CHITS)
    rng.shuffle(blue)
    s.land_chit = blue[: len(DISTANT_LANDS)]
    officials = list(OFFICIAL_COSTS)  # R15
    rng.shuffle(officials)
    s.tile = [EMPTY] * (len(MINISTRIES) * SPACES)
    for m in range(len(MINISTRIES)):
        for space in START_SPACES:
            s.tile[m * SPACES + space - 1] = officials.pop()
    s.stack = officials
    s.owner = [-1] * len(s.tile)
    s.secured = [0] * len(s.tile)
    s.resolved, s.minister, s.secretary = [0, 0, 0], [-1, -1, -1], [-1, -1, -1]
    lands = list(range(len(FOREIGN_LANDS)))  # R16
    rng.shuffle(lands)
    s.foreign = lands[:FOREIGN_POSITIONS]
    s.boxes = [[-1] * len(BOX_VP[land]) for land in s.foreign]
    s.land_state = [OPEN] * FOREIGN_POSITIONS
    specific = [k for k in CANDIDATE_KINDS if k != ANY_MINISTRY]  # R17
    rng.shuffle(specific)
    s.candidates = [k for k in CANDIDATE_KINDS if k == ANY_MINISTRY] + specific
    s.candidate = s.candidates.pop()
    s.students = [-1, -1]
    s.reward_deck = [k for k, count in enumerate(REWARD_COUNTS) for _ in range(count)]  # R18
    rng.shuffle(s.reward_deck)
    s.rewards = [[] for _ in range(players)]
    opening = [OPENING_HAND.count(v) for v in COIN_VALUES]  # R19
    s.hands = opening * players
    s.deck = [k for k, count in enumerate(CARDS_PER_KIND) for _ in range(count - opening[k] * players)]
    rng.shuffle(s.deck)
    s.discard = [0, 0, 0]
    s.held = [0] * (3 * players)
    s.tutor = [-1, 0, 0, 0] * players
    s.gift = [AVAILABLE if start else NOT_AVAILABLE for start in GIFT_START_AVAILABLE] * players  # R20
    s.given = [0] * (players * players)
    s.score = [0] * players
    s.stock, s.colonies = [ARMIES] * players, [0] * players
    s.shipyard, s.ocean, s.reached = [0] * players, [0] * players, [0] * players
    s.supply, s.wall, s.insulted = JUNKS, 0, -1  # R21
    s.round = s.turn = s.cm = s.mode = 0
    s.res_m, s.res_hold, s.outcome, s._legal = -1, [], None, None
    s.colours = tuple(range(players))  # seat order; the scenario builder may name others
    flow.start_round(s, [])
    return s
