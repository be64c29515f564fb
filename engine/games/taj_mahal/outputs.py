"""The output schemas: what a Taj Mahal client reads, as JSON schemas: the view (view.py), the result
(scoring.py) and every event the rules emit. Published in the OpenAPI spec;
tests/contract/test_game_schemas.py validates every view, result and event of random playouts against them,
so they cannot drift from the engine.
"""

from __future__ import annotations

from typing import Any

from engine.core import array_of, closed_object, event_schema, named, nullable

from .components import STANDARD as COMP
from .state import PHASE_NAMES

INT = {"type": "integer"}
SEAT = {"type": "integer", "minimum": 0}
BOOL = {"type": "boolean"}
PER_SEAT = array_of(INT, minItems=3, maxItems=5)
SYMBOL = {"type": "string", "enum": list(COMP.symbols)}
CARD_ID = {"type": "string", "enum": list(COMP.card_ids)}
CITY = {"type": "string", "enum": list(COMP.city_ids)}
PROVINCE = {"type": "string", "enum": list(COMP.province_ids)}


def _counts(names: tuple[str, ...], value: dict[str, Any]) -> dict[str, Any]:
    """An object with one ``value`` per name (symbol counts, goods, influence tiles...)."""
    return closed_object(**dict.fromkeys(names, value))


CARD = {
    "title": "Card",
    "description": "a card with what is printed on it (components.json)",
    **closed_object(
        id=CARD_ID,
        kind={"type": "string", "enum": ["colored", "white", "special"]},
        colour={
            **nullable({"type": "string", "enum": list(COMP.colours)}),
            "description": "null unless coloured",
        },
        symbols=array_of(SYMBOL),
    ),
}
BONUS_TILE = {
    "title": "BonusTile",
    "description": "a bonus tile (R42): points, extra cards, or a good",
    **closed_object(
        id={"type": "string"},
        kind={"type": "string", "enum": ["points", "card", "good"]},
        value={"anyOf": [INT, {"type": "string", "enum": list(COMP.goods)}]},
    ),
}

PLAYER = named(
    "Player",
    closed_object(
        optional={
            "hand": {**array_of(CARD), "description": "own hand only (R64); every hand once over (R66)"}
        },
        seat=SEAT,
        score=INT,
        hand_size={**INT, "description": "normal and special cards in hand"},
        hand_public={
            **array_of(CARD),
            "description": "cards everybody saw this seat take from the display (R65)",
        },
        specials={**array_of(CARD), "description": "special cards held (R59)"},
        table={**array_of(CARD), "description": "cards played this visit"},
        counts={**_counts(COMP.symbols, INT), "description": "symbols shown this visit"},
        commitment={
            **nullable({"type": "string", "enum": list(COMP.colours)}),
            "description": "colour played",
        },
        in_visit=BOOL,
        influence_tiles=_counts(COMP.influence, INT),
        goods=_counts(COMP.goods, INT),
        province_tiles=array_of(INT),
        bonus_tiles=array_of({"type": "string"}),
    ),
)

PENDING = named(
    "Pending",
    closed_object(
        optional={
            "left": {**INT, "description": "palaces to place, or cards to take"},
            "crown": {**BOOL, "description": "whether a crowned palace follows (R37)"},
            "cities": {**array_of(CITY), "description": "the cities the palace may go to (R36, R37)"},
            "placed": {
                **BOOL,
                "description": "palace decisions: a palace was placed in this withdrawal (R44)",
            },
            "bonus_taken": {
                **array_of(BONUS_TILE),
                "description": "palace decisions: bonus tiles this withdrawal took, scored at its end (R42)",
            },
        },
        seat=SEAT,
        decision={"type": "string", "enum": ["play_or_withdraw", "palace", "crown", "take"]},
        rule={"type": "string"},
    ),
)

