"""The ``Game`` object of In the Year of the Dragon: the contract of engine/core.py over this package."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import Action, Event, StateCodec, check_players

from . import contract, rules, scoring, view
from .components import DATA_NOTES, PLAYER_COUNTS
from .heuristic import heuristic
from .schemas import ACTIONS, OPTIONS
from .setup import new_state
from .state import OVER, State


class YearOfDragon(StateCodec):
    id = "year_of_dragon"
    state_class = State
    title = "In the Year of the Dragon"
    min_players = min(PLAYER_COUNTS)
    max_players = max(PLAYER_COUNTS)
    options = OPTIONS
    actions = ACTIONS
    rules_file = str(Path(__file__).with_name("RULES.md"))
    search_options: ClassVar[dict[str, Any]] = {}
    data_notes = DATA_NOTES  # reconstructed component data (RULES.md), published by the API
    view_schema: ClassVar[dict[str, Any]] = contract.VIEW
    result_schema: ClassVar[dict[str, Any]] = contract.RESULT
    event_schemas: ClassVar[dict[str, dict[str, Any]]] = contract.EVENTS
    masked_actions: ClassVar[dict[str, dict[str, Any]]] = contract.MASKED_ACTIONS

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
        check_players(self, players)
        return new_state(players, options, seed)

    to_move = staticmethod(rules.to_move)
    legal_actions = staticmethod(rules.legal_actions)

    def apply(self, state: State, action: Action, seat: int | None = None) -> list[Event]:
        return rules.apply(state, action, seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def result(self, state: State) -> dict[str, Any] | None:
        return scoring.result(state) if state.phase == OVER else None

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return view.determinize(state, seat, rng)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)
