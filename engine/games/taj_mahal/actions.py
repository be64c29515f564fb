"""What each accepted action does: one handler per action type, keyed in ``HANDLERS``.

They run only after the action was found in the legal list, so they mutate without checking.  What
follows a decision automatically (forced placements, scoring, draws, the end of a visit) is in
:mod:`flow`.
"""

from __future__ import annotations

from engine.core import Action, Event, Handler, event

from .components import ANY_COLOUR, SPECIAL, TWO_POINTS
from .flow import (
    continue_taking,
    continue_withdrawal,
    next_in_visit,
    place_crown,
    place_regular,
    take_card,
)
from .state import PLACE, Player, State


def play(s: State, seat: int, action: Action, events: list[Event]) -> None:
    """R24-R30: cards go face up on the player's table; the first coloured card not covered by the
    any-colour card fixes the commitment colour (R25, R26)."""
    comp = s.comp
    p = s.players[seat]
    c = comp.card_index[action["card"]]
    _lay(s, p, c)
    sets_colour = True
    if action["extra"]:
        e = comp.card_index[action["extra"]]
        _lay(s, p, e)
        effect = comp.card_effect[e]
        if effect == TWO_POINTS:  # R27
            p.score += 2
            events.append(event("scored", seat=seat, points=2, rule="R27", reason="+2 special card"))
        sets_colour = effect != ANY_COLOUR
    if sets_colour and p.colour < 0:
        p.colour = comp.card_colour[c]
    s.current = next_in_visit(s, seat)  # R21; alone, the same player again (R23)


def _lay(s: State, p: Player, card: int) -> None:
    """Move a card from the hand to the table (R29); it is public from now on, so its draw
    generation is forgotten (``State.gen`` only describes secret cards)."""
    comp = s.comp
    if comp.card_kind[card] == SPECIAL:
        p.specials.remove(card)
    else:
        p.hand.remove(card)
        s.gen[card] = 0
        if card in p.known:
            p.known.remove(card)
    p.table.append(card)
    counts = p.counts
    for sym in comp.card_symbols[card]:
        counts[sym] += 1


# --------------------------------------------------------------------------------------------------
# Withdrawal (R40 steps 1-10)


def withdraw(s: State, seat: int, action: Action, events: list[Event]) -> None:
    comp = s.comp
    p = s.players[seat]
    p.in_visit = False
    # Step 1 (R32, R33): every prize still in the court, decided at once against players still in.
    rivals = [q.counts for q in s.players if q.in_visit]
    won = [
        sym
        for sym, here in enumerate(s.court)
        if here and p.counts[sym] and all(r[sym] < p.counts[sym] for r in rivals)
    ]
    # Step 2 (R34, R35, R39): take the tiles and the crown; prizes are compulsory (R33a).
    s.to_place = 0
    s.crown_pending = s.won_tile = s.placed = False
    s.bonus_taken = []
    for sym in won:
        s.court[sym] = False
        if sym == comp.elephant:
            s.won_tile = True
            p.province_tiles.append(s.visit)
        elif sym == comp.grand_mogul:
            s.crown_pending = True
        else:
            p.tiles[sym] += 1
            s.to_place += 1
        events.append(event("prize", seat=seat, symbol=comp.symbols[sym], rule="R32"))
    s.phase = PLACE
    s.current = seat
    continue_withdrawal(s, seat, events)


def palace(s: State, seat: int, action: Action, events: list[Event]) -> None:
    """D2: one regular palace (R36), then the rest of the withdrawal."""
    place_regular(s, seat, s.comp.city_index[action["city"]])
    continue_withdrawal(s, seat, events)


def crown(s: State, seat: int, action: Action, events: list[Event]) -> None:
    """D2: the crowned palace (R37), then the rest of the withdrawal."""
    place_crown(s, seat, s.comp.city_index[action["city"]])
    continue_withdrawal(s, seat, events)


def take(s: State, seat: int, action: Action, events: list[Event]) -> None:
    """D3: one display card (R48), then the next card or the end of the turn."""
    take_card(s, seat, s.comp.card_index[action["card"]])
    continue_taking(s, seat, events)


HANDLERS: dict[str, Handler[State]] = {
    "play": play,
    "withdraw": withdraw,
    "palace": palace,
    "crown": crown,
    "take": take,
}
