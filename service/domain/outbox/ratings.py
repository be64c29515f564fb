"""The ``rating`` part of an outbox entry: a finished rated match's outcome, for the ratings."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from engine.ai import LEVELS
from service.domain.matches import seating
from service.domain.outbox.entries import Consumed
from service.domain.ratings import Ratings, bot_rater, builtin_name, rated_places
from service.storage.accounts import AccountStore, StoredPlayer
from service.storage.matches import FINISHED, MatchMeta
from service.storage.ratings import BOTS, PEOPLE

log = logging.getLogger(__name__)


class RatingSubscriber:
    """Derives the outcome of a commit that finishes a rated match (:func:`outcome`, read with the
    players' profiles as they are now) and records it
    (:meth:`service.domain.ratings.Ratings.record`, idempotent per match).  A commit carries it even
    with no note (an all-bot ladder match)."""

    part = "rating"

    def __init__(self, ratings: Ratings, players: AccountStore) -> None:
        self.ratings = ratings
        self.players = players

    def derive(
        self, before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]
    ) -> dict[str, Any] | None:
        return outcome(before, after, self.players.player)

    def consume(self, match_id: str, entry: dict[str, Any], part: Any) -> Consumed:
        self.ratings.record(match_id, part)
        return Consumed()


def finishes_rated(before: MatchMeta | None, after: MatchMeta) -> bool:
    """Whether the commit from ``before`` to ``after`` finishes a rated match (with a result)."""
    was_over = before is not None and before.status == FINISHED
    return bool(after.life.get("rated")) and after.status == FINISHED and not was_over and bool(after.result)


def outcome(
    before: MatchMeta | None,
    after: MatchMeta,
    profile: Callable[[str, str], StoredPlayer | None],
) -> dict[str, Any] | None:
    """The ``rating`` part of the outbox entry of a commit that finishes a rated match (``None`` for
    any other commit): ``{"app", "game", "at", "players", "ranks", "names", "pools"}``, one entry
    per seat, ``players`` the raters.  ``profile(app, player id)`` is the player's stored profile (its
    display name and whether its app flags it ``bot``), read now so the outcome says who played as
    what when the match ended."""
    if not finishes_rated(before, after):
        return None
    app = after.life.get("app")
    assert after.result is not None
    if app is None:
        return None
    keys = after.life.get("players", {})
    players, names, pools = [], [], []
    for i, seat in enumerate(after.seats):
        key = keys.get(str(i))
        if key is not None:
            player = key.removeprefix(f"{app}:")
            stored = profile(app, player)
            players.append(player)
            names.append(stored.name if stored is not None else seat.get("name") or player)
            pools.append(BOTS if stored is not None and stored.bot else PEOPLE)
        elif seat["kind"] == seating.BOT and not seating.is_away(seat) and seat.get("level") in LEVELS:
            players.append(bot_rater(seat["level"], seat.get("think_ms")))
            names.append(builtin_name(players[-1]))
            pools.append(BOTS)
        else:  # check_rated let no such seat in; never rate half a match
            log.warning("rated match %s has a seat %d with nobody to rate; not rated", after.id, i)
            return None
    return {
        "app": app,
        "game": after.game,
        "at": after.updated_at,
        "players": players,
        "ranks": rated_places(after.result),
        "names": names,
        "pools": pools,
    }
