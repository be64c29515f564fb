"""Phase 4 round scoring (R52), final scoring (R54) and the result with its tie-break (R55, R55a)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from engine.core import Event, event

from .components import (
    COURT_LADY,
    GOODS_YUAN,
    MONK,
    SYMBOLS,
    VP_PER_COURT_LADY,
    VP_PER_LARGE,
    VP_PER_PALACE,
    VP_PER_PERSON,
    VP_PER_SMALL,
    YUAN_PER_VP,
)
from .palaces import person_count, symbols, track_order
from .state import OVER, State

TIEBREAK = "person_track"


def round_gain(state: State, seat: int) -> int:
    """R52: 1 VP per palace, per court lady, per small privilege; 2 per large privilege."""
    palaces = state.palaces[seat]
    return (
        VP_PER_PALACE * len(palaces)
        + VP_PER_COURT_LADY * symbols(palaces, SYMBOLS[COURT_LADY])
        + VP_PER_SMALL * state.small[seat]
        + VP_PER_LARGE * state.large[seat]
    )


def score_round(state: State) -> Event:
    gains = [round_gain(state, p) for p in range(state.n)]
    for p, g in enumerate(gains):
        state.vp[p] += g
    return event("round_scoring", round=state.round, vp=gains)


def final_gain(state: State, seat: int) -> list[int]:
    """R54 for one seat: [persons, monks, money] VP.  Monks: buddhas x floors of their palace; money:
    rice and fireworks sell for 2 yuan each, then 1 VP per full 3 yuan (R59)."""
    palaces = state.palaces[seat]
    monk = SYMBOLS[MONK]
    monks = sum(monk[k] * floors for floors, persons in palaces for k in persons)
    money = state.yuan[seat] + GOODS_YUAN * (state.rice[seat] + state.fireworks[seat])
    return [VP_PER_PERSON * person_count(palaces), monks, money // YUAN_PER_VP]


def score_final(state: State) -> Event:
    state.final = [final_gain(state, p) for p in range(state.n)]
    for p, parts in enumerate(state.final):
        state.vp[p] += sum(parts)
    return event("final_scoring", vp=state.final)


def result(state: State) -> dict[str, Any] | None:
    """R55, R55a: all seats by VP, equal VP broken by the person track (stack top first), so the tie-break
    always leaves one winner; ``None`` while the game runs."""
    if state.phase != OVER:
        return None
    track = track_order(state)
    ranking = sorted(range(state.n), key=lambda s: (-state.vp[s], track.index(s)))
    tied = any(state.vp[a] == state.vp[b] for a, b in pairwise(ranking))
    return {
        "scores": state.vp[:],
        "ranking": ranking,
        "tiebreak": TIEBREAK if tied else None,
        "winners": ranking[:1],
        "track_order": track,
        "final_scoring": [
            dict(zip(("persons", "monks", "money"), parts, strict=True)) for parts in state.final or []
        ],
    }
