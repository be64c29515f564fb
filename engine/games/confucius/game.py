"""The Confucius game object: the contract (engine/core.py) over this package's role modules."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.core import GameBase

from .components import MAX_PLAYERS, MIN_PLAYERS
from .state import State


class Confucius(GameBase[State], package=__package__):
    """Confucius for 3-5 players: basic or advanced game (petitions), optional Admiral variant."""

    id = "confucius"
    title = "Confucius"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    #: About 40 actions at a turn, most of them close on the heuristic: without widening, 4 times the
    #: search effort spread over all of them did not play better (bench/strength.py, issue 4).
    search_options: ClassVar[dict[str, Any]] = {"root_widening": 0.5}
    state_class = State
