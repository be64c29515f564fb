"""What the Actions Phase actions and the reward cards do once they are legal (R40-R62, R69-R75).

A box action first takes its cubes (R34, R36), then its price (R37: a separate PAY decision, D3, so
the card choice stays a short list), then its effect.  An effect returns True when it leaves a
further decision of the same turn pending (the lands of a voyage, the box action of an Extra Action
card); otherwise the turn ends.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core import Action, Event, Handler

from . import cards, flow, gifts, ministries, rewards
from .cards import COINS, LICENCES
from .components import (
    COIN_VALUES,
    DISTANT_INDEX,
    FORCE_COST,
    GIFT_PRICE,
    INVASION_COST,
    JUNK_PRICE,
    NOMINATE_COST,
    PETITION_OF_GIFT,
    RECRUIT_LICENCES,
    REWARD_INDEX,
)
from .cubes import take_cubes
from .exam import STUDENTS
from .flow import end_action
from .gifts import GIFTS
from .military import invade, redeploy
from .ministries import space_index, space_of
from .state import AVAILABLE, EXTRA, LAND, PAY, REMOVED, State
from .voyages import reach, reassign, sail

TAX_CARDS = 2  # R55
PETITION_GIFT = {f"petition_{p}": v for v, p in PETITION_OF_GIFT.items() if p}
Effect = Callable[[State, int, Action, list[Event]], bool]


def _hubu_discount(state: State, p: int) -> int:
    return 1 if ministries.has_marker(state, ministries.HUBU, p) else 0  # R43


def _official_price(state: State, p: int, action: Action) -> tuple[int, int]:
    return COINS, state.tile[space_of(action)] - _hubu_discount(state, p)  # R40, R41, R73


PRICES: dict[str, Callable[[State, int, Action], tuple[int, int]]] = {
    "bribe_official": _official_price,
    "secure_official": _official_price,
    "nominate_student": lambda s, p, a: (COINS, NOMINATE_COST),  # R44
    "force_examination": lambda s, p, a: (COINS, FORCE_COST),  # R45
    "buy_junks": lambda s, p, a: (  # R48
        COINS,
        JUNK_PRICE[a["count"]][1 if ministries.has_marker(s, ministries.GONGBU, p) else 0],
    ),
    "start_voyage": lambda s, p, a: (LICENCES, a["count"]),  # R47
    "recruit_army": lambda s, p, a: (  # R49
        LICENCES,
        RECRUIT_LICENCES[1 if ministries.has_marker(s, ministries.BINGBU, p) else 0],
    ),
    "invade_foreign_land": lambda s, p, a: (COINS, INVASION_COST[s.foreign[a["position"] - 1]]),  # R50
    "buy_gift": lambda s, p, a: (COINS, GIFT_PRICE[a["value"] - 1]),  # R51
}


def box_action(state: State, p: int, action: Action, ev: list[Event]) -> None:
    """D2 / D8 / D10: cubes, then price, then effect."""
    kind = action["type"]
    take_cubes(state, p, kind)
    price = PRICES.get(kind)
    if price is not None:
        _charge(state, p, action, *price(state, p, action))
    elif not EFFECTS[kind](state, p, action, ev):
        end_action(state, ev)


def _charge(state: State, p: int, action: Action, currency: int, amount: int) -> None:
    """D3: the payer picks the cards (the engine plays a lone option itself)."""
    state.phase, state.seat = PAY, p
    state.ctx = {"action": dict(action), "currency": currency, "price": amount}  # the caller keeps theirs


def pay(state: State, p: int, action: Action, ev: list[Event]) -> None:
    cards.discard(state, p, cards.card_set(action))  # R37
    paid_for = state.ctx["action"]
    if not EFFECTS[paid_for["type"]](state, p, paid_for, ev):
        end_action(state, ev)


def play_reward(state: State, p: int, action: Action, ev: list[Event]) -> None:
    """R69: a reward card instead of an action, no cube; the card leaves the game."""
    kind = action["type"]
    card = REWARD_INDEX[action["card"]] if kind == "reward_bribery" else REWARD_CARD[kind]
    rewards.discard_reward(state, p, card)
    if kind == "reward_bribery" and state.owner[space_of(action)] >= 0:
        _charge(state, p, action, *_official_price(state, p, action))  # R73 (ii)
    elif not EFFECTS[kind](state, p, action, ev):
        end_action(state, ev)


def choose_distant_land(state: State, p: int, action: Action, ev: list[Event]) -> None:
    """D4: one land per completed voyage (R47)."""
    reach(state, p, DISTANT_INDEX[action["land"]], ev)
    left = state.ctx["voyages"] - 1
    if left:
        state.ctx = {"voyages": left}
    else:
        end_action(state, ev)


# -- effects -----------------------------------------------------------------------------------------


def _bribe(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    i = space_of(action)  # R40, R73: an unsecured marker (a bribed one returns to its owner)
    state.owner[i], state.secured[i] = p, 0
    return False


def _secure(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    state.secured[space_of(action)] = 1  # R41
    return False


def _nominate(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    state.students[STUDENTS.index(action["student"])] = p  # R44
    return False


def _force(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    state.forced = 1  # R45
    return False


def _buy_junks(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    state.supply -= action["count"]  # R46
    state.shipyard[p] += action["count"]
    return False


def _start_voyage(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    voyages = sail(state, p, action["count"])  # R47
    if not voyages:
        return False
    state.phase, state.seat, state.ctx = LAND, p, {"voyages": voyages}
    return True


def _recruit(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    rewards.recruit(state, p)  # R49, R74
    return False


def _invade(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    invade(state, p, action["position"] - 1, action["box"])  # R50
    return False


def _buy_gift(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    state.gift[p * GIFTS + action["value"] - 1] = AVAILABLE  # R51
    return False


def _give_gift(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    gifts.give(state, p, action["value"], action["recipient"], ev)  # R52
    return False


def _transfer(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    ministries.transfer(state, space_of(action), p, action["recipient"], ev)  # R62
    return False


def _commercial(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    paid = cards.card_set(action)  # R54: pay C = 0..4 coins, draw C + 1
    state.commercial[p] = 1
    cards.discard(state, p, paid)
    cards.draw(state, p, sum(c * v for c, v in zip(paid, COIN_VALUES, strict=True)) + 1, ev)
    return False


def _tax(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    cards.draw(state, p, TAX_CARDS, ev)  # R55
    return False


def _nothing(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    return False  # R60


def _petition(effect: Callable[[State, int, Action, list[Event]], None]) -> Effect:
    """R56: the gift of the petition's value leaves the game, then the effect (R58)."""

    def run(state: State, p: int, action: Action, ev: list[Event]) -> bool:
        state.gift[p * GIFTS + PETITION_GIFT[action["type"]] - 1] = REMOVED
        effect(state, p, action, ev)
        return False

    return run


