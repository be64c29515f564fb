"""Setup and the mutation of a state by a legal action: the turn flow of China.

``apply`` checks an action by membership in :func:`legal.legal_actions` (so it accepts exactly that
list) and only then mutates; refused actions are explained by :mod:`explain` and change nothing.
Everything automatic lives here: province scoring (R37), the display refill (R46), exhaustion and
reshuffle (R50, R51), the end checks (R52-R54), forced passes (R55) and the final scoring (R56-R59).
"""

from __future__ import annotations

from typing import Any

from engine.core import Event, InvalidOptions, Rng, action_events, event

from .components import (
    CARDS_IN_PLAY,
    COLOUR_INDEX,
    COLOURS,
    DISPLAY_SIZE,
    EMISSARIES,
    HAND_SIZE,
    HOUSES,
    PROVINCE_INDEX,
    PROVINCE_SPACES,
    PROVINCES,
    SPACE_INDEX,
    SPACE_MASK,
    SPACE_PROVINCES,
    SPACES,
)
from .legal import ALL_PROVINCES, legal_actions, placements, second_piece_conceivable
from .payments import PAY_CARDS
from .scoring import FINAL_CATEGORIES, final_points, province_points
from .state import DRAW, FREE, OVER, PLACE, TURN, UNUSED, State, card_counts, card_list

Action = dict[str, Any]


# -- setup ------------------------------------------------------------------------------------------


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """A fresh game (R15-R20); ``options`` are already resolved against the option schema."""
    start = options["start_player"]
    if not -1 <= start < players:
        raise InvalidOptions("start_player", f"must be -1 (random) or a seat 0..{players - 1}, not {start}")
    rng = Rng(seed)
    deck = card_list(CARDS_IN_PLAY[players])
    rng.shuffle(deck)  # R16, R17
    st = State.__new__(State)
    st._legal = None
    st.n = players
    st.fortifications = options["fortifications"]
    st.start = rng.below(players) if start == -1 else start  # R19
    st.hands = [card_counts(deck.pop() for _ in range(HAND_SIZE)) for _ in range(players)]  # R17
    st.known = [[0] * len(COLOURS) for _ in range(players)]
    st.display = [deck.pop() for _ in range(DISPLAY_SIZE)]  # R18
    st.deck = deck
    st.discard = [0] * len(COLOURS)
    st.owner = [FREE] * len(SPACES)
    st.houses = [[0] * players for _ in PROVINCES]
    st.seals = [[0] * players for _ in PROVINCES]
    st.scored = [False] * len(PROVINCES)
    st.supply = [[HOUSES, EMISSARIES] for _ in range(players)]  # R15
    st.scores = [0] * players  # R20
    st.fort = [UNUSED] * players
    st.exhaustions = 0
    st.final_round = False
    st.end = ""
    st.final = None
    st.rng = rng
    st.seat = st.start  # R22
    st.turn = 0
    begin_turn(st, [])
    return st


# -- apply ------------------------------------------------------------------------------------------


def apply(st: State, action: Action, kind: str, mover: int) -> list[Event]:
    """Apply ``action`` of type ``kind``, already checked for turn and shape, by ``mover``; or raise
    IllegalAction with the state untouched."""
    if action not in legal_actions(st):
        from .explain import explain  # cold path

        raise explain(st, action, kind)
    st._legal = None
    events = action_events(mover, action)
    _HANDLERS[kind](st, action, events)
    return events


def _place(st: State, action: Action, events: list[Event]) -> None:
    """One piece and its payment (R26-R37); then a second piece, FINISH, or the draw."""
    seat = st.seat
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
                _score_province(st, p, events)
    else:
        st.seals[province][seat] += 1
        st.supply[seat][1] -= 1
    # R26: a second piece, or FINISH.  The seat is asked whenever public facts leave room for a second
    # piece, even if its hand cannot pay for one: skipping the question would tell everybody so.
    if second_piece_conceivable(st):
        st.phase = PLACE
        st._legal = [*placements(st), {"type": "finish"}]
        return
    _start_draw(st, HAND_SIZE - st.hand_size(seat), events)


def _finish(st: State, action: Action, events: list[Event]) -> None:
    """Stop after one piece (R26) and draw."""
    _start_draw(st, HAND_SIZE - st.hand_size(st.seat), events)


def _swap(st: State, action: Action, events: list[Event]) -> None:
    """Discard one card face up, then take one (R49)."""
    _spend(st, st.seat, (COLOUR_INDEX[action["discard"]],))
    _start_draw(st, 1, events)


def _fortify(st: State, action: Action, events: list[Event]) -> None:
    """Put the fortification under an own house (R64), then draw."""
    seat = st.seat
    _spend(st, seat, PAY_CARDS[action["pay"]])
    st.fort[seat] = SPACE_INDEX[action["space"]]
    _start_draw(st, HAND_SIZE - st.hand_size(seat), events)


