"""A whole China state rebuilt from one seat's view, the hidden cards then dealt by ``determinize``.

The view (view.py) carries every public field and the seat's own hand (R61, R62), so the state is
read off it field by field; the turn's counters come from ``pending`` (its ``provinces`` and
``blocked`` are the masks of R30 and R31).  The hidden cards are the cards in play (R16) less every
card the seat sees; they are put anywhere first and :func:`view.determinize` then deals them at
random, so this module holds no sampler of its own.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Rng

from .components import (
    CARDS_IN_PLAY,
    COLOUR_INDEX,
    COLOURS,
    PROVINCE_INDEX,
    PROVINCES,
    SPACE_INDEX,
    SPACE_PROVINCES,
    SPACES,
)
from .legal import ALL_PROVINCES, MAX_CARDS, MAX_PIECES
from .state import DRAW, FREE, OVER, PLACE, TURN, UNUSED, State, card_list
from .view import determinize


def _counts(names: list[str]) -> list[int]:
    counts = [0] * len(COLOURS)
    for name in names:
        counts[COLOUR_INDEX[name]] += 1
    return counts


def _mask(names: list[str]) -> int:
    return sum(1 << PROVINCE_INDEX[name] for name in names)


def sample_from_view(view: dict[str, Any], seat: int, rng: random.Random, seen: Any = None) -> State:
    """A state whose ``view(state, seat)`` is ``view``, every card ``seat`` cannot see dealt with
    ``rng`` (``seen`` is not needed: the view tells everything public)."""
    players = view["players"]
    n = len(players)
    st = State.__new__(State)
    st._legal = None
    st.n = n
    st.fortifications = view["fortifications"]
    st.start = next(p["seat"] for p in players if p["emperor"])
    st.phase = view["phase"]
    st.seat = -1 if view["to_move"] is None else view["to_move"]
    st.turn = view["turn"]
    st.known = [_counts(p["seen_cards"]) for p in players]
    st.display = [-1 if c is None else COLOUR_INDEX[c] for c in view["display"]]
    st.discard = _counts(view["discard"])
    board = view["board"]
    st.owner = [FREE] * len(SPACES)
    st.houses = [[0] * n for _ in PROVINCES]
    for space, owner in board["houses"].items():
        s = SPACE_INDEX[space]
        st.owner[s] = owner
        for p in SPACE_PROVINCES[s]:
            st.houses[p][owner] += 1
    st.seals = [board["seals"][name][:] for name in PROVINCES]
    scored = set(board["scored"])
    st.scored = [name in scored for name in PROVINCES]
    st.supply = [[p["houses"], p["emissaries"]] for p in players]
    st.scores = [p["score"] for p in players]
    st.fort = [UNUSED] * n
    if st.fortifications:
        st.fort = [UNUSED if p["fortification"] is None else SPACE_INDEX[p["fortification"]] for p in players]
    st.exhaustions = view["exhaustions"]
    st.final_round = view["final_round"]
    st.end = view["ended_by"] or ""
    final = view["final_scoring"]
    st.final = None if final is None else {k: v[:] for k, v in final.items()}
    _turn_counters(st, view["pending"])
    # The unseen cards: every card in play (R16) less the seat's hand, the cards seen taken from the
    # display, the display and the discard pile.  Dealt in colour order here, at random below.
    own = _counts(players[seat]["hand"])
    unseen = list(CARDS_IN_PLAY[n])
    shown = _counts([c for c in view["display"] if c is not None])
    for counts in (own, shown, st.discard, *(st.known[q] for q in range(n) if q != seat)):
        for c, k in enumerate(counts):
            unseen[c] -= k
    pool = card_list(unseen)
    st.hands = []
    for q, entry in enumerate(players):
        if q == seat:
            st.hands.append(own)
            continue
        hand = st.known[q][:]
        for _ in range(entry["hand_size"] - sum(hand)):
            hand[pool.pop()] += 1
        st.hands.append(hand)
    if len(pool) != view["deck_size"] or min(unseen) < 0:
        raise ValueError("the view's cards do not add up to the cards in play (R16)")
    st.deck = pool
    st.rng = Rng(0)
    return determinize(st, seat, rng)


def _turn_counters(st: State, pending: dict[str, Any] | None) -> None:
    """The turn's counters (R26, R30, R31, R45, R49) from the pending decision of the view."""
    st.t_cards = st.t_pieces = st.t_blocked = st.draws_left = 0
    st.t_common = ALL_PROVINCES
    if pending is None or st.phase == OVER:
        return
    if st.phase in (TURN, PLACE):
        st.t_pieces = MAX_PIECES - pending["pieces_left"]
        st.t_cards = MAX_CARDS - pending["cards_left"]
        if st.phase == PLACE:
            st.t_common = _mask(pending["provinces"])
            st.t_blocked = _mask(pending["blocked"])
    elif st.phase == DRAW:
        st.draws_left = pending["draws_left"]
        # which action led to the draw only names the rule (State.action_taken): one card paid is a
        # swap (R49); otherwise a placement, told apart from a fortification by nothing the rules use
        if pending["rule"] == "R49":
            st.t_cards = 1
        else:
            st.t_pieces = 1
