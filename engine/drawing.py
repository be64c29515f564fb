"""The few drawing helpers the games' published boards share.

A game's board lives in ``engine/games/<game>/board.py`` as ``BOARD`` (a JSON-able dict built from the
game's own component data, so the board a client draws is the board the rules play on) and
``BOARD_SCHEMA`` (its JSON schema); the game object publishes them as ``board`` and ``board_schema``
(:class:`engine.core.GameBase`).

Here: the helpers those modules share (layout coordinates are in board units, y down, with
the board's ``width`` and ``height``): regions of a map as Voronoi cells of their centres, and the
schema fragments for points and outlines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Point = tuple[float, float]

#: A point of the layout: ``[x, y]`` in board units, y down.
POINT_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": {"type": "number"},
    "minItems": 2,
    "maxItems": 2,
    "description": "[x, y] in board units (y grows downwards).",
}
#: A closed outline (the last point joins the first).
OUTLINE_SCHEMA: dict[str, Any] = {
    "type": "array",
    "items": POINT_SCHEMA,
    "minItems": 3,
    "description": "A closed polygon: its corners in order.",
}
#: A pair of ids (a road, a border, an alliance line): unordered.
PAIR_SCHEMA: dict[str, Any] = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}


def _clip(polygon: list[Point], site: Point, other: Point) -> list[Point]:
    """The part of ``polygon`` nearer to ``site`` than to ``other`` (one Sutherland-Hodgman pass over
    the half-plane bounded by their perpendicular bisector)."""
    nx, ny = other[0] - site[0], other[1] - site[1]
    mx, my = (site[0] + other[0]) / 2, (site[1] + other[1]) / 2

    def side(p: Point) -> float:
        return (p[0] - mx) * nx + (p[1] - my) * ny  # <= 0: on the site's side

    out: list[Point] = []
    for i, p in enumerate(polygon):
        q = polygon[(i + 1) % len(polygon)]
        sp, sq = side(p), side(q)
        if sp <= 0:
            out.append(p)
        if (sp < 0 < sq) or (sq < 0 < sp):
            t = sp / (sp - sq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def voronoi_cells(sites: Sequence[Point], width: float, height: float) -> list[list[list[float]]]:
    """The region of each site within the ``width`` x ``height`` frame: every point nearer to it than
    to any other site.  Neighbouring regions share their border exactly, so a map of regions drawn
    from their centres needs no hand-drawn outlines.  Corners rounded to 0.01 units."""
    cells = []
    for i, site in enumerate(sites):
        cell: list[Point] = [(0.0, 0.0), (width, 0.0), (width, height), (0.0, height)]
        for j, other in enumerate(sites):
            if j != i:
                cell = _clip(cell, site, other)
        cells.append([[round(x, 2), round(y, 2)] for x, y in cell])
    return cells


def inside(point: Point, outline: list[list[float]]) -> bool:
    """Whether ``point`` lies within ``outline`` (even-odd rule)."""
    x, y = point
    hit = False
    for i, (ax, ay) in enumerate(outline):
        bx, by = outline[i - 1]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            hit = not hit
    return hit
