"""The Taj Mahal game object: the contract (engine/core.py) over this package's role modules."""

from __future__ import annotations

from engine.core import GameBase

from .components import STANDARD
from .state import State


class TajMahal(GameBase[State], package=__package__):
    """Taj Mahal (Reiner Knizia) on the standard board, 3-5 players (RULES.md)."""

    id = "taj_mahal"
    title = "Taj Mahal"
    min_players = min(STANDARD.player_counts)
    max_players = max(STANDARD.player_counts)
    state_class = State
