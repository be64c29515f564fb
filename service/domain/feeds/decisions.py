"""A feed entry's ``decision`` (issue 44): the pending decision a ``your_turn`` entry is about, whole,
as it stands when the entry is served or sent.

The feed keeps its entries small (no view is stored in Redis: a view can be large, and is stale after the
next commit anyway), so the decision is added on the way out: to a page, a long-poll's answer or a
stream's lines when the reader asked for it (``include=decision``), and to a webhook's ``your_turn``
message at send time when its endpoint asked for it (``include_decision``).  It is built by the match
reading's one builder (:func:`service.domain.matches.reading.decision`), from one read of each match
named, at the match's current version: ``null`` once the decision is no longer pending.
"""

from __future__ import annotations

from typing import Any

from engine.core import Game
from service.domain.feeds.feed import YOUR_TURN
from service.domain.matches.reading import MatchReading, decision_in
from service.storage.matches import Store


def with_decisions(reading: MatchReading, key: str, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` of the player ``key``'s feed (their client forms), each ``your_turn`` among them
    with its ``decision``; the others as they are.  One read per match however many entries name it."""
    named = sorted({str(e["match_id"]) for e in entries if e.get("type") == YOUR_TURN and e.get("match_id")})
    if not named:
        return entries
    loaded = dict(zip(named, reading.store.load_many(named), strict=True))
    return [
        {**e, "decision": reading.decision_of(loaded[e["match_id"]], key, e["seat"])}
        if e.get("type") == YOUR_TURN and e.get("match_id") in loaded
        else e
        for e in entries
    ]


def pending_decision(
    store: Store, games: dict[str, Game], key: str, match_id: str, seat: int
) -> dict[str, Any] | None:
    """The decision of the player ``key``'s ``seat`` in ``match_id`` as it stands now (one read), or
    ``None``: what a webhook's ``your_turn`` carries at send time
    (:meth:`service.domain.webhooks.delivery.Dispatcher.as_sent`)."""
    return decision_in(games, store.load(match_id), key, seat)
