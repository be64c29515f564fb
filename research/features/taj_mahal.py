"""Taj Mahal's feature vector (see :mod:`research.features.spec` for the conventions).

Cards are encoded by id (multi-hot over the 100 card ids of
:data:`engine.games.taj_mahal.components.STANDARD` ``.card_ids``) where the view names them: my hand,
the display, the discard pile, the specials beside the board; the other seats' public cards and tables
by colour and symbol counts.  The board is per city (``.city_ids`` order): the palace owners and the
bonus tile still lying there.
"""

from __future__ import annotations

from typing import Any

from engine.games.taj_mahal.components import STANDARD as COMP
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
CARDS: tuple[str, ...] = tuple(COMP.card_ids)
CITIES: tuple[str, ...] = tuple(COMP.city_ids)
_CITY = {city: i for i, city in enumerate(CITIES)}
PROVINCES: tuple[str, ...] = tuple(COMP.province_ids)
SYMBOLS: tuple[str, ...] = tuple(COMP.symbols)
INFLUENCE = ("vizier", "general", "monk", "princess")
GOODS = ("rice", "tea", "spices", "jewels")
CARD_COLOURS = ("green", "purple", "red", "yellow", "white", "special")
_DECISIONS = ("crown", "palace", "play_or_withdraw", "take")
_BONUS_KINDS = ("points", "good", "card")


def _ids(cards: Any) -> list[str]:
    return [c["id"] for c in cards or ()]


def _colour(card: dict[str, Any]) -> str:
    return str(card["colour"] or card["kind"])


def _cards_by(get: Any) -> Any:
    """Colour counts, then symbol counts, of a list of cards."""

    def read(p: dict[str, Any], s: Seats) -> list[float]:
        cards = get(p) or []
        colours = [_colour(c) for c in cards]
        symbols = [x for c in cards for x in c["symbols"]]
        return [min(colours.count(c) / 10, 1.0) for c in CARD_COLOURS] + [
            min(symbols.count(x) / 10, 1.0) for x in SYMBOLS
        ]

    return read


def _palaces(v: View, s: Seats) -> list[float]:
    """Per city: the relative seat of its regular palace, then of its crowned palace (5 + 5)."""
    width = 2 * s.max_players
    out = [0.0] * (len(CITIES) * width)
    for city, palace in v["palaces"].items():
        base = _CITY[city] * width
        for k, who in enumerate((palace["regular"], palace["crowned"])):
            b = s.block(who)
            if b is not None:
                out[base + k * s.max_players + b] = 1.0
    return out


def _bonus(v: View, s: Seats) -> list[float]:
    """Per city: the kind of the bonus tile lying there (one-hot points, good, card) and its points / 4."""
    width = len(_BONUS_KINDS) + 1
    out = [0.0] * (len(CITIES) * width)
    for city, tile in v["bonus_tiles"].items():
        base = _CITY[city] * width
        if tile["kind"] in _BONUS_KINDS:
            out[base + _BONUS_KINDS.index(tile["kind"])] = 1.0
        if tile["kind"] == "points":
            out[base + len(_BONUS_KINDS)] = min(tile["value"] / 4, 1.0)
    return out


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


_SYMBOL_NAMES = ", ".join(CARD_COLOURS) + "; " + ", ".join(SYMBOLS)

