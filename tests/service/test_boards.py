"""GET /v1/games/{game} publishes the board as data (issue 28, deliverable 1): every board validates
against its published schema, and every place and adjacency the rules use, as the engine's component
modules give them, is in it, so a client drawing the board draws the board the rules play on."""

from __future__ import annotations

import itertools
import math
from typing import Any

import jsonschema_rs
import pytest

from engine.drawing import inside
from engine.games.china import components as china
from engine.games.confucius import components as confucius
from engine.games.taj_mahal.components import STANDARD as TAJ
from engine.games.year_of_dragon import components as yotd
from engine.registry import GAMES


def pairs(items: list[list[str]]) -> set[frozenset[str]]:
    return {frozenset(p) for p in items}


def shared_borders(outlines: dict[str, list[list[float]]]) -> set[frozenset[str]]:
    """The pairs of outlines that share a stretch of border (not just a corner)."""
    out = set()
    for (a, pa), (b, pb) in itertools.combinations(outlines.items(), 2):
        common = [p for p in pa if any(math.dist(p, q) < 0.05 for q in pb)]
        if len(common) >= 2 and max(math.dist(p, q) for p in common for q in common) > 1:
            out.add(frozenset((a, b)))
    return out


@pytest.fixture
def published(client) -> dict[str, dict[str, Any]]:
    return {gid: client.get(f"/v1/games/{gid}").json["board"] for gid in GAMES}


def test_every_board_is_published_and_valid_against_its_schema(client, published):
    spec = client.get("/openapi.json").json["components"]["schemas"]
    for gid, board in published.items():
        game = GAMES[gid]
        assert board == game.board and board["game"] == gid
        assert game.board_schema is not None
        jsonschema_rs.validator_for(game.board_schema).validate(board)  # raises, naming the path
        name = f"{''.join(w.title() for w in gid.split('_'))}BoardLayout"
        assert {"$ref": f"#/components/schemas/{name}"} in spec["Game"]["properties"]["board"]["anyOf"]
        assert spec[name]["required"]
    assert client.get("/v1/games/high_card").json["board"] is None  # a game without a board.py


def test_taj_mahal_every_city_and_road_of_the_rules_is_on_the_map(published):
    """R1/R44: the roads chain scoring follows are exactly the published roads; each city stands in
    its province's outline, and provinces that roads join share a border on the drawing."""
    board = published["taj_mahal"]
    rules_roads = {
        frozenset((TAJ.city_ids[a], TAJ.city_ids[b])) for a, ns in enumerate(TAJ.neighbours) for b in ns
    }
    assert pairs(board["roads"]) == rules_roads
    assert [c["id"] for c in board["cities"]] == list(TAJ.city_ids)
    assert [p["id"] for p in board["provinces"]] == list(TAJ.province_ids)
    outline = {p["id"]: p["outline"] for p in board["provinces"]}
    for i, city in enumerate(board["cities"]):
        assert city["province"] == TAJ.province_ids[TAJ.city_province[i]]
        assert city["fortified"] == TAJ.city_fortified[i]
        assert inside(tuple(city["at"]), outline[city["province"]]), city["id"]
    province_of = {c["id"]: c["province"] for c in board["cities"]}
    crossing = {frozenset((province_of[a], province_of[b])) for a, b in board["roads"]}
    crossing = {p for p in crossing if len(p) == 2}
    assert crossing <= shared_borders(outline)


def test_china_every_space_road_and_alliance_of_the_rules_is_on_the_board(published):
    """R11-R14, R27: spaces with their provinces, ports and border spaces; the roads of house chains
    (R59); the alliance lines (R58), which are exactly the provinces whose outlines share a border."""
    board = published["china"]
    assert [s["id"] for s in board["spaces"]] == list(china.SPACES)
    rules_roads = {
        frozenset((china.SPACES[a], china.SPACES[b])) for a, nbs in enumerate(china.ROAD_NEIGHBOURS)
        for b in nbs
    }
    assert pairs(board["roads"]) == rules_roads
    lines = {frozenset((china.PROVINCES[p], china.PROVINCES[q])) for p, q in china.ALLIANCE_LINES}
    assert pairs(board["alliance_lines"]) == lines
    outline = {p["id"]: p["outline"] for p in board["provinces"]}
    assert shared_borders(outline) == lines  # the drawn borders are the rules' neighbours
    for p, province in enumerate(board["provinces"]):
        assert province["id"] == china.PROVINCES[p]
        assert province["colour"] == china.COLOURS[china.PROVINCE_COLOUR[p]]
        assert province["spaces"] == [china.SPACES[s] for s in china.PROVINCE_SPACES[p]]
        assert {frozenset((province["id"], n)) for n in province["neighbours"]} <= lines
    for s, space in enumerate(board["spaces"]):
        assert space["provinces"] == [china.PROVINCES[p] for p in china.SPACE_PROVINCES[s]]
        assert space["port"] == (s in china.PORTS) and space["border"] == china.IS_BORDER[s]
        if not space["border"]:
            assert inside(tuple(space["at"]), outline[space["provinces"][0]]), space["id"]


def test_confucius_every_place_and_order_of_the_rules_is_on_the_board(published):
    """R2: seven official spaces per ministry, each linked to the next in seniority; the Great Wall's
    spaces in order; the foreign-land positions with their deadlines; the distant lands."""
    board = published["confucius"]
    places = {p["id"]: p for p in board["places"]}
    links = {(e["from"], e["to"], e["kind"]) for e in board["links"]}
    assert board["ministries"] == list(confucius.MINISTRIES)
    for ministry in confucius.MINISTRIES:
        spaces = [f"{ministry}_space_{k}" for k in range(1, confucius.SPACES + 1)]
        assert all(places[s]["ministry"] == ministry for s in spaces)
        assert all((a, b, "more_senior_than") in links for a, b in itertools.pairwise(spaces))
    wall = [p for p in board["places"] if p["type"] == "great_wall_space"]
    assert len(wall) == confucius.WALL_SPACES
    assert all((a["id"], b["id"], "next_wall_space") in links for a, b in itertools.pairwise(wall))
    lands = [p["id"].removeprefix("distant_land_") for p in board["places"] if p["type"] == "distant_land"]
    assert lands == list(confucius.DISTANT_LANDS)
    deadlines = sorted(
        int(e["from"].removeprefix("wall_")) for e in board["links"] if e["kind"] == "invasion_deadline"
    )
    assert deadlines == sorted(confucius.DEADLINES)
    boxes = [p["at"] for p in board["places"]]
    for (ax, ay, aw, ah), (bx, by, bw, bh) in itertools.combinations(boxes, 2):
        assert not (ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah)  # no place hides one


def test_year_of_dragon_board_names_what_the_rules_use(published):
    board = published["year_of_dragon"]
    assert board["months"] == yotd.ROUNDS and board["max_floors"] == yotd.MAX_FLOORS
    assert [t["id"] for t in board["person_types"]] == list(yotd.TYPE_IDS)
    assert [a["id"] for a in board["actions"]] == list(yotd.ACTION_IDS)
    assert [e["id"] for e in board["events"]] == list(yotd.EVENT_IDS)
