"""What a tournament's record shows: its standings, its progress, the document the API serves and the
export's rows.  The rules (points by finishing place, tie-breaks) are
:mod:`service.domain.tournaments.pairing`'s; this module reads them off the record.

**Stand-ins** (issue 42 point 6): a finished match's result counts per seat the decisions a stand-in
made (``stand_in``: a timeout's bot, an away or resigned seat's bot) and all of them
(``decisions``); the record keeps both, the standings add them up per entrant (``stand_in``, and
``stand_in_matches``: the matches a stand-in played more than half of), and the matches and the export
show them per seat.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from service.domain.tournaments import pairing as rules
from service.domain.tournaments.records import (
    SWISS,
    byes_of,
    finished_matches,
    match_status,
    schedule,
    total_matches,
)
from service.storage.tournaments import ABORTED, ACTIVE, CANCELLED, FINISHED, Stored


def mostly_stand_in(stand_in: int, decisions: int) -> bool:
    """Whether a seat's play was mostly a stand-in's: more than half of its decisions."""
    return decisions > 0 and 2 * stand_in > decisions


def standings(stored: Stored) -> list[dict[str, Any]]:
    """The standings, ranked, as the API shows them, with each entrant's stand-in counts."""
    spec = stored.spec
    byes = [e for out in byes_of(stored).values() for e in out]
    finished = list(finished_matches(stored))
    played = (rules.Played(tuple(m["entrants"]), tuple(res["places"])) for _, m, res in finished)
    lines = rules.standings(len(spec["entrants"]), spec["players"], played, byes)
    stand_in: Counter[int] = Counter()
    mostly: Counter[int] = Counter()
    for _, m, res in finished:
        subs, made = res.get("stand_in"), res.get("decisions")
        if subs is None or made is None:
            continue
        for seat, entrant in enumerate(m["entrants"]):
            if seat < len(subs) and seat < len(made):
                stand_in[entrant] += subs[seat]
                mostly[entrant] += mostly_stand_in(subs[seat], made[seat])
    return [
        {
            "rank": rank,
            "entrant": s.entrant,
            "name": spec["entrants"][s.entrant]["name"],
            "points": s.points,
            "played": s.played,
            "wins": s.wins,
            "buchholz": s.buchholz,
            "seats": s.seats,
            "stand_in": stand_in[s.entrant],
            "stand_in_matches": mostly[s.entrant],
        }
        for rank, s in enumerate(lines, 1)
    ]


def progress(stored: Stored) -> dict[str, Any]:
    spec, doc = stored.spec, stored.doc
    rounds = int(spec["rounds"])
    if spec["format"] == SWISS:
        current = max(int(doc.get("round", "1")), 1)
    else:
        total, next_ = int(doc["total"]), int(doc.get("next", "1"))
        open_numbers = [n for n in stored.active if stored.statuses.get(n) == ACTIVE]
        if next_ <= total:
            open_numbers.append(next_)
        groups = max(total // max(int(spec["matches_per_pairing"]), 1), 1)
        current = (
            (min(open_numbers) - 1) // groups + 1 if open_numbers and doc["status"] != CANCELLED else rounds
        )
        current = min(current, rounds)
    return {
        "done": int(doc.get("done", "0")),
        "total": total_matches(spec),
        "round": current,
        "rounds": rounds,
    }


def _counts(res: dict[str, Any] | None, seat: int) -> tuple[int | None, int | None]:
    if res is None or res.get("stand_in") is None or res.get("decisions") is None:
        return None, None
    subs, made = res["stand_in"], res["decisions"]
    return (subs[seat] if seat < len(subs) else None, made[seat] if seat < len(made) else None)


def _match_row(stored: Stored, n: int, m: dict[str, Any]) -> dict[str, Any]:
    status = match_status(stored, n)
    res = stored.results.get(n) if status == FINISHED else None
    places = res["places"] if res is not None else None
    return {
        "match_id": m["match_id"],
        "round": m["round"],
        "entrants": m["entrants"],
        "status": status,
        "places": places,
        "points": rules.points_of(places) if places is not None else None,
        "stand_in": res.get("stand_in") if res is not None else None,
        "decisions": res.get("decisions") if res is not None else None,
    }


def document(stored: Stored, *, with_matches: bool = True) -> dict[str, Any]:
    """The tournament as the API shows it (``with_matches=False``: the summary: listings, creation)."""
    spec, doc = stored.spec, stored.doc
    out: dict[str, Any] = {
        "id": spec["id"],
        "name": spec["name"],
        "game": spec["game"],
        "players": spec["players"],
        "options": spec["options"],
        "format": spec["format"],
        "rounds": spec["rounds"],
        "matches_per_pairing": spec["matches_per_pairing"],
        "rated": spec["rated"],
        "time_control": spec["time_control"],
        "parallel": spec["parallel"],
        "status": doc["status"],
        "cancel_reason": doc.get("reason") or None,
        "created_at": spec["created_at"],
        "starts_at": spec["starts_at"],
        "finished_at": float(doc["finished_at"]) if doc.get("finished_at") else None,
        "entrants": spec["entrants"],
        "progress": progress(stored),
        "standings": standings(stored),
    }
    if with_matches:
        out["matches"] = [_match_row(stored, n, m) for n, m in schedule(stored)]
    return out


def result_rows(stored: Stored) -> list[dict[str, Any]]:
    """One row per seat of every finished or aborted match, in match order: the export's rows (and
    the CSV's columns: round, match_id, status, seat, entrant, name, place, points, score, then
    stand_in and decisions)."""
    entrants = stored.spec["entrants"]
    rows = []
    for n, m in schedule(stored):
        status = match_status(stored, n)
        if status not in (FINISHED, ABORTED):
            continue
        res = stored.results.get(n) if status == FINISHED else None
        places = res["places"] if res is not None else None
        points = rules.points_of(places) if places is not None else None
        scores = res.get("scores") if res is not None else None
        for seat, entrant in enumerate(m["entrants"]):
            subs, made = _counts(res, seat)
            rows.append(
                {
                    "round": m["round"],
                    "match_id": m["match_id"],
                    "status": status,
                    "seat": seat,
                    "entrant": entrant,
                    "name": entrants[entrant]["name"],
                    "place": places[seat] if places is not None else None,
                    "points": points[seat] if points is not None else None,
                    "score": scores[seat] if scores is not None and seat < len(scores) else None,
                    "stand_in": subs,
                    "decisions": made,
                }
            )
    return rows
