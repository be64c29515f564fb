"""Confucius's feature vector (see :mod:`research.features.spec` for the conventions).

Slices follow the view: the round and pending decision; each seat's score, action cubes, cards,
gifts, ships, armies and distant lands (its hand and rewards only for itself); the three ministries
space by space (tile cost, whose marker, secured); the candidate, the students, the foreign lands box by
box, the distant lands, the gift tracker and the public stacks.  Names and orders come from
:mod:`engine.games.confucius.components`.
"""

from __future__ import annotations

from typing import Any

from engine.games.confucius.components import (
    ARMIES,
    CANDIDATE_NAMES,
    CUBES,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    FOREIGN_POSITIONS,
    JUNKS,
    MINISTRIES,
    REWARDS,
    SPACES,
    WALL_SPACES,
)
from research.features.spec import (
    Feature,
    FeatureSpec,
    Seats,
    View,
    counts,
    flag,
    onehot,
    per_player,
    scalar,
    seat_onehot,
)

MAX_PLAYERS = 5
_PHASES = (
    "action", "choose_chief_minister", "choose_distant_land", "give_influence", "imperial_favour",
    "keep_cards", "pay", "place_candidate", "tutor",
)  # fmt: skip
_CUBE_ACTIONS = (
    "army_invade", "bribe_secure", "buy_gift", "commercial_income", "force_examination", "give_gift",
    "junks_voyage", "no_action", "nominate_student", "petition_emperor", "tax_income",
)  # fmt: skip
_GIFTS = ("1", "2", "3", "4", "5", "6")
_GIFT_STATES = ("available", "active", "removed")
_CARD_KINDS = ("c1", "c2", "c3")
_MAX_BOXES = 4


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


def _gifts(p: dict[str, Any], s: Seats) -> list[float]:
    out = [0.0] * (len(_GIFTS) * len(_GIFT_STATES))
    for g, gift in enumerate(_GIFTS):
        state = p["gifts"].get(gift)
        if state in _GIFT_STATES:
            out[g * len(_GIFT_STATES) + _GIFT_STATES.index(state)] = 1.0
    return out


def _ministries(v: View, s: Seats) -> list[float]:
    """Per ministry and space: tile cost / 8, a marker's relative seat one-hot, secured, transferred,
    the imperial candidate there; then the minister and secretary seats and their chits."""
    width = 4 + s.max_players
    out: list[float] = []
    by_name = {m["ministry"]: m for m in v["ministries"]}
    for name in MINISTRIES:
        m = by_name.get(name)
        block = [0.0] * (SPACES * width + 2 * s.max_players + 3)
        if m is not None:
            for i, space in enumerate(m["spaces"][:SPACES]):
                base = i * width
                tile = space["tile"]
                block[base] = min(tile / 8, 1.0) if isinstance(tile, int) else 0.0
                block[base + 3 + s.max_players] = 1.0 if tile == "candidate" else 0.0
                b = s.block(space["marker"])
                if b is not None:
                    block[base + 1 + b] = 1.0
                block[base + 1 + s.max_players] = 1.0 if space["secured"] else 0.0
                block[base + 2 + s.max_players] = 1.0 if space["transferred"] else 0.0
            tail = SPACES * width
            for k, who in enumerate((m["minister"], m["secretary"])):
                b = s.block(who)
                if b is not None:
                    block[tail + k * s.max_players + b] = 1.0
            block[tail + 2 * s.max_players] = min((m["minister_chit"] or 0) / 8, 1.0)
            block[tail + 2 * s.max_players + 1] = min((m["secretary_chit"] or 0) / 8, 1.0)
            block[tail + 2 * s.max_players + 2] = 1.0 if m["resolved"] else 0.0
        out.extend(block)
    return out