def _reassign_junks(state: State, p: int, action: Action, ev: list[Event]) -> None:
    reassign(state, action["source"], action["destination"])  # R58.1


def _replace_student(state: State, p: int, action: Action, ev: list[Event]) -> None:
    state.students[STUDENTS.index(action["student"])] = p  # R58.2


def _swap_officials(state: State, p: int, action: Action, ev: list[Event]) -> None:
    i = space_of(action)  # R58.3: tiles exchange spaces, each keeping its marker
    j = space_index(action["other_ministry"], action["other_space"])
    for field in (state.tile, state.owner, state.secured):
        field[i], field[j] = field[j], field[i]
    t = state.transferred  # R62a follows the official, not the space
    if (t >> i & 1) != (t >> j & 1):
        state.transferred = t ^ (1 << i | 1 << j)


def _redeploy_army(state: State, p: int, action: Action, ev: list[Event]) -> None:
    redeploy(state, action["position"] - 1, action["box"], action["to_position"] - 1, action["to_box"])


def _replace_influence(state: State, p: int, action: Action, ev: list[Event]) -> None:
    i = space_of(action)  # R58.5: the new marker is secured
    state.owner[i], state.secured[i] = action["seat"], 1


def _reward_cash(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    rewards.cash(state, p, ev)
    return False


def _reward_gift(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    rewards.free_gift(state, p, action["value"])
    return False


def _reward_extra_action(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    state.phase = state.mode = EXTRA  # R72: the box action follows in the same turn
    return True


def _reward_insulted(state: State, p: int, action: Action, ev: list[Event]) -> bool:
    rewards.insult(state, p, ev)
    return False


EFFECTS: dict[str, Effect] = {
    "bribe_official": _bribe,
    "secure_official": _secure,
    "nominate_student": _nominate,
    "force_examination": _force,
    "buy_junks": _buy_junks,
    "start_voyage": _start_voyage,
    "recruit_army": _recruit,
    "invade_foreign_land": _invade,
    "buy_gift": _buy_gift,
    "give_gift": _give_gift,
    "transfer_influence": _transfer,
    "petition_reassign_junks": _petition(_reassign_junks),
    "petition_replace_student": _petition(_replace_student),
    "petition_swap_officials": _petition(_swap_officials),
    "petition_redeploy_army": _petition(_redeploy_army),
    "petition_replace_influence": _petition(_replace_influence),
    "commercial_income": _commercial,
    "tax_income": _tax,
    "no_action": _nothing,
    "reward_cash": _reward_cash,
    "reward_gift": _reward_gift,
    "reward_extra_action": _reward_extra_action,
    "reward_bribery": _bribe,
    "reward_recruit_army": _recruit,
    "reward_emperor_insulted": _reward_insulted,
}
#: The reward card each reward action type plays (Bribery names its card in the action).
REWARD_CARD = {
    "reward_cash": rewards.CASH,
    "reward_gift": rewards.GIFT,
    "reward_extra_action": rewards.EXTRA_ACTION,
    "reward_recruit_army": rewards.RECRUIT,
    "reward_emperor_insulted": rewards.INSULTED,
}
REWARD_TYPES = frozenset({*REWARD_CARD, "reward_bribery"})


#: The handler of each action type: (state, seat, action, events) -> None (engine.core.GameBase).
HANDLERS: dict[str, Handler[State]] = {
    **{kind: play_reward if kind in REWARD_TYPES else box_action for kind in EFFECTS},
    "pay": pay,
    "choose_distant_land": choose_distant_land,
    "choose_chief_minister": flow.choose_chief_minister,
    "pass": flow.pass_turn,
    "tutor": flow.tutor,
    "end_tutoring": flow.end_tutoring,
    "place_candidate": flow.place_candidate,
    "give_influence": flow.give_influence,
    "keep_cards": flow.keep_cards,
}
