"""Component data of Confucius, loaded once from components.json into plain tuples and ints.

Nothing in the rules modules hard-codes a component number: correcting a card mix or a foreign-land
tile is a change to the JSON alone.  Names are pre-indexed (ministry -> 0..2, reward card -> 0..8, ...)
because the rules work on small integers on the hot path and translate to names only at the API edge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

_DATA = json.loads((Path(__file__).with_name("components.json")).read_text())

COLOURS: Final[tuple[str, ...]] = tuple(_DATA["colours"]["values"])
MIN_PLAYERS: Final[int] = min(_DATA["player_counts"]["supported"])
MAX_PLAYERS: Final[int] = max(_DATA["player_counts"]["supported"])

# -- ministries and officials (R2-R4, R14, R15) ---------------------------------------------------------
MINISTRIES: Final[tuple[str, ...]] = tuple(_DATA["ministries"]["order"])
MINISTRY_INDEX: Final[dict[str, int]] = {m: i for i, m in enumerate(MINISTRIES)}
SPACES: Final[int] = len(_DATA["ministries"]["items"][0]["official_spaces"])
START_SPACES: Final[tuple[int, ...]] = tuple(_DATA["ministries"]["start_filled_spaces"])
#: Bribe costs of the 24 generic official tiles (a tile is nothing but its cost, R3).
OFFICIAL_COSTS: Final[tuple[int, ...]] = tuple(t["cost"] for t in _DATA["official_tiles"]["items"])
OFFICIAL_COST_COUNTS: Final[dict[int, int]] = {
    int(k): v for k, v in _DATA["official_tiles"]["cost_counts"].items()
}
#: Candidate tile kinds: 0..2 name a ministry, ANY_MINISTRY fits every ministry (R4, R17).
ANY_MINISTRY: Final[int] = len(MINISTRIES)
CANDIDATE_KINDS: Final[tuple[int, ...]] = tuple(
    ANY_MINISTRY if c["ministry"] == "any" else MINISTRY_INDEX[c["ministry"]]
    for c in _DATA["candidate_tiles"]["items"]
)
CANDIDATE_NAMES: Final[tuple[str, ...]] = (*MINISTRIES, "any")
GREEN_CHITS: Final[tuple[int, ...]] = tuple(_DATA["ministry_vp_chits"]["values"])

# -- distant lands (R6, R47) --------------------------------------------------------------------------
DISTANT_LANDS: Final[tuple[str, ...]] = tuple(d["id"] for d in _DATA["distant_lands"]["items"])
DISTANT_INDEX: Final[dict[str, int]] = {d: i for i, d in enumerate(DISTANT_LANDS)}
BLUE_CHITS: Final[tuple[int, ...]] = tuple(_DATA["distant_lands"]["vp_chits"])
JUNKS_PER_VOYAGE: Final[int] = _DATA["distant_lands"]["junks_per_voyage"]
ADMIRAL_PER_MARKER: Final[int] = _DATA["distant_lands"]["admiral_value_per_marker"]

# -- foreign lands (R7, R8) ---------------------------------------------------------------------------
FOREIGN_LANDS: Final[tuple[str, ...]] = tuple(t["id"] for t in _DATA["foreign_lands"]["tiles"])
INVASION_COST: Final[tuple[int, ...]] = tuple(t["cost_per_army"] for t in _DATA["foreign_lands"]["tiles"])
BOX_VP: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(b["vp"] for b in t["boxes"]) for t in _DATA["foreign_lands"]["tiles"]
)
REWARD_BOX: Final[tuple[int, ...]] = tuple(
    next(b["box"] for b in t["boxes"] if b["reward_card"]) for t in _DATA["foreign_lands"]["tiles"]
)
FOREIGN_POSITIONS: Final[int] = _DATA["foreign_lands"]["tiles_used"]
DEADLINES: Final[tuple[int, ...]] = tuple(
    p["deadline_wall_count"] for p in _DATA["foreign_lands"]["positions"]
)
WALL_SPACES: Final[int] = _DATA["great_wall"]["spaces"]

# -- Confucius cards (R9): a card is its coin value; its licence value is 4 - coins -------------------
COIN_VALUES: Final[tuple[int, ...]] = tuple(c["coins"] for c in _DATA["confucius_deck"]["cards"])
LICENCE_VALUES: Final[tuple[int, ...]] = tuple(c["licences"] for c in _DATA["confucius_deck"]["cards"])
CARDS_PER_KIND: Final[tuple[int, ...]] = tuple(c["count"] for c in _DATA["confucius_deck"]["cards"])
HAND_LIMIT: Final[int] = _DATA["confucius_deck"]["hand_limit_end_of_round"]
OPENING_HAND: Final[tuple[int, ...]] = tuple(_DATA["per_player_pieces"]["opening_confucius_cards_coins"])

# -- Emperor's Reward cards (R10) ----------------------------------------------------------------------
REWARDS: Final[tuple[str, ...]] = tuple(c["id"] for c in _DATA["emperor_reward_cards"]["items"])
REWARD_INDEX: Final[dict[str, int]] = {r: i for i, r in enumerate(REWARDS)}
REWARD_COUNTS: Final[tuple[int, ...]] = tuple(c["count"] for c in _DATA["emperor_reward_cards"]["items"])
#: Ministry a Bribery card names: a ministry index, ANY_MINISTRY, or None for the other cards.
REWARD_MINISTRY: Final[tuple[int | None, ...]] = tuple(
    None if "ministry" not in c else ANY_MINISTRY if c["ministry"] == "any" else MINISTRY_INDEX[c["ministry"]]
    for c in _DATA["emperor_reward_cards"]["items"]
)
INSULT_VP: Final[int] = next(
    s["vp"] for s in _DATA["scoring"]["during_game"] if s["source"].startswith("Emperor")
)

# -- per-player pieces (R11, R20) and gifts (R51, R56) ---------------------------------------------------
ARMIES: Final[int] = _DATA["per_player_pieces"]["armies"]
CUBES: Final[int] = _DATA["per_player_pieces"]["action_cubes"]
JUNKS: Final[int] = _DATA["common_pieces"]["junks"]
GIFT_VALUES: Final[tuple[int, ...]] = tuple(g["value"] for g in _DATA["gifts"]["per_player"])
GIFT_PRICE: Final[tuple[int, ...]] = tuple(g["purchase_cost"] for g in _DATA["gifts"]["per_player"])
GIFT_START_AVAILABLE: Final[tuple[bool, ...]] = tuple(
    g["available_at_start"] for g in _DATA["gifts"]["per_player"]
)
#: Petition id by gift value (None for the wall hanging, which cannot petition: R56).
PETITION_OF_GIFT: Final[dict[int, str | None]] = {
    g["value"]: g["petition"] for g in _DATA["gifts"]["per_player"]
}

# -- action spaces and their cube rules (R33, R34) ----------------------------------------------------
_SPACES = _DATA["action_spaces"]["items"]
ACTION_SPACES: Final[tuple[str, ...]] = tuple(s["id"] for s in _SPACES)
#: Action space index of every action type listed in the Actions Box (petitions included).
SPACE_OF: Final[dict[str, int]] = {a: i for i, s in enumerate(_SPACES) for a in s["actions"]}
#: Cube rule of each space: "standard", "always_0", "always_1", "always_2" or "chief_minister_only".
CUBE_RULE: Final[tuple[str, ...]] = tuple(s["cube_rule"] for s in _SPACES)
NOT_IN_ROUND_1: Final[frozenset[str]] = frozenset(
    a for s in _SPACES if s.get("not_in_round_1") for a in s["actions"]
)
_COSTS = _DATA["costs"]
NOMINATE_COST: Final[int] = _COSTS["nominate_student_coins"]
FORCE_COST: Final[int] = _COSTS["force_examination_coins"]
#: Coin price of n junks (index n), without and with a Gongbu official (R48).
JUNK_PRICE: Final[tuple[tuple[int, int], ...]] = (
    (0, 0),
    *((_COSTS["junks"][str(n)]["normal"], _COSTS["junks"][str(n)]["gongbu"]) for n in range(1, 5)),
)
MAX_JUNKS_PER_BUY: Final[int] = len(JUNK_PRICE) - 1
RECRUIT_LICENCES: Final[tuple[int, int]] = (
    _COSTS["recruit_army_licences"]["normal"],
    _COSTS["recruit_army_licences"]["bingbu"],
)
COMMERCIAL_MAX_COINS: Final[int] = 4  # R54: "pay 0-4 coins" (components: costs.commercial_income)


def cubes_for_gift_count(count: int) -> int:
    """Active action cubes for a gift count (R25), read from the by_gift_count table."""
    for row in _DATA["action_cubes"]["by_gift_count"]:
        if count >= row["min"] and (row["max"] is None or count <= row["max"]):
            cubes: int = row["cubes"]
            return cubes
    raise ValueError(f"no cube row for gift count {count}")


CUBES_BY_COUNT: Final[tuple[int, ...]] = tuple(cubes_for_gift_count(c) for c in range(2 * MAX_PLAYERS))

#: What in this data is a reconstruction rather than the printed component: nothing (RULES.md marks no
#: component as one), so ``GET /v1/games/confucius`` publishes an empty ``data_notes``.
DATA_NOTES: Final[tuple[dict[str, Any], ...]] = ()
