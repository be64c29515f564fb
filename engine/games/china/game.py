"""The China game object: the contract (engine/core.py) over this package's role modules."""

from __future__ import annotations

from engine.core import GameBase

from .components import PLAYER_COUNTS
from .state import State


class China(GameBase[State], package=__package__):
    """China (Michael Schacht) on the Border Disputes board, 3-5 players (RULES.md)."""

    id = "china"
    title = "China"
    min_players = min(PLAYER_COUNTS)
    max_players = max(PLAYER_COUNTS)
    state_class = State
