"""Who made a seat's decisions: the seat's own player (or its bot, for a bot seat from the start), or
a *stand-in* (issue 42 point 6).

A stand-in decides for a seat whose player is not there: the clock's ``on_timeout`` bot for a human
seat out of time (:meth:`service.domain.matches.operations.Matches.timeout_move`), the bot that plays an
away seat (too many timeouts) or a resigned seat (see :mod:`service.domain.matches.seating`).  A bot seat
from the start plays for itself, also when its failing job falls back to a random move.

**Counted with the move.**  Every committed move adds one to its seat's ``decisions`` and, when a
stand-in made it, to its ``stand_in``: two fields of the match's meta written by the move's own
commit (``match_commit.lua``), so a count is exactly the moves that landed.  The commit is a
compare-and-set on the version the counts were read at, whether the meta came from a load or from
the process's own last write (:meth:`service.storage.matches.Store.recent`, which keeps the fields the commit
wrote): a count can neither miss a move nor count one that lost its race.  Changes of who holds
the seats (joins, resigns, returns) carry the counts over untouched.

**Shown.**  While the match is played each seat of the match document and of listings shows its
``decisions`` and ``stand_in``; when it ends, the result carries ``decisions`` and ``stand_in`` (one
number per seat), so whoever reads a result (ratings, tournament standings and exports, a results
export) sees how much of it a stand-in played.  :mod:`service.domain.ratings` rates a seat its
stand-in mostly played as last.
"""

from __future__ import annotations

from typing import Any

from service.domain.matches import seating
from service.storage.matches import MatchMeta


def padded(counts: list[int], players: int) -> list[int]:
    """``counts`` with a zero for every seat it lacks (a match made before seats were counted)."""
    return [*counts, *([0] * (players - len(counts)))]


def made_by_stand_in(meta: MatchMeta, seat: int, *, timed_out: bool) -> bool:
    """Whether the decision of ``seat`` at ``meta``'s version is a stand-in's: a timeout's, or a bot's
    on a seat a player held (away now, or resigned)."""
    if timed_out:
        return True
    held = meta.seats[seat]
    return held["kind"] == seating.BOT and (seating.is_away(held) or seat in meta.life.get("resigned", []))


def counted(meta: MatchMeta, seat: int, *, timed_out: bool) -> tuple[list[int], list[int]]:
    """Each seat's ``decisions`` and ``stand_in`` after ``seat``'s move on ``meta``'s version."""
    decisions = padded(meta.decisions, meta.players)
    stand_in = padded(meta.stand_in, meta.players)
    decisions[seat] += 1
    if made_by_stand_in(meta, seat, timed_out=timed_out):
        stand_in[seat] += 1
    return decisions, stand_in


def in_result(result: dict[str, Any], decisions: list[int], stand_in: list[int]) -> dict[str, Any]:
    """A finished match's result with the counts: ``stand_in`` and ``decisions``, one number a seat."""
    return {**result, "stand_in": list(stand_in), "decisions": list(decisions)}


def at_start(result: dict[str, Any] | None, players: int) -> dict[str, Any] | None:
    """The result of a match over as it is set up (no decision made): with zero counts."""
    return None if result is None else in_result(result, [0] * players, [0] * players)


def seats(meta: MatchMeta) -> list[dict[str, Any]]:
    """The match's seats as documents and listings show them: number, holder and counts."""
    decisions = padded(meta.decisions, meta.players)
    stand_in = padded(meta.stand_in, meta.players)
    return [
        {"seat": i, **s, "decisions": decisions[i], "stand_in": stand_in[i]} for i, s in enumerate(meta.seats)
    ]
