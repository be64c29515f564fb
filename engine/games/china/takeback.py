"""Which steps of China can be taken back (engine/takeback.py): what one step draws or reveals.

Hidden (R61): the hands, except the cards everybody saw a seat take from the display (``known``, R62),
and the draw pile.  So a step blocks a takeback when it

- draws from the pile: a card drawn by a seat (R45, R49), a display slot refilled (R46), the discard
  pile reshuffled into a new pile (R50): random, and the card was hidden;
- shows hand cards nobody knew: a payment (R36) or a swap's discard (R49) of a card beyond the seat's
  publicly known cards of that colour, unless the cards nobody can place (pile and unknown hand cards)
  leave no hand of that size without it;
- skips a seat's turn (R55) when some hand the others think it may hold would have had a move: the
  skip tells everybody that its hand has none (only reachable in the final round, pile and display
  empty).

Everything else (a piece paid with known cards, stopping after one piece (R26), a display card taken
(R45, R62) while other draws are still due) shows nothing new and draws nothing, and can be taken back.
"""

from __future__ import annotations

from itertools import combinations_with_replacement

from engine.core import Action, Event
from engine.takeback import RANDOM, REVEAL, Blocker, surely_held

from .components import COLOUR_INDEX, COLOURS
from .legal import ALL_PROVINCES, legal_actions
from .payments import PAY_CARDS
from .state import TURN, State

#: Events that draw from the face-down pile, with their rule.
_DRAWS = {
    "drew": ("R45", "a card was drawn from the face-down draw pile"),
    "display_refilled": ("R46", "a display slot was refilled from the face-down draw pile"),
    "reshuffled": ("R50", "the discard pile was shuffled into a new draw pile"),
}

#: Per action type, the reasons its step may be refused for and when (docs/api/takebacks.md); the
#: tests check every step against it.
BY_ACTION: dict[str, tuple[frozenset[str], str]] = {
    "place": (
        frozenset({REVEAL}),
        "R36 when it pays with a card nobody knew was in the hand; R55 when the next turn is skipped "
        "and some hand that seat may hold had a move. Paid with cards everybody saw taken from the "
        "display: can be taken back.",
    ),
    "fortify": (frozenset({REVEAL}), "as place (R36, R55)"),
    "finish": (frozenset({REVEAL}), "R55 only, when the turn ends at once and the next one is skipped"),
    "swap": (frozenset({REVEAL}), "R49 when the discarded card was not known to be in the hand"),
    "draw_deck": (frozenset({RANDOM}), "always: R45, a card from the face-down draw pile"),
    "draw_display": (
        frozenset({RANDOM, REVEAL}),
        "R46 when it is the turn's last draw (the display is refilled from the pile), R55 as place; "
        "an earlier draw from the display can be taken back",
    ),
}


def _shown(before: State, seat: int, action: Action) -> tuple[str, list[int]] | None:
    """The rule and the hand cards ``action`` lays face up, or ``None`` for an action that lays none."""
    kind = action["type"]
    if kind in ("place", "fortify"):
        return "R36", list(PAY_CARDS[action["pay"]])
    if kind == "swap":
        return "R49", [COLOUR_INDEX[action["discard"]]]
    return None


def _unknown(st: State, seat: int) -> int:
    """How many of ``seat``'s hand cards nobody else knows (R61, R62)."""
    return sum(st.hands[seat]) - sum(st.known[seat])


def _pool(st: State) -> list[int]:
    """Per colour, the cards a spectator cannot place: the draw pile and the unknown part of every
    hand (the least anybody knows: what a spectator can deduce, every seat can)."""
    pool = [0] * len(COLOURS)
    for c in st.deck:
        pool[c] += 1
    for hand, known in zip(st.hands, st.known, strict=True):
        for c, (held, seen) in enumerate(zip(hand, known, strict=True)):
            pool[c] += held - seen
    return pool


def blocker(before: State, seat: int, action: Action, after: State, events: list[Event]) -> Blocker | None:
    """What ``seat``'s ``action`` on ``before`` (and the forced steps after it) drew or revealed."""
    for ev in events:
        if ev["type"] in _DRAWS:
            rule, what = _DRAWS[ev["type"]]
            return Blocker(RANDOM, rule, what)
    shown = _shown(before, seat, action)
    if shown is not None:
        rule, cards = shown
        known = before.known[seat]
        hidden = [max(0, cards.count(c) - known[c]) for c in range(len(COLOURS))]
        if any(hidden) and not surely_held(_pool(before), _unknown(before, seat), hidden):
            colour = COLOURS[next(c for c, k in enumerate(hidden) if k)]
            return Blocker(REVEAL, rule, f"a {colour} card nobody knew was in the hand was shown")
    for ev in events:
        if ev["type"] == "passed" and _skip_tells(after, ev["seat"]):
            return Blocker(REVEAL, "R55", f"seat {ev['seat']}'s skipped turn showed its hand cannot place")
    return None


def _skip_tells(st: State, passer: int) -> bool:
    """Whether skipping ``passer``'s turn (R55) tells anything: some hand it may hold (its known cards
    plus any draw of its unknown ones from the cards nobody can place) would have had a move.  A skip
    changes nothing on the table, so the turn is rebuilt on ``st`` as ``flow.begin_turn`` starts it."""
    unknown = _unknown(st, passer)
    if not unknown:
        return False
    pool = _pool(st)
    turn = st.clone()
    turn.seat, turn.phase = passer, TURN
    turn.t_cards = turn.t_pieces = turn.t_blocked = turn.draws_left = 0
    turn.t_common = ALL_PROVINCES
    for combo in combinations_with_replacement(range(len(COLOURS)), unknown):
        extra = [combo.count(c) for c in range(len(COLOURS))]
        if any(k > have for k, have in zip(extra, pool, strict=True)):
            continue
        turn.hands = [h[:] for h in st.hands]
        turn.hands[passer] = [k + e for k, e in zip(st.known[passer], extra, strict=True)]
        if legal_actions(turn):
            return True
    return False
