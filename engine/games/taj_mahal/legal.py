"""The legal actions of the pending decision: exactly the set ``apply`` accepts (RULES.md §14).

D1 ``play`` / ``withdraw`` on a turn; D2 ``palace`` (one per regular palace) then ``crown`` during a
withdrawal; D3 ``take`` (one per display card).  This is the bots' inner loop: the list is built from
literal dicts (engine.core.GameBase caches the list on the state).
"""

from __future__ import annotations

from engine.core import Action

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
            return [{"type": "palace", "city": ids[c]} for c in free_cities(s)]
        return [{"type": "crown", "city": ids[c]} for c in current_cities(s)]  # R37: any city
    if phase == TAKE:
        ids = s.comp.card_ids
        return [{"type": "take", "card": ids[c]} for c in s.display]
    return []


def _turn_actions(s: State) -> list[Action]:
    """D1: withdraw (always legal, R22) or play one coloured card with at most one extra (R24-R26)."""
    comp = s.comp
    ids, kind, colour_of, effect = comp.card_ids, comp.card_kind, comp.card_colour, comp.card_effect
    p = s.players[s.current]
    legal: list[Action] = [{"type": "withdraw"}]
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
        cid = ids[c]
        if colour < 0 or colour_of[c] == colour:  # R25
            legal.append({"type": "play", "card": cid, "extra": NO_CARD})
            for e in extras:
                legal.append({"type": "play", "card": cid, "extra": e})
        elif any_colour is not None:  # R26: any colour with the any-colour card
            legal.append({"type": "play", "card": cid, "extra": any_colour})
    return legal


def current_cities(s: State) -> tuple[int, ...]:
    return s.comp.province_cities[s.tile_province[s.visit]]


def free_cities(s: State) -> list[int]:
    """R36: cities of the current province without a regular palace (this visit's crowned palace
    alone does not occupy a city)."""
    return [c for c in current_cities(s) if s.regular[c] < 0]
