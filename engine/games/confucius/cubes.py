"""Action cubes: which Actions Box space each action uses and what it costs in cubes (R33-R36).

Petition action types are ``petition_<id>``; they all share the Petition space (R33).
"""

from __future__ import annotations

from functools import cache

from .components import ACTION_SPACES, CUBE_RULE, PETITION_OF_GIFT, SPACE_OF
from .state import ACTION, State

SPACE_COUNT = len(ACTION_SPACES)
_FIXED = {"always_0": 0, "always_1": 1, "always_2": 2}
#: Cube cost of each action space when cubes are paid: fixed, or None for the standard rule (R34).
FIXED_CUBES: tuple[int | None, ...] = tuple(_FIXED.get(rule) for rule in CUBE_RULE)
PETITION_TYPES: dict[int, str] = {v: f"petition_{p}" for v, p in PETITION_OF_GIFT.items() if p}
_PETITION_IDS = {p: f"petition_{p}" for p in PETITION_OF_GIFT.values() if p}
#: Action space of every Actions Box action type (Imperial Favour is no action type, R77).
ACTION_SPACE: dict[str, int] = {
    _PETITION_IDS.get(a, a): space for a, space in SPACE_OF.items() if a != "imperial_favour"
}
(BRIBE, NOMINATE, FORCE, JUNKS, ARMY, BUY_GIFT, GIVE_GIFT, PETITION, COMMERCIAL, TAX, NOTHING) = (
    ACTION_SPACE[a]
    for a in (
        "bribe_official",
        "nominate_student",
        "force_examination",
        "buy_junks",
        "recruit_army",
        "buy_gift",
        "give_gift",
        "petition_reassign_junks",
        "commercial_income",
        "tax_income",
        "no_action",
    )
)
_ALL_AFFORDABLE = (True,) * SPACE_COUNT
_MAX_COST = 2  # no action space ever costs more (R34)


def cube_cost(state: State, p: int, space: int) -> int:
    """R34-R36: what the action space costs ``p`` now (0 through Extra Action or Imperial Favour)."""
    if state.mode != ACTION:
        return 0
    fixed = FIXED_CUBES[space]
    if fixed is not None:
        return fixed
    return 2 if state.placed[p * SPACE_COUNT + space] else 1


def affordable(state: State, p: int) -> tuple[bool, ...]:
    """R35: per action space, whether ``p`` can pay its cubes now (always, for free actions)."""
    cubes = state.cubes[p]
    if state.mode != ACTION or cubes >= _MAX_COST:
        return _ALL_AFFORDABLE
    base = p * SPACE_COUNT
    return _affordable(cubes, tuple(state.placed[base : base + SPACE_COUNT]))


@cache
def _affordable(cubes: int, placed: tuple[int, ...]) -> tuple[bool, ...]:
    """:func:`affordable` of a seat with ``cubes`` left and ``placed`` cubes on each space: a table,
    because the bots ask it for every Actions Phase decision of a seat short of cubes."""
    return tuple(
        (fixed if fixed is not None else 2 if placed[space] else 1) <= cubes
        for space, fixed in enumerate(FIXED_CUBES)
    )


def take_cubes(state: State, p: int, kind: str) -> None:
    """R34, R36: the cubes go onto the space (none for free actions)."""
    space = ACTION_SPACE[kind]
    cost = cube_cost(state, p, space)
    if cost:
        state.cubes[p] -= cost
        state.placed[p * SPACE_COUNT + space] += cost
