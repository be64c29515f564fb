"""A match record (issue 45, format ``tabletop-record/1``, or ``/2`` with takebacks: ``docs/records.md``)
built from what storage holds of a match: the header from its meta, a decision per action-log entry (its time
and clock after it were stored with the move), each decision's game events from the events stream.

The full record is built first, as :func:`engine.records.record_of_play` builds one offline; what a
seat or a spectator may see of it is then decided where every reader's is, by
:func:`engine.records.restrict` (the engine's event audiences, :func:`engine.core.event_visible`, and
its masked actions): one rule for a match in play and one over.  Views come from
``game.view(state, seat)`` of the states replayed from the seed, which the server knows and which
leaves it only once the match is over (``setup``).
"""

from __future__ import annotations

import time
from functools import lru_cache
from typing import Any

import orjson

from engine.core import Game
from engine.records import FULL, SEAT, SPECTATOR, engine_version, format_for, restrict, rules_version
from service import events as service_events
from service.domain.matches import clocks, seating
from service.domain.matches.reading import with_players
from service.domain.matches.takebacks import live_entries, taken_back_numbers
from service.encoding import loads
from service.storage.matches import OVER_STATUSES, WAITING, MatchMeta
from service.storage.records import Stored

PERSPECTIVES = (FULL, SEAT, SPECTATOR)

#: The service's own event types (not a game's): a record's decisions carry the game's events only.
SERVICE_EVENT_TYPES = frozenset(
    value for name, value in vars(service_events).items() if name.isupper() and isinstance(value, str)
)


def iso(seconds: float | None) -> str | None:
    """Epoch seconds as ISO-8601 UTC to the millisecond (``2026-01-02T03:04:05.678Z``), as records write
    times."""
    if seconds is None:
        return None
    whole = int(seconds)
    return f"{_second(whole)}.{int((seconds - whole) * 1000):03d}Z"


@lru_cache(maxsize=4096)
def _second(whole: int) -> str:
    """A whole second's part of :func:`iso` (decisions come many a second: an export formats each once)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))


def header(game: Game, meta: MatchMeta, viewer: str | None) -> dict[str, Any]:
    """The record's header: seats name their players to a caller of their app only (``viewer``)."""
    shown = with_players([{"seat": i} for i in range(meta.players)], meta, viewer)
    seats = [
        {
            "seat": i,
            "kind": "bot" if s.get("kind") == seating.BOT and not s.get("away") else "player",
            "player": shown[i].get("player"),
            "name": s.get("name"),
            "level": s.get("level"),
        }
        for i, s in enumerate(meta.seats)
    ]
    started = meta.life.get("started_at")
    if started is None and meta.status != WAITING:
        started = meta.created_at  # a match made with every seat taken starts as it is created
    return {
        "match_id": meta.id,
        "game": meta.game,
        "title": game.title,
        "engine_version": engine_version(),
        "rules_version": rules_version(game),
        "players": meta.players,
        "options": meta.options,
        "seats": seats,
        "time_control": None if meta.clock is None else clocks.control(meta.clock),
        "rated": bool(meta.life.get("rated")),
        "tournament": str(meta.life.get("tournament") or "").partition(":")[2] or None,  # "<app>:<id>"
        "created_at": iso(meta.created_at),
        "started_at": iso(started),
        "status": meta.status,
    }


#: What the service adds to a game's result (:mod:`service.domain.matches.stand_ins`, resignations).
SERVICE_RESULT_KEYS = ("stand_in", "decisions", "resigned")


def game_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """The game's own result, as the engine computes it: what a replay checks (who stood in and who
    resigned are the service's, not the game's; seats and match documents show them)."""
    if result is None:
        return None
    return {k: v for k, v in result.items() if k not in SERVICE_RESULT_KEYS}


def _events(joined: bytes | None, raw: bool) -> Any:
    """A decision's events (a JSON array as stored): parsed, or (``raw``) a fragment orjson writes as is."""
    if joined is None:
        return []
    return orjson.Fragment(joined) if raw else loads(joined)


def build(
    game: Game,
    stored: Stored,
    perspective: str,
    seat: int | None,
    *,
    viewer: str | None,
    views: bool = False,
    raw: bool = False,
) -> dict[str, Any]:
    """The record of ``stored`` from ``perspective`` (``seat``'s with :data:`SEAT`; :data:`FULL` only
    for a match over: the caller checks).  ``views``: each decision's view after it, and the
    ``initial_view``, replayed from the seed (a full record's views are the spectator's).  ``raw``: a
    full record's events stay as stored (:func:`_events`), for :func:`service.encoding.dumps_bytes` to
    write (an export)."""
    meta = stored.meta
    looker = seat if perspective == SEAT else None
    made = [entry for entry in stored.log if "takeback" not in entry]  # the decisions, as they were made
    decisions = [
        {
            "n": n,
            "version": int(entry["version"]),
            "seat": int(entry["seat"]),
            "action": entry["action"],
            "at": iso(entry.get("at")),
            "clock": entry.get("clock"),
            "events": _events(stored.events.get(int(entry["version"])), raw and perspective == FULL),
        }
        for n, entry in enumerate(made, 1)
    ]
    takebacks = _takebacks(stored.log)
    for takeback in takebacks:
        for n in takeback["decisions"]:
            decisions[n - 1]["taken_back"] = True
    seen = _views(game, meta, stored.log, looker) if views else None
    if perspective == FULL and seen is not None:
        for decision, view in zip(decisions, seen[1:], strict=True):
            decision["view"] = view
    record: dict[str, Any] = {
        "format": format_for(takebacks),  # a record with takebacks is /2: a reader of /1 refuses it
        "perspective": FULL,
        "seat": None,
        "header": header(game, meta, viewer),
        "decisions": decisions,
        **({"initial_view": seen[0]} if perspective == FULL and seen is not None else {}),
        "result": game_result(meta.result),
        "setup": {"seed": meta.seed},
    }
    if takebacks:  # the record of a match without any keeps its shape
        record["takebacks"] = takebacks
    if perspective != FULL:
        # What a seat or a spectator may see of it: decided in one place, the engine's (no seed).
        return restrict(record, looker, seen)
    assert meta.status in OVER_STATUSES, "a full record of a match in play"  # the caller refuses it
    return record


def _takebacks(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The record's ``takebacks`` (issue 47): for each takeback of the log, in order, the seat, the
    numbers of the decisions it took back, and when it was asked for and accepted."""
    numbers = taken_back_numbers(log)
    return [
        {
            "seat": int(log[i]["seat"]),
            "decisions": numbers[i],
            "requested_at": iso(log[i].get("requested_at")),
            "accepted_at": iso(log[i].get("accepted_at", log[i].get("at"))),
        }
        for i in sorted(numbers)
    ]


def _views(game: Game, meta: MatchMeta, log: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """``seat``'s views (``None``: the spectator's) before the first decision and after each, as it was
    made, of the states replayed from the seed (which never leaves the server while the match is in
    play); after a takeback the play goes on from the position before the decisions it took back."""
    state = game.setup(meta.players, meta.options, meta.seed)
    seen = [game.view(state, seat)]
    for i, entry in enumerate(log):
        if "takeback" in entry:
            state = game.setup(meta.players, meta.options, meta.seed)
            for earlier in live_entries(log[: i + 1]):
                game.apply(state, earlier["action"], seat=int(earlier["seat"]))
            continue
        game.apply(state, entry["action"], seat=int(entry["seat"]))
        seen.append(game.view(state, seat))
    return seen
