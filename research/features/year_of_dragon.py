"""Year of the Dragon's feature vector (see :mod:`research.features.spec` for the conventions).

Slices follow the view: the round and the pending decision; the event row; the action groups of this
round; the court pairs; the supply of person tiles; the turn and person-track orders; and per seat its
money, rice, fireworks, points, person track position, privileges, palaces (by person tiles in them) and
the cards it played (its hand only for itself).  Person names are the tiles'
(``pyrotechnist_y`` young, ``_o`` old; court persons have no age).
"""

from __future__ import annotations

from typing import Any

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
_PHASES = ("action", "build", "court", "full", "person", "place", "privilege", "release")
EVENTS = ("contagion", "dragon_festival", "drought", "imperial_tribute", "mongol_invasion", "peace")
ACTIONS = ("build", "fireworks", "harvest", "military_parade", "privilege", "research", "taxes")
CARDS = (
    "court_lady", "craftsman", "farmer", "healer", "monk", "pyrotechnist", "scholar", "tax_collector",
    "warrior",
)  # fmt: skip
TILES = (
    "court_lady", "craftsman", "farmer_o", "farmer_y", "healer_o", "healer_y", "monk_o", "monk_y",
    "pyrotechnist_o", "pyrotechnist_y", "scholar_o", "scholar_y", "tax_collector", "warrior_o", "warrior_y",
)  # fmt: skip
_ROUNDS = 12
_GROUPS = 5
_PAIRS = 5


def _event_row(v: View, s: Seats) -> list[float]:
    out = [0.0] * (_ROUNDS * len(EVENTS))
    for i, event in enumerate(v["event_row"][:_ROUNDS]):
        if event in EVENTS:
            out[i * len(EVENTS) + EVENTS.index(event)] = 1.0
    return out


def _groups(v: View, s: Seats) -> list[float]:
    width = len(ACTIONS) + 1
    out = [0.0] * (_GROUPS * width)
    for i, group in enumerate(v["groups"][:_GROUPS]):
        for a in group["actions"]:
            if a in ACTIONS:
                out[i * width + ACTIONS.index(a)] = 1.0
        out[i * width + len(ACTIONS)] = min(group["dragons"] / 3, 1.0)
    return out


def _pairs(v: View, s: Seats) -> list[float]:
    out = [0.0] * (_PAIRS * len(CARDS))
    for i, pair in enumerate(v["court_pairs"][:_PAIRS]):
        for person in pair:
            if person in CARDS:
                out[i * len(CARDS) + CARDS.index(person)] = 1.0
    return out


def _order(key: str) -> Any:
    def read(v: View, s: Seats) -> list[float]:
        out = [0.0] * (s.max_players * s.max_players)
        for position, seat in enumerate((v.get(key) or [])[: s.max_players]):
            b = s.block(seat)
            if b is not None:
                out[position * s.max_players + b] = 1.0
        return out

    return read


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


def _persons(p: dict[str, Any], s: Seats) -> list[str]:
    return [x for palace in p["palaces"] for x in palace["persons"]]


SPEC = FeatureSpec(
    "year_of_dragon",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (2, 3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot("phase", "the pending decision", _PHASES, lambda v, s: v["phase"]),
        scalar("round", "the round (month)", _ROUNDS, lambda v, s: v["round"]),
        onehot(
            "large_privilege_cost",
            "option: price of the large privilege (R65)",
            (6, 7),
            lambda v, s: v["options"]["large_privilege_cost"],
        ),
        flag(
            "reveal_played_card",
            "option: the played person card is shown (R58a)",
            lambda v, s: v["options"]["reveal_played_card"],
        ),
        seat_onehot("first_player", "the first player (R13)", lambda v, s: v["first_player"]),
        Feature(
            "turn_order",
            MAX_PLAYERS * MAX_PLAYERS,
            "this round's turn order: entry position × 5 + relative seat",
            "one-hot per position",
            _order("turn_order"),
        ),
        Feature(
            "track_order",
            MAX_PLAYERS * MAX_PLAYERS,
            "the person track order: entry position × 5 + relative seat",
            "one-hot per position",
            _order("track_order"),
        ),
        Feature(
            "event_row",
            _ROUNDS * len(EVENTS),
            "the event of each round: entry round × 6 + event (" + ", ".join(EVENTS) + ")",
            "one-hot per round",
            _event_row,
        ),
        Feature(
            "groups",
            _GROUPS * (len(ACTIONS) + 1),
            "this round's action groups (up to 5): the actions in each ("
            + ", ".join(ACTIONS)
            + ") and its dragons",
            "0 or 1; dragons / 3",
            _groups,
        ),
        Feature(
            "court_pairs",
            _PAIRS * len(CARDS),
            "the court pairs on offer: entry pair × 9 + person (" + ", ".join(CARDS) + ")",
            "0 or 1",
            _pairs,
        ),
        counts("supply", "person tiles left in the supply", TILES, 10, lambda v, s: v["supply"]),
        counts("hand", "my person cards", (*CARDS, "wild"), 3, lambda v, s: _me(v, s).get("hand")),
        per_player(scalar("yuan", "money", 20, lambda p, s: p["yuan"])),
        per_player(scalar("rice", "rice", 6, lambda p, s: p["rice"])),
        per_player(scalar("fireworks", "fireworks", 6, lambda p, s: p["fireworks"])),
        per_player(scalar("vp", "victory points", 100, lambda p, s: p["vp"])),
        per_player(scalar("person_pos", "position on the person track", 60, lambda p, s: p["person_pos"])),
        per_player(
            counts("privileges", "privileges held", ("small", "large"), 5, lambda p, s: p["privileges"])
        ),
        per_player(scalar("hand_size", "person cards in hand", 12, lambda p, s: p["hand_size"])),
        per_player(
            counts(
                "played",
                "person cards played (as far as shown)",
                (*CARDS, "wild"),
                2,
                lambda p, s: p.get("played"),
            )
        ),
        per_player(scalar("palaces", "palaces owned", 10, lambda p, s: len(p["palaces"]))),
        per_player(
            scalar("floors", "palace floors in all", 30, lambda p, s: sum(x["floors"] for x in p["palaces"]))
        ),
        per_player(counts("persons", "person tiles in its palaces", TILES, 4, _persons)),
    ],
)