def _foreign(v: View, s: Seats) -> list[float]:
    """Per position: the land one-hot, cost / 8, failed, and per box its VP / 4, reward card and the
    army's relative seat one-hot."""
    box_width = 2 + s.max_players
    width = len(FOREIGN_LANDS) + 2 + _MAX_BOXES * box_width
    out = [0.0] * (FOREIGN_POSITIONS * width)
    for i, land in enumerate(v["foreign_lands"][:FOREIGN_POSITIONS]):
        base = i * width
        if land["land"] in FOREIGN_LANDS:
            out[base + FOREIGN_LANDS.index(land["land"])] = 1.0
        out[base + len(FOREIGN_LANDS)] = min(land["cost_per_army"] / 8, 1.0)
        out[base + len(FOREIGN_LANDS) + 1] = 1.0 if land["state"] == "failed" else 0.0
        for j, box in enumerate(land["boxes"][:_MAX_BOXES]):
            at = base + len(FOREIGN_LANDS) + 2 + j * box_width
            out[at] = min(box["vp"] / 4, 1.0)
            out[at + 1] = 1.0 if box["reward_card"] else 0.0
            b = s.block(box["army"])
            if b is not None:
                out[at + 2 + b] = 1.0
    return out


def _distant(v: View, s: Seats) -> list[float]:
    """Per distant land: its VP chit / 4 and which relative seats reached it."""
    width = 1 + s.max_players
    out = [0.0] * (len(DISTANT_LANDS) * width)
    for land in v["distant_lands"]:
        if land["land"] not in DISTANT_LANDS:
            continue
        base = DISTANT_LANDS.index(land["land"]) * width
        out[base] = min((land["chit"] or 0) / 4, 1.0)
        for who in land["reached_by"]:
            b = s.block(who)
            if b is not None:
                out[base + 1 + b] = 1.0
    return out


def _gift_tracker(v: View, s: Seats) -> list[float]:
    """Entry giver × 5 + recipient (relative seats): the value of the gift between them / 6."""
    out = [0.0] * (s.max_players * s.max_players)
    for g in v["gift_tracker"]:
        a, b = s.block(g["giver"]), s.block(g["recipient"])
        if a is not None and b is not None:
            out[a * s.max_players + b] = min(g["value"] / 6, 1.0)
    return out


def _student(colour: str) -> Any:
    return lambda v, s: (v.get("students") or {}).get(colour)


_W = SPACES * (4 + MAX_PLAYERS) + 2 * MAX_PLAYERS + 3

