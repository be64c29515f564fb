"""End of the game: the three titles (R103-R107) and the winner with its tie-breaks (R110-R112)."""

from __future__ import annotations

from typing import Any

from engine.core import Event, event

from .military import general_measure
from .ministries import BINGBU, GONGBU, HUBU
from .state import OVER, State
from .voyages import admiral_measure

TITLE_VP = 1  # R103


def chief_minister_measure(state: State, p: int) -> int:
    """R104: markers on officials in the three ministries plus Minister and Secretary markers."""
    return state.owner.count(p) + state.minister.count(p) + state.secretary.count(p)


def _title(measures: list[int], tie_ministry: int, state: State) -> int:
    """Most wins; a tie at the top (even at 0, R107) goes to that ministry's Minister, tied or not,
    and to nobody when it has none."""
    top = max(measures)
    leaders = [p for p, v in enumerate(measures) if v == top]
    return leaders[0] if len(leaders) == 1 else state.minister[tie_ministry]


def titles(state: State) -> dict[str, Any]:
    """The holders (seat or -1) and the measures of the three titles."""
    seats = range(state.n)
    measures = {
        "chief_minister": [chief_minister_measure(state, p) for p in seats],
        "admiral": [admiral_measure(state, p) for p in seats],
        "general": [general_measure(state, p) for p in seats],
    }
    holders = {
        "chief_minister": _title(measures["chief_minister"], HUBU, state),  # R104
        "admiral": _title(measures["admiral"], GONGBU, state),  # R105
        "general": _title(measures["general"], BINGBU, state),  # R106
    }
    return {"holders": holders, "measures": measures}


def ranking(
    scores: list[int], holders: dict[str, int], admiral_variant: bool
) -> tuple[list[int], str | None]:
    """R110-R112: seats best first and the rule that separated a tie for first (None if none did).

    Equal scores elsewhere in the ranking are ordered the same way (Admiral, Chief Minister, General,
    then seat), so the ranking is total; a shared win (R111, last case) keeps seat order.
    """
    order = ("admiral", "chief_minister", "general")

    def key(p: int) -> tuple[int, ...]:
        return (-scores[p], *(holders[t] != p for t in order), p)

    ranked = sorted(range(len(scores)), key=key)
    top = [p for p in ranked if scores[p] == scores[ranked[0]]]
    if len(top) < 2:
        return ranked, None
    admiral = holders["admiral"]
    if admiral_variant and admiral >= 0:  # R112: the Admiral wins a tie even when not tied
        return [admiral, *(p for p in ranked if p != admiral)], "R112 admiral variant"
    for title in order:
        if holders[title] in top:
            return ranked, f"R111 {title.replace('_', ' ')}"
    return ranked, None


def winners(scores: list[int], ranked: list[int], tiebreak: str | None) -> list[int]:
    """The winning seat, or every seat sharing the win when no tie-break applied (R111)."""
    if tiebreak is not None:
        return [ranked[0]]
    return [p for p in ranked if scores[p] == scores[ranked[0]]]


def result(state: State) -> dict[str, Any] | None:
    """The result fixed by :func:`finish` (R109-R112), ``None`` while the game runs."""
    return state.outcome


def finish(state: State, ev: list[Event]) -> None:
    """R103, R109: award the titles, then fix the result; the game is over."""
    info = titles(state)
    for title, p in info["holders"].items():
        if p >= 0:
            state.score[p] += TITLE_VP
            ev.append(event("title", title=title, seat=p, vp=TITLE_VP))
    scores = state.score[:]
    ranked, tiebreak = ranking(scores, info["holders"], state.admiral_variant)
    state.outcome = {
        "scores": scores,
        "ranking": ranked,
        "tiebreak": tiebreak,
        "winners": winners(scores, ranked, tiebreak),
        "titles": info["holders"],
        "measures": info["measures"],
    }
    state.phase, state.seat, state.ctx = OVER, -1, None
    ev.append(event("game_over", **state.outcome))
