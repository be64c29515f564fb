"""Evaluation for the greedy and search bots: the lead the seat would have if the game ended now.

The projected total is the score so far plus what the final scoring would give at this moment
(unscored provinces, ports, alliances, chains: R56-R59).  Measuring it against the best opponent
rather than in absolute terms makes the bot value taking majorities away from the leader too.
"""

from __future__ import annotations

from .scoring import final_points
from .state import State


def projected_scores(st: State) -> list[int]:
    if st.final is not None:  # already included in the scores
        return st.scores[:]
    totals = st.scores[:]
    for points in final_points(st).values():
        for seat, pts in enumerate(points):
            totals[seat] += pts
    return totals


def heuristic(st: State, seat: int) -> float:
    totals = projected_scores(st)
    mine = totals[seat]
    return float(mine - max(t for s, t in enumerate(totals) if s != seat))
