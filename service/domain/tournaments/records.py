"""A tournament's record as stored (:mod:`service.storage.tournaments`), read: its ids, its schedule
of matches, each match's status, and the outcome a match's end hands it.

**Matches.**  A tournament's matches are numbered 1, 2, ... in schedule order and their ids are
``<tournament id>-<number>``, fixed in advance: creating one is idempotent by id, so a scheduler that
runs twice (two processes, or one again after a crash) makes each match once.  A round robin's
schedule is derived from its spec (match number -> round and seats,
:func:`~service.domain.tournaments.pairing.round_robin_match`: nothing is written per match); a Swiss
round's matches are stored as the round is paired.  The commit that ends a match puts its
:func:`outcome` in its outbox, and the outbox hands it to
:meth:`service.domain.tournaments.scheduler.TournamentScheduler.recorded`.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from typing import Any

from service.domain.errors import NotFound
from service.domain.ratings import places as result_places
from service.domain.tournaments import pairing as rules
from service.storage.matches import FINISHED as MATCH_FINISHED
from service.storage.matches import OVER_STATUSES, MatchMeta
from service.storage.tournaments import (
    ABORTED,
    ACTIVE,
    CANCELLED,
    FINISHED,
    PENDING,
    RUNNING,
    SCHEDULED,
    Stored,
    TournamentStore,
)

ROUND_ROBIN, SWISS = "round_robin", "swiss"
FORMATS = (ROUND_ROBIN, SWISS)
STATUSES = (SCHEDULED, RUNNING, FINISHED, CANCELLED)
MATCH_STATUSES = (PENDING, ACTIVE, FINISHED, ABORTED)


def match_id_of(tid: str, number: int) -> str:
    return f"{tid}-{number}"


def number_of(match_id: str) -> int:
    return int(match_id.rpartition("-")[2])


def new_id(now: float) -> str:
    """A tournament id that sorts by creation time (the app's listing pages by it): ``t``, the
    creation millisecond in 12 hex digits, 8 random hex digits."""
    return f"t{int(now * 1000):012x}{secrets.token_hex(4)}"


def created_at_of(tid: str) -> float | None:
    """When the tournament ``tid`` was made, read from its id (``None``: not an id of ours)."""
    try:
        return int(tid[1:13], 16) / 1000 if len(tid) == 21 and tid[0] == "t" else None
    except ValueError:
        return None


def tournament_not_found(tid: str) -> NotFound:
    return NotFound("tournament_not_found", f"tournament {tid!r} not found")


def load(store: TournamentStore, app: str, tid: str) -> Stored:
    """The record of tournament ``tid`` of ``app``, or a 404 (for an id that is none of ours too)."""
    stored = store.load(app, tid) if tid.isalnum() else None
    if stored is None:
        raise tournament_not_found(tid)
    return stored


def _per_seat(value: Any) -> list[int] | None:
    if isinstance(value, list) and all(isinstance(x, int) for x in value):
        return list(value)
    return None


def outcome(before: MatchMeta | None, after: MatchMeta) -> dict[str, Any] | None:
    """The ``tournament`` part of the outbox entry of a commit that ends a tournament's match
    (``None`` for any other commit): ``{"app", "id", "match_id", "status", "places", "scores",
    "stand_in", "decisions"}``, places (1 = first, ties shared as the ratings read them), the engine's
    scores and the result's decision counts per seat (stand-in's and all; ``None`` when the result has
    none), ``None`` for an aborted match."""
    tag = after.life.get("tournament")
    if not tag or after.status not in OVER_STATUSES:
        return None
    if before is not None and before.status in OVER_STATUSES:
        return None
    app, _, tid = str(tag).rpartition(":")
    places = scores = stand_in = decisions = None
    status = ABORTED
    if after.status == MATCH_FINISHED and after.result:
        places = result_places(after.result)
        scores = after.result.get("scores")
        stand_in = _per_seat(after.result.get("stand_in"))
        decisions = _per_seat(after.result.get("decisions"))
        status = FINISHED
    return {
        "app": app,
        "id": tid,
        "match_id": after.id,
        "status": status,
        "places": places,
        "scores": scores,
        "stand_in": stand_in,
        "decisions": decisions,
    }


def result_of(out: dict[str, Any]) -> dict[str, Any]:
    """What the record keeps of a finished match's outcome."""
    result = {"places": out["places"], "scores": out.get("scores")}
    for name in ("stand_in", "decisions"):
        if out.get(name) is not None:
            result[name] = out[name]
    return result


def total_matches(spec: dict[str, Any]) -> int:
    n, p, per = len(spec["entrants"]), int(spec["players"]), int(spec["matches_per_pairing"])
    if spec["format"] == ROUND_ROBIN:
        return rules.round_robin_total(n, p, per)
    return int(spec["rounds"]) * (n // p) * per


def schedule(stored: Stored) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every match known so far, in number order, ``(number, {"match_id", "round", "entrants"})``: a
    round robin's derived from its spec (all of them), a Swiss's as its rounds were paired."""
    spec = stored.spec
    if spec["format"] != ROUND_ROBIN:
        yield from sorted(stored.matches.items())
        return
    tid = spec["id"]
    made = rules.round_robin(len(spec["entrants"]), spec["players"], spec["matches_per_pairing"])
    for n, (round_, seats) in enumerate(made, 1):
        yield n, {"match_id": match_id_of(tid, n), "round": round_, "entrants": list(seats)}


def match_status(stored: Stored, n: int) -> str:
    """Match ``n``'s status in the record: ``pending`` until made and marked; in a cancelled tournament
    every match not finished is ``aborted`` (those under way are aborted by the sweep)."""
    status = stored.statuses.get(n, PENDING)
    if stored.doc["status"] == CANCELLED and status not in (FINISHED, ABORTED):
        return ABORTED
    return status


def byes_of(stored: Stored) -> dict[str, list[int]]:
    raw = stored.doc.get("byes")
    return dict(json.loads(raw)) if raw else {}


def finished_matches(stored: Stored) -> Iterator[tuple[int, dict[str, Any], dict[str, Any]]]:
    """Every finished match, in number order: ``(number, match, result)``."""
    if not stored.results:
        return
    for n, m in schedule(stored):
        res = stored.results.get(n)
        if res is not None and stored.statuses.get(n) == FINISHED:
            yield n, m, res
