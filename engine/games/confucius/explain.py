"""Why an action is refused: the cold path of ``apply``, naming the rule that forbids it.

Only reached for an action that is well-formed but not in the legal list, so it may be slow and
thorough: it checks the common causes in the order a player would ask about them and falls back to
the rule the action type answers to.
"""

from __future__ import annotations

from engine.core import RULE_SCHEMA, Action, IllegalAction

from . import cards, exam
from .actions import PETITION_GIFT, REWARD_CARD, REWARD_TYPES
from .components import COIN_VALUES, HAND_LIMIT, MINISTRIES, NOT_IN_ROUND_1, REWARD_INDEX, REWARDS
from .cubes import ACTION_SPACE, cube_cost
from .gifts import GIFTS
from .ministries import bribe_allowed, influence_table
from .schemas import ACTIONS, RULE_OF, SEAT_FIELDS
from .state import (
    ACTION,
    AVAILABLE,
    CHOOSE_CM,
    EXTRA,
    FAVOUR,
    GIVE,
    KEEP,
    LAND,
    OPEN,
    PAY,
    PHASE_NAMES,
    PHASE_RULES,
    PLACE,
    REMOVED,
    TUTOR,
    State,
)

_BOX = frozenset(ACTION_SPACE)
#: Action types each pending decision accepts.
PHASE_TYPES: dict[int, frozenset[str]] = {
    CHOOSE_CM: frozenset({"choose_chief_minister"}),
    ACTION: _BOX | REWARD_TYPES | {"pass"},
    EXTRA: _BOX,
    FAVOUR: _BOX,
    PAY: frozenset({"pay"}),
    LAND: frozenset({"choose_distant_land"}),
    TUTOR: frozenset({"tutor", "end_tutoring"}),
    PLACE: frozenset({"place_candidate"}),
    GIVE: frozenset({"give_influence"}),
    KEEP: frozenset({"keep_cards"}),
}


def explain(state: State, p: int, action: Action) -> IllegalAction:
    kind = action["type"]
    for name, spec in ACTIONS[kind]["properties"].items():  # values the schema itself rules out
        value = action[name]
        if "enum" in spec and value not in spec["enum"]:
            return IllegalAction(RULE_SCHEMA, f"{kind}: {name} must be one of {spec['enum']}", name)
        if not spec.get("minimum", value) <= value <= spec.get("maximum", value):
            return IllegalAction(RULE_SCHEMA, f"{kind}: {name} {value} is out of range", name)
        if name in SEAT_FIELDS and value >= state.n:
            return IllegalAction(RULE_SCHEMA, f"{kind}: {name} {value} is no seat of {state.n}", name)
    if kind == "tutor" and action["coins"] not in COIN_VALUES:
        return IllegalAction(
            RULE_SCHEMA, f"tutor: no Confucius card is worth {action['coins']} coins", "coins"
        )
    if kind not in PHASE_TYPES[state.phase]:
        return IllegalAction(
            PHASE_RULES[state.phase],
            f"the pending decision is {PHASE_NAMES[state.phase]}; {kind} is not one of it",
        )
    reason = _reason(state, p, action)
    if reason:
        return IllegalAction(*reason)
    return IllegalAction(RULE_OF[kind], f"{kind} with these values is not possible now: {action}")