SPEC = FeatureSpec(
    "taj_mahal",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot(
            "decision", "the pending decision", _DECISIONS, lambda v, s: (v["pending"] or {}).get("decision")
        ),
        scalar("round", "the round (one per province visit)", 12, lambda v, s: v["round"]),
        seat_onehot("start_player", "the start player of the visit", lambda v, s: v["start_player"]),
        onehot(
            "current_province", "the province being visited", PROVINCES, lambda v, s: v["current_province"]
        ),
        Feature(
            "province_order",
            len(PROVINCES),
            "per province (" + ", ".join(PROVINCES) + "): its place in the visiting order",
            "place / 12; 0 if not yet drawn",
            lambda v, s: [min((v["province_tiles"] or {}).get(p, 0) / 12, 1.0) for p in PROVINCES],
        ),
        counts(
            "court",
            "the court cards (and the elephant) still available to win this visit",
            SYMBOLS,
            1,
            lambda v, s: [k for k, on in v["court"].items() if on],
        ),
        counts("supply", "influence tiles left in the supply", INFLUENCE, 5, lambda v, s: v["supply"]),
        counts(
            "specials_beside_board",
            "special cards still beside the board",
            CARDS[-4:],
            1,
            lambda v, s: _ids(v["specials_beside_board"]),
        ),
        counts("display", "cards in the face-up display, by id", CARDS, 1, lambda v, s: _ids(v["display"])),
        counts("discard", "cards on the discard pile, by id", CARDS, 1, lambda v, s: _ids(v["discard"])),
        scalar("deck_size", "cards left in the deck", 100, lambda v, s: v["deck_size"]),
        counts("hand", "my hand, by card id", CARDS, 1, lambda v, s: _ids(_me(v, s).get("hand"))),
        per_player(scalar("score", "score", 100, lambda p, s: p["score"])),
        per_player(scalar("hand_size", "cards in hand", 20, lambda p, s: p["hand_size"])),
        Feature(
            "hand_public",
            -(len(CARD_COLOURS) + len(SYMBOLS)),
            "per seat (relative blocks): the cards of its hand every seat has seen, by colour ("
            + _SYMBOL_NAMES
            + ")",
            "count / 10, clipped",
            lambda v, s: _per(v, s, _cards_by(lambda p: p["hand_public"])),
        ),
        Feature(
            "table",
            -(len(CARD_COLOURS) + len(SYMBOLS)),
            "per seat (relative blocks): the cards it has played this visit, by colour then symbol ("
            + _SYMBOL_NAMES
            + ")",
            "count / 10, clipped",
            lambda v, s: _per(v, s, _cards_by(lambda p: p["table"])),
        ),
        per_player(counts("specials", "special cards held", CARDS[-4:], 1, lambda p, s: _ids(p["specials"]))),
        per_player(
            counts("counts", "symbols played this visit (R27)", SYMBOLS, 10, lambda p, s: p["counts"])
        ),
        per_player(
            onehot(
                "commitment",
                "the colour committed to this visit (R24)",
                CARD_COLOURS[:4],
                lambda p, s: p["commitment"],
            )
        ),
        per_player(flag("in_visit", "still in the visit (has not withdrawn)", lambda p, s: p["in_visit"])),
        per_player(
            counts("influence_tiles", "influence tiles held", INFLUENCE, 3, lambda p, s: p["influence_tiles"])
        ),
        per_player(counts("goods", "goods held", GOODS, 5, lambda p, s: p["goods"])),
        per_player(scalar("province_tiles", "province tiles won", 12, lambda p, s: len(p["province_tiles"]))),
        per_player(scalar("bonus_tiles", "bonus tiles taken", 16, lambda p, s: len(p["bonus_tiles"]))),
        Feature(
            "palaces",
            len(CITIES) * 2 * MAX_PLAYERS,
            "per city (in order "
            + ", ".join(CITIES)
            + "): the relative seat of its palace, then of the crowned palace: "
            "entry city × 10 + k × 5 + seat",
            "one-hot per city and kind; all 0 if none",
            _palaces,
        ),
        seat_onehot(
            "crowned_palace_owner",
            "the seat whose palace is crowned in the current province",
            lambda v, s: (
                (v["palaces"].get(v["crowned_palace"]) or {}).get("crowned") if v["crowned_palace"] else None
            ),
        ),
        Feature(
            "board_bonus_tiles",
            len(CITIES) * (len(_BONUS_KINDS) + 1),
            "per city (order as for palaces): the kind of the bonus tile there (points, good, card) and "
            "its points: entry city × 4 + k",
            "one-hot; points / 4",
            _bonus,
        ),
    ],
)


def _per(v: View, s: Seats, read: Any) -> list[float]:
    out: list[float] = []
    width = len(CARD_COLOURS) + len(SYMBOLS)
    for absolute in s.relative():
        out.extend([0.0] * width if absolute is None else read(v["players"][absolute], s))
    return out
