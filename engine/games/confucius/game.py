"""The Confucius game object: the engine contract (engine/core.py) over the modules of this package."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import Action, Event, Result, StateCodec, check_players, resolve_options

from . import contract, rules
from .components import DATA_NOTES, MAX_PLAYERS, MIN_PLAYERS
from .heuristic import evaluate
from .schemas import ACTIONS, OPTIONS
from .setup import setup as new_state
from .state import State
from .view import determinize, view


class Confucius(StateCodec):
    """Confucius for 3-5 players: basic or advanced game (petitions), optional Admiral variant."""

    id = "confucius"
    state_class = State
    title = "Confucius"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    rules_file = str(Path(__file__).with_name("RULES.md"))
    #: About 40 actions at a turn, most of them close on the heuristic: without widening, 4 times the
    #: search effort spread over all of them did not play better (bench/strength.py, issue 4).
    search_options: ClassVar[dict[str, Any]] = {"root_widening": 0.5}
    data_notes = DATA_NOTES  # reconstructed component data (RULES.md), published by the API
    view_schema: ClassVar[dict[str, Any]] = contract.VIEW
    result_schema: ClassVar[dict[str, Any]] = contract.RESULT
    event_schemas: ClassVar[dict[str, dict[str, Any]]] = contract.EVENTS
    masked_actions: ClassVar[dict[str, dict[str, Any]]] = contract.MASKED_ACTIONS
    options = OPTIONS
    actions: ClassVar[dict[str, dict[str, Any]]] = ACTIONS

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
        check_players(self, players)
        return new_state(players, resolve_options(self.options, options), seed)

    def to_move(self, state: State) -> int | None:
        return rules.to_move(state)

    def legal_actions(self, state: State) -> list[Action]:
        return rules.legal_actions(state)

    def apply(self, state: State, action: Action, seat: int | None = None) -> list[Event]:
        return rules.apply(state, action, seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def result(self, state: State) -> Result | None:
        return state.outcome

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def heuristic(self, state: State, seat: int) -> float:
        return evaluate(state, seat)
