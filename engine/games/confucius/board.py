"""Confucius' board as data for clients (``GET /v1/games/confucius``: ``board``).

Confucius has no map: its board is a set of places (the official spaces of the three ministries with
their minister and secretary, the Great Wall, the foreign-land positions, the distant lands, each
colour's shipyard and ocean, the students and the candidate) and the relations the rules use between
them (seniority, the wall's order, invasion deadlines, voyages).  They come from the component data's
``board_graph``, checked against the counts the rules play with (:mod:`components`); each place gets a
box of the layout (new data: ``at`` = [x, y, width, height] in board units), arranged as on the
printed board: ministries side by side, the wall below them, the lands and the navy at the bottom.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.games.confucius import components as c

_GRAPH = json.loads(Path(c.__file__).with_name("components.json").read_text(encoding="utf-8"))["board_graph"]
WIDTH, HEIGHT = 960, 660
COLUMN, ROW = 230, 32  # a ministry's width with its gap; an official space's height with its gap


def _box(node: dict[str, Any], colours: list[str], students: list[str]) -> list[int]:
    """Where ``node`` goes on the layout: [x, y, width, height]."""
    kind = node["type"]
    if "ministry" in node:
        x = 20 + c.MINISTRY_INDEX[node["ministry"]] * COLUMN
        if kind == "official_space":
            return [x, 60 + node["seniority"] * ROW, 210, ROW - 4]
        return [x if kind == "minister_space" else x + 108, 40, 102, 48]
    if kind == "great_wall_space":
        return [20 + (node["index"] - 1) * 76, 350, 70, 40]
    if kind == "foreign_land_position":
        return [20 + (node["position"] - 1) * 240, 410, 230, 64]
    if kind == "distant_land":
        return [20 + c.DISTANT_INDEX[node["id"].removeprefix("distant_land_")] * 188, 496, 180, 40]
    if kind in ("shipyard", "ocean"):
        return [20 + colours.index(node["colour"]) * 188, 552 if kind == "shipyard" else 600, 180, 40]
    if kind == "student_space":
        return [710, 40 + 44 * students.index(node["id"]), 230, 40]
    if kind == "candidate_space":
        return [710, 134, 230, 40]
    return [710, 184, 230, 130]  # the military colonies


def _label(node: dict[str, Any]) -> str:
    kind = node["type"]
    if kind == "official_space":
        return f"{node['ministry'].title()} {node['seniority']}"
    if kind in ("minister_space", "secretary_space"):
        return f"{node['ministry'].title()} {kind.removesuffix('_space')}"
    if kind == "great_wall_space":
        return f"Wall {node['index']}"
    if kind == "foreign_land_position":
        return f"Foreign land {node['position']}"
    return str(node["id"]).removeprefix("distant_land_").replace("_", " ").title()


def _build() -> dict[str, Any]:
    nodes = _GRAPH["nodes"]
    colours = list(dict.fromkeys(n["colour"] for n in nodes if n["type"] == "shipyard"))
    students = [n["id"] for n in nodes if n["type"] == "student_space"]
    places = [
        {"id": n["id"], "type": n["type"], "label": _label(n), "at": _box(n, colours, students)}
        | {k: n[k] for k in ("ministry", "seniority", "index", "position", "colour") if k in n}
        for n in nodes
    ]
    return {
        "game": "confucius",
        "width": WIDTH,
        "height": HEIGHT,
        "ministries": list(c.MINISTRIES),
        "places": places,
        "links": [{"from": e["from"], "to": e["to"], "kind": e["kind"]} for e in _GRAPH["edges"]],
    }


BOARD: dict[str, Any] = _build()

BOARD_SCHEMA: dict[str, Any] = {
    "title": "ConfuciusBoardLayout",
    "description": "The board of Confucius: its places (ministries' official spaces, the Great Wall, "
    "foreign and distant lands, shipyards and oceans, students, candidate) with a layout box each, and "
    "the relations the rules use between them.",
    "type": "object",
    "properties": {
        "game": {"const": "confucius"},
        "width": {"type": "number", "description": "Width of the layout, in board units."},
        "height": {"type": "number", "description": "Height of the layout, in board units."},
        "ministries": {"type": "array", "items": {"type": "string"}, "description": "In board order."},
        "places": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "type": {"enum": sorted({n["type"] for n in _GRAPH["nodes"]})},
                    "label": {"type": "string"},
                    "at": {
                        "type": "array",
                        "items": {"type": "number"},
                        "minItems": 4,
                        "maxItems": 4,
                        "description": "[x, y, width, height] in board units (y grows downwards).",
                    },
                    "ministry": {"type": "string"},
                    "seniority": {"type": "integer", "description": "1 is the most senior (R2)."},
                    "index": {"type": "integer", "description": "A wall space's place in the wall."},
                    "position": {"type": "integer", "description": "A foreign land's position."},
                    "colour": {"type": "string", "description": "A shipyard's or ocean's player colour."},
                },
                "required": ["id", "type", "label", "at"],
                "additionalProperties": False,
            },
        },
        "links": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "from": {"type": "string"},
                    "to": {"type": "string"},
                    "kind": {"enum": sorted({e["kind"] for e in _GRAPH["edges"]})},
                },
                "required": ["from", "to", "kind"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["game", "width", "height", "ministries", "places", "links"],
    "additionalProperties": False,
}