RESULT: dict[str, Any] = {
    "description": "How a Taj Mahal match ended: most points wins, ties share the victory (R62, X5).",
    **closed_object(
        scores=PER_SEAT,
        ranking={**array_of(SEAT, minItems=3, maxItems=5), "description": "seats, best first"},
        ranks={**PER_SEAT, "description": "each seat's place (1 = winner); tied seats share it"},
        winners=array_of(SEAT, minItems=1),
        card_bonus={**PER_SEAT, "description": "points of the final card bonus"},
        tiebreak={"type": "null", "description": "Taj Mahal has no tie-breaker"},
    ),
}

VIEW: dict[str, Any] = {
    "description": "A Taj Mahal match as one seat (or a spectator) may see it (R64-R66).",
    **closed_object(
        game={"const": "taj_mahal"},
        phase={"type": "string", "enum": list(PHASE_NAMES)},
        round=INT,
        visit=INT,
        to_move=nullable(SEAT),
        pending={**nullable(PENDING), "description": "the decision to make; null once over"},
        start_player=SEAT,
        current_province=PROVINCE,
        province_tiles={
            "type": "object",
            "description": "province -> number of the visit it is (or was) played in",
            "propertyNames": PROVINCE,
            "additionalProperties": INT,
        },
        bonus_tiles={
            "type": "object",
            "description": "city -> the bonus tile still on it",
            "propertyNames": CITY,
            "additionalProperties": BONUS_TILE,
        },
        palaces={
            "type": "object",
            "description": "city -> the seats owning its regular and crowned palace",
            "propertyNames": CITY,
            "additionalProperties": named(
                "Palace", closed_object(regular=nullable(SEAT), crowned=nullable(SEAT))
            ),
        },
        crowned_palace=nullable(CITY),
        court={**_counts(COMP.symbols, BOOL), "description": "symbol -> whether it is still at court"},
        court_province_tile=nullable(INT),
        supply=_counts(COMP.influence, INT),
        specials_beside_board=array_of(CARD),
        display=array_of(CARD),
        deck_size=INT,
        discard=array_of(CARD),
        players=array_of(PLAYER, minItems=3, maxItems=5),
        result=nullable(RESULT),
    ),
}

EVENTS: dict[str, dict[str, Any]] = {
    "drew": event_schema(
        "drew",
        "a seat drew a card from the deck: the card for that seat, null for everyone else (R64)",
        seat=SEAT,
        card=nullable(CARD_ID),
        rule={"type": "string"},
    ),
    "took": event_schema("took", "a seat took a display card", seat=SEAT, card=CARD_ID, rule={"const": "X2"}),
    "palace": event_schema(
        "palace", "a palace was placed", seat=SEAT, city=CITY, crowned=BOOL, rule={"const": "X8"}
    ),
    "prize": event_schema(
        "prize", "a seat won a symbol's prize (R32)", seat=SEAT, symbol=SYMBOL, rule={"const": "R32"}
    ),
    "scored": event_schema(
        "scored",
        "a seat scored points",
        seat=SEAT,
        points=INT,
        rule={"type": "string"},
        reason={"type": "string", "description": "what earned them (a bonus tile id, a rule's wording)"},
    ),
    "special_card": event_schema(
        "special_card",
        "a special card changed hands (R51); source is the seat it came from, null from beside the board",
        seat=SEAT,
        card=CARD_ID,
        source=nullable(SEAT),
        rule={"const": "R51"},
    ),
    "reshuffled": event_schema(
        "reshuffled", "the discard pile became the deck (R49)", cards=INT, rule={"const": "R49"}
    ),
    "visit_started": event_schema(
        "visit_started",
        "a new visit begins with a fresh display (R55)",
        visit=INT,
        province=PROVINCE,
        start_player=SEAT,
        display=array_of(CARD_ID),
        rule={"const": "R55"},
    ),
    "game_over": event_schema(
        "game_over",
        "final scoring; every hand is shown (R61, R66)",
        card_bonus=PER_SEAT,
        scores=PER_SEAT,
        hands=array_of(array_of(CARD_ID)),
        rule={"const": "R61"},
    ),
}

#: Every Taj Mahal action is public.
MASKED_ACTIONS: dict[str, dict[str, Any]] = {}
