"""The China game object: the engine contract (engine/core.py) wired to this package's modules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import StateCodec, check_players, check_shape, check_turn, resolve_options

from . import contract, rules
from .components import DATA_NOTES, PLAYER_COUNTS
from .heuristic import heuristic
from .schemas import ACTIONS, OPTIONS
from .scoring import result
from .setup import setup as new_state
from .state import State
from .view import determinize, view


class China(StateCodec):
    """China (Michael Schacht) on the Border Disputes board, 3-5 players (RULES.md)."""

    id = "china"
    state_class = State
    title = "China"
    min_players = min(PLAYER_COUNTS)
    max_players = max(PLAYER_COUNTS)
    rules_file = str(Path(__file__).with_name("RULES.md"))
    search_options: ClassVar[dict[str, Any]] = {}
    data_notes = DATA_NOTES  # reconstructed component data (RULES.md), published by the API
    view_schema: ClassVar[dict[str, Any]] = contract.VIEW
    result_schema: ClassVar[dict[str, Any]] = contract.RESULT
    event_schemas: ClassVar[dict[str, dict[str, Any]]] = contract.EVENTS
    masked_actions: ClassVar[dict[str, dict[str, Any]]] = contract.MASKED_ACTIONS
    options = OPTIONS
    actions = ACTIONS

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
        check_players(self, players)
        return new_state(players, resolve_options(self.options, options), seed)

    def to_move(self, state: State) -> int | None:
        return rules.to_move(state)

    def legal_actions(self, state: State) -> list[dict[str, Any]]:
        return rules.legal_actions(state)

    def apply(self, state: State, action: dict[str, Any], seat: int | None = None) -> list[dict[str, Any]]:
        mover = check_turn(self.to_move(state), seat)
        return rules.apply(state, action, check_shape(self.actions, action), mover)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def result(self, state: State) -> dict[str, Any] | None:
        return result(state)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)
