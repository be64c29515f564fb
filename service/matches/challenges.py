"""Challenges to named players (issue 27: being built)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.seeks_store import SeekStore

if TYPE_CHECKING:
    from service.matches.operations import Matches


class Challenges:
    """Challenges among an app's players; a match once all accept."""

    def __init__(self, matches: Matches, store: SeekStore) -> None:
        self.matches = matches
        self.store = store
