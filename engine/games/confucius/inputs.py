"""The input schemas of Confucius (published by the API): the game options and one schema per action
type; and the rule each action answers to.

Ministries, students, Distant Lands and reward cards are named by their component ids; official spaces
are numbered 1-7 as on the board (R2), foreign-land positions 1-3 (R8) and their boxes from 0 as in
components.json; seats are integers.  Card sets are counts of 1-, 2- and 3-coin cards (``c1/c2/c3``).
"""

from __future__ import annotations

from typing import Any

from engine.core import action_schema

from .cards import CARD_FIELDS
from .components import DISTANT_LANDS, MINISTRIES, REWARD_MINISTRY, REWARDS

_INT = {"type": "integer"}
SEAT = {"type": "integer", "minimum": 0, "description": "seat number"}
MINISTRY = {"type": "string", "enum": list(MINISTRIES)}
SPACE = {"type": "integer", "minimum": 1, "maximum": 7, "description": "official space (1 = most senior)"}
STUDENT = {"type": "string", "enum": ["red", "orange"]}
POSITION = {"type": "integer", "minimum": 1, "maximum": 3, "description": "foreign-land position"}
BOX = {"type": "integer", "minimum": 0, "description": "box of the foreign-land tile"}
COUNT = {"type": "integer", "minimum": 0}
GIFT = {"type": "integer", "minimum": 1, "maximum": 6, "description": "gift value"}
CARDS = dict.fromkeys(CARD_FIELDS, COUNT)
BRIBERY_CARDS = [r for r, m in zip(REWARDS, REWARD_MINISTRY, strict=True) if m is not None]

OPTIONS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "advanced": {
            "type": "boolean",
            "default": False,
            "description": "advanced game: Petition the Emperor is allowed (R22, R56)",
        },
        "admiral_variant": {
            "type": "boolean",
            "default": False,
            "description": "on a tie for most VP the Admiral wins even if not tied (R112)",
        },
    },
}


def _spec(rule: str, kind: str, text: str, **fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return rule, action_schema(kind, f"{rule}: {text}", **fields)


_SPECS = [
    _spec("R26", "choose_chief_minister", "D1, name the new Chief Minister", seat=SEAT),
    _spec("R40", "bribe_official", "bribe an unbribed official", ministry=MINISTRY, space=SPACE),
    _spec("R41", "secure_official", "secure your unsecured official", ministry=MINISTRY, space=SPACE),
    _spec("R44", "nominate_student", "nominate a student", student=STUDENT),
    _spec("R45", "force_examination", "force an Imperial Examination this round"),
    _spec("R46", "buy_junks", "buy 1-4 junks", count=COUNT),
    _spec("R47", "start_voyage", "sail junks from your shipyard", count=COUNT),
    _spec("R49", "recruit_army", "recruit an army"),
    _spec("R50", "invade_foreign_land", "invade a foreign land box", position=POSITION, box=BOX),
    _spec("R51", "buy_gift", "make a gift available", value=GIFT),
    _spec("R52", "give_gift", "give an available gift", value=GIFT, recipient=SEAT),
    _spec(
        "R62",
        "transfer_influence",
        "hand your official to another player (no cube)",
        ministry=MINISTRY,
        space=SPACE,
        recipient=SEAT,
    ),
    _spec("R58.1", "petition_reassign_junks", "gift 2, move junks", source=SEAT, destination=SEAT),
    _spec("R58.2", "petition_replace_student", "gift 3, replace a student", student=STUDENT),
    _spec(
        "R58.3",
        "petition_swap_officials",
        "gift 4, swap your official with one of equal or lower seniority",
        ministry=MINISTRY,
        space=SPACE,
        other_ministry=MINISTRY,
        other_space=SPACE,
    ),
    _spec(
        "R58.4",
        "petition_redeploy_army",
        "gift 5, move an army to an empty box",
        position=POSITION,
        box=BOX,
        to_position=POSITION,
        to_box=BOX,
    ),
    _spec(
        "R58.5",
        "petition_replace_influence",
        "gift 6, replace an unsecured marker by a secured one of any player",
        ministry=MINISTRY,
        space=SPACE,
        seat=SEAT,
    ),
    _spec("R54", "commercial_income", "discard cards worth 0-4 coins, draw that + 1", **CARDS),
    _spec("R55", "tax_income", "draw 2 cards"),
    _spec("R60", "no_action", "spend 1 cube"),
    _spec("R29", "pass", "only with no active cube left"),
    _spec("R70", "reward_cash", "play Cash (draw 4 cards)"),
    _spec("R71", "reward_gift", "play Gift (a gift becomes available)", value=GIFT),
    _spec("R72", "reward_extra_action", "play Extra Action (a box action without cubes follows)"),
    _spec(
        "R73",
        "reward_bribery",
        "play a Bribery card on an official",
        card={"type": "string", "enum": BRIBERY_CARDS},
        ministry=MINISTRY,
        space=SPACE,
    ),
    _spec("R74", "reward_recruit_army", "play Recruit an Army"),
    _spec("R75", "reward_emperor_insulted", "play Emperor Insulted! (+2 VP)"),
    _spec("R37", "pay", "D3, the cards paying the pending price", **CARDS),
    _spec(
        "R47",
        "choose_distant_land",
        "D4, destination of a completed voyage",
        land={"type": "string", "enum": list(DISTANT_LANDS)},
    ),
    _spec("R83", "tutor", "D5, lay one card face down at a student", student=STUDENT, coins=_INT),
    _spec("R85", "end_tutoring", "D5, stop laying cards (after at least one)"),
    _spec("R88", "place_candidate", "D6, where the candidate goes", ministry=MINISTRY, space=SPACE),
    _spec("R91", "give_influence", "D7, receiver of your influence in the resolution", seat=SEAT),
    _spec("R98", "keep_cards", "D9, the 4 Confucius cards you keep", **CARDS),
]

ACTIONS: dict[str, dict[str, Any]] = {s["properties"]["type"]["const"]: s for _, s in _SPECS}
#: The rule each action type answers to, named when such an action is refused.
RULE_OF: dict[str, str] = {s["properties"]["type"]["const"]: rule for rule, s in _SPECS}
#: Action fields that name a seat (their upper bound is the player count, which no schema knows).
SEAT_FIELDS = frozenset(f for _, s in _SPECS for f, spec in s["properties"].items() if spec == SEAT)
