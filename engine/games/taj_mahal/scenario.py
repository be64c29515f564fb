"""Scenario builder: a valid Taj Mahal state from a compact description (the notation of examples.md).

Tests build positions with :func:`build` instead of poking fields, and the builder refuses states the
rules cannot reach.  Only the facts that matter are given; everything else takes the defaults below.

Cards are written as in examples.md: ``"red[E,V]"``, ``"white[K]"`` (symbols V vizier, G general,
M monk, P princess, K grand mogul, E elephant, in any order) and the special cards ``"SP+1E"``,
``"SP+1K"``, ``"SP+2"``, ``"SPANY"``; a card id (``"red-03"``) works too.  A written card takes an unused
matching card of the deck list; when none is left (the deck list is partly a reconstruction, R7, C1) a
fixture card is added to the state's own copy of the components, as is a fixture bonus tile.

Spec keys (all optional but ``players``)::

    players   3-5
    seed      seeds the state's RNG and the placement of unspecified cards (default 0)
    map       {"provinces": {pid: [city, ...]}, "roads": [[a, b], ...], "fortified": [city, ...]}
              (default: the board of components.json)
    tiles     {pid: tile number}: province tiles on the board (default: random, as R10)
    tile_goods {tile number: [good, ...]}: fixture goods printed on a province tile (default: R3)
    visit     the current visit = tile number of the current province (default: the lowest on the board)
    start     start player of the visit (default 0)
    to_move   seat on turn (default: the start player or, if he withdrew, the next one still in, R21)
    court     prizes still in the court, by symbol: vizier, general, monk, princess, grand_mogul (the
              crown), elephant (the province tile) (default: all)
    supply    {influence type: count} (default: what R5's 6 tiles per type leave)
    bonus     {city: "+2" | "+1" | "taj" | good}: bonus tiles lying on fortified cities (default none)
    palaces   {city: seat | [seat, seat]}: palaces on the board (a second one is an earlier crowned palace)
    crown     {"city": city, "seat": seat}: the crowned palace placed in this visit (crown not in court)
    display   list of cards, or a count (default 2 x players - 1 - 2 per withdrawn player, R48)
    discard   list of cards (oldest first), or a count (default 0)
    deck      list of cards, top first, or a count (default: every card not placed elsewhere)
    seats     list of per-seat dicts:
        score, hand (list or count, default 6), hand_public (cards in hand everybody saw taken from
        the display), specials, table (cards played this visit), colour (commitment; default: the
        table's colour; None after a lone play with the any-colour card, R26), out (withdrawn from
        this visit), tiles {influence type: count},
        province_tiles [numbers], bonus_goods [goods kept from bonus tiles]

Cards not placed anywhere are out of the game (scenarios need not hold all 96, as examples.md says).
"""

from __future__ import annotations

import copy
from typing import Any

from engine.core import Rng

from .components import ANY_COLOUR, COLORED, GOOD, SPECIAL, STANDARD, Components
from .setup import place_province_tiles
from .state import Player, State

LETTERS = {"V": "vizier", "G": "general", "M": "monk", "P": "princess", "K": "grand_mogul", "E": "elephant"}
SPECIALS = {
    "SP+1E": "special-elephant",
    "SP+1K": "special-grand-mogul",
    "SP+2": "special-two-points",
    "SPANY": "special-any-colour",
}
BONUS = {"+2": ("points", 2), "+1": ("card", 1), "taj": ("points", 4)}


class ImpossibleState(ValueError):
    """The description contradicts the rules (the message names the rule)."""


def _check(ok: bool, rule: str, message: str) -> None:
    if not ok:
        raise ImpossibleState(f"{rule}: {message}")


