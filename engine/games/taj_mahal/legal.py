"""The legal actions of the pending decision: exactly the set ``apply`` accepts (RULES.md §14).

D1 ``play`` / ``withdraw`` on a turn; D2 ``palace`` (one per regular palace) then ``crown`` during a
withdrawal; D3 ``take`` (one per display card).  This is the bots' inner loop: the list is built from
literal dicts and prebuilt plays (engine.core.GameBase caches the list on the state).
"""

from __future__ import annotations

from engine.core import Action, ActionTable

from .components import ANY_COLOUR, COLORED, NO_CARD, WHITE
from .state import PLACE, TAKE, TURN, State


def legal_actions(s: State) -> list[Action]:
    """Every action ``apply`` accepts now, a new list (GameBase caches it on the state)."""
    phase = s.phase
    if phase == TURN:
        return _turn_actions(s)
    if phase == PLACE:
        ids = s.comp.city_ids
        if s.to_place:
            return [_PALACE[ids[c]] for c in free_cities(s)]
        return [_CROWN[ids[c]] for c in current_cities(s)]  # R37: any city
    if phase == TAKE:
        ids = s.comp.card_ids
        return [_TAKE[ids[c]] for c in s.display]
    return []


def _plays_of(card: str) -> ActionTable[str]:
    """The play actions of ``card``, by extra (a named function: mypyc compiles no nested lambdas)."""
    return ActionTable(lambda extra: {"type": "play", "card": card, "extra": extra})


#: Prebuilt action objects (engine.core.ActionTable), by card or city id: a turn lists every coloured
#: card with every extra, dozens of plays, at most decisions of the game.  ``_PLAY[card][extra]``.
_PLAY: ActionTable[str] = ActionTable(_plays_of)
_WITHDRAW: Action = {"type": "withdraw"}
_PALACE: ActionTable[str] = ActionTable(lambda city: {"type": "palace", "city": city})
_CROWN: ActionTable[str] = ActionTable(lambda city: {"type": "crown", "city": city})
_TAKE: ActionTable[str] = ActionTable(lambda card: {"type": "take", "card": card})


def _turn_actions(s: State) -> list[Action]:
    """D1: withdraw (always legal, R22) or play one coloured card with at most one extra (R24-R26)."""
    comp = s.comp
    ids, kind, colour_of, effect = comp.card_ids, comp.card_kind, comp.card_colour, comp.card_effect
    p = s.players[s.current]
    legal: list[Action] = [_WITHDRAW]
    extras = [ids[c] for c in p.hand if kind[c] == WHITE]
    any_colour = None
    for c in p.specials:  # R57: special cards accompany a coloured card like white ones
        extras.append(ids[c])
        if effect[c] == ANY_COLOUR:
            any_colour = ids[c]
    colour = p.colour
    for c in p.hand:
        if kind[c] != COLORED:
            continue
        plays = _PLAY[ids[c]]
        if colour < 0 or colour_of[c] == colour:  # R25
            legal.append(plays[NO_CARD])
            for e in extras:
                legal.append(plays[e])
        elif any_colour is not None:  # R26: any colour with the any-colour card
            legal.append(plays[any_colour])
    return legal


def current_cities(s: State) -> tuple[int, ...]:
    return s.comp.province_cities[s.tile_province[s.visit]]


def free_cities(s: State) -> list[int]:
    """R36: cities of the current province without a regular palace (this visit's crowned palace
    alone does not occupy a city)."""
    return [c for c in current_cities(s) if s.regular[c] < 0]
