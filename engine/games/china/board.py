"""China's board as data for clients (``GET /v1/games/china``: ``board``).

Built from the component data the rules play on (:mod:`components`): the provinces with their card
colour (R27), house spaces, ports (R14) and border spaces (R13), the roads (R12, chains R59) and the
alliance lines, which join every pair of neighbouring provinces (R11, R58).

The layout is new data, as the board geometry itself is a reconstruction (R10, ``data_notes``): a
centre for each province, chosen so that the provinces drawn as the regions nearer to their centres
than to any other border exactly the pairs of the alliance lines, with the sea to the east and south
(where the ports are) and mountains where four provinces would otherwise meet in a point.  A province's
own spaces stand in a ring round its centre, in their listed order (the roads inside a province mostly
follow it), turned so that the roads leaving it are short; a border space stands midway between its two
provinces' centres, on their border.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial
from typing import Any

from engine.drawing import OUTLINE_SCHEMA, PAIR_SCHEMA, POINT_SCHEMA, voronoi_cells
from engine.games.china import components as c

WIDTH, HEIGHT = 800, 1000
#: The layout: each province's centre, in board units (see the module docstring).
CENTRES: dict[str, tuple[int, int]] = {
    "ZHAO": (300, 130), "YAN": (560, 120), "QIN": (100, 380), "WEI": (400, 360), "QI": (640, 400),
    "HAN": (130, 700), "ZHOU": (450, 660), "XRED": (260, 900), "WU": (560, 900),
}  # fmt: skip
#: Centres of the land and sea that belongs to no province (their regions are drawn, not played).
UNCLAIMED: dict[str, tuple[tuple[int, int], ...]] = {
    "sea": ((880, 150), (860, 420), (820, 700), (740, 990), (430, 1090)),
    "mountains": ((280, 520),),
}
#: Distance of a province's own spaces from its centre.
RING = 72


def _ring(centre: tuple[int, int], count: int, start: int, step: int) -> list[list[int]]:
    """``count`` places round ``centre``, the first at position ``start``, going round by ``step`` (+-1)."""
    cx, cy = centre
    turns = [2 * math.pi * (start + step * k) / count for k in range(count)]
    return [[round(cx + RING * math.sin(t)), round(cy - RING * math.cos(t))] for t in turns]


def _roads_length(own: list[int], places: Sequence[list[int]], at: dict[int, list[int]]) -> float:
    """The length of the roads from the spaces ``own``, were they at ``places`` (the others at ``at``)."""
    where = dict(zip(own, places, strict=True))
    return sum(math.dist(where[s], where.get(t, at[t])) for s in own for t in c.ROAD_NEIGHBOURS[s])


def _place_rings(provinces: list[str]) -> dict[int, list[int]]:
    """Each province's own spaces on its ring, turned so that the roads leaving the province are as
    short as they can be (they then cross as little of the map as they can): two passes, each province
    trying every start and both directions against the others' current places."""
    at: dict[int, list[int]] = {}
    for p, spaces in enumerate(c.PROVINCE_SPACES):
        for s in spaces:  # a first guess: every space at its province's centre (border spaces stay there)
            at[s] = list(CENTRES[provinces[p]])
    for s, provs in enumerate(c.SPACE_PROVINCES):
        if c.IS_BORDER[s]:
            (ax, ay), (bx, by) = (CENTRES[provinces[p]] for p in provs)
            at[s] = [round((ax + bx) / 2), round((ay + by) / 2)]
    for _ in range(2):
        for p, spaces in enumerate(c.PROVINCE_SPACES):
            own = [s for s in spaces if not c.IS_BORDER[s]]
            centre = CENTRES[provinces[p]]
            options = [_ring(centre, len(own), start, step) for start in range(len(own)) for step in (1, -1)]
            at.update(zip(own, min(options, key=partial(_roads_length, own, at=at)), strict=True))
    return at


