"""The output schemas: what a Confucius client reads, as JSON schemas: the view (view.py), the result
(scoring.py), every event the rules emit and the masked forms of the secret actions (R113-R116). Published
in the OpenAPI spec; tests/contract/test_game_schemas.py validates every view, result and event of random
playouts against them, so they cannot drift from the engine.
"""

from __future__ import annotations

from typing import Any

from engine.core import array_of, closed_object, event_schema, named, nullable

from .cards import CURRENCY_NAMES
from .components import (
    ACTION_SPACES,
    CANDIDATE_NAMES,
    COLOURS,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    MINISTRIES,
    REWARDS,
)
from .exam import STUDENTS
from .inputs import ACTIONS
from .state import GIFT_STATE_NAMES, LAND_STATE_NAMES, PHASE_NAMES

INT = {"type": "integer"}
SEAT = {"type": "integer", "minimum": 0}
BOOL = {"type": "boolean"}
PER_SEAT = array_of(INT, minItems=3, maxItems=5)
MINISTRY = {"type": "string", "enum": list(MINISTRIES)}
CANDIDATE = {"type": "string", "enum": list(CANDIDATE_NAMES)}
STUDENT = {"type": "string", "enum": list(STUDENTS)}
DISTANT_LAND = {"type": "string", "enum": list(DISTANT_LANDS)}
FOREIGN_LAND = {"type": "string", "enum": list(FOREIGN_LANDS)}
SPACE_NAME = {"type": "string", "description": "an official space: ministry#number (e.g. hubu#3)"}
#: Confucius cards by coin value: how many 1-, 2- and 3-coin cards.
CARDS = named("Cards", closed_object(c1=INT, c2=INT, c3=INT))
TITLES = ("chief_minister", "general", "admiral")

PLAYER = named(
    "Player",
    closed_object(
        optional={
            "hand": {**CARDS, "description": "own hand only (R113)"},
            "rewards": {
                **array_of({"type": "string", "enum": list(REWARDS)}),
                "description": "own reward cards only",
            },
            "set_aside_cards": {
                **CARDS,
                "description": "own cards set aside at the End of Round discard only",
            },
        },
        seat=SEAT,
        colour={"type": "string", "enum": list(COLOURS)},
        score=INT,
        cubes=INT,
        cubes_placed={
            "type": "object",
            "description": "action space -> cubes this seat placed there this round",
            "propertyNames": {"type": "string", "enum": list(ACTION_SPACES)},
            "additionalProperties": INT,
        },
        passed=BOOL,
        commercial_income_used=BOOL,
        cards={**INT, "description": "Confucius cards in hand"},
        reward_cards=INT,
        gifts={
            "type": "object",
            "description": "gift value (1-6) -> its state (R53)",
            "propertyNames": {"type": "string", "enum": [str(v) for v in range(1, 7)]},
            "additionalProperties": {"type": "string", "enum": list(GIFT_STATE_NAMES)},
        },
        shipyard=INT,
        ocean=INT,
        distant_lands=array_of(DISTANT_LAND),
        armies_in_stock=INT,
        armies_in_colonies=INT,
        tutoring={
            **nullable(
                named(
                    "Tutoring",
                    closed_object(optional={"c1": INT, "c2": INT, "c3": INT}, student=STUDENT, cards=INT),
                )
            ),
            "description": "the student this seat tutors and the cards laid (their values: own seat only)",
        },
        set_aside=INT,
    ),
)

SPACE = named(
    "OfficialSpace",
    closed_object(
        optional={
            "influence_held_by": {**INT, "description": "while its ministry resolves: the seat, or -1"}
        },
        space=INT,
        tile={
            "anyOf": [INT, {"type": "string", "enum": ["candidate"]}, {"type": "null"}],
            "description": "an official's bribe cost, the placed candidate, or null when empty",
        },
        marker=nullable(SEAT),
        secured=BOOL,
        transferred={
            **BOOL,
            "description": "its marker changed hands by Transfer Influence this round, so it cannot "
            "be transferred again until the next round (R62a)",
        },
    ),
)

