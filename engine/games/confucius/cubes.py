"""Action cubes: which Actions Box space each action uses and what it costs in cubes (R33-R36).

Petition action types are ``petition_<id>``; they all share the Petition space (R33).
"""

from __future__ import annotations

from functools import cache
from typing import Final

from .components import ACTION_SPACES, CUBE_RULE, PETITION_OF_GIFT, SPACE_OF
from .state import ACTION, State

SPACE_COUNT: Final = len(ACTION_SPACES)
_FIXED = {"always_0": 0, "always_1": 1, "always_2": 2}
#: Cube cost of each action space when cubes are paid: fixed, or None for the standard rule (R34).
FIXED_CUBES: Final[tuple[int | None, ...]] = tuple(_FIXED.get(rule) for rule in CUBE_RULE)
PETITION_TYPES: Final[dict[int, str]] = {v: f"petition_{p}" for v, p in PETITION_OF_GIFT.items() if p}
_PETITION_IDS = {p: f"petition_{p}" for p in PETITION_OF_GIFT.values() if p}
#: Action space of every Actions Box action type (Imperial Favour is no action type, R77).
ACTION_SPACE: Final[dict[str, int]] = {
    _PETITION_IDS.get(a, a): space for a, space in SPACE_OF.items() if a != "imperial_favour"
}
#: The action space of each Actions Box action (the petitions share one).
BRIBE: Final = ACTION_SPACE["bribe_official"]
NOMINATE: Final = ACTION_SPACE["nominate_student"]
FORCE: Final = ACTION_SPACE["force_examination"]
JUNKS: Final = ACTION_SPACE["buy_junks"]
ARMY: Final = ACTION_SPACE["recruit_army"]
BUY_GIFT: Final = ACTION_SPACE["buy_gift"]
GIVE_GIFT: Final = ACTION_SPACE["give_gift"]
PETITION: Final = ACTION_SPACE["petition_reassign_junks"]
COMMERCIAL: Final = ACTION_SPACE["commercial_income"]
TAX: Final = ACTION_SPACE["tax_income"]
NOTHING: Final = ACTION_SPACE["no_action"]
_ALL_AFFORDABLE: Final = (True,) * SPACE_COUNT
_MAX_COST: Final = 2  # no action space ever costs more (R34)


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