def _build() -> dict[str, Any]:
    provinces = [c.PROVINCES[p] for p in range(len(c.PROVINCES))]
    unclaimed = [(kind, site) for kind, sites in UNCLAIMED.items() for site in sites]
    cells = voronoi_cells([CENTRES[p] for p in provinces] + [site for _, site in unclaimed], WIDTH, HEIGHT)
    at = _place_rings(provinces)
    neighbours: dict[int, list[str]] = {p: [] for p in range(len(provinces))}
    for p, q in c.ALLIANCE_LINES:
        neighbours[p].append(provinces[q])
        neighbours[q].append(provinces[p])
    return {
        "game": "china",
        "width": WIDTH,
        "height": HEIGHT,
        "provinces": [
            {
                "id": name,
                "colour": c.COLOURS[c.PROVINCE_COLOUR[p]],
                "spaces": [c.SPACES[s] for s in c.PROVINCE_SPACES[p]],
                "neighbours": sorted(neighbours[p]),
                "centre": list(CENTRES[name]),
                "outline": cells[p],
            }
            for p, name in enumerate(provinces)
        ],
        "spaces": [
            {
                "id": name,
                "provinces": [provinces[p] for p in c.SPACE_PROVINCES[s]],
                "port": s in c.PORTS,
                "border": c.IS_BORDER[s],
                "at": at[s],
            }
            for s, name in enumerate(c.SPACES)
        ],
        "roads": [[c.SPACES[a], c.SPACES[b]] for a, ns in enumerate(c.ROAD_NEIGHBOURS) for b in ns if a < b],
        "alliance_lines": [[provinces[p], provinces[q]] for p, q in c.ALLIANCE_LINES],
        "unclaimed": [
            {"kind": kind, "outline": cell}
            for (kind, _), cell in zip(unclaimed, cells[len(provinces) :], strict=True)
        ],
    }


BOARD: dict[str, Any] = _build()

BOARD_SCHEMA: dict[str, Any] = {
    "title": "ChinaBoardLayout",
    "description": "The board of China: provinces in their colours (with outlines to draw), house spaces "
    "(ports, border spaces), roads and alliance lines (R10-R14). A reconstruction: see `data_notes`.",
    "type": "object",
    "properties": {
        "game": {"const": "china"},
        "width": {"type": "number", "description": "Width of the layout, in board units."},
        "height": {"type": "number", "description": "Height of the layout, in board units."},
        "provinces": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "As actions and views name it (`WEI`)."},
                    "colour": {
                        "type": "string",
                        "enum": list(c.COLOURS),
                        "description": "The card colour that pays for a piece here (R27).",
                    },
                    "spaces": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Its house spaces, border spaces included (R13).",
                    },
                    "neighbours": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "The provinces it borders (each pair an alliance line, R11).",
                    },
                    "centre": POINT_SCHEMA,
                    "outline": OUTLINE_SCHEMA,
                },
                "required": ["id", "colour", "spaces", "neighbours", "centre", "outline"],
                "additionalProperties": False,
            },
        },
        "spaces": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "provinces": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 2},
                    "port": {"type": "boolean", "description": "A port space (R14)."},
                    "border": {"type": "boolean", "description": "A border space of two provinces (R13)."},
                    "at": POINT_SCHEMA,
                },
                "required": ["id", "provinces", "port", "border", "at"],
                "additionalProperties": False,
            },
        },
        "roads": {"type": "array", "items": PAIR_SCHEMA, "description": "Road segments: space pairs (R12)."},
        "alliance_lines": {"type": "array", "items": PAIR_SCHEMA, "description": "Province pairs (R11)."},
        "unclaimed": {
            "type": "array",
            "description": "Sea and land of no province, drawn only.",
            "items": {
                "type": "object",
                "properties": {"kind": {"enum": list(UNCLAIMED)}, "outline": OUTLINE_SCHEMA},
                "required": ["kind", "outline"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["game", "width", "height", "provinces", "spaces", "roads", "alliance_lines", "unclaimed"],
    "additionalProperties": False,
}
