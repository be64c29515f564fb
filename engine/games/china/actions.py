"""What each accepted action does: one handler per action type, keyed in ``HANDLERS``.

Handlers run only after the action was found in the legal list, so they mutate without checking.  What
follows automatically (province scoring, the drawing, the end of the turn) is in :mod:`flow`.
"""

from __future__ import annotations

from engine.core import Action, Event, Handler, event

from .components import (
    COLOUR_INDEX,
    COLOURS,
    HAND_SIZE,
    PROVINCE_INDEX,
    PROVINCE_SPACES,
    SPACE_INDEX,
    SPACE_MASK,
    SPACE_PROVINCES,
)
from .flow import after_draw, exhaust, score_province, start_draw
from .legal import second_piece_conceivable
from .payments import PAY_CARDS
from .state import FREE, PLACE, State


def _place(st: State, seat: int, action: Action, events: list[Event]) -> None:
    """One piece and its payment (R26-R37); then a second piece, FINISH, or the draw."""
    _spend(st, seat, PAY_CARDS[action["pay"]])
    is_house = action["piece"] == "house"
    if is_house:
        space = SPACE_INDEX[action["target"]]
        provinces, mask = SPACE_PROVINCES[space], SPACE_MASK[space]
    else:
        province = PROVINCE_INDEX[action["target"]]
        provinces, mask = (province,), 1 << province
    # R31: a province empty at turn start takes no further piece this turn.
    st.t_blocked |= sum(1 << p for p in provinces if st.is_empty(p))
    st.t_common &= mask  # R30
    st.t_pieces += 1
    if is_house:
        st.owner[space] = seat
        st.supply[seat][0] -= 1
        for p in provinces:
            st.houses[p][seat] += 1
        for p in provinces:  # R37: a province scores the moment its last space fills
            if not st.scored[p] and all(st.owner[s] != FREE for s in PROVINCE_SPACES[p]):
                score_province(st, p, events)
    else:
        st.seals[province][seat] += 1
        st.supply[seat][1] -= 1
    # R26: a second piece, or FINISH.  The seat is asked whenever public facts leave room for a second
    # piece, even if its hand cannot pay for one: skipping the question would tell everybody so.
    if second_piece_conceivable(st):
        st.phase = PLACE
        return
    start_draw(st, HAND_SIZE - st.hand_size(seat), events)


def _finish(st: State, seat: int, action: Action, events: list[Event]) -> None:
    """Stop after one piece (R26) and draw."""
    start_draw(st, HAND_SIZE - st.hand_size(seat), events)


def _swap(st: State, seat: int, action: Action, events: list[Event]) -> None:
    """Discard one card face up, then take one (R49)."""
    _spend(st, seat, (COLOUR_INDEX[action["discard"]],))
    start_draw(st, 1, events)


def _fortify(st: State, seat: int, action: Action, events: list[Event]) -> None:
    """Put the fortification under an own house (R64), then draw."""
    _spend(st, seat, PAY_CARDS[action["pay"]])
    st.fort[seat] = SPACE_INDEX[action["space"]]
    start_draw(st, HAND_SIZE - st.hand_size(seat), events)


def _draw_deck(st: State, seat: int, action: Action, events: list[Event]) -> None:
    card = st.deck.pop()
    st.hands[seat][card] += 1
    events.append(event("drew", [seat], seat=seat, card=COLOURS[card]))  # R61: private
    if not st.deck:
        exhaust(st, events)
    after_draw(st, events)


def _draw_display(st: State, seat: int, action: Action, events: list[Event]) -> None:
    slot = action["slot"]
    card = st.display[slot]
    st.display[slot] = -1  # R46: refilled only after the last draw of this turn
    st.hands[seat][card] += 1
    st.known[seat][card] += 1  # R62: everybody saw which card was taken
    events.append(event("took", seat=seat, slot=slot, card=COLOURS[card]))
    after_draw(st, events)


HANDLERS: dict[str, Handler[State]] = {
    "place": _place,
    "finish": _finish,
    "swap": _swap,
    "fortify": _fortify,
    "draw_deck": _draw_deck,
    "draw_display": _draw_display,
}


def _spend(st: State, seat: int, cards: tuple[int, ...]) -> None:
    """Played or swapped cards go face up onto the discard pile (R36, R49)."""
    hand, known, discard = st.hands[seat], st.known[seat], st.discard
    for c in cards:
        hand[c] -= 1
        discard[c] += 1
        if known[c]:
            known[c] -= 1
    st.t_cards += len(cards)
