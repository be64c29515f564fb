"""The In the Year of the Dragon game object: the contract (engine/core.py) over this package's role
modules."""

from __future__ import annotations

from engine.core import GameBase

from .components import PLAYER_COUNTS
from .state import State


class YearOfDragon(GameBase[State], package=__package__):
    """In the Year of the Dragon (Stefan Feld), base game, 2-5 players (RULES.md)."""

    id = "year_of_dragon"
    title = "In the Year of the Dragon"
    min_players = min(PLAYER_COUNTS)
    max_players = max(PLAYER_COUNTS)
    state_class = State
