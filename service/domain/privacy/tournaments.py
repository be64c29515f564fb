"""The player's tournament entries (issue 48).

A tournament's spec lists its entrants, a player entrant by id and name.  Export: each tournament of
the app that enters the player, with the entry.  Erasure: the entrant keeps its place (standings,
results and pairings number entrants, so every other entrant's record stays as it was) but becomes a
built-in ``easy`` bot named by the placeholder: a match not made yet seats that bot, matches under
way were handed over by the matches part (the player's seats resigned), finished ones name the
placeholder.  A spec is otherwise never rewritten, and a scheduler process may keep one in memory
(:data:`service.domain.tournaments.scheduler.SPEC_CACHE`): this process's scheduler forgets it here;
another process that still holds the old entrant meets a player that is gone when it makes that
entrant's next match, which then fails as for any deleted player (see docs/api/privacy.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from service.domain.identity import player_key
from service.storage.tournaments import TournamentStore

#: Tournaments of an app read a page.
PAGE = 200
#: The bot that takes a deleted player's entrant.
STAND_IN_LEVEL = "easy"


class TournamentData:
    """The tournaments the player entered (or created, with a player token)."""

    section = "tournaments"

    def __init__(self, store: TournamentStore, forget: Callable[[str, str], None] | None = None) -> None:
        self.store = store
        #: What this process's scheduler is told of a spec rewritten (its cache), if anything.
        self.forget = forget

    def _mine(self, app: str, player: str) -> Iterator[tuple[str, dict[str, Any]]]:
        before: str | None = None
        while True:
            tids = self.store.app_tournaments(app, before, PAGE)
            for tid in tids:
                spec = self.store.spec(app, tid)
                if spec is None:
                    continue
                entered = any(e.get("player") == player for e in spec.get("entrants", []))
                if entered or spec.get("creator") == player_key(app, player):
                    yield tid, spec
            if len(tids) < PAGE:
                return
            before = tids[-1]

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        for tid, spec in self._mine(app, player):
            entries = [e for e in spec.get("entrants", []) if e.get("player") == player]
            yield {
                "tournament_id": tid,
                "name": spec.get("name"),
                "game": spec.get("game"),
                "status": self.store.status(app, tid),
                "created_at": spec.get("created_at"),
                "created_by_player": spec.get("creator") == player_key(app, player),
                "entries": entries,
            }

    def erase(self, app: str, player: str, placeholder: str) -> int:
        done = 0
        for tid, spec in list(self._mine(app, player)):
            entrants = []
            for entrant in spec.get("entrants", []):
                if entrant.get("player") == player:
                    entrant = {
                        "entrant": entrant.get("entrant"),
                        "name": placeholder,
                        "level": STAND_IN_LEVEL,
                    }
                entrants.append(entrant)
            spec = {**spec, "entrants": entrants}
            if spec.get("creator") == player_key(app, player):
                spec["creator"] = None
            self.store.rewrite_spec(app, tid, spec)
            if self.forget is not None:
                self.forget(app, tid)
            done += 1
        return done