class _Kit:
    """Resolves card and bonus-tile names against components.json, adding fixtures when needed."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.raw = copy.deepcopy(STANDARD.raw)
        self.changed = False
        if "map" in spec:
            self.raw["map"] = _map_json(spec["map"])
            self.changed = True
        for number, goods in spec.get("tile_goods", {}).items():
            rows = [t for t in self.raw["province_tiles"]["tiles"] if t["number"] == number]
            _check(len(rows) == 1, "R3", f"no province tile {number}")
            _check(bool(goods) and set(goods) <= set(STANDARD.goods), "R3", f"tile {number}: goods {goods}")
            rows[0]["goods"] = list(goods)
            self.changed = True
        self.used_cards: set[str] = set()
        self.used_bonus: set[str] = set()

    def card(self, name: str) -> str:
        """The id of an unused card called ``name`` (a fixture card if the deck list has none)."""
        name = SPECIALS.get(name, name)
        cards = self.raw["cards"]
        rows = cards["colored"] + cards["white"] + cards["special"]
        if any(r["id"] == name for r in rows):
            _check(name not in self.used_cards, "R7", f"card {name} is used twice")
            self.used_cards.add(name)
            return name
        colour, symbols = parse_card(name)
        for r in rows:
            card_id: str = r["id"]
            if card_id not in self.used_cards and r["color"] == colour and sorted(r["symbols"]) == symbols:
                self.used_cards.add(card_id)
                return card_id
        kind = "white" if colour == "white" else "colored"
        _check(colour in STANDARD.colours or kind == "white", "R7", f"no card colour {colour!r}")
        fixture_id = f"fixture-{len(rows) + 1}"
        cards[kind].append({"id": fixture_id, "kind": kind, "color": colour, "symbols": symbols})
        self.used_cards.add(fixture_id)
        self.changed = True
        return fixture_id

    def bonus(self, name: str) -> str:
        """The id of an unused bonus tile of kind ``name`` (a fixture tile if none is left)."""
        kind, value = BONUS.get(name, ("good", name))
        _check(kind != "good" or value in STANDARD.goods, "R4", f"no bonus tile {name!r}")
        key = {"points": "points", "card": "cards", "good": "good"}[kind]
        tiles = self.raw["bonus_tiles"]["tiles"]
        for t in tiles:
            tile_id: str = t["id"]
            if tile_id not in self.used_bonus and t["type"] == kind and t[key] == value:
                self.used_bonus.add(tile_id)
                return tile_id
        fixture_id = f"fixture-bonus-{len(tiles) + 1}"
        tiles.append({"id": fixture_id, "type": kind, key: value, "kept": kind == "good"})
        self.used_bonus.add(fixture_id)
        self.changed = True
        return fixture_id

    def components(self) -> Components:
        return Components(self.raw) if self.changed else STANDARD


def parse_card(name: str) -> tuple[str, list[str]]:
    """``"red[E,V]"`` -> ``("red", ["elephant", "vizier"])`` (symbols sorted: their order is free)."""
    colour, _, rest = name.partition("[")
    _check(rest.endswith("]"), "R7", f"cannot read card {name!r} (write e.g. red[E,V] or SP+2)")
    _check(all(x.strip() in LETTERS for x in rest[:-1].split(",")), "R7", f"unknown symbol in {name!r}")
    return colour, sorted(LETTERS[x.strip()] for x in rest[:-1].split(","))


def card_named(comp: Components, cards: list[int], name: str) -> str:
    """The id of the first card of ``cards`` that ``name`` describes (tests pick cards by name)."""
    name = SPECIALS.get(name, name)
    if name in comp.card_index:
        found = [c for c in cards if comp.card_ids[c] == name]
    else:
        wanted = parse_card(name)
        found = [c for c in cards if comp.card_kind[c] != SPECIAL and _printed(comp, c) == wanted]
    if not found:
        raise KeyError(f"no {name} among {[comp.card_label(c) for c in cards]}")
    return comp.card_ids[found[0]]


def _printed(comp: Components, card: int) -> tuple[str, list[str]]:
    """What a normal card shows: its colour ("white" for white cards) and its sorted symbols."""
    colour = comp.colours[comp.card_colour[card]] if comp.card_colour[card] >= 0 else "white"
    return colour, sorted(comp.symbols[s] for s in comp.card_symbols[card])


def _map_json(board: dict[str, Any]) -> dict[str, Any]:
    """A fixture map in the shape of components.json's ``map`` (R2: any map data is accepted)."""
    fortified = set(board.get("fortified", []))
    cities = [
        {"id": city, "province": pid, "fortified": city in fortified}
        for pid, names in board["provinces"].items()
        for city in names
    ]
    known = {c["id"] for c in cities}
    _check(fortified <= known, "R2", f"unknown fortified cities {sorted(fortified - known)}")
    for road in board.get("roads", []):
        _check(set(road) <= known, "R2", f"road {road} joins an unknown city")
    provinces = [{"id": pid, "cities": list(names)} for pid, names in board["provinces"].items()]
    return {"provinces": provinces, "cities": cities, "roads": [list(r) for r in board.get("roads", [])]}


