"""Component data of Taj Mahal, read from components.json into tuples the rules index quickly.

Parts of the data are reconstructions (map, card pairs, bonus-tile split: RULES.md R2, R4, R7, C1-C3), so
nothing in the rules hard-codes them: every rule reads a :class:`Components` object.  The standard one is
built once from the packaged components.json; the scenario builder builds others from the same JSON shape
(fixture maps, extra fixture cards or bonus tiles) and states carry theirs, so a fixture state encodes and
replays like a real one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).with_name("components.json")

# Card kinds (R7).
COLORED, WHITE, SPECIAL = 0, 1, 2
# Special-card effects without a symbol (R26, R27); symbol specials count like white cards (R28).
NO_EFFECT, TWO_POINTS, ANY_COLOUR = 0, 1, 2
_EFFECT_OF_SPECIAL = {"special-two-points": TWO_POINTS, "special-any-colour": ANY_COLOUR}
# Bonus-tile kinds (R4, R42).
POINTS, CARD, GOOD = 0, 1, 2
_BONUS_KIND = {"points": POINTS, "card": CARD, "good": GOOD}

NO_CARD = ""  # the ``extra`` field of a play without an extra card


class Components:
    """Everything printed on the components, indexed: cards, tiles, map.

    ``raw`` is the JSON-shaped source (kept so a non-standard kit can be encoded with its state).
    Symbols are indexed in the order of ``symbols.list``; the four influence types come first (R5).
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.symbols: tuple[str, ...] = tuple(raw["symbols"]["list"])
        self.influence: tuple[str, ...] = tuple(raw["influence_tiles"]["types"])
        if self.symbols[: len(self.influence)] != self.influence:
            raise ValueError("the influence types must be the first symbols")
        self.grand_mogul = self.symbols.index("grand_mogul")
        self.elephant = self.symbols.index("elephant")
        self.goods: tuple[str, ...] = tuple(raw["goods"]["list"])
        self.influence_per_type: int = raw["influence_tiles"]["per_type"]
        table = raw["player_counts"]["table"]
        self.player_counts: tuple[int, ...] = tuple(raw["player_counts"]["supported"])
        self.hand_size = {int(n): row["hand_size"] for n, row in table.items()}
        self.display_size = {int(n): row["display_size"] for n, row in table.items()}
        self._load_cards(raw["cards"])
        self._load_tiles(raw["province_tiles"], raw["bonus_tiles"])
        self._load_map(raw["map"])

    def _load_cards(self, cards: dict[str, Any]) -> None:
        rows = cards["colored"] + cards["white"] + cards["special"]
        sym = {s: i for i, s in enumerate(self.symbols)}
        self.colours: tuple[str, ...] = tuple(dict.fromkeys(r["color"] for r in cards["colored"]))
        self.card_ids: tuple[str, ...] = tuple(r["id"] for r in rows)
        self.card_index = {cid: i for i, cid in enumerate(self.card_ids)}
        if len(self.card_index) != len(rows):
            raise ValueError("card ids must be unique")
        kinds = {"colored": COLORED, "white": WHITE, "special": SPECIAL}
        self.card_kind: tuple[int, ...] = tuple(kinds[r["kind"]] for r in rows)
        self.card_colour: tuple[int, ...] = tuple(
            self.colours.index(r["color"]) if r["kind"] == "colored" else -1 for r in rows
        )
        self.card_symbols: tuple[tuple[int, ...], ...] = tuple(
            tuple(sym[s] for s in r["symbols"]) for r in rows
        )
        self.card_effect: tuple[int, ...] = tuple(_EFFECT_OF_SPECIAL.get(r["id"], NO_EFFECT) for r in rows)
        #: What :meth:`card_json` prints of each card, looked up once: a view lists dozens of cards.
        self.card_printed: tuple[tuple[str, str, str | None, tuple[str, ...]], ...] = tuple(
            (
                self.card_ids[i],
                ("colored", "white", "special")[kind],
                self.colours[self.card_colour[i]] if kind == COLORED else None,
                tuple(self.symbols[s] for s in self.card_symbols[i]),
            )
            for i, kind in enumerate(self.card_kind)
        )
        self.normal_cards: tuple[int, ...] = tuple(i for i, k in enumerate(self.card_kind) if k != SPECIAL)
        self.special_cards: tuple[int, ...] = tuple(i for i, k in enumerate(self.card_kind) if k == SPECIAL)
        # R56: influence type -> the special card two tiles of that type earn.
        earned = {r["earned_by_two"]: self.card_index[r["id"]] for r in cards["special"]}
        self.special_for_type: tuple[int, ...] = tuple(earned[t] for t in self.influence)
        for i, r in enumerate(rows):  # R7: coloured cards show 2 symbols, white cards 1
            want = {"colored": 2, "white": 1}.get(r["kind"])
            if want is not None and len(self.card_symbols[i]) != want:
                raise ValueError(f"card {r['id']} must show {want} symbol(s)")

    def _load_tiles(self, province: dict[str, Any], bonus: dict[str, Any]) -> None:
        good = {g: i for i, g in enumerate(self.goods)}
        numbers = [t["number"] for t in province["tiles"]]
        if numbers != list(range(1, len(numbers) + 1)):
            raise ValueError("province tiles must be numbered 1..n in order")
        # tile_goods[number] -> goods indices; index 0 unused so tile numbers index directly.
        self.tile_goods: tuple[tuple[int, ...], ...] = (
            (),
            *(tuple(good[g] for g in t["goods"]) for t in province["tiles"]),
        )
        self.fixed_tiles: dict[int, str] = {int(n): p for n, p in province.get("fixed_placement", {}).items()}
        rows = bonus["tiles"]
        self.bonus_ids: tuple[str, ...] = tuple(r["id"] for r in rows)
        self.bonus_kind: tuple[int, ...] = tuple(_BONUS_KIND[r["type"]] for r in rows)
        self.bonus_value: tuple[int, ...] = tuple(
            r["points"] if r["type"] == "points" else r["cards"] if r["type"] == "card" else good[r["good"]]
            for r in rows
        )
        self.bonus_fixed_city: tuple[str | None, ...] = tuple(r.get("fixed_city") for r in rows)

    def _load_map(self, board: dict[str, Any]) -> None:
        provinces = board["provinces"]
        self.province_ids: tuple[str, ...] = tuple(p["id"] for p in provinces)
        self.city_ids: tuple[str, ...] = tuple(c["id"] for c in board["cities"])
        self.city_index = {cid: i for i, cid in enumerate(self.city_ids)}
        prov = {pid: i for i, pid in enumerate(self.province_ids)}
        self.city_province: tuple[int, ...] = tuple(prov[c["province"]] for c in board["cities"])
        self.city_fortified: tuple[bool, ...] = tuple(bool(c["fortified"]) for c in board["cities"])
        self.province_cities: tuple[tuple[int, ...], ...] = tuple(
            tuple(self.city_index[c] for c in p["cities"]) for p in provinces
        )
        for pi, cities in enumerate(self.province_cities):
            if any(self.city_province[c] != pi for c in cities):
                raise ValueError(f"province {self.province_ids[pi]} lists a city of another province")
        adjacent: list[set[int]] = [set() for _ in self.city_ids]
        for a, b in board["roads"]:  # R1: roads are undirected
            ia, ib = self.city_index[a], self.city_index[b]
            adjacent[ia].add(ib)
            adjacent[ib].add(ia)
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(tuple(sorted(n)) for n in adjacent)

    def card_label(self, card: int) -> str:
        """``red[elephant,vizier]``: how examples.md names a card (by colour and symbols, not id)."""
        colour = self.colours[self.card_colour[card]] if self.card_kind[card] == COLORED else "white"
        if self.card_kind[card] == SPECIAL:
            return self.card_ids[card]
        return f"{colour}[{','.join(self.symbols[s] for s in self.card_symbols[card])}]"

    def card_json(self, card: int) -> dict[str, Any]:
        """A card as views show it: id plus what is printed on it, so clients need no lookup table."""
        cid, kind, colour, symbols = self.card_printed[card]
        return {"id": cid, "kind": kind, "colour": colour, "symbols": list(symbols)}

    def bonus_json(self, bonus: int) -> dict[str, Any]:
        """A bonus tile as views show it (R42): points, extra cards, or a good."""
        kind = self.bonus_kind[bonus]
        value = self.bonus_value[bonus]
        return {
            "id": self.bonus_ids[bonus],
            "kind": ("points", "card", "good")[kind],
            "value": self.goods[value] if kind == GOOD else value,
        }