SPEC = FeatureSpec(
    "confucius",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot("phase", "the pending decision", _PHASES, lambda v, s: v["phase"]),
        scalar("round", "the round", 10, lambda v, s: v["round"]),
        scalar("turn", "the turn within the round", 5, lambda v, s: v["turn"]),
        seat_onehot("chief_minister", "the Chief Minister", lambda v, s: v["chief_minister"]),
        flag("advanced", "advanced game option (R22)", lambda v, s: v["options"]["advanced"]),
        flag(
            "admiral_variant", "Admiral variant option (R112)", lambda v, s: v["options"]["admiral_variant"]
        ),
        counts("hand", "my Confucius cards by kind", _CARD_KINDS, 8, lambda v, s: _me(v, s).get("hand")),
        counts("rewards", "my Emperor reward cards", REWARDS, 1, lambda v, s: _me(v, s).get("rewards")),
        counts(
            "set_aside_cards",
            "my cards set aside for tutoring",
            _CARD_KINDS,
            4,
            lambda v, s: _me(v, s).get("set_aside_cards"),
        ),
        per_player(scalar("score", "victory points", 40, lambda p, s: p["score"])),
        per_player(scalar("cubes", "action cubes left", CUBES, lambda p, s: p["cubes"])),
        per_player(
            counts(
                "cubes_placed",
                "cubes on each action this round",
                _CUBE_ACTIONS,
                3,
                lambda p, s: p["cubes_placed"],
            )
        ),
        per_player(flag("passed", "has passed this round", lambda p, s: p["passed"])),
        per_player(
            flag(
                "commercial_income_used",
                "took Commercial Income this round",
                lambda p, s: p["commercial_income_used"],
            )
        ),
        per_player(scalar("cards", "Confucius cards in hand", 8, lambda p, s: p["cards"])),
        per_player(scalar("reward_cards", "Emperor reward cards held", 4, lambda p, s: p["reward_cards"])),
        Feature(
            "gifts",
            -len(_GIFTS) * len(_GIFT_STATES),
            "per seat (relative blocks): per gift value 1-6, its state: entry gift × 3 + state",
            "one-hot per gift over: available, active, removed; all 0 if not available",
            lambda v, s: [
                x for a in s.relative() for x in (_gifts(v["players"][a], s) if a is not None else [0.0] * 18)
            ],
        ),
        per_player(scalar("shipyard", "junks in the shipyard", 8, lambda p, s: p["shipyard"])),
        per_player(scalar("ocean", "junks at sea", JUNKS, lambda p, s: p["ocean"])),
        per_player(
            counts(
                "distant_lands", "distant lands reached", DISTANT_LANDS, 1, lambda p, s: p["distant_lands"]
            )
        ),
        per_player(scalar("armies_in_stock", "armies in stock", ARMIES, lambda p, s: p["armies_in_stock"])),
        per_player(
            scalar(
                "armies_in_colonies", "armies in foreign lands", ARMIES, lambda p, s: p["armies_in_colonies"]
            )
        ),
        per_player(
            onehot(
                "tutoring",
                "the student this seat is tutoring",
                ("red", "orange"),
                lambda p, s: (p["tutoring"] or {}).get("student"),
            )
        ),
        per_player(scalar("set_aside", "cards set aside for tutoring", 4, lambda p, s: p["set_aside"])),
        Feature(
            "ministries",
            len(MINISTRIES) * _W,
            "per ministry ("
            + ", ".join(MINISTRIES)
            + f"), {_W} entries: per official space (7) the tile cost, "
            "the marker's relative seat one-hot (5), secured, transferred, the candidate is there; "
            "then the minister's and the "
            "secretary's relative seats (5 each), their chits, resolved",
            "cost and chits / 8; the rest 0 or 1",
            _ministries,
        ),
        onehot(
            "candidate", "the imperial candidate's ministry", CANDIDATE_NAMES, lambda v, s: v["candidate"]
        ),
        scalar(
            "candidate_stack",
            "candidates left in the stack",
            12,
            lambda v, s: (v["candidate_stack"] or {}).get("count"),
        ),
        seat_onehot("student_red", "the seat tutoring the red student", _student("red")),
        seat_onehot("student_orange", "the seat tutoring the orange student", _student("orange")),
        flag(
            "examination_forced", "an examination was forced this round", lambda v, s: v["examination_forced"]
        ),
        Feature(
            "foreign_lands",
            FOREIGN_POSITIONS * (len(FOREIGN_LANDS) + 2 + _MAX_BOXES * (2 + MAX_PLAYERS)),
            "per position: the land one-hot ("
            + ", ".join(FOREIGN_LANDS)
            + "), cost per army, failed; per box "
            "(up to 4) its VP, reward card, the army's relative seat one-hot (5)",
            "cost / 8, VP / 4; the rest 0 or 1",
            _foreign,
        ),
        Feature(
            "distant_land_chits",
            len(DISTANT_LANDS) * (1 + MAX_PLAYERS),
            "per distant land ("
            + ", ".join(DISTANT_LANDS)
            + "): its VP chit, then which relative seats reached it",
            "chit / 4; the rest 0 or 1",
            _distant,
        ),
        Feature(
            "gift_tracker",
            MAX_PLAYERS * MAX_PLAYERS,
            "value of the gift each relative seat gave each other: entry giver × 5 + recipient",
            "value / 6",
            _gift_tracker,
        ),
        scalar("great_wall", "Great Wall sections built", WALL_SPACES, lambda v, s: v["great_wall"]),
        scalar("junk_supply", "junks in the common supply", JUNKS, lambda v, s: v["junk_supply"]),
        seat_onehot(
            "emperor_insulted", "the seat that insulted the Emperor", lambda v, s: v["emperor_insulted"]
        ),
        scalar("deck", "cards in the Confucius deck", 70, lambda v, s: v["deck"]),
        counts("discard_pile", "discarded cards by kind", _CARD_KINDS, 30, lambda v, s: v["discard_pile"]),
        scalar("official_stack", "official tiles left", 20, lambda v, s: v["official_stack"]),
        scalar("reward_stack", "Emperor reward cards left", 12, lambda v, s: v["reward_stack"]),
        onehot("resolving", "the ministry being resolved", MINISTRIES, lambda v, s: v["resolving"]),
    ],
)
