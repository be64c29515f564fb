"""The only door out of a state: what one seat (or a spectator) may see, and determinize beside it.

Private (R61): each hand (others see its size and the cards they saw it take from the display), the
draw pile's order and content (only its size), the RNG.  Public (R62): display, discard pile, board,
supplies, scores, scored flags, exhaustions, final round, the Emperor.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Rng

from .components import COLOURS, PIECE_COLOURS, PROVINCES, SPACES
from .legal import MAX_CARDS, MAX_PIECES
from .state import DRAW, FREE, OVER, PHASE_RULES, PLACE, UNUSED, State, card_list


def _cards(counts: list[int]) -> list[str]:
    return [COLOURS[c] for c in card_list(counts)]


def view(st: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may see; fresh objects only, nothing shared with ``st``."""
    players = []
    for s in range(st.n):
        entry: dict[str, Any] = {
            "seat": s,
            "colour": PIECE_COLOURS[s],
            "score": st.scores[s],
            "houses": st.supply[s][0],
            "emissaries": st.supply[s][1],
            "hand_size": sum(st.hands[s]),
            "seen_cards": _cards(st.known[s]),
            "emperor": s == st.start,
        }
        if st.fortifications:
            entry["fortification"] = None if st.fort[s] == UNUSED else SPACES[st.fort[s]]
        if s == seat:
            entry["hand"] = _cards(st.hands[s])
        players.append(entry)
    return {
        "game": "china",
        "players": players,
        "to_move": None if st.phase == OVER else st.seat,
        "phase": st.phase,
        "turn": st.turn,
        "pending": _pending(st),
        "board": {
            "houses": {SPACES[s]: o for s, o in enumerate(st.owner) if o != FREE},
            "seals": {PROVINCES[p]: st.seals[p][:] for p in range(len(PROVINCES))},
            "scored": [PROVINCES[p] for p in range(len(PROVINCES)) if st.scored[p]],
        },
        "display": [COLOURS[c] if c >= 0 else None for c in st.display],
        "deck_size": len(st.deck),
        "discard": _cards(st.discard),
        "exhaustions": st.exhaustions,
        "final_round": st.final_round,
        "fortifications": st.fortifications,
        "ended_by": st.end or None,
        "final_scoring": None if st.final is None else {k: v[:] for k, v in st.final.items()},
    }


def _pending(st: State) -> dict[str, Any] | None:
    """The pending decision, so a client can render it (DP2-DP5)."""
    if st.phase == OVER:
        return None
    # a swap's draw is the one card R49 takes, not the refill to three of R45
    rule = "R49" if st.action_taken() == "swap" else PHASE_RULES[st.phase]
    pending: dict[str, Any] = {"seat": st.seat, "decision": st.phase, "rule": rule}
    if st.phase == DRAW:
        pending["draws_left"] = st.draws_left
    else:
        pending["pieces_left"] = MAX_PIECES - st.t_pieces
        pending["cards_left"] = MAX_CARDS - st.t_cards
    if st.phase == PLACE:  # where the first piece went limits the second (R30, R31): public, and a
        # client rebuilding the state (sampling.py) needs it
        pending["provinces"] = [PROVINCES[p] for p in range(len(PROVINCES)) if st.t_common >> p & 1]
        pending["blocked"] = [PROVINCES[p] for p in range(len(PROVINCES)) if st.t_blocked >> p & 1]
    return pending


def determinize(st: State, seat: int, rng: random.Random) -> State:
    """A clone with every card ``seat`` cannot see redealt at random and the RNG reseeded.

    The unseen cards (draw pile plus the unseen part of the other hands) are pooled in colour order
    before shuffling, so the sample depends on ``seat``'s information and ``rng`` alone; cards seen
    taken from the display stay in their hands.
    """
    sample = st.clone()
    unseen = [0] * len(COLOURS)
    for c in st.deck:
        unseen[c] += 1
    for other in range(st.n):
        if other != seat:
            for c, (held, seen) in enumerate(zip(st.hands[other], st.known[other], strict=True)):
                unseen[c] += held - seen
    pool = card_list(unseen)
    shuffler = Rng.reseeded(rng)
    shuffler.shuffle(pool)
    for other in range(st.n):
        if other == seat:
            continue
        hand = st.known[other][:]
        for _ in range(sum(st.hands[other]) - sum(hand)):
            hand[pool.pop()] += 1
        sample.hands[other] = hand
    sample.deck = pool
    sample.rng = Rng.reseeded(rng)
    return sample