def _load_standard() -> Components:
    with DATA_FILE.open(encoding="utf-8") as fh:
        return Components(json.load(fh))


STANDARD = _load_standard()

#: What in the standard data is a reconstruction rather than the printed component (RULES.md says
#: where): published by ``GET /v1/games/taj_mahal`` as ``data_notes`` so integrators and players know.
DATA_NOTES: tuple[dict[str, Any], ...] = (
    {
        "component": "map",
        "rules": ["R2", "C3"],
        "note": "The road graph (which city connects to which) and which cities other than Agra are "
        "fortified are a reconstruction that keeps every sourced fact (12 provinces, 49 cities, 16 "
        "fortified, a ring of 4 roads per province); the province names other than Agra are readable "
        "ids, not printed names.",
    },
    {
        "component": "bonus tiles",
        "rules": ["R4", "C3"],
        "note": "The split of the 15 square bonus tiles (3 x +2 points, 3 x +1 card, goods rice 1, tea 3, "
        "spices 2, jewels 3) is a reconstruction.",
    },
    {
        "component": "coloured cards",
        "rules": ["R7", "C1"],
        "note": "Which symbol pairs the five two-character cards of each colour show is a "
        "reconstruction (each of the 10 possible pairs twice in the deck); the per-colour symbol "
        "counts are low to medium confidence.",
    },
    {
        "component": "special cards",
        "rules": ["R7", "C2"],
        "note": "Which influence earns the +1 grand mogul card (vizier) and the any-colour card (monk) "
        "is inferred by elimination, not sourced; the general and princess pairings are sourced.",
    },
)