def _reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    kind = action["type"]
    if kind == "pass":
        return "R29", f"you still have {state.cubes[p]} active cube(s); No Action is always possible"
    if kind == "choose_chief_minister" and action["seat"] == p:
        return "R26", "the Chief Minister must choose a different player"
    if kind.startswith("petition_") and not state.advanced:
        return "R56", "petitions to the Emperor belong to the advanced game"
    if kind in NOT_IN_ROUND_1 and state.round == 1:
        return RULE_OF[kind], f"{kind} is not allowed in round 1"
    if kind == "commercial_income" and state.commercial[p]:
        return "R54", "Commercial Income is once per player per round"
    if kind in _BOX and cube_cost(state, p, ACTION_SPACE[kind]) > state.cubes[p]:
        cost = cube_cost(state, p, ACTION_SPACE[kind])
        return "R35", f"{kind} costs {cost} cube(s) now, you have {state.cubes[p]}"
    if kind.startswith("petition_"):
        return _petition_reason(state, p, action)
    if kind in REWARD_TYPES:
        card = REWARD_INDEX[action["card"]] if kind == "reward_bribery" else REWARD_CARD[kind]
        if card not in state.rewards[p]:
            return "R69", f"you hold no {REWARDS[card]} card"
    if kind in _GIFT_CARD_TYPES and state.gift[p * GIFTS + action["value"] - 1] == REMOVED:
        return "R53", f"your gift of value {action['value']} has left the game for good"
    if kind == "bribe_official":
        m = MINISTRIES.index(action["ministry"])
        if state.resolved[m]:
            return "R91", f"{action['ministry']} is resolved; nothing in it can change"
        if not bribe_allowed(state, p, influence_table(state))[m]:
            return (
                "R65",
                f"a gift you hold forbids bribing in {action['ministry']}: your influence there is not lower",
            )
    if kind == "give_gift":
        held = state.given[action["recipient"] * state.n + p]
        if action["value"] < held:
            return "R64", f"you hold a gift of value {held} from that player; yours may not be lower"
        if state.gift[p * GIFTS + action["value"] - 1] != AVAILABLE:
            return "R52", f"your gift of value {action['value']} is not available"
    if kind == "tutor":
        return _tutor_reason(state, p, action)
    if kind in _CARD_RULE:
        counts = cards.card_set(action)
        if any(c > state.hands[3 * p + k] for k, c in enumerate(counts)):
            return _CARD_RULE[kind], f"you do not hold those cards (hand: {state.hands[3 * p : 3 * p + 3]})"
        if kind == "commercial_income":
            return "R54", "Commercial Income discards cards worth 0-4 coins"
        if kind == "pay":
            return "R37", _pay_message(state, p)
        return "R98", f"keep exactly {HAND_LIMIT} of your cards"
    return None


#: Action types that name one of the player's own gift cards by its value.
_GIFT_CARD_TYPES = frozenset({"buy_gift", "give_gift", "reward_gift"})
#: The rule that names the cards of a card-set action: they must come from the hand.
_CARD_RULE = {"commercial_income": "R54", "pay": "R37", "keep_cards": "R98"}


def _petition_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R56: an available gift of the petition's value; R57: targets in unresolved places."""
    value = PETITION_GIFT[action["type"]]
    if state.gift[p * GIFTS + value - 1] != AVAILABLE:
        return "R56", f"this petition needs your available gift of value {value}"
    ministries = [action[f] for f in ("ministry", "other_ministry") if f in action]
    if any(state.resolved[MINISTRIES.index(m)] for m in ministries):
        return "R57", "petition targets must be in unresolved ministries"
    lands = [action[f] - 1 for f in ("position", "to_position") if f in action]
    if any(state.land_state[pos] != OPEN for pos in lands):
        return "R57", "petition targets must be on unresolved foreign lands"
    return None


def _tutor_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R83: one student per tutor, cards from the hand; R84: the student a held gift obliges."""
    student = exam.STUDENTS.index(action["student"])
    chosen = state.tutor[4 * p]
    if chosen >= 0 and student != chosen:
        return "R83", f"you tutor the {exam.STUDENTS[chosen]} student; each player tutors only one"
    if chosen < 0 and student not in exam.allowed_students(state, p):
        return "R84", "a gift you hold from the other student's owner obliges you to tutor that student"
    if not state.hands[3 * p + COIN_VALUES.index(action["coins"])]:
        return "R83", f"you hold no card worth {action['coins']} coins"
    return None


def _pay_message(state: State, p: int) -> str:
    ctx = state.ctx
    name = cards.CURRENCY_NAMES[ctx["currency"]]
    return f"the price is {ctx['price']} {name}: the cards paid must be worth at least that"
