"""The output schemas: what an In the Year of the Dragon client reads, as JSON schemas: the view (view.py),
the result (scoring.py), every event the rules emit and the masked form of a played card (R58a). Published
in the OpenAPI spec; tests/contract/test_game_schemas.py validates every view, result and event of random
playouts against them, so they cannot drift from the engine.
"""

from __future__ import annotations

from typing import Any

from engine.core import array_of, closed_object, event_schema, named, nullable

from .components import ACTION_IDS, CARD_IDS, EVENT_IDS, TILE_IDS, TYPE_IDS
from .inputs import ACTIONS
from .scoring import TIEBREAK
from .state import PHASE_NAMES

INT = {"type": "integer"}
SEAT = {"type": "integer", "minimum": 0}
BOOL = {"type": "boolean"}
PER_SEAT = array_of(INT, minItems=2, maxItems=5)
SEATS = array_of(SEAT, minItems=2, maxItems=5)
TILE = {
    "type": "string",
    "enum": list(TILE_IDS),
    "description": "a person tile (type, and _y/_o for young/old)",
}
TYPE = {"type": "string", "enum": list(TYPE_IDS)}
CARD = {"type": "string", "enum": list(CARD_IDS)}
ACTION_CARD = {"type": "string", "enum": list(ACTION_IDS)}
MONTH_EVENT = {"type": "string", "enum": list(EVENT_IDS)}

PLAYER = named(
    "Player",
    closed_object(
        optional={
            "hand": {
                "type": "object",
                "description": "own hand only (R58a): person card -> how many are held",
                "propertyNames": CARD,
                "additionalProperties": {"type": "integer", "minimum": 1},
            },
            "played": {
                **array_of(CARD),
                "description": "person cards played so far: own always, others' unless hidden (R57, R58a)",
            },
            "owed": {
                **INT,
                "description": "release decisions only: persons still owed to the month's event (R40)",
            },
        },
        seat=SEAT,
        yuan=INT,
        rice=INT,
        fireworks=INT,
        vp=INT,
        person_pos={**INT, "description": "position on the person track"},
        privileges=named("Privileges", closed_object(small=INT, large=INT)),
        palaces=array_of(named("Palace", closed_object(floors=INT, persons=array_of(TILE)))),
        hand_size=INT,
    ),
)

PENDING = named(
    "Pending",
    closed_object(
        optional={
            "tiles": {**array_of(TILE), "description": "place and full decisions: the tiles to house"},
            "floors_left": {**INT, "description": "build decisions"},
            "owed": {**INT, "description": "release decisions: persons still to release"},
            "event": {**MONTH_EVENT, "description": "release decisions: the month's event"},
            "after": {
                "description": "release decisions: releases go in palace order, after this one",
                **named("ReleaseAfter", closed_object(optional={"person": TILE}, palace=INT)),
            },
        },
        seat=SEAT,
        decision={"type": "string", "enum": list(PHASE_NAMES[:-1])},
        rule={"type": "string"},
    ),
)

RESULT: dict[str, Any] = {
    "description": "How the match ended: most VP wins, ties broken by the person track (R55, R55a).",
    **closed_object(
        scores=PER_SEAT,
        ranking={**SEATS, "description": "seats, best first"},
        tiebreak={
            **nullable({"const": TIEBREAK}),
            "description": "set when equal VP were ranked by the track",
        },
        winners={
            **array_of(SEAT, minItems=1, maxItems=1),
            "description": "the winner: the person track breaks every tie (R55)",
        },
        track_order={**SEATS, "description": "the person track, stack top first"},
        final_scoring={
            **array_of(named("FinalScore", closed_object(persons=INT, monks=INT, money=INT))),
            "description": "per seat: the final scoring's points by source (R52-R54)",
        },
    ),
}

VIEW: dict[str, Any] = {
    "description": "A match as one seat (or a spectator) may see it (R57, R58a).",
    **closed_object(
        game={"const": "year_of_dragon"},
        options=closed_object(large_privilege_cost=INT, reveal_played_card=BOOL),
        round=INT,
        phase={"type": "string", "enum": list(PHASE_NAMES)},
        to_move=nullable(SEAT),
        pending={**nullable(PENDING), "description": "the decision to make; null once over"},
        first_player=SEAT,
        turn_order=SEATS,
        track_order=SEATS,
        event_row={**array_of(MONTH_EVENT), "description": "the event of each month"},
        supply={
            "type": "object",
            "description": "person tile -> how many are left",
            "propertyNames": TILE,
            "additionalProperties": INT,
        },
        groups=array_of(named("ActionGroup", closed_object(actions=array_of(ACTION_CARD), dragons=INT))),
        court_pairs={**array_of(array_of(TYPE)), "description": "person types of each court pair (R14)"},
        players=array_of(PLAYER, minItems=2, maxItems=5),
        result=nullable(RESULT),
    ),
}

EVENTS: dict[str, dict[str, Any]] = {
    "round": event_schema(
        "round", "a round starts with new action groups", round=INT, groups=array_of(array_of(ACTION_CARD))
    ),
    "month_event": event_schema(
        "month_event",
        "the month's event was resolved",
        round=INT,
        event=MONTH_EVENT,
        vp=PER_SEAT,
        paid=PER_SEAT,
        owed=PER_SEAT,
    ),
    "decay": event_schema("decay", "palaces decayed", round=INT, floors_lost=PER_SEAT),
    "round_scoring": event_schema(
        "round_scoring", "VP scored at the end of the round", round=INT, vp=PER_SEAT
    ),
    "final_scoring": event_schema(
        "final_scoring",
        "the final scoring: per seat, points for persons, monks and money",
        vp=array_of(array_of(INT, minItems=3, maxItems=3)),
    ),
}


def _hidden_card(kind: str) -> dict[str, Any]:
    schema = ACTIONS[kind]
    return {
        **schema,
        "description": f"{schema['description']} (as the others see it: the card played is hidden, R58a)",
        "properties": {**schema["properties"], "card": {"const": "hidden"}},
    }


#: R58a: with ``reveal_played_card`` off, the other seats see that a card was played, not which.
MASKED_ACTIONS: dict[str, dict[str, Any]] = {kind: _hidden_card(kind) for kind in ("recruit", "spend")}
