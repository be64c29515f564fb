"""Palaces, the persons living in them, and the person track.

A palace is an immutable ``(floors, persons)`` tuple, ``persons`` a sorted tuple of tile kinds: sorted so
that equal palaces compare equal whatever order their persons arrived in, immutable so that cloning a
state copies list spines only.
"""

from __future__ import annotations

from .components import MAX_FLOORS, NUM_TILES, TILE_VALUE
from .state import Palace, State


def symbols(palaces: list[Palace], weights: tuple[int, ...]) -> int:
    """R27: the symbols of one kind on a player's persons right now (``weights`` from SYMBOLS)."""
    return sum(weights[k] for _, persons in palaces for k in persons)


def person_count(palaces: list[Palace]) -> int:
    return sum(len(persons) for _, persons in palaces)


def has_free_floor(palaces: list[Palace]) -> bool:
    return any(floors > len(persons) for floors, persons in palaces)


def release_key(index: int, tile: int) -> int:
    """Position of a person in the palace order in which a set of releases is named (palace index,
    then tile kind)."""
    return index * NUM_TILES + tile


def key_parts(key: int) -> tuple[int, int]:
    """(palace index, tile kind) of a ``release_key``."""
    return divmod(key, NUM_TILES)


def add_person(palace: Palace, tile: int) -> Palace:
    floors, persons = palace
    return floors, tuple(sorted((*persons, tile)))


def remove_person(palace: Palace, tile: int) -> Palace:
    """The palace with one ``tile`` person released (R17)."""
    floors, persons = palace
    i = persons.index(tile)
    return floors, persons[:i] + persons[i + 1 :]


def add_floor(palace: Palace) -> Palace:
    floors, persons = palace
    assert floors < MAX_FLOORS, "R15: a palace never has more than 3 floors"
    return floors + 1, persons


def decayed(palaces: list[Palace]) -> list[Palace]:
    """R49: every uninhabited palace loses one floor; a palace left with 0 floors is gone."""
    return [(f if persons else f - 1, persons) for f, persons in palaces if persons or f > 1]


# -- person track (R18, R19) ------------------------------------------------------------------------


def advance(state: State, seat: int, spaces: int) -> None:
    """R18: move a person marker forward; it lands on top of any markers already there."""
    state.pos[seat] += spaces
    state.clock += 1
    state.arrival[seat] = state.clock


def place(state: State, seat: int, index: int, tile: int) -> None:
    """Put a recruited tile into palace ``index`` and advance the marker by its value (R14, R37)."""
    state.palaces[seat][index] = add_person(state.palaces[seat][index], tile)
    advance(state, seat, TILE_VALUE[tile])


def track_order(state: State) -> list[int]:
    """R19: seats by person-track position, the top of a stack first.  Total: arrivals are unique."""
    pos, arrival = state.pos, state.arrival
    return sorted(range(state.n), key=lambda s: (-pos[s], -arrival[s]))