def _draw_deck(st: State, action: Action, events: list[Event]) -> None:
    seat = st.seat
    card = st.deck.pop()
    st.hands[seat][card] += 1
    events.append(event("drew", [seat], seat=seat, card=COLOURS[card]))  # R61: private
    if not st.deck:
        _exhaust(st, events)
    _after_draw(st, events)


def _draw_display(st: State, action: Action, events: list[Event]) -> None:
    seat = st.seat
    slot = action["slot"]
    card = st.display[slot]
    st.display[slot] = -1  # R46: refilled only after the last draw of this turn
    st.hands[seat][card] += 1
    st.known[seat][card] += 1  # R62: everybody saw which card was taken
    events.append(event("took", seat=seat, slot=slot, card=COLOURS[card]))
    _after_draw(st, events)


_HANDLERS = {
    "place": _place,
    "finish": _finish,
    "swap": _swap,
    "fortify": _fortify,
    "draw_deck": _draw_deck,
    "draw_display": _draw_display,
}


# -- automatic steps --------------------------------------------------------------------------------


def _spend(st: State, seat: int, cards: tuple[int, ...]) -> None:
    """Played or swapped cards go face up onto the discard pile (R36, R49)."""
    hand, known, discard = st.hands[seat], st.known[seat], st.discard
    for c in cards:
        hand[c] -= 1
        discard[c] += 1
        if known[c]:
            known[c] -= 1
    st.t_cards += len(cards)


def _score_province(st: State, province: int, events: list[Event]) -> None:
    """Immediate province scoring (R37, R41-R44)."""
    points = province_points(st, province)
    for seat, pts in enumerate(points):
        st.scores[seat] += pts
    st.scored[province] = True
    events.append(event("province_scored", province=PROVINCES[province], points=points))


def _start_draw(st: State, count: int, events: list[Event]) -> None:
    st.phase = DRAW
    st.draws_left = count
    if count <= 0 or not st.can_draw():  # R47
        _end_turn(st, events)


def _after_draw(st: State, events: list[Event]) -> None:
    st.draws_left -= 1
    if st.draws_left <= 0 or not st.can_draw():  # R45, R47
        _end_turn(st, events)


def _exhaust(st: State, events: list[Event]) -> None:
    """The draw pile just ran out (R50, R51)."""
    st.exhaustions += 1
    if st.exhaustions == 1:
        st.deck = card_list(st.discard)
        st.discard = [0] * len(COLOURS)
        st.rng.shuffle(st.deck)
        events.append(event("reshuffled", deck_size=len(st.deck)))
        if not st.deck:  # R51: nothing to reshuffle counts as the second exhaustion
            st.exhaustions = 2
    if st.exhaustions == 2:
        st.final_round = True  # R52
        events.append(event("final_round", last_seat=(st.start - 1) % st.n))


def _refill_display(st: State, events: list[Event]) -> None:
    """Refill emptied display slots from the pile after the drawing (R46, R49, R50, R52)."""
    display = st.display
    for slot in range(DISPLAY_SIZE):
        if display[slot] < 0 and st.deck:
            display[slot] = st.deck.pop()
            events.append(event("display_refilled", slot=slot, card=COLOURS[display[slot]]))
            if not st.deck:
                _exhaust(st, events)


def _end_turn(st: State, events: list[Event]) -> None:
    """Refill, then the end checks in the order of R54 (R53 first, then R52), then the next turn."""
    _refill_display(st, events)
    while True:
        if board_blocked(st):
            _end_game(st, "R53", events)
            return
        if st.final_round and st.seat == (st.start - 1) % st.n:
            _end_game(st, "R52", events)
            return
        st.seat = (st.seat + 1) % st.n
        if begin_turn(st, events):
            return


def begin_turn(st: State, events: list[Event]) -> bool:
    """Start the turn of ``st.seat`` (R22); False if it is skipped: the seat can neither place nor
    swap (R55)."""
    st.phase = TURN
    st.turn += 1
    st.t_cards = st.t_pieces = st.t_blocked = st.draws_left = 0
    st.t_common = ALL_PROVINCES
    st._legal = None
    if legal_actions(st):
        return True
    events.append(event("passed", seat=st.seat, rule="R55"))
    return False


def board_blocked(st: State) -> bool:
    """R53: nobody can place any piece any more, whatever the cards."""
    space_free = FREE in st.owner
    seal_open = any(sum(st.seals[p]) < st.seal_limit(p) for p in range(len(PROVINCES)))
    return not any((h and space_free) or (e and seal_open) for h, e in st.supply)


def _end_game(st: State, rule: str, events: list[Event]) -> None:
    """Final scoring (R56-R59) and the end of the game."""
    final = final_points(st)
    for category in FINAL_CATEGORIES:
        for seat, pts in enumerate(final[category]):
            st.scores[seat] += pts
    for p in range(len(PROVINCES)):
        st.scored[p] = st.scored[p] or any(st.houses[p])  # R56 marks them too
    st.final = final
    st.end = rule
    st.phase = OVER
    st.seat = -1
    st._legal = None
    events.append(event("game_over", rule=rule, final_scoring=final, scores=st.scores[:]))
