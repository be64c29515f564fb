"""China's feature vector (see :mod:`research.features.spec` for the conventions).

What a seat sees in China is almost all public: the board (who owns each house space, how many
emissaries each seat has on each province's dragon seal, which provinces have been scored), each
seat's score, supply and hand size, the colours it has seen others take, the face-up display, the draw
and discard piles; plus its own hand.  Each is a slice here, board spaces and provinces in the rules'
order (:data:`engine.games.china.components.SPACES`, :data:`engine.games.china.components.PROVINCES`).
Caps come from the components and the rules: 20 houses, 8 emissaries, a hand of 3 cards (R45).
"""

from __future__ import annotations

from typing import Any

from engine.games.china.components import COLOURS, EMISSARIES, HOUSES, PROVINCES, SPACES
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
_SPACE = {space: i for i, space in enumerate(SPACES)}
_PHASES = ("turn", "place", "draw")
_ENDS = ("R52", "R53")


def _owners(v: View, s: Seats) -> list[float]:
    """Per space, the owner's relative block one-hot (``max_players`` entries per space)."""
    out = [0.0] * (len(SPACES) * s.max_players)
    for space, owner in v["board"]["houses"].items():
        b = s.block(owner)
        if b is not None:
            out[_SPACE[space] * s.max_players + b] = 1.0
    return out


def _seals(v: View, s: Seats) -> list[float]:
    """Per province, each relative seat's emissaries on its dragon seal / 8."""
    out = [0.0] * (len(PROVINCES) * s.max_players)
    for p, province in enumerate(PROVINCES):
        for absolute, n in enumerate(v["board"]["seals"].get(province, [])):
            b = s.block(absolute)
            if b is not None:
                out[p * s.max_players + b] = min(n / EMISSARIES, 1.0)
    return out


def _display(v: View, s: Seats) -> list[float]:
    out = [0.0] * (4 * len(COLOURS))
    for slot, colour in enumerate(v["display"][:4]):
        if colour in COLOURS:
            out[slot * len(COLOURS) + COLOURS.index(colour)] = 1.0
    return out


def _pending(key: str) -> Any:
    return lambda v, s: (v.get("pending") or {}).get(key)


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


SPEC = FeatureSpec(
    "china",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot(
            "phase", "the phase of the turn (R23 turn, R26 place, R45 draw)", _PHASES, lambda v, s: v["phase"]
        ),
        scalar("pieces_left", "pieces the mover may still place this turn (R26)", 2, _pending("pieces_left")),
        scalar("cards_left", "cards the mover may still pay this turn (R26)", 3, _pending("cards_left")),
        scalar("draws_left", "cards still to draw (R45, R49)", 3, _pending("draws_left")),
        scalar("turn", "turns played", 100, lambda v, s: v["turn"]),
        counts(
            "placed_in",
            "provinces the mover's first piece this turn went to, which limit the second (R30, R31)",
            PROVINCES,
            1,
            _pending("provinces"),
        ),
        counts(
            "blocked",
            "provinces the mover's second piece may not go to (R30, R31)",
            PROVINCES,
            1,
            _pending("blocked"),
        ),
        counts("hand", "my hand, cards per colour", COLOURS, 3, lambda v, s: _me(v, s).get("hand")),
        per_player(scalar("score", "score", 100, lambda p, s: p["score"])),
        per_player(scalar("houses", "houses left in supply", HOUSES, lambda p, s: p["houses"])),
        per_player(
            scalar("emissaries", "emissaries left in supply", EMISSARIES, lambda p, s: p["emissaries"])
        ),
        per_player(scalar("hand_size", "cards in hand", 3, lambda p, s: p["hand_size"])),
        per_player(
            counts(
                "seen_cards",
                "cards of each colour seen taken into that hand",
                COLOURS,
                3,
                lambda p, s: p["seen_cards"],
            )
        ),
        per_player(flag("emperor", "holds the Emperor (start player, R19)", lambda p, s: p["emperor"])),
        per_player(
            flag(
                "fortified",
                "has placed its fortification (variant, R64)",
                lambda p, s: p.get("fortification"),
            )
        ),
        Feature(
            "house_owner",
            len(SPACES) * MAX_PLAYERS,
            "per board space, the relative seat owning a house there: entry space × 5 + seat; "
            "spaces in order " + ", ".join(SPACES),
            "one-hot per space over relative seats; all 0 if free",
            _owners,
        ),
        Feature(
            "seals",
            len(PROVINCES) * MAX_PLAYERS,
            "per province, each relative seat's emissaries on its dragon seal (R33): "
            "entry province × 5 + seat; "
            "provinces in order " + ", ".join(PROVINCES),
            "count / 8",
            _seals,
        ),
        counts("scored", "provinces already scored", PROVINCES, 1, lambda v, s: v["board"]["scored"]),
        Feature(
            "display",
            4 * len(COLOURS),
            "the four face-up display slots, each a colour one-hot: entry slot × 5 + colour",
            "one-hot per slot over: " + ", ".join(COLOURS) + "; all 0 if empty",
            _display,
        ),
        scalar("deck_size", "cards left in the draw pile", 64, lambda v, s: v["deck_size"]),
        counts("discard", "cards of each colour on the discard pile", COLOURS, 13, lambda v, s: v["discard"]),
        scalar("exhaustions", "times the draw pile ran out", 2, lambda v, s: v["exhaustions"]),
        flag("final_round", "the final round is under way", lambda v, s: v["final_round"]),
        flag(
            "fortifications", "the fortification variant is in play (R21)", lambda v, s: v["fortifications"]
        ),
        onehot("ended_by", "the rule that ended the game, once over", _ENDS, lambda v, s: v["ended_by"]),
    ],
)