PENDING = named(
    "Pending",
    closed_object(
        optional={
            "action": {
                "type": "object",
                "description": "pay decisions: the action being paid for (one of the game's actions)",
                "properties": {"type": {"type": "string", "enum": sorted(ACTIONS)}},
                "required": ["type"],
            },
            "price": INT,
            "currency": {"type": "string", "enum": list(CURRENCY_NAMES)},
            "voyages": {**INT, "description": "distant land choices: voyages left"},
            "ministry": MINISTRY,
            "receivers": array_of(SEAT),
            "students": array_of(STUDENT),
            "still_to_tutor": array_of(SEAT),
            "candidate": CANDIDATE,
            "keep": {**INT, "description": "keep-cards decisions: the hand limit (R98)"},
            "final_resolution": {
                **BOOL,
                "description": "give-influence decisions: a final resolution at the game's end (R101)",
            },
        },
        seat=SEAT,
        decision={"type": "string", "enum": [p for p in PHASE_NAMES if p != "over"]},
        rule={"type": "string"},
    ),
)

RESULT: dict[str, Any] = {
    "description": "How a Confucius match ended: most VP, ties broken by the titles (R110-R112).",
    **closed_object(
        scores=PER_SEAT,
        ranking={**array_of(SEAT, minItems=3, maxItems=5), "description": "seats, best first"},
        tiebreak={
            **nullable({"type": "string"}),
            "description": "the rule that separated a tie for first, null if none did",
        },
        winners=array_of(SEAT, minItems=1),
        titles={
            **named("Titles", closed_object(**dict.fromkeys(TITLES, INT))),
            "description": "title -> the seat holding it, or -1",
        },
        measures={
            **named("Measures", closed_object(**dict.fromkeys(TITLES, PER_SEAT))),
            "description": "what each title measures",
        },
    ),
}

VIEW: dict[str, Any] = {
    "description": "A Confucius match as one seat (or a spectator) may see it (R113-R116).",
    **closed_object(
        game={"const": "confucius"},
        options=closed_object(advanced=BOOL, admiral_variant=BOOL),
        round=INT,
        phase={"type": "string", "enum": list(PHASE_NAMES)},
        to_move=nullable(SEAT),
        pending={**nullable(PENDING), "description": "the decision to make; null once over"},
        chief_minister=SEAT,
        turn=INT,
        players=array_of(PLAYER, minItems=3, maxItems=5),
        ministries=array_of(
            named(
                "Ministry",
                closed_object(
                    ministry=MINISTRY,
                    resolved=BOOL,
                    minister=nullable(SEAT),
                    secretary=nullable(SEAT),
                    minister_chit=INT,
                    secretary_chit=INT,
                    spaces=array_of(SPACE),
                ),
            )
        ),
        candidate=nullable(CANDIDATE),
        candidate_stack=named(
            "CandidateStack", closed_object(count=INT, ministries=array_of(CANDIDATE), any=INT)
        ),
        students={
            **closed_object(**dict.fromkeys(STUDENTS, nullable(SEAT))),
            "description": "student -> tutor",
        },
        examination_forced=BOOL,
        foreign_lands=array_of(
            named(
                "ForeignLand",
                closed_object(
                    position=INT,
                    land=FOREIGN_LAND,
                    cost_per_army=INT,
                    state={"type": "string", "enum": list(LAND_STATE_NAMES)},
                    boxes=array_of(
                        named(
                            "ForeignLandBox",
                            closed_object(box=INT, vp=INT, reward_card=BOOL, army=nullable(SEAT)),
                        )
                    ),
                ),
            )
        ),
        distant_lands=array_of(
            named(
                "DistantLand", closed_object(land=DISTANT_LAND, chit=nullable(INT), reached_by=array_of(SEAT))
            )
        ),
        gift_tracker=array_of(named("Gift", closed_object(giver=SEAT, recipient=SEAT, value=INT))),
        great_wall=INT,
        junk_supply=INT,
        emperor_insulted=nullable(SEAT),
        deck={**INT, "description": "cards in the deck"},
        discard_pile=CARDS,
        official_stack=INT,
        official_stack_costs={
            **array_of(INT),
            "description": "the costs of the face-down officials, sorted: their order is hidden (R15)",
        },
        reward_stack=INT,
        reward_cards_played={
            **array_of({"type": "string", "enum": list(REWARDS)}),
            "description": "reward cards played, out of the game (R69)",
        },
        resolving=nullable(MINISTRY),
        result=nullable(RESULT),
    ),
}

