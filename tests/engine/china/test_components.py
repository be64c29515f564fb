"""The reference board and card data (components.json) satisfy every fact RULES.md fixes (R5, R8-R14)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from engine.games.china import GAME
from engine.games.china import components as c

RAW = json.loads(Path(c.__file__).with_name("components.json").read_text(encoding="utf-8"))
BOARD = RAW["board"]


def test_cards():
    """R5, R16: 57 cards, red 13, green 12, orange 11, yellow 11, violet 10; removal per player count."""
    assert dict(zip(c.COLOURS, c.COLOUR_COUNTS, strict=True)) == {
        "red": 13,
        "green": 12,
        "orange": 11,
        "yellow": 11,
        "violet": 10,
    }
    assert Counter(c.CARD_COLOUR.values()) == dict(enumerate(c.COLOUR_COUNTS))
    assert c.REMOVED_PER_COLOUR == {3: 2, 4: 1, 5: 0}


def test_provinces_and_colours():
    """R10: 9 provinces, 2 each of red, green, orange, yellow and 1 violet, which is the largest;
    4-8 spaces each; the seed's colours (WEI red, QI and QIN yellow, ZHOU violet)."""
    colours = Counter(c.COLOURS[k] for k in c.PROVINCE_COLOUR)
    assert colours == {"red": 2, "green": 2, "orange": 2, "yellow": 2, "violet": 1}
    sizes = {p: len(spaces) for p, spaces in zip(c.PROVINCES, c.PROVINCE_SPACES, strict=True)}
    assert all(4 <= k <= 8 for k in sizes.values())
    violet = c.PROVINCES[c.PROVINCE_COLOUR.index(c.COLOUR_INDEX["violet"])]
    assert sizes[violet] == max(sizes.values()) and violet == "ZHOU"
    colour_of = {p: c.COLOURS[k] for p, k in zip(c.PROVINCES, c.PROVINCE_COLOUR, strict=True)}
    assert (colour_of["WEI"], colour_of["QI"], colour_of["QIN"]) == ("red", "yellow", "yellow")
    assert sizes["WEI"] == 7  # seed example 4 fills WEI with its 7th house


def test_spaces_ports_and_borders():
    """R9, R13, R14: 50 spaces, 7 ports (never on a border), 6 border spaces each in two provinces of
    different colours that are neighbours; province and space records agree."""
    assert len(c.SPACES) == BOARD["totals"]["distinct_house_spaces"] == 50
    assert len(c.PORTS) == 7 and not any(c.IS_BORDER[s] for s in c.PORTS)
    borders = [s for s in range(len(c.SPACES)) if c.IS_BORDER[s]]
    assert len(borders) == 6
    lines = {frozenset(line) for line in c.ALLIANCE_LINES}
    for s in borders:
        p, q = c.SPACE_PROVINCES[s]
        assert c.PROVINCE_COLOUR[p] != c.PROVINCE_COLOUR[q]
        assert frozenset((p, q)) in lines
    for p, spaces in enumerate(c.PROVINCE_SPACES):
        assert sorted(spaces) == sorted(s for s in range(len(c.SPACES)) if p in c.SPACE_PROVINCES[s])
    for record in BOARD["provinces"]:
        assert set(record["port_spaces"]) == {c.SPACES[s] for s in c.PORTS} & set(record["spaces"])


def test_alliance_lines_and_roads():
    """R10, R11, R12: 15 alliance lines between provinces of different colours (same colours never
    border); 56 road segments, and every space lies on at least one road."""
    assert len(c.ALLIANCE_LINES) == 15 == len({frozenset(line) for line in c.ALLIANCE_LINES})
    assert all(c.PROVINCE_COLOUR[p] != c.PROVINCE_COLOUR[q] for p, q in c.ALLIANCE_LINES)
    assert len(BOARD["roads"]) == BOARD["totals"]["roads"] == 56
    assert sum(len(n) for n in c.ROAD_NEIGHBOURS) == 2 * 56
    assert all(c.ROAD_NEIGHBOURS[s] for s in range(len(c.SPACES)))


def test_pieces():
    """R6, R17, R18: 20 houses and 8 placeable emissaries per player; hands of 3; display of 4."""
    assert (c.HOUSES, c.EMISSARIES, c.HAND_SIZE, c.DISPLAY_SIZE) == (20, 8, 3, 4)
    assert c.PLAYER_COUNTS == (3, 4, 5)


def test_province_names():
    """R4: the seed's Hungarian names map to Wei, Zhao, Qi, Qin, Zhou (Vej, Csao, Csi, Csin, Csou);
    Han, Yan and Wu and the red placeholder XRED complete the nine; ids are the upper-case names."""
    names = {p["id"]: p["name"] for p in BOARD["provinces"]}
    named = {p.upper(): p for p in ("Yan", "Zhao", "Qin", "Wei", "Qi", "Han", "Zhou", "Wu")}
    assert names == {**named, "XRED": "Red placeholder"}
    seed = {p["seed_name_hu"]: p["id"] for p in BOARD["provinces"] if p["seed_name_hu"]}
    assert seed == {"Vej": "WEI", "Csao": "ZHAO", "Csi": "QI", "Csin": "QIN", "Csou": "ZHOU"}
    assert tuple(names) == c.PROVINCES


def test_no_red_province_carries_the_name_of_the_violet_chu():
    """R4 (conflict note), R10: a 2005 review names the single violet province Chu, so the red
    placeholder is XRED and no province, space or border space of another colour is called Chu."""
    colour = {p["id"]: p["color"] for p in BOARD["provinces"]}
    assert [pid for pid, col in colour.items() if col == "violet"] == ["ZHOU"]
    assert colour["XRED"] == "red"
    ids = [*colour, *c.SPACES]
    assert not [i for i in ids if "CHU" in i]
    assert not [p for p in BOARD["provinces"] if p["name"].lower() == "chu" and p["color"] != "violet"]


def test_every_province_has_house_spaces_and_one_dragon_seal():
    """R8: each province has house spaces and exactly one dragon seal, which the view shows as one
    emissary count per seat."""
    assert all(p["has_dragon_seal"] and p["spaces"] for p in BOARD["provinces"])
    view = GAME.view(GAME.setup(3, None, seed=1), None)
    assert view["board"]["seals"] == {p: [0, 0, 0] for p in c.PROVINCES}
