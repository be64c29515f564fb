"""Why an action is refused: the cold path of ``apply``.

``apply`` refuses whatever ``legal_actions`` does not list; this module only works out which rule (or
which malformed field) to name.  A malformed field is named first, whatever the phase (the action is
wrong in any position); then the reasons come in the order a player would think of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.core import RULE_SCHEMA, IllegalAction

from .components import (
    COLOUR_INDEX,
    COLOURS,
    DISPLAY_SIZE,
    PROVINCE_COLOUR,
    PROVINCE_INDEX,
    SPACE_INDEX,
    SPACE_MASK,
    SPACE_PROVINCES,
)
from .legal import MAX_CARDS, MAX_PIECES, SPACE_COLOURS
from .payments import PAY_CARDS, border_payments, fortify_payments, piece_payments
from .state import DRAW, FREE, PLACE, TURN, UNUSED, State

Reason = tuple[str, str, str | None]  # rule, message, field
#: A hand holding enough cards of every colour: payments valid by shape alone.
_ANY_HAND = (MAX_CARDS,) * len(COLOURS)
_PAY_FORMAT = f"pay names 1-3 cards by colour, joined by '+' in the order {'+'.join(COLOURS)}"


def explain(st: State, seat: int, action: dict[str, Any]) -> IllegalAction:
    """Why ``action`` (well-formed, not in the legal list) is refused for ``seat``, the seat to move."""
    rule, message, field = _EXPLAINERS[action["type"]](st, action)
    return IllegalAction(rule, message, field)


def _missing_cards(hand: list[int], cards: tuple[int, ...]) -> str | None:
    for c in set(cards):
        if hand[c] < cards.count(c):
            return f"you hold {hand[c]} {COLOURS[c]} card(s), the payment needs {cards.count(c)}"
    return None


def _contains(cards: tuple[int, ...], part: tuple[int, ...]) -> bool:
    """``part`` is a sub-multiset of ``cards`` (both colour tuples)."""
    return all(cards.count(c) >= part.count(c) for c in set(part))


def _after_swap_or_fortify(st: State) -> Reason | None:
    """Why only drawing is left once this turn swapped (R23: A or B, not both) or fortified (R64)."""
    done = st.action_taken()
    if done == "swap":
        return "R23", "you swapped this turn: a turn places or swaps, not both; take your card", None
    if done == "fortify":
        return "R64", "fortifying is the whole action: no other piece this turn, draw your cards", None
    return None


def _place(st: State, action: dict[str, Any]) -> Reason:
    piece, target, pay = action["piece"], action["target"], action["pay"]
    if piece not in ("house", "emissary"):
        return RULE_SCHEMA, "piece must be 'house' or 'emissary'", "piece"
    index = SPACE_INDEX if piece == "house" else PROVINCE_INDEX
    if target not in index:
        return RULE_SCHEMA, f"no {'house space' if piece == 'house' else 'province'} {target!r}", "target"
    if pay not in PAY_CARDS:
        return RULE_SCHEMA, _PAY_FORMAT, "pay"
    other = _after_swap_or_fortify(st)
    if other:
        return other
    cards = PAY_CARDS[pay]
    seat = st.seat
    if st.t_pieces >= MAX_PIECES:
        return "R26", "at most two pieces per turn", None
    if piece == "house":
        space = index[target]
        mask, colours = SPACE_MASK[space], SPACE_COLOURS[space]
        if not st.supply[seat][0]:
            return "R39", "you have no house left in supply", "piece"
        if st.owner[space] != FREE:
            return "R32", f"{target} is already occupied", "target"
        shapes: Sequence[str] | None = (
            border_payments(_ANY_HAND, *colours, MAX_CARDS) if len(colours) == 2 else None
        )
    else:
        province = index[target]
        mask, colours = 1 << province, (PROVINCE_COLOUR[province],)
        if not st.supply[seat][1]:
            return "R39", "you have no emissary left in supply", "piece"
        if not st.seal_limit(province):
            return "R34", f"no house stands in {target}, so its emissary limit is 0", "target"
        if sum(st.seals[province]) >= st.seal_limit(province):
            return "R33", f"the seal of {target} already holds as many emissaries as its limit", "target"
        shapes = None
    if not mask & st.t_common:
        return "R30", "all pieces of a turn go into one province", "target"
    if mask & st.t_blocked:
        return "R31", "a province that was empty at turn start takes only one piece this turn", "target"
    if shapes is None:
        shapes = piece_payments(_ANY_HAND, colours[0], MAX_CARDS)
    if pay not in shapes:
        return _bad_payment(cards, colours, shapes, target)
    if st.t_cards + len(cards) > MAX_CARDS:
        return "R26", "a turn plays at most three cards", "pay"
    missing = _missing_cards(st.hands[seat], cards)
    if missing:
        return "R26", missing, "pay"
    if st.phase == DRAW:
        return "R45", "the placing is over: draw your cards", None
    return "R26", "not a legal placement now", None


def _bad_payment(
    cards: tuple[int, ...], colours: tuple[int, ...], shapes: Sequence[str], target: str
) -> Reason:
    """Name the rule a payment of the wrong shape breaks (R27-R29)."""
    if len(colours) == 2:
        return "R29", "a border house costs exactly two cards, of its provinces' colours", "pay"
    colour = COLOURS[colours[0]]
    if cards == (colours[0], colours[0]):
        return "R29", f"a wild pair must not be {colour}, the colour of {target}", "pay"
    if any(_contains(cards, PAY_CARDS[shape]) for shape in shapes):
        return "R28", "every played card must pay for a piece: one card, or a wild pair", "pay"
    return "R27", f"a piece in {target} costs one {colour} card or a wild pair of another colour", "pay"


def _finish(st: State, action: dict[str, Any]) -> Reason:
    other = _after_swap_or_fortify(st)
    if other:
        return other
    if st.phase == DRAW:
        return "R45", "the placing is over: draw your cards", None
    return "R26", "place at least one piece before finishing (or swap instead)", None


def _swap(st: State, action: dict[str, Any]) -> Reason:
    colour = COLOUR_INDEX.get(action["discard"])
    if colour is None:
        return RULE_SCHEMA, f"discard must be a card colour: {list(COLOURS)}", "discard"
    if st.action_taken() == "swap":
        return "R49", "a swap exchanges exactly one card: take your card", None
    if st.phase != TURN:
        return "R23", "a swap replaces placing: only at the start of a turn", None
    if not st.hands[st.seat][colour]:
        return "R49", f"you hold no {action['discard']} card", "discard"
    return "R49", "there is no card to take: draw pile and display are empty", None


def _draw(st: State, action: dict[str, Any]) -> Reason:
    slot = action.get("slot", 0)
    if not 0 <= slot < DISPLAY_SIZE:
        return RULE_SCHEMA, f"slot must be 0..{DISPLAY_SIZE - 1}", "slot"
    if st.phase == PLACE:
        return "R26", "after one piece, place a second one or finish before drawing", None
    if st.phase != DRAW:
        return "R45", "cards are drawn only after placing or swapping", None
    if action["type"] == "draw_deck":
        return "R52", "the draw pile is empty (final round)", None
    if st.final_round:
        return "R52", f"display slot {slot} is empty and stays empty in the final round", "slot"
    return "R46", f"display slot {slot} is refilled only after your drawing", "slot"


def _fortify(st: State, action: dict[str, Any]) -> Reason:
    space, province = SPACE_INDEX.get(action["space"]), PROVINCE_INDEX.get(action["province"])
    if space is None:
        return RULE_SCHEMA, f"no house space {action['space']!r}", "space"
    if province is None:
        return RULE_SCHEMA, f"no province {action['province']!r}", "province"
    if action["pay"] not in PAY_CARDS:
        return RULE_SCHEMA, _PAY_FORMAT, "pay"
    if not st.fortifications:
        return "R21", "the fortification variant is off in this game", None
    seat = st.seat
    if st.fort[seat] != UNUSED:
        return "R64", "your fortification is already placed (once per game)", None
    if st.phase != TURN:
        return "R64", "fortifying is a whole turn's action: only at the start of a turn", None
    if st.owner[space] != seat or province not in SPACE_PROVINCES[space]:
        return "R64", f"the fortification goes under one of your houses in {action['province']}", "space"
    if action["pay"] not in fortify_payments(_ANY_HAND, PROVINCE_COLOUR[province]):
        return "R64", "pay two payments for the province: two of its cards, or one plus a wild pair", "pay"
    missing = _missing_cards(st.hands[seat], PAY_CARDS[action["pay"]])
    return "R64", missing or "not a legal fortification now", "pay"


_EXPLAINERS: dict[str, Callable[[State, dict[str, Any]], Reason]] = {
    "place": _place,
    "finish": _finish,
    "swap": _swap,
    "draw_deck": _draw,
    "draw_display": _draw,
    "fortify": _fortify,
}
