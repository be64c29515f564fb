"""Taj Mahal's map as data for clients (``GET /v1/games/taj_mahal``: ``board``).

Built from the same component data the rules play on (:data:`components.STANDARD`): the provinces, their
cities (fortified or not) and the roads (R1; chains of palaces along roads score, R44).  The city
positions are those of components.json, scaled to board units; each province's outline is the region
nearer to its centre (the mean of its cities) than to any other province's, so neighbouring provinces
share a border.  Map and positions are a reconstruction (``data_notes``: map, R2, C3).
"""

from __future__ import annotations

from typing import Any

from engine.drawing import OUTLINE_SCHEMA, PAIR_SCHEMA, POINT_SCHEMA, voronoi_cells

from .components import STANDARD

#: Board units per unit of the components' city coordinates, and the frame around the outermost city.
SCALE, MARGIN = 100, 60


def _mean(points: list[list[int]]) -> tuple[float, float]:
    return sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points)


def _build() -> dict[str, Any]:
    raw = STANDARD.raw["map"]
    x0 = min(c["x"] for c in raw["cities"])
    y0 = min(c["y"] for c in raw["cities"])
    at = {c["id"]: [round((c["x"] - x0) * SCALE + MARGIN), round((c["y"] - y0) * SCALE + MARGIN)]
          for c in raw["cities"]}  # fmt: skip
    width = max(x for x, _ in at.values()) + MARGIN
    height = max(y for _, y in at.values()) + MARGIN
    centres = [_mean([at[c] for c in p["cities"]]) for p in raw["provinces"]]
    outlines = voronoi_cells(centres, width, height)
    provinces = [
        {
            "id": p["id"],
            "label": p["label"],
            "agra": bool(p["is_agra"]),
            "cities": list(p["cities"]),
            "neighbours": list(p["neighbours"]),
            "centre": [round(cx), round(cy)],
            "outline": outline,
        }
        for p, (cx, cy), outline in zip(raw["provinces"], centres, outlines, strict=True)
    ]
    cities = [
        {"id": c["id"], "province": c["province"], "fortified": bool(c["fortified"]), "name": c.get("name"),
         "at": at[c["id"]]}
        for c in raw["cities"]
    ]  # fmt: skip
    return {
        "game": "taj_mahal",
        "width": width,
        "height": height,
        "provinces": provinces,
        "cities": cities,
        "roads": [list(r) for r in raw["roads"]],
    }


BOARD: dict[str, Any] = _build()

BOARD_SCHEMA: dict[str, Any] = {
    "title": "TajMahalBoardLayout",
    "description": "The map of Taj Mahal: provinces (with outlines to draw), cities and the roads "
    "between them (R1, R44). A reconstruction: see `data_notes`.",
    "type": "object",
    "properties": {
        "game": {"const": "taj_mahal"},
        "width": {"type": "number", "description": "Width of the layout, in board units."},
        "height": {"type": "number", "description": "Height of the layout, in board units."},
        "provinces": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "label": {"type": "string", "description": "A readable name (not printed on the board)."},
                    "agra": {"type": "boolean", "description": "The province of Agra and the Taj Mahal."},
                    "cities": {"type": "array", "items": {"type": "string"}},
                    "neighbours": {"type": "array", "items": {"type": "string"}},
                    "centre": POINT_SCHEMA,
                    "outline": OUTLINE_SCHEMA,
                },
                "required": ["id", "label", "agra", "cities", "neighbours", "centre", "outline"],
                "additionalProperties": False,
            },
        },
        "cities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "As actions and views name it (`agra-n`)."},
                    "province": {"type": "string"},
                    "fortified": {"type": "boolean", "description": "A fortified city (R1)."},
                    "name": {"type": ["string", "null"], "description": "The printed name, if any (Agra)."},
                    "at": POINT_SCHEMA,
                },
                "required": ["id", "province", "fortified", "name", "at"],
                "additionalProperties": False,
            },
        },
        "roads": {"type": "array", "items": PAIR_SCHEMA, "description": "Roads: pairs of city ids."},
    },
    "required": ["game", "width", "height", "provinces", "cities", "roads"],
    "additionalProperties": False,
}