EVENTS: dict[str, dict[str, Any]] = {
    "round_started": event_schema("round_started", "a round starts", round=INT, cubes=PER_SEAT),
    "chief_minister": event_schema("chief_minister", "the new Chief Minister", seat=SEAT),
    "drew": event_schema(
        "drew",
        "a seat drew Confucius cards: their values for that seat, their number for everyone else",
        optional={"c1": INT, "c2": INT, "c3": INT, "count": INT},
        seat=SEAT,
    ),
    "deck_reshuffled": event_schema("deck_reshuffled", "the discard pile became the deck", cards=INT),
    "great_wall": event_schema("great_wall", "the Great Wall grew", pieces=INT),
    "official_placed": event_schema("official_placed", "a new official", space=SPACE_NAME, cost=INT),
    "cards_discarded": event_schema(
        "cards_discarded",
        "the cards set aside at the End of Round, per seat (c1, c2, c3)",
        cards=array_of(array_of(INT)),
    ),
    "candidate_unplaced": event_schema(
        "candidate_unplaced",
        "the examination winner found no space for the candidate",
        seat=SEAT,
        rule={"const": "R88"},
    ),
    "candidate_placed": event_schema(
        "candidate_placed",
        "the examination winner placed the candidate",
        seat=SEAT,
        candidate=CANDIDATE,
        space=SPACE_NAME,
        replaced={**INT, "description": "the tile replaced (-1: none)"},
    ),
    "candidate_removed": event_schema(
        "candidate_removed", "a candidate left the game", candidate=CANDIDATE, rule={"const": "R89"}
    ),
    "candidate_revealed": event_schema("candidate_revealed", "the next candidate", candidate=CANDIDATE),
    "candidates_exhausted": event_schema(
        "candidates_exhausted", "no candidates are left", rule={"const": "R100"}
    ),
    "exam_decided": event_schema(
        "exam_decided",
        "the Imperial Examination: totals, winner and the cards laid",
        red=INT,
        orange=INT,
        winner=SEAT,
        cards=array_of(named("ExamCard", closed_object(seat=SEAT, student=STUDENT, c1=INT, c2=INT, c3=INT))),
    ),
    "distant_land_reached": event_schema(
        "distant_land_reached", "a seat's junks reached a distant land", seat=SEAT, land=DISTANT_LAND, vp=INT
    ),
    "invasion": event_schema(
        "invasion",
        "a foreign land was invaded",
        land=FOREIGN_LAND,
        success=BOOL,
        armies={**array_of(INT), "description": "per box: the seat of its army, or -1"},
    ),
    "gift_cancelled": event_schema(
        "gift_cancelled",
        "a gift was cancelled",
        giver=SEAT,
        recipient=SEAT,
        value=INT,
        rule={"type": "string"},
    ),
    "influence_transferred": event_schema(
        "influence_transferred", "influence moved to another seat", seat=SEAT, receiver=SEAT, space=SPACE_NAME
    ),
    "influence_given": event_schema(
        "influence_given", "a seat gave its influence", seat=SEAT, receiver=SEAT, ministry=MINISTRY
    ),
    "ministry_resolution": event_schema(
        "ministry_resolution", "a ministry starts resolving", ministry=MINISTRY, final=BOOL
    ),
    "ministry_resolved": event_schema(
        "ministry_resolved",
        "a ministry resolved: its minister and secretary (-1: none) and their VP",
        ministry=MINISTRY,
        minister=INT,
        secretary=INT,
        minister_vp=INT,
        secretary_vp=INT,
    ),
    "reward_stack_empty": event_schema(
        "reward_stack_empty", "no reward card was left to draw", seat=SEAT, rule={"const": "R76"}
    ),
    "reward_drawn": event_schema(
        "reward_drawn",
        "a seat drew a reward card: which one for that seat only",
        optional={"card": {"type": "string", "enum": list(REWARDS)}},
        seat=SEAT,
    ),
    "scored": event_schema("scored", "a seat scored VP", seat=SEAT, vp=INT, source={"type": "string"}),
    "title": event_schema(
        "title", "a title's VP at the end", title={"type": "string", "enum": list(TITLES)}, seat=SEAT, vp=INT
    ),
    "game_over": event_schema(
        "game_over", "the final result", **{k: RESULT["properties"][k] for k in RESULT["required"]}
    ),
}


def _masked(kind: str, keep: tuple[str, ...]) -> dict[str, Any]:
    schema = ACTIONS[kind]
    fields = ("type", *keep)
    return {
        "type": "object",
        "description": f"{schema['description']} (as the other seats see it: the cards are secret)",
        "properties": {f: schema["properties"][f] for f in fields},
        "required": list(fields),
        "additionalProperties": False,
    }


#: The cards laid at a student and the cards kept are secret (R113): others see the choice only.
MASKED_ACTIONS: dict[str, dict[str, Any]] = {
    "tutor": _masked("tutor", ("student",)),
    "keep_cards": _masked("keep_cards", ()),
}
