"""Scoring: a province the moment it fills (R37, R41), and the final scoring (R56-R59).

All functions are pure reads of the state; the rules add the points.  The heuristic calls
:func:`final_points` too, to value a position as if the game ended now.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from .components import ALLIANCE_LINES, CHAIN_MIN, PORTS, PROVINCES, ROAD_NEIGHBOURS, SPACE_PROVINCES
from .state import FREE, OVER, UNUSED, State

#: Categories of the final scoring, in the order of R56-R59.
FINAL_CATEGORIES = ("provinces", "ports", "alliances", "chains")


def rank_points(counts: list[int]) -> list[int]:
    """Majority points for per-seat ``counts`` (R41, also used for ports by R57).

    Dense ranking of the seats with a positive count: rank 1 scores the sum of all counts, rank k
    scores the count of rank k-1; tied seats share a rank and each score in full (seed examples 4, 5).
    """
    levels = sorted({c for c in counts if c}, reverse=True)
    if not levels:
        return [0] * len(counts)
    value = {levels[0]: sum(counts)}
    for higher, lower in pairwise(levels):
        value[lower] = higher
    return [value.get(c, 0) for c in counts]


def province_points(st: State, province: int) -> list[int]:
    """Points of one province scoring (R41, R42), doubled for the owner of a fortified house in it
    when the variant is on (R44, R65 (a))."""
    points = rank_points(st.houses[province])
    for seat, space in enumerate(st.fort):
        if space != UNUSED and province in SPACE_PROVINCES[space]:
            points[seat] *= 2
    return points


def final_points(st: State) -> dict[str, list[int]]:
    """Points each seat would get from the final scoring now, by category (R56-R59)."""
    n = st.n
    provinces = [0] * n
    for p in range(len(PROVINCES)):
        if not st.scored[p] and any(st.houses[p]):  # R56
            for seat, pts in enumerate(province_points(st, p)):
                provinces[seat] += pts
    ports = [0] * n
    for s in PORTS:
        if st.owner[s] != FREE:
            ports[st.owner[s]] += 1
    return {
        "provinces": provinces,
        "ports": rank_points(ports),  # R57
        "alliances": alliance_points(st.seals, n),
        "chains": chain_points(st),
    }


def alliance_points(seals: list[list[int]], n: int) -> list[int]:
    """R58: a seat leading both provinces of an alliance line (at least one emissary, nobody more;
    tied leaders all lead) scores every emissary of both provinces."""
    leaders = []
    for counts in seals:
        top = max(counts)
        leaders.append({s for s in range(n) if counts[s] == top} if top else set())
    points = [0] * n
    for p, q in ALLIANCE_LINES:
        both = leaders[p] & leaders[q]
        if both:
            value = sum(seals[p]) + sum(seals[q])
            for seat in both:
                points[seat] += value
    return points


def chain_points(st: State) -> list[int]:
    """R59: every connected group of one seat's houses along roads with at least CHAIN_MIN houses
    scores one point per house (a branched group counts whole); doubled if it holds the seat's
    fortified house (R65 (b))."""
    owner = st.owner
    points = [0] * st.n
    seen = [False] * len(owner)
    for start, seat in enumerate(owner):
        if seat == FREE or seen[start]:
            continue
        seen[start] = True
        group = [start]
        for space in group:  # breadth-first: the list grows while it is walked
            for nb in ROAD_NEIGHBOURS[space]:
                if not seen[nb] and owner[nb] == seat:
                    seen[nb] = True
                    group.append(nb)
        if len(group) >= CHAIN_MIN:
            points[seat] += len(group) * (2 if st.fort[seat] in group else 1)
    return points


def result(st: State) -> dict[str, Any] | None:
    """Scores, ranking and the final-scoring breakdown once the game is over.

    R60: the highest total wins and equal totals share the victory (no tie-breaker exists), so
    ``winners`` lists every seat with the top score; ``ranking`` orders equal scores by seat only to
    be a total order, and ``tiebreak`` is always None.
    """
    if st.phase != OVER:
        return None
    scores = st.scores[:]
    ranking = sorted(range(st.n), key=lambda s: (-scores[s], s))
    top = scores[ranking[0]]
    return {
        "scores": scores,
        "ranking": ranking,
        "tiebreak": None,
        "winners": [s for s in ranking if scores[s] == top],
        "final_scoring": {k: v[:] for k, v in st.final.items()} if st.final else None,
        "ended_by": st.end,
    }
