"""Why an action is refused: the cold path of ``apply``, naming the rule that forbids it.

Only reached for an action that is well-formed but not in the legal list, so it may be slow and
thorough: it checks the common causes in the order a player would ask about them and falls back to
the rule the action type answers to.
"""

from __future__ import annotations

from engine.core import RULE_SCHEMA, Action, IllegalAction

from . import cards, exam
from .actions import PETITION_GIFT, REWARD_CARD, REWARD_TYPES
from .components import (
    COIN_VALUES,
    HAND_LIMIT,
    MINISTRIES,
    NOMINATE_COST,
    NOT_IN_ROUND_1,
    REWARD_INDEX,
    REWARDS,
    SPACES,
)
from .cubes import ACTION_SPACE, cube_cost
from .gifts import GIFTS
from .inputs import ACTIONS, RULE_OF, SEAT_FIELDS
from .legal import bribery_ministries
from .ministries import HUBU, bribe_allowed, has_marker, influence_table, space_index
from .state import (
    ACTION,
    AVAILABLE,
    CHOOSE_CM,
    EMPTY,
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
    for name in ACTIONS[kind]["properties"]:  # values no schema can rule out (check_shape ran first)
        value = action[name]
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
        reason = _petition_reason(state, p, action)
        if reason:
            return reason
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
    if kind in _TARGET_REASONS:
        reason = _TARGET_REASONS[kind](state, p, action)
        if reason:
            return reason
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


def _official(state: State, action: Action, prefix: str = "") -> tuple[int, str, str | None]:
    """The official space an action names (its ``ministry``/``space`` fields, or the ``other_`` ones)
    and what lies on it: ``(index, "Hubu 3", None)``, or the reason it cannot be a target at all."""
    ministry, space = action[f"{prefix}ministry"], action[f"{prefix}space"]
    i = space_index(ministry, space)
    where = f"{ministry} {space}"
    return i, where, f"{where} is an empty space; there is no official" if state.tile[i] == EMPTY else None


def _marker(state: State, i: int, p: int) -> str:
    """How the marker on official ``i`` reads from ``p``'s side (R42)."""
    o = state.owner[i]
    if o < 0:
        return "unbribed (no marker)"
    whose = "your" if o == p else f"seat {o}'s"
    return f"carries {whose} {'secured' if state.secured[i] else 'unsecured'} marker"


def _bribe_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R40: an unbribed official; R43: its cost, less the Hubu discount, in coins."""
    i, where, empty = _official(state, action)
    if empty:
        return "R40", empty
    if state.owner[i] >= 0:
        return "R40", f"the official on {where} {_marker(state, i, p)}; only an unbribed one can be bribed"
    return _price_reason(state, p, i, where, "R40")


def _secure_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R41: an official carrying the player's own unsecured marker, paid in coins."""
    i, where, empty = _official(state, action)
    if empty:
        return "R41", empty
    if state.owner[i] != p or state.secured[i]:
        return (
            "R41",
            f"the official on {where} {_marker(state, i, p)}; only your unsecured marker can be secured",
        )
    return _price_reason(state, p, i, where, "R41")


def _price_reason(state: State, p: int, i: int, where: str, rule: str) -> tuple[str, str] | None:
    hubu = 1 if has_marker(state, HUBU, p) else 0
    price, coins = state.tile[i] - hubu, cards.coins(state.hands, p)
    if price > coins:
        return rule, f"the official on {where} costs {price} coin(s) (R43 discount in), you have {coins}"
    return None


def _transfer_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R62: one of the player's own markers, in an unresolved ministry, to another player; R62a: an
    official whose marker already changed hands by Transfer Influence this round stays put."""
    i, where, empty = _official(state, action)
    if empty:
        return "R62", empty
    if state.resolved[i // SPACES]:
        return "R91", f"{action['ministry']} is resolved; nothing in it can change"
    if state.owner[i] != p:
        return "R62", f"the official on {where} {_marker(state, i, p)}; you can transfer only your own"
    if action["recipient"] == p:
        return "R62", "influence is transferred to another player"
    if state.transferred >> i & 1:
        return (
            "R62a",
            f"the official on {where} already changed hands by Transfer Influence this round; "
            "it can be transferred again from the next round",
        )
    return None


def _nominate_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R44: an empty student space, and not while the player already has a student."""
    if p in state.students:
        return "R44", "you already have a marker on a student space"
    holder = state.students[exam.STUDENTS.index(action["student"])]
    if holder >= 0:
        full = " (both student spaces are occupied)" if min(state.students) >= 0 else ""
        return "R44", f"the {action['student']} student space is occupied by seat {holder}{full}"
    if cards.coins(state.hands, p) < NOMINATE_COST:
        return "R44", f"nominating costs {NOMINATE_COST} coins"
    return None


def _replace_student_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R58 item 2: another player's marker on a student space."""
    holder = state.students[exam.STUDENTS.index(action["student"])]
    if holder < 0:
        return "R58.2", f"the {action['student']} student space is empty; there is no student to replace"
    if holder == p:
        return "R58.2", f"the {action['student']} student is already yours"
    return None


def _swap_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R58 item 3: your official and another one of equal or lower seniority (equal or higher space
    number), both on occupied spaces."""
    i, where, empty = _official(state, action)
    j, other, other_empty = _official(state, action, "other_")
    if empty or other_empty:
        return "R58.3", empty or other_empty or ""
    if state.owner[i] != p:
        return "R58.3", f"the official on {where} {_marker(state, i, p)}; the first one must carry yours"
    if i == j:
        return "R58.3", "choose two different officials"
    if j % SPACES < i % SPACES:
        return (
            "R58.3",
            f"{other} is more senior than {where}: the other official's space number must be equal to or "
            f"higher than yours ({i % SPACES + 1})",
        )
    return None


def _replace_influence_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R58 item 5, R42: an official with an unsecured marker (a secured one can no longer be taken)."""
    i, where, empty = _official(state, action)
    if empty:
        return "R58.5", empty
    if state.owner[i] < 0 or state.secured[i]:
        return (
            "R58.5",
            f"the official on {where} {_marker(state, i, p)}; only an unsecured marker can be replaced (R42)",
        )
    return None


def _bribery_card_reason(state: State, p: int, action: Action) -> tuple[str, str] | None:
    """R73, R42: an unbribed official (free) or another player's unsecured marker (paid), in the
    ministries the card allows."""
    card = REWARD_INDEX[action["card"]]
    allowed = [MINISTRIES[m] for m in bribery_ministries(state, card)]
    if action["ministry"] not in allowed:
        return "R73", f"the {action['card']} card may only target {', '.join(allowed)} now"
    i, where, empty = _official(state, action)
    if empty:
        return "R73", empty
    o = state.owner[i]
    if o >= 0 and (o == p or state.secured[i]):
        return (
            "R73",
            f"the official on {where} {_marker(state, i, p)}; the card takes only an unbribed official or "
            "another player's unsecured marker (R42)",
        )
    if o >= 0:
        return _price_reason(state, p, i, where, "R73")
    return None


#: Action types whose target can be refused for a reason of its own, with the function that finds it.
_TARGET_REASONS = {
    "bribe_official": _bribe_reason,
    "secure_official": _secure_reason,
    "nominate_student": _nominate_reason,
    "petition_replace_student": _replace_student_reason,
    "petition_swap_officials": _swap_reason,
    "petition_replace_influence": _replace_influence_reason,
    "reward_bribery": _bribery_card_reason,
    "transfer_influence": _transfer_reason,
}


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
