"""Component data (RULES.md §1) as the engine loads it from components.json: the sourced facts must
hold, and the reconstructed parts must be read from the data rather than assumed (R2, C1-C3)."""

from __future__ import annotations

from collections import Counter

from engine.games.taj_mahal import scoring
from engine.games.taj_mahal.components import CARD, COLORED, GOOD, POINTS, SPECIAL, STANDARD, WHITE
from engine.games.taj_mahal.scenario import build, join_maps, ring

COMP = STANDARD


def _symbols(card: int) -> list[str]:
    return sorted(COMP.symbols[s] for s in COMP.card_symbols[card])


def test_board_has_the_sourced_shape():
    """R1: 12 provinces, eleven of 4 cities and Agra of 5 (49 in all); 16 fortified cities, Agra's
    only fortress being the Agra city; a ring of 4 roads in each province; other roads only join
    neighbouring provinces."""
    assert len(COMP.province_ids) == 12 and len(COMP.city_ids) == 49
    sizes = Counter(len(cities) for cities in COMP.province_cities)
    assert sizes == {4: 11, 5: 1}
    assert sum(COMP.city_fortified) == 16
    agra = COMP.province_ids.index("agra")
    forts = [COMP.city_ids[c] for c in COMP.province_cities[agra] if COMP.city_fortified[c]]
    assert forts == ["agra-city"]
    neighbours = {p["id"]: set(p["neighbours"]) for p in COMP.raw["map"]["provinces"]}
    for a, b in COMP.raw["map"]["roads"]:
        pa, pb = (COMP.province_ids[COMP.city_province[COMP.city_index[c]]] for c in (a, b))
        assert pa == pb or pb in neighbours[pa], (a, b)
    for cities in COMP.province_cities:
        ring_cities = [c for c in cities if COMP.city_ids[c] != "agra-city"]
        inner = [sum(n in ring_cities for n in COMP.neighbours[c]) for c in ring_cities]
        assert inner == [2, 2, 2, 2]  # each ring city has its two ring neighbours


def test_map_is_read_from_data():
    """R2: the engine takes roads from the map data: the same palaces score a connection only on the
    fixture map that has the road."""

    def points(roads: tuple[tuple[str, str], ...]) -> int:
        s = build(
            {
                "players": 3,
                "map": join_maps(ring("A"), ring("B"), roads=roads),
                "tiles": {"B": 1, "A": 2},
                "visit": 2,
                "court": ["general", "monk", "princess", "grand_mogul", "elephant"],
                "palaces": {"A1": 0, "B1": 0},
                "seats": [{"out": True, "tiles": {"vizier": 1}}],
            }
        )
        return scoring.palace_points(s.comp, s, 0, s.tile_province[2])

    assert points((("A1", "B1"),)) == 2
    assert points(()) == 1


def test_province_tiles_show_the_sourced_goods():
    """R3: tile 1 shows rice; tiles 2-12 two different goods as in the table (S-NEST)."""
    table = {
        1: ["rice"],
        2: ["jewels", "tea"],
        3: ["spices", "jewels"],
        4: ["rice", "tea"],
        5: ["spices", "tea"],
        6: ["rice", "jewels"],
        7: ["rice", "spices"],
        8: ["rice", "jewels"],
        9: ["spices", "tea"],
        10: ["spices", "jewels"],
        11: ["rice", "tea"],
        12: ["rice", "spices"],
    }
    loaded = {n: [COMP.goods[g] for g in COMP.tile_goods[n]] for n in range(1, 13)}
    assert loaded == table
    totals = Counter(g for goods in table.values() for g in goods)
    assert totals == {"rice": 7, "tea": 5, "spices": 6, "jewels": 5}


def test_bonus_tiles():
    """R4: 16 bonus tiles: the Taj Mahal (4 points, fixed on the Agra city) and 15 square tiles of the
    kinds +2 points, +1 card and one good; only goods are kept (R42); with the province tiles every
    good totals 8 (the reconstructed split)."""
    assert len(COMP.bonus_ids) == 16
    taj = COMP.bonus_ids.index("taj-mahal")
    assert (COMP.bonus_kind[taj], COMP.bonus_value[taj]) == (POINTS, 4)
    assert COMP.bonus_fixed_city[taj] == "agra-city"
    assert all(t["kept"] == (t["type"] == "good") for t in COMP.raw["bonus_tiles"]["tiles"])
    square = [b for b in range(16) if b != taj]
    assert all(COMP.bonus_fixed_city[b] is None for b in square)
    kinds = Counter((COMP.bonus_kind[b], COMP.bonus_value[b]) for b in square if COMP.bonus_kind[b] != GOOD)
    assert kinds == {(POINTS, 2): 3, (CARD, 1): 3}
    goods = Counter(COMP.goods[COMP.bonus_value[b]] for b in square if COMP.bonus_kind[b] == GOOD)
    province = Counter(COMP.goods[g] for goods_ in COMP.tile_goods for g in goods_)
    assert goods + province == {"rice": 8, "tea": 8, "spices": 8, "jewels": 8}


def test_influence_tiles():
    """R5: 24 oval tiles, 6 of each influence type; the influence types are the first four symbols."""
    assert COMP.influence == ("vizier", "general", "monk", "princess")
    assert COMP.influence_per_type * len(COMP.influence) == 24
    assert COMP.symbols[:4] == COMP.influence


def test_cards():
    """R7: 96 normal cards (21 per colour, 12 white) and 4 special cards; coloured cards show two
    symbols (two different, or two elephants), white cards one (one of each character, 7 elephants);
    the special cards and the influence type whose two tiles earn each (R56)."""
    normal = COMP.normal_cards
    assert len(normal) == 96 and len(COMP.special_cards) == 4
    per_colour = Counter(COMP.colours[COMP.card_colour[c]] for c in normal if COMP.card_kind[c] == COLORED)
    assert per_colour == {"red": 21, "green": 21, "yellow": 21, "purple": 21}
    for c in normal:
        symbols = _symbols(c)
        if COMP.card_kind[c] == COLORED:
            assert len(symbols) == 2 and (symbols[0] != symbols[1] or symbols[0] == "elephant")
    whites = Counter(_symbols(c)[0] for c in normal if COMP.card_kind[c] == WHITE)
    assert whites == {"elephant": 7, "vizier": 1, "general": 1, "monk": 1, "princess": 1, "grand_mogul": 1}
    earned = {t: COMP.card_ids[COMP.special_for_type[i]] for i, t in enumerate(COMP.influence)}
    assert earned == {
        "general": "special-elephant",
        "princess": "special-two-points",
        "vizier": "special-grand-mogul",
        "monk": "special-any-colour",
    }
    printed = {COMP.card_ids[c]: _symbols(c) for c in COMP.special_cards}
    assert printed == {
        "special-elephant": ["elephant"],
        "special-grand-mogul": ["grand_mogul"],
        "special-two-points": [],
        "special-any-colour": [],
    }
    assert all(COMP.card_kind[c] == SPECIAL for c in COMP.special_cards)
