"""components.json, loaded once into flat tuples the rules index by small integers.

Everything the rules need to know about tiles, cards, events and numbers comes from here, so correcting a
value means editing the JSON alone.  Indices:

* *tile kinds* (0..14): one per person tile face, young before old, in the JSON's person order; young-only
  types use the bare type id (``"craftsman"``), split types ``"<type>_y"`` / ``"<type>_o"``;
* *person types* (0..8) in the JSON's person order; a person *card* is a type index, or ``WILD`` (9);
* *actions* (0..6) and *event types* (0..5) in JSON order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DATA: dict[str, Any] = json.loads((Path(__file__).parent / "components.json").read_text(encoding="utf-8"))

# -- persons (R1, R2, R10) ----------------------------------------------------------------------------

TYPE_IDS: tuple[str, ...] = tuple(t["id"] for t in _DATA["person_types"])
TYPE_INDEX: dict[str, int] = {t: i for i, t in enumerate(TYPE_IDS)}


def _tiles() -> list[tuple[str, int, bool, int, int]]:
    """(tile id, type index, young?, value, symbols) for every tile face."""
    out = []
    for t, spec in enumerate(_DATA["person_types"]):
        ages = [("young", True)] if spec["young_only"] else [("young", True), ("old", False)]
        for age, young in ages:
            tile_id = spec["id"] if spec["young_only"] else f"{spec['id']}_{age[0]}"
            out.append((tile_id, t, young, spec[age]["value"], spec[age]["symbols"]))
    return out


_TILE_ROWS = _tiles()
TILE_IDS: tuple[str, ...] = tuple(r[0] for r in _TILE_ROWS)
TILE_INDEX: dict[str, int] = {tid: k for k, tid in enumerate(TILE_IDS)}
TILE_TYPE: tuple[int, ...] = tuple(r[1] for r in _TILE_ROWS)
TILE_YOUNG: tuple[bool, ...] = tuple(r[2] for r in _TILE_ROWS)
TILE_VALUE: tuple[int, ...] = tuple(r[3] for r in _TILE_ROWS)
TILE_SYMBOLS: tuple[int, ...] = tuple(r[4] for r in _TILE_ROWS)
NUM_TILES = len(TILE_IDS)
#: Tile kinds of each person type, young first.
TYPE_TILES: tuple[tuple[int, ...], ...] = tuple(
    tuple(k for k in range(NUM_TILES) if TILE_TYPE[k] == t) for t in range(len(TYPE_IDS))
)
YOUNG_TILES: tuple[int, ...] = tuple(tiles[0] for tiles in TYPE_TILES)


def _symbol_weights(type_id: str) -> tuple[int, ...]:
    """Per tile kind, how many symbols of ``type_id`` it shows (0 for other types): summing it over a
    player's persons counts his coins, hammers, helmets... (R27)."""
    t = TYPE_INDEX[type_id]
    return tuple(TILE_SYMBOLS[k] if TILE_TYPE[k] == t else 0 for k in range(NUM_TILES))


COURT_LADY, WARRIOR, MONK, HEALER = (TYPE_INDEX[t] for t in ("court_lady", "warrior", "monk", "healer"))
#: Symbol weights per person type (index = type): ``SYMBOLS[WARRIOR][k]`` = helmets on tile kind k.
SYMBOLS: tuple[tuple[int, ...], ...] = tuple(_symbol_weights(t) for t in TYPE_IDS)


def _supply_for(players: int) -> tuple[int, ...]:
    """R10: the person supply per tile kind for ``players``."""
    table = _DATA["person_supply_by_player_count"][str(players)]
    return tuple(table[TYPE_IDS[TILE_TYPE[k]]]["young" if TILE_YOUNG[k] else "old"] for k in range(NUM_TILES))


PLAYER_COUNTS: tuple[int, ...] = tuple(_DATA["player_counts"])
SUPPLY: dict[int, tuple[int, ...]] = {n: _supply_for(n) for n in PLAYER_COUNTS}

# -- person cards (R3) --------------------------------------------------------------------------------

CARD_IDS: tuple[str, ...] = tuple(c["card"] for c in _DATA["person_cards"]["composition"])
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(CARD_IDS)}
WILD = CARD_INDEX["wild"]
#: Card index i < WILD is the typed card of person type i.
assert CARD_IDS[:WILD] == TYPE_IDS, "person cards must list the typed cards in person-type order"
HAND: tuple[int, ...] = tuple(c["count"] for c in _DATA["person_cards"]["composition"])
HAND_SIZE = sum(HAND)

# -- action cards (R4, R22-R34) -----------------------------------------------------------------------