def ring(province: str, fortified: tuple[int, ...] = ()) -> dict[str, Any]:
    """examples.md's "ring" province: cities P1-P4 joined P1-P2-P3-P4-P1; ``fortified`` by number."""
    cities = [f"{province}{i}" for i in range(1, 5)]
    return {
        "provinces": {province: cities},
        "roads": [[cities[i], cities[(i + 1) % 4]] for i in range(4)],
        "fortified": [f"{province}{i}" for i in fortified],
    }


def join_maps(*maps: dict[str, Any], roads: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    """Several fixture maps as one, plus the extra ``roads`` between them."""
    return {
        "provinces": {pid: cities for m in maps for pid, cities in m["provinces"].items()},
        "roads": [r for m in maps for r in m["roads"]] + [list(r) for r in roads],
        "fortified": [c for m in maps for c in m["fortified"]],
    }


def build(spec: dict[str, Any]) -> State:
    """The state ``spec`` describes (see the module docstring), or :class:`ImpossibleState`."""
    n = spec["players"]
    _check(n in STANDARD.player_counts, "R10", f"Taj Mahal takes {STANDARD.player_counts} players")
    seats = list(spec.get("seats", []))
    _check(len(seats) <= n, "R16", "more seat descriptions than players")
    seats += [{}] * (n - len(seats))
    # Resolve every written card and bonus tile first: fixtures change the components.
    kit = _Kit(spec)
    lists = ("hand", "hand_public", "specials", "table")
    written = [{k: [kit.card(c) for c in _listed(seat, k)] for k in lists} for seat in seats]
    kept = [[kit.bonus(g) for g in seat.get("bonus_goods", [])] for seat in seats]
    piles = {k: [kit.card(c) for c in _listed(spec, k)] for k in ("display", "discard", "deck")}
    bonus = {city: kit.bonus(name) for city, name in spec.get("bonus", {}).items()}
    comp = kit.components()
    s = State(comp, n, spec.get("seed", 0))
    _place_tiles(s, spec)
    index = comp.card_index
    leftover = [c for c in comp.normal_cards if comp.card_ids[c] not in kit.used_cards]
    Rng(spec.get("seed", 0)).shuffle(leftover)

    def deal(count: int, what: str) -> list[int]:
        _check(count <= len(leftover), "R14", f"only {len(leftover)} cards left for the {what}")
        return [leftover.pop() for _ in range(count)]

    for i, seat in enumerate(seats):
        cards = {k: [index[c] for c in v] for k, v in written[i].items()}
        hand = seat.get("hand", comp.hand_size[n])
        if isinstance(hand, int):
            cards["hand"] = deal(hand, f"hand of seat {i}")
        _fill_player(s, i, seat, cards)
        for b in kept[i]:
            _keep_bonus_good(s, s.players[i], comp.bonus_ids.index(b))
    out = sum(not p.in_visit for p in s.players)
    _check(out < n, "R50", "nobody is left in the visit")
    most = comp.display_size[n] - 2 * out  # R48: each withdrawn player took 2
    for key, default in (("display", most), ("discard", 0), ("deck", None)):
        count = spec.get(key, default)
        count = len(leftover) if count is None else count
        pile = [index[c] for c in piles[key]] if isinstance(count, list) else deal(count, key)
        setattr(s, key, pile[::-1] if key == "deck" else pile)  # the deck's top is its end
    _check(len(s.display) <= most, "R48", f"at most {most} display cards are left")
    held = {c for p in s.players for c in p.specials + p.table}
    s.unowned_specials = [c for c in comp.special_cards if c not in held]  # R13
    for city, b in bonus.items():
        c = _city(comp, city)
        _check(comp.city_fortified[c], "R11", f"bonus tile on {city}, which is not fortified")
        s.bonus_on[c] = comp.bonus_ids.index(b)
    _place_court(s, spec)
    _place_palaces(s, spec)
    s.start = spec.get("start", 0)
    _check(0 <= s.start < n, "R18", "no such seat")
    in_visit = [seat % n for seat in range(s.start, s.start + n) if s.players[seat % n].in_visit]
    s.current = spec.get("to_move", in_visit[0] if in_visit else s.start)
    _check(0 <= s.current < n, "R21", "no such seat")
    _check(s.players[s.current].in_visit, "R21", "the seat to move has withdrawn")
    return s


def _listed(desc: dict[str, Any], key: str) -> list[str]:
    """The cards written out under ``key`` (a count instead of a list means random cards)."""
    value = desc.get(key, [])
    return value if isinstance(value, list) else []


def _keep_bonus_good(s: State, p: Player, bonus: int) -> None:
    _check(s.comp.bonus_kind[bonus] == GOOD, "R42", "only goods bonus tiles are kept")
    p.bonus_goods.append(bonus)
    p.goods[s.comp.bonus_value[bonus]] += 1


def _city(comp: Components, name: str) -> int:
    _check(name in comp.city_index, "R2", f"no city {name!r} on the map")
    return comp.city_index[name]


def _place_tiles(s: State, spec: dict[str, Any]) -> None:
    """R10, R19: province tiles on the board and the current visit."""
    comp = s.comp
    tiles = spec.get("tiles")
    if tiles is None:
        _check("map" not in spec, "R10", "a fixture map needs its province tiles ('tiles')")
        place_province_tiles(s, Rng(spec.get("seed", 0)))
        tiles = {}
    for pid, number in tiles.items():
        _check(pid in comp.province_ids, "R2", f"no province {pid!r}")
        _check(0 < number < len(comp.tile_goods) and s.tile_province[number] < 0, "R3", f"bad tile {number}")
        s.tile_province[number] = comp.province_ids.index(pid)
    on_board = [t for t, p in enumerate(s.tile_province) if p >= 0]
    s.visit = spec.get("visit", min(on_board))
    _check(s.visit in on_board, "R19", f"visit {s.visit}: no province shows that tile")


def _fill_player(s: State, seat: int, desc: dict[str, Any], cards: dict[str, list[int]]) -> None:
    """One seat: hand, table (R24-R26 shape and colour lock), withdrawal, tiles, goods (R43)."""
    comp = s.comp
    p = s.players[seat]
    kinds = comp.card_kind
    for c in cards["hand"] + cards["hand_public"]:
        _check(kinds[c] != SPECIAL, "R59", "special cards are listed under 'specials'")
    for c in cards["specials"]:
        _check(kinds[c] == SPECIAL, "R59", f"{comp.card_ids[c]} is not a special card")
    p.hand = cards["hand"] + cards["hand_public"]
    p.known = list(cards["hand_public"])
    p.specials = cards["specials"]
    p.score = desc.get("score", 0)
    p.in_visit = not desc.get("out", False)
    table = p.table = cards["table"]
    _check(p.in_visit or not table, "R40", f"seat {seat} withdrew, so its cards left the table")
    coloured = [c for c in table if kinds[c] == COLORED]
    _check(len(table) <= 2 * len(coloured), "R24", f"seat {seat}: each extra card needs its coloured card")
    for c in table:
        for sym in comp.card_symbols[c]:
            p.counts[sym] += 1
    colours = [comp.colours[comp.card_colour[c]] for c in coloured]
    lifted = any(comp.card_effect[c] == ANY_COLOUR for c in table)  # R26: one card of any colour
    if "colour" in desc:  # None: uncommitted, possible only after a play with the any-colour card
        colour = desc["colour"]
        _check(colour is None or colour in colours, "R25", f"seat {seat}: no {colour} card fixed it")
    else:
        colour = colours[0] if len(set(colours)) == 1 else None
        _check(colour is not None or not colours, "R25", f"seat {seat}: say which colour is committed")
    _check(sum(x != colour for x in colours) <= lifted, "R25", f"seat {seat}: a card off its colour")
    p.colour = comp.colours.index(colour) if colour is not None else -1
    for t, count in desc.get("tiles", {}).items():
        _check(count <= 2, "R51", "nobody keeps more than one tile of a type between visits")
        p.tiles[comp.influence.index(t)] = count
    for number in desc.get("province_tiles", []):
        _check(number <= s.visit, "R19", f"tile {number} has not been visited yet")
        p.province_tiles.append(number)
        for g in comp.tile_goods[number]:
            p.goods[g] += 1


def _place_court(s: State, spec: dict[str, Any]) -> None:
    """R12, R17, R55: the court's prizes; each prize missing from it was won in this visit."""
    comp = s.comp
    court = set(spec.get("court", comp.symbols))
    _check(court <= set(comp.symbols), "R12", f"unknown prizes {sorted(court - set(comp.symbols))}")
    s.court = [sym in court for sym in comp.symbols]
    out = [p for p in s.players if not p.in_visit]
    owners = [p for p in s.players if s.visit in p.province_tiles]
    _check(len(owners) <= 1, "R39", "two players own the same province tile")
    in_court = "elephant" in court
    _check(
        not owners if in_court else bool(owners) and owners[0] in out,
        "R39",
        "the province tile is in the court unless a withdrawn player won it in this visit",
    )
    for t, name in enumerate(comp.influence):
        held = sum(p.tiles[t] for p in s.players)
        _check(name in court or any(p.tiles[t] for p in out), "R34", f"the {name} tile left the court unwon")
        _check(
            all(p.tiles[t] < 2 or (p in out and name not in court) for p in s.players),
            "R51",
            f"two {name} tiles are exchanged at the end of the visit that gave the second one",
        )
        supply = spec.get("supply", {}).get(name, comp.influence_per_type - held - (name in court))
        _check(
            supply >= 0 and supply + held + (name in court) == comp.influence_per_type,
            "R5",
            f"{comp.influence_per_type} {name} tiles exist",
        )
        s.supply[t] = supply


def _place_palaces(s: State, spec: dict[str, Any]) -> None:
    """R36-R38, R54: palaces on the board.  Those in the current province were placed in this visit by
    players who withdrew; this visit's crowned palace stands there exactly when the crown left the court."""
    comp = s.comp
    province = s.tile_province[s.visit]

    def put(city: str, seat: int, where: list[int]) -> None:
        c = _city(comp, city)
        _check(0 <= seat < s.n, "R16", f"{city}: no seat {seat}")
        _check(where[c] < 0, "R37", f"{city}: one regular palace plus at most one crowned palace")
        _check(
            comp.city_province[c] != province or not s.players[seat].in_visit,
            "R36",
            f"{city}: seat {seat} is still in the visit, so it placed no palace here",
        )
        where[c] = seat

    for city, owners in spec.get("palaces", {}).items():
        owners = owners if isinstance(owners, list) else [owners]
        _check(len(owners) <= 2, "R37", f"{city}: one regular palace plus at most one crowned palace")
        put(city, owners[0], s.regular)
        if len(owners) == 2:
            _check(comp.city_province[_city(comp, city)] != province, "R37", "use 'crown' in this province")
            put(city, owners[1], s.crowned)
        _check(s.bonus_on[_city(comp, city)] < 0, "R38", f"{city}: its regular palace took the bonus tile")
    for seat, p in enumerate(s.players):  # R34: one regular palace per influence tile won this visit
        here = sum(s.regular[c] == seat for c in comp.province_cities[province])
        won = sum(1 for t, n in enumerate(p.tiles) if n and not s.court[t])
        _check(here <= won, "R34", f"seat {seat} placed {here} palaces here but won {won} influence tiles")
    crown = spec.get("crown")
    _check(
        (crown is None) == s.court[comp.grand_mogul],
        "R35",
        "the crowned palace of this visit stands on the board exactly when the crown has left the court",
    )
    if crown is not None:
        put(crown["city"], crown["seat"], s.crowned)
        s.crown_city = _city(comp, crown["city"])
        _check(comp.city_province[s.crown_city] == province, "R37", "it stands in the current province")
