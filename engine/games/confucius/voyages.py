"""Junks and voyages: buying, sailing, reaching Distant Lands, the ceramic-tile petition and the
Admiral count (R46-R48, R58.1, R105)."""

from __future__ import annotations

from engine.core import Event, event

from .components import ADMIRAL_PER_MARKER, DISTANT_LANDS, JUNKS_PER_VOYAGE
from .rewards import draw_reward
from .state import State


def unreached(state: State, p: int) -> list[int]:
    """Distant Lands ``p`` has not reached yet (R47: each at most once)."""
    mask = state.reached[p]
    return [d for d in range(len(DISTANT_LANDS)) if not mask >> d & 1]


def sail(state: State, p: int, count: int) -> int:
    """R47: ``count`` junks go from the shipyard to sea; every full five complete a voyage and go back
    to the supply.  Returns the number of voyages completed."""
    state.shipyard[p] -= count
    at_sea = state.ocean[p] + count
    voyages, state.ocean[p] = divmod(at_sea, JUNKS_PER_VOYAGE)
    state.supply += voyages * JUNKS_PER_VOYAGE
    return voyages


def reach(state: State, p: int, land: int, ev: list[Event]) -> None:
    """R47: a marker on the land; the first to arrive takes its blue chit; a reward card each time."""
    state.reached[p] |= 1 << land
    vp = state.land_chit[land]
    state.land_chit[land] = 0
    state.score[p] += vp
    ev.append(event("distant_land_reached", seat=p, land=DISTANT_LANDS[land], vp=vp))
    draw_reward(state, p, ev)


def reassign(state: State, source: int, destination: int) -> None:
    """R58.1: two junks (one if that is all) move from one shipyard to another."""
    moved = min(2, state.shipyard[source])
    state.shipyard[source] -= moved
    state.shipyard[destination] += moved


def admiral_measure(state: State, p: int) -> int:
    """R105: 5 per Distant Land marker plus the junks at sea (shipyards do not count)."""
    return ADMIRAL_PER_MARKER * state.reached[p].bit_count() + state.ocean[p]
