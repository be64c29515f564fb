"""The automatic steps between decisions: the turn flow of China.

Province scoring (R37), the drawing (R45, R47), the display refill (R46), exhaustion and reshuffle
(R50, R51), the end checks (R52-R54), forced passes (R55) and the final scoring (R56-R59).
"""

from __future__ import annotations

from engine.core import Event, event

from .components import CARDS_IN_PLAY, COLOURS, DISPLAY_SIZE, EMISSARIES, HOUSES, PROVINCES, SPACES
from .legal import ALL_PROVINCES, legal_actions
from .scoring import FINAL_CATEGORIES, final_points, province_points
from .state import DRAW, FREE, OVER, TURN, State, card_list


def score_province(st: State, province: int, events: list[Event]) -> None:
    """Immediate province scoring (R37, R41-R44)."""
    points = province_points(st, province)
    for seat, pts in enumerate(points):
        st.scores[seat] += pts
    st.scored[province] = True
    events.append(event("province_scored", province=PROVINCES[province], points=points))


def start_draw(st: State, count: int, events: list[Event]) -> None:
    st.phase = DRAW
    st.draws_left = count
    if count <= 0 or not st.can_draw():  # R47
        _end_turn(st, events)


def after_draw(st: State, events: list[Event]) -> None:
    st.draws_left -= 1
    if st.draws_left <= 0 or not st.can_draw():  # R45, R47
        _end_turn(st, events)


def exhaust(st: State, events: list[Event]) -> None:
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
                exhaust(st, events)


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
    st._legal = legal_actions(st)  # computed for R55 anyway: the cache of the new decision (engine.core)
    if st._legal:
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


def max_decisions(players: int) -> int:
    """A proven bound on the decisions of a game (engine.core.Game.max_decisions).

    A turn starts with a piece, a swap or (variant) a fortification (R23, R24, R64); a turn that
    offers none of them is skipped without a decision (R55).  A placing turn places at least one of
    the pieces that can ever be placed (houses: at most one per space, R32; emissaries, R33) and asks
    at most one more question (a second piece or finish, R26): two decisions per piece at most.  A
    player fortifies once (R64).  Every draw decision takes one card from the pile or the display
    (R45, R46), and cards enter them only at setup and at the one reshuffle (R50; the second
    exhaustion starts the final round, R52): at most twice the cards in play.  A swap is always
    followed by its draw (R24, R49), so swaps are at most the draws.
    """
    n = players
    pieces = min(n * HOUSES, len(SPACES)) + n * EMISSARIES
    draws = 2 * sum(CARDS_IN_PLAY[n])
    return 2 * pieces + n + 2 * draws


def to_move(st: State) -> int | None:
    """The seat of the pending decision (R22: turns go clockwise), ``None`` once over."""
    return None if st.phase == OVER else st.seat
