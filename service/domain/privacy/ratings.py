"""The player's ratings (issue 48): per game, the rating, the rank on its board and the recent rated
matches; erased from the app's ratings, its boards and its histories.

Other players' histories name matches and numbers only (place, players, ordinal before and after),
never an opponent, so they stay as they are: a deleted player's matches still count in them, and the
boards' ranks close up without the player.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engine.core import Game
from service.domain.ratings import HISTORY_LENGTH, standing_document
from service.storage.ratings import RatingStore


class RatingData:
    """The player's ratings, board places and rating histories, in every game."""

    section = "ratings"

    def __init__(self, store: RatingStore, games: Mapping[str, Game]) -> None:
        self.store = store
        self.games = games

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        found = self.store.standing(app, player, sorted(self.games), HISTORY_LENGTH)
        for game, (record, rank, history) in sorted(found.items()):
            yield {**standing_document(game, record, rank, history), "name": record.get("name")}

    def erase(self, app: str, player: str, placeholder: str) -> int:
        return sum(self.store.drop_rater(app, game, player) for game in sorted(self.games))
