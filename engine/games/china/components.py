"""Component data of China, loaded once from components.json into indexed tuples.

The board is a reconstruction (R10), so nothing in the rules names a province, a space or a road:
everything below is derived from the JSON, and a corrected board is a data change only.  Provinces,
spaces and colours become small integers (their position in the JSON lists) because the rules index
them millions of times per benchmark run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DATA = json.loads((Path(__file__).with_name("components.json")).read_text(encoding="utf-8"))
_BOARD = _DATA["board"]
_CARDS = _DATA["cards"]

# -- cards (R5, R16) -------------------------------------------------------------------------------

#: Card colours in the order of components.json; a card is represented by its colour index, because
#: cards of one colour are interchangeable (R5) and ids would only multiply equivalent actions.
COLOURS: tuple[str, ...] = tuple(_CARDS["by_color"])
COLOUR_INDEX: dict[str, int] = {c: i for i, c in enumerate(COLOURS)}
#: Cards of each colour in the full deck of 57 (R5).
COLOUR_COUNTS: tuple[int, ...] = tuple(_CARDS["by_color"][c]["count"] for c in COLOURS)
#: Cards of each colour removed at setup, by player count (R16).
REMOVED_PER_COLOUR: dict[int, int] = {int(n): k for n, k in _CARDS["removed_per_color"].items()}
#: Cards of each colour in play, by player count (R16).
CARDS_IN_PLAY: dict[int, tuple[int, ...]] = {
    n: tuple(count - removed for count in COLOUR_COUNTS) for n, removed in REMOVED_PER_COLOUR.items()
}
#: Colour of each card id (R5): the scenario builder accepts the ids the examples use.
CARD_COLOUR: dict[str, int] = {card["id"]: COLOUR_INDEX[card["color"]] for card in _CARDS["card_list"]}

# -- setup and pieces (R6, R15, R17, R18) ------------------------------------------------------------

PLAYER_COUNTS: tuple[int, ...] = tuple(_DATA["player_counts"]["supported"])
HAND_SIZE: int = _DATA["setup"]["hand_size"]
DISPLAY_SIZE: int = _DATA["setup"]["face_up_display"]
HOUSES: int = _DATA["pieces_per_player"]["houses"]
EMISSARIES: int = _DATA["pieces_per_player"]["emissaries_placeable"]
PIECE_COLOURS: tuple[str, ...] = tuple(_DATA["player_piece_colors"])
CHAIN_MIN: int = _DATA["scoring"]["house_chains"]["min_length"]

# -- board (R8-R14) ----------------------------------------------------------------------------------

PROVINCES: tuple[str, ...] = tuple(p["id"] for p in _BOARD["provinces"])
PROVINCE_INDEX: dict[str, int] = {p: i for i, p in enumerate(PROVINCES)}
#: Card colour of each province: a single card of this colour pays for a piece there (R27).
PROVINCE_COLOUR: tuple[int, ...] = tuple(COLOUR_INDEX[p["color"]] for p in _BOARD["provinces"])

SPACES: tuple[str, ...] = tuple(s["id"] for s in _BOARD["spaces"])
SPACE_INDEX: dict[str, int] = {s: i for i, s in enumerate(SPACES)}
#: Provinces each house space lies in: two for a border space (R13).
SPACE_PROVINCES: tuple[tuple[int, ...], ...] = tuple(
    tuple(PROVINCE_INDEX[p] for p in s["provinces"]) for s in _BOARD["spaces"]
)
#: Bit mask of SPACE_PROVINCES, for the one-province rule (R30).
SPACE_MASK: tuple[int, ...] = tuple(sum(1 << p for p in provs) for provs in SPACE_PROVINCES)
IS_BORDER: tuple[bool, ...] = tuple(len(provs) == 2 for provs in SPACE_PROVINCES)
PORTS: tuple[int, ...] = tuple(i for i, s in enumerate(_BOARD["spaces"]) if s["port"])
#: House spaces of each province, border spaces included (R13), in the province's own listed order.
PROVINCE_SPACES: tuple[tuple[int, ...], ...] = tuple(
    tuple(SPACE_INDEX[s] for s in p["spaces"]) for p in _BOARD["provinces"]
)


def _neighbours() -> tuple[tuple[int, ...], ...]:
    adjacent: list[list[int]] = [[] for _ in SPACES]
    for a, b in _BOARD["roads"]:
        adjacent[SPACE_INDEX[a]].append(SPACE_INDEX[b])
        adjacent[SPACE_INDEX[b]].append(SPACE_INDEX[a])
    return tuple(tuple(sorted(n)) for n in adjacent)


#: Spaces joined to each space by a road segment (R12), for house chains (R59).
ROAD_NEIGHBOURS: tuple[tuple[int, ...], ...] = _neighbours()
#: The alliance lines as province index pairs (R11, R58).
ALLIANCE_LINES: tuple[tuple[int, int], ...] = tuple(
    (PROVINCE_INDEX[p], PROVINCE_INDEX[q]) for p, q in _BOARD["alliance_lines"]
)

#: What in this data is a reconstruction rather than the printed component (RULES.md says where):
#: published by ``GET /v1/games/china`` as ``data_notes`` so integrators and players know.
DATA_NOTES: tuple[dict[str, Any], ...] = (
    {
        "component": "board",
        "rules": ["R10", "R10a", "R11"],
        "note": "The board geometry is a reconstruction: how many spaces each province has, which "
        "provinces border each other, the roads, where the ports and border spaces lie and the 15 "
        "alliance lines. Only the facts listed in R10 as high confidence are sourced (9 provinces, "
        "colour pairs, the single violet province, 7 ports, 6 border spaces).",
    },
    {
        "component": "province names",
        "rules": ["R4"],
        "note": "YAN, WU and the red XRED are placeholder provinces (one probably stands for Shu); XRED "
        "is not Chu, which a 2005 review gives as the name of the violet province (shown here as "
        "ZHOU, after the seed).",
    },
)
