"""The legal actions of each pending decision (RULES section 15), as small JSON objects.

One function per decision phase, indexed by the phase number in ``LEGAL``.  These are the bots' inner loop,
so they pick prebuilt action objects straight from the state with no validation work; ``explain`` (cold
path) says why anything else is refused.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core import Action, ActionTable

from .components import (
    ACTION_IDS,
    CARD_IDS,
    DROUGHT,
    GROUP_FEE,
    GROUP_SIZES,
    MAX_FLOORS,
    NUM_TILES,
    PRIVILEGE,
    SMALL_COST,
    TILE_IDS,
    TILE_TYPE,
    TYPE_TILES,
    YOUNG_TILES,
)
from .monthly_events import month_event
from .palaces import release_key
from .state import OVER, State

REFILL: Action = {"type": "refill"}
BUILD_PALACE: Action = {"type": "build_palace"}
RELEASE_NEWCOMER: Action = {"type": "release_newcomer"}
SMALL: Action = {"type": "privilege", "size": "small"}
LARGE: Action = {"type": "privilege", "size": "large"}

# Prebuilt action objects (engine.core.ActionTable): the lists below are the bots' inner loop.
#: ``_ACTION[group][card]``: the Action decision's choices (R23), for as many groups as any count deals.
_ACTION = tuple(
    tuple({"type": "action", "group": g, "action": a} for a in ACTION_IDS)
    for g in range(max(map(len, GROUP_SIZES.values())))
)
#: Per card (typed cards by person type, then wild): ``(tile kind, recruit action)`` of every tile
#: the card may recruit (R36), and the spend action of a card that recruits none.
_RECRUITS = tuple(
    tuple((k, {"type": "recruit", "card": card, "person": TILE_IDS[k]}) for k in kinds)
    for card, kinds in zip(CARD_IDS, (*TYPE_TILES, range(NUM_TILES)), strict=True)
)
_SPEND = tuple({"type": "spend", "card": card} for card in CARD_IDS)
#: ``_COURT[first][second]``, by tile kind (only pairs of two young tiles of two types are listed).
_COURT = tuple(
    tuple({"type": "court", "first": TILE_IDS[k1], "second": TILE_IDS[k2]} for k2 in range(NUM_TILES))
    for k1 in range(NUM_TILES)
)
_PLACE: ActionTable[int] = ActionTable(lambda i: {"type": "place", "palace": i})
_BUILD_FLOOR: ActionTable[int] = ActionTable(lambda i: {"type": "build_floor", "palace": i})
#: Keyed by :func:`palaces.release_key` (palace index, tile kind).
_RELEASE: ActionTable[int] = ActionTable(
    lambda key: {"type": "release", "palace": key // NUM_TILES, "person": TILE_IDS[key % NUM_TILES]}
)
_REPLACE: ActionTable[int] = ActionTable(
    lambda key: {"type": "replace", "palace": key // NUM_TILES, "person": TILE_IDS[key % NUM_TILES]}
)


def court(state: State, seat: int) -> list[Action]:
    """DP1 (R14): an unordered pair of young tiles of two types, named in person order, not taken by an
    earlier player, both available."""
    young = [k for k in YOUNG_TILES if state.supply[k]]
    return [
        _COURT[k1][k2]
        for i, k1 in enumerate(young)
        for k2 in young[i + 1 :]
        if court_pair(k1, k2) not in state.pairs
    ]


def court_pair(first: int, second: int) -> int:
    """R14b: the unordered pair of person types of two tiles, as a bitmask (``state.pairs`` holds them)."""
    return 1 << TILE_TYPE[first] | 1 << TILE_TYPE[second]


def place(state: State, seat: int) -> list[Action]:
    """DP2/DP7 (R14, R37): any palace with a free floor."""
    return [_PLACE[i] for i, (floors, persons) in enumerate(state.palaces[seat]) if floors > len(persons)]


def action(state: State, seat: int) -> list[Action]:
    """DP3 (R23-R26): group + action (3 yuan for a group holding a dragon; Privilege only when the small
    one is still affordable after the fee), or refill."""
    yuan = state.yuan[seat]
    out = []
    for g, (cards, dragons) in enumerate(zip(state.groups, state.dragons, strict=True)):
        left = yuan - GROUP_FEE if dragons else yuan
        if left < 0:
            continue
        choices = _ACTION[g]
        for a in cards:
            if a != PRIVILEGE or left >= SMALL_COST:
                out.append(choices[a])
    out.append(REFILL)
    return out


def build(state: State, seat: int) -> list[Action]:
    """DP4 (R29): the next floor goes onto a palace below 3 floors or founds a new palace."""
    out = [_BUILD_FLOOR[i] for i, (floors, _) in enumerate(state.palaces[seat]) if floors < MAX_FLOORS]
    out.append(BUILD_PALACE)
    return out


def privilege(state: State, seat: int) -> list[Action]:
    """DP5 (R34): small, or large when affordable (the fee is already paid)."""
    return [SMALL, LARGE] if state.yuan[seat] >= state.large_cost else [SMALL]


def person(state: State, seat: int) -> list[Action]:
    """DP6 (R36): a card from the hand and an available tile it allows; a card that allows none is
    spent for nothing."""
    supply, hand = state.supply, state.hands[seat]
    out: list[Action] = []
    for card, held in enumerate(hand):  # typed cards in person-type order, then wild (WILD)
        if held:
            n = len(out)
            for k, recruit in _RECRUITS[card]:
                if supply[k]:
                    out.append(recruit)
            if len(out) == n:
                out.append(_SPEND[card])
    return out


def full(state: State, seat: int) -> list[Action]:
    """DP8 (R37): no free floor: replace any one person, or release the newcomer."""
    out = [
        _REPLACE[release_key(i, k)]
        for i, (_, persons) in enumerate(state.palaces[seat])
        for k in sorted(set(persons))
    ]
    out.append(RELEASE_NEWCOMER)
    return out


def release(state: State, seat: int) -> list[Action]:
    """DP9-DP12 (R42-R46): one person owed to the month's event.

    A set of releases is named as one sequence, in palace order (``state.last`` is the last one named),
    and only persons that still leave enough later choices are offered, so every listed action can be
    completed.  Drought (R43) releases come from distinct palaces: one from each unsupplied one.
    """
    owed, last, palaces = state.owed[seat], state.last, state.palaces[seat]
    if month_event(state) == DROUGHT:
        inhabited = [i for i, (_, persons) in enumerate(palaces) if persons and i > last]
        return [
            _RELEASE[release_key(i, k)]
            for i in inhabited[: len(inhabited) - owed + 1]
            for k in sorted(set(palaces[i][1]))
        ]
    keys = [release_key(i, k) for i, (_, persons) in enumerate(palaces) for k in persons]
    return [_RELEASE[key] for key in sorted({key for key in keys[: len(keys) - owed + 1] if key >= last})]


#: Legal-action builder of each decision phase (index = phase number of state.py).
LEGAL: tuple[Callable[[State, int], list[Action]], ...] = (
    court,
    place,
    action,
    build,
    privilege,
    person,
    full,
    release,
)


def legal_actions(state: State) -> list[Action]:
    """The pending decision's actions, a new list (GameBase caches it on the state); ``[]`` once over."""
    return [] if state.phase == OVER else LEGAL[state.phase](state, state.order[state.turn])
