"""Cold path: why an action that is not in ``legal_actions`` is refused, as an IllegalAction naming the
rule (and the field).  Only called after the membership test failed, so it never decides legality; it
only finds the most helpful reason."""

from __future__ import annotations

from engine.core import Action, IllegalAction

from .components import COLORED
from .state import PHASE_RULES, PLACE, TAKE, TURN, Player, State

#: The action types each decision accepts, and what to tell a player who sends another.
_DECISIONS = {
    TURN: (("play", "withdraw"), "it is your turn: play cards or withdraw"),
    PLACE: (("palace", "crown"), "you are withdrawing: place your palaces first (D2)"),
    TAKE: (("take",), "you are withdrawing: take your display cards first (D3)"),
}


def explain(s: State, seat: int, action: Action) -> IllegalAction:
    """Why ``action`` (well-formed, not in the legal list) is refused for ``seat``, the seat to move."""
    kinds, message = _DECISIONS[s.phase]
    kind = action["type"]
    if kind not in kinds:
        return IllegalAction(PHASE_RULES[s.phase], f"{kind} is not possible now; {message}", "type")
    if kind == "play":
        return _explain_play(s, action)
    if kind == "take":
        return IllegalAction("R48", f"card {action['card']!r} is not in the display", "card")
    city = s.comp.city_index.get(action["city"], -1)
    in_province = city >= 0 and s.comp.city_province[city] == s.tile_province[s.visit]
    if kind == "crown":
        if not s.crown_pending:
            return IllegalAction("R35", "you did not win the crown in this withdrawal", "type")
        if s.to_place:
            return IllegalAction("X3", "place the regular palaces first; the crowned one comes last", "type")
        return IllegalAction("R37", f"{action['city']!r} is not a city of the current province", "city")
    if not s.to_place:
        return IllegalAction("R34", "no regular palace left to place in this withdrawal", "type")
    if not in_province:
        return IllegalAction("R36", f"{action['city']!r} is not a city of the current province", "city")
    return IllegalAction("R36", f"{action['city']!r} already holds a regular palace", "city")


def _explain_play(s: State, action: Action) -> IllegalAction:
    comp = s.comp
    p = s.players[s.current]
    card = comp.card_index.get(action["card"], -1)
    if card not in p.hand and card not in p.specials:
        return _not_in_hand(p, card, f"card {action['card']!r}", "card")
    if comp.card_kind[card] != COLORED:
        return IllegalAction(
            "R24",
            "a play needs exactly one coloured card; white and special cards only accompany one",
            "card",
        )
    extra = comp.card_index.get(action["extra"], -1) if action["extra"] else None
    if extra is not None:
        if extra == card:
            return IllegalAction("R24", "a play is two different cards, not one card twice", "extra")
        if extra not in p.hand and extra not in p.specials:
            return _not_in_hand(p, extra, f"extra card {action['extra']!r}", "extra")
        if comp.card_kind[extra] == COLORED:
            return IllegalAction("R24", "a play holds exactly one coloured card", "extra")
    # Only the colour lock is left (R26: the any-colour card would have lifted it).
    return IllegalAction(
        "R25",
        f"you are committed to {comp.colours[p.colour]} this visit; this card is "
        f"{comp.colours[comp.card_colour[card]]}",
        "card",
    )


def _not_in_hand(p: Player, card: int, what: str, field: str) -> IllegalAction:
    """A card played from somewhere else than the hand: from the player's own table R29 forbids (a
    special card too: it comes back only when he withdraws, R58); anything else is no card of his."""
    if card in p.table:
        return IllegalAction("R29", f"{what} already lies on your table; played cards stay there", field)
    return IllegalAction("R24", f"{what} is not in your hand", field)