_ACTIONS = _DATA["action_cards"]
ACTION_IDS: tuple[str, ...] = tuple(a["id"] for a in _ACTIONS["cards"])
ACTION_INDEX: dict[str, int] = {a: i for i, a in enumerate(ACTION_IDS)}
TAXES, BUILD, HARVEST, FIREWORKS, PARADE, RESEARCH, PRIVILEGE = (
    ACTION_INDEX[a]
    for a in ("taxes", "build", "harvest", "fireworks", "military_parade", "research", "privilege")
)
#: Base gain printed on each action card (R28-R33).
ACTION_BASE: tuple[int, ...] = tuple(a["card_symbols"] for a in _ACTIONS["cards"])
#: Person type whose symbols add to each action, or -1 (Privilege).
ACTION_BONUS: tuple[int, ...] = tuple(
    TYPE_INDEX[a["bonus_person"]] if a["bonus_person"] else -1 for a in _ACTIONS["cards"]
)
GROUP_SIZES: dict[int, tuple[int, ...]] = {
    int(n): tuple(sizes) for n, sizes in _ACTIONS["group_sizes_by_player_count"].items()
}
GROUP_FEE: int = _ACTIONS["occupied_group_fee"]
REFILL_TO: int = _ACTIONS["refill_target_yuan"]

# -- privileges (R6, R34, R65) ------------------------------------------------------------------------

_PRIV = _DATA["privileges"]
SMALL_COST: int = _PRIV["small"]["cost_yuan"]
LARGE_COSTS: tuple[int, ...] = (_PRIV["large"]["cost_yuan"], _PRIV["large"]["cost_yuan_variant_new_edition"])

# -- events (R5, R11, R41-R46) ------------------------------------------------------------------------

_EVENTS = {e["id"]: e for e in _DATA["events"]["types"]}
EVENT_IDS: tuple[str, ...] = tuple(_EVENTS)
EVENT_INDEX: dict[str, int] = {e: i for i, e in enumerate(EVENT_IDS)}
TRIBUTE, DROUGHT, FESTIVAL, MONGOLS, CONTAGION = (
    EVENT_INDEX[e] for e in ("imperial_tribute", "drought", "dragon_festival", "mongol_invasion", "contagion")
)
EVENT_COUNTS: tuple[int, ...] = tuple(e["count"] for e in _EVENTS.values())
ROW_SLOTS: int = _DATA["events"]["row"]["slots"]
#: Events fixed in the first slots of the row (R11: the two Peace tiles).
ROW_FIXED: tuple[int, ...] = tuple(
    EVENT_INDEX[_DATA["events"]["row"]["fixed"][str(s)]]
    for s in range(1, len(_DATA["events"]["row"]["fixed"]) + 1)
)
TRIBUTE_DUE: int = _EVENTS["imperial_tribute"]["yuan_due"]
FESTIVAL_FIRST: int = _EVENTS["dragon_festival"]["vp_first"]
FESTIVAL_SECOND: int = _EVENTS["dragon_festival"]["vp_second"]
MONGOL_RELEASES: int = _EVENTS["mongol_invasion"]["release_for_fewest"]
CONTAGION_BASE: int = _EVENTS["contagion"]["base_release"]

# -- palaces, start, rounds, scoring (R12, R15, R21, R52, R54) ---------------------------------------

MAX_FLOORS: int = _DATA["palaces"]["max_floors"]
_START = _DATA["player_start"]
START_PALACES: tuple[int, ...] = tuple(_START["palaces"])
START_YUAN: int = _START["yuan"]
ROUNDS: int = _DATA["rounds"]["count"]
NO_PERSON_ROUND: int = _DATA["rounds"]["person_phase_skipped_in_round"]
_ROUND_SCORE = _DATA["scoring"]["each_round"]
VP_PER_PALACE: int = _ROUND_SCORE["per_palace"]
VP_PER_COURT_LADY: int = _ROUND_SCORE["per_court_lady"]
VP_PER_SMALL: int = _ROUND_SCORE["per_small_privilege"]
VP_PER_LARGE: int = _ROUND_SCORE["per_large_privilege"]
_FINAL = _DATA["scoring"]["final"]
VP_PER_PERSON: int = _FINAL["per_person_tile"]
GOODS_YUAN: int = _FINAL["rice_sale_yuan"]
assert _FINAL["fireworks_sale_yuan"] == GOODS_YUAN, "rice and fireworks are assumed to sell alike"
YUAN_PER_VP: int = _FINAL["yuan_per_vp"]

#: What in this data is a reconstruction rather than the printed component: nothing (RULES.md marks no
#: component as one), so ``GET /v1/games/year_of_dragon`` publishes an empty ``data_notes``.
DATA_NOTES: tuple[dict[str, Any], ...] = ()
