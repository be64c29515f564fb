"""The output schemas: what a China client reads, as JSON schemas: the view (view.py), the result (scoring.py)
and every event the rules emit. Published in the OpenAPI spec; tests/contract/test_game_schemas.py
validates every view, result and event of random playouts against them, so they cannot drift from the
engine.
"""

from __future__ import annotations

from typing import Any

from engine.core import array_of, closed_object, event_schema, named, nullable

from .components import COLOURS, DISPLAY_SIZE, PIECE_COLOURS, PROVINCES, SPACES

INT = {"type": "integer"}
SEAT = {"type": "integer", "minimum": 0}
BOOL = {"type": "boolean"}
COLOUR = {"type": "string", "enum": list(COLOURS)}
PROVINCE = {"type": "string", "enum": list(PROVINCES)}
SPACE = {"type": "string", "enum": list(SPACES)}
PER_SEAT = array_of(INT, minItems=3, maxItems=5)
#: How the game ended: R52 (the last house placed, final round played) or R53 (board blocked).
END_RULE = {"type": "string", "enum": ["R52", "R53"]}

#: The final scoring by category (R56-R59): points per seat.
FINAL_SCORING = named(
    "FinalScoring", closed_object(provinces=PER_SEAT, ports=PER_SEAT, alliances=PER_SEAT, chains=PER_SEAT)
)

PLAYER = named(
    "Player",
    closed_object(
        optional={
            "fortification": {
                **nullable(SPACE),
                "description": "variant only: the space of the seat's fortified house, null while unused",
            },
            "hand": {**array_of(COLOUR), "description": "the caller's own hand only (R61)"},
        },
        seat=SEAT,
        colour={"type": "string", "enum": list(PIECE_COLOURS)},
        score=INT,
        houses={**INT, "description": "houses left in supply"},
        emissaries={**INT, "description": "emissaries left in supply"},
        hand_size=INT,
        seen_cards={**array_of(COLOUR), "description": "cards everybody saw this seat take from the display"},
        emperor={**BOOL, "description": "the start player (R19)"},
    ),
)

PENDING = named(
    "Pending",
    closed_object(
        optional={
            "draws_left": {**INT, "description": "draw decisions only"},
            "pieces_left": {**INT, "description": "turn and place decisions only"},
            "cards_left": {**INT, "description": "turn and place decisions only"},
            "provinces": {
                **array_of(PROVINCE),
                "description": "place decisions only: the first piece's provinces, one of which the second "
                "must share (R30)",
            },
            "blocked": {
                **array_of(PROVINCE),
                "description": "place decisions only: provinces empty at turn start that took the first "
                "piece, closed to the second (R31)",
            },
        },
        seat=SEAT,
        decision={"type": "string", "enum": ["turn", "place", "draw"]},
        rule={"type": "string"},
    ),
)

VIEW: dict[str, Any] = {
    "description": "A China match as one seat (or a spectator) may see it (R61, R62).",
    **closed_object(
        game={"const": "china"},
        players=array_of(PLAYER, minItems=3, maxItems=5),
        to_move=nullable(SEAT),
        phase={"type": "string", "enum": ["turn", "place", "draw", "over"]},
        turn=INT,
        pending={**nullable(PENDING), "description": "the decision to make; null once over"},
        board=named(
            "Board",
            closed_object(
                houses={
                    "type": "object",
                    "description": "occupied space -> seat of its house",
                    "propertyNames": SPACE,
                    "additionalProperties": SEAT,
                },
                seals={
                    "type": "object",
                    "description": "province -> emissaries of each seat on its dragon seal",
                    "propertyNames": PROVINCE,
                    "additionalProperties": PER_SEAT,
                },
                scored=array_of(PROVINCE),
            ),
        ),
        display={
            **array_of(nullable(COLOUR), minItems=DISPLAY_SIZE, maxItems=DISPLAY_SIZE),
            "description": "face-up cards by slot; null for an empty slot",
        },
        deck_size=INT,
        discard=array_of(COLOUR),
        exhaustions=INT,
        final_round=BOOL,
        fortifications={**BOOL, "description": "whether the fortification variant is on"},
        ended_by=nullable(END_RULE),
        final_scoring=nullable(FINAL_SCORING),
    ),
}

RESULT: dict[str, Any] = {
    "description": "How a China match ended: the highest total wins, equal totals share the victory (R60).",
    **closed_object(
        scores=PER_SEAT,
        ranking={**array_of(SEAT, minItems=3, maxItems=5), "description": "seats, best first"},
        tiebreak={"type": "null", "description": "China has no tie-breaker (R60)"},
        winners=array_of(SEAT, minItems=1),
        final_scoring=nullable(FINAL_SCORING),
        ended_by=END_RULE,
    ),
}

EVENTS: dict[str, dict[str, Any]] = {
    "took": event_schema(
        "took", "a seat took a face-up display card (R45)", seat=SEAT, slot=INT, card=COLOUR
    ),
    "drew": event_schema("drew", "you drew a card from the pile (private, R61)", seat=SEAT, card=COLOUR),
    "province_scored": event_schema(
        "province_scored", "a full province scored (R37, R41)", province=PROVINCE, points=PER_SEAT
    ),
    "reshuffled": event_schema("reshuffled", "the discard pile became the draw pile", deck_size=INT),
    "final_round": event_schema(
        "final_round", "the last house was placed: the final round runs to this seat (R52)", last_seat=SEAT
    ),
    "display_refilled": event_schema(
        "display_refilled", "a display slot was refilled", slot=INT, card=COLOUR
    ),
    "passed": event_schema(
        "passed",
        "a seat could neither place nor swap, so its turn was skipped",
        seat=SEAT,
        rule={"const": "R55"},
    ),
    "game_over": event_schema(
        "game_over", "final scoring (R56-R59)", rule=END_RULE, final_scoring=FINAL_SCORING, scores=PER_SEAT
    ),
}

#: Every China action is public.
MASKED_ACTIONS: dict[str, dict[str, Any]] = {}
