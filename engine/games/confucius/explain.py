"""Why an action is refused: the cold path of ``apply``, naming the rule that forbids it.

Only reached for an action that is well-formed but not in the legal list, so it may be slow and
thorough: it checks the common causes in the order a player would ask about them and falls back to
the rule the action type answers to.
"""

from __future__ import annotations

from engine.core import RULE_SCHEMA, Action, IllegalAction

from . import cards
from .actions import REWARD_TYPES
from .components import MINISTRIES, NOT_IN_ROUND_1, REWARD_INDEX, REWARDS
from .cubes import ACTION_SPACE, cube_cost
from .gifts import GIFTS
from .ministries import bribe_allowed, influence_table
from .schemas import ACTIONS, RULE_OF
from .state import (
    ACTION,
    AVAILABLE,
    CHOOSE_CM,
    EXTRA,
    FAVOUR,
    GIVE,
    KEEP,
    LAND,
    PAY,
    PHASE_NAMES,
    PHASE_RULES,
    PLACE,
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
    if kind.startswith("reward_"):
        card = REWARD_INDEX[action["card"]] if kind == "reward_bribery" else None
        if card is not None and card not in state.rewards[p]:
            return "R69", f"you hold no {REWARDS[card]} card"
    if kind == "bribe_official" and action["ministry"] in MINISTRIES:
        m = MINISTRIES.index(action["ministry"])
        if state.resolved[m]:
            return "R91", f"{action['ministry']} is resolved; nothing in it can change"
        if not bribe_allowed(state, p, influence_table(state))[m]:
            return (
                "R65",
                f"a gift you hold forbids bribing in {action['ministry']}: your influence there is not lower",
            )
    if kind == "give_gift" and 0 <= action["recipient"] < state.n:
        held = state.given[action["recipient"] * state.n + p]
        if action["value"] < held:
            return "R64", f"you hold a gift of value {held} from that player; yours may not be lower"
        if not 1 <= action["value"] <= GIFTS or state.gift[p * GIFTS + action["value"] - 1] != AVAILABLE:
            return "R52", f"your gift of value {action['value']} is not available"
    if kind in ("commercial_income", "pay", "keep_cards"):
        counts = cards.card_set(action)
        if any(c < 0 or c > state.hands[3 * p + k] for k, c in enumerate(counts)):
            return "R37", f"you do not hold those cards (hand: {state.hands[3 * p : 3 * p + 3]})"
        if kind == "commercial_income":
            return "R54", "Commercial Income discards cards worth 0-4 coins"
        if kind == "pay":
            return "R37", _pay_message(state, p)
    return None


def _pay_message(state: State, p: int) -> str:
    ctx = state.ctx
    name = cards.CURRENCY_NAMES[ctx["currency"]]
    return f"the price is {ctx['price']} {name}: the cards paid must be worth at least that"
