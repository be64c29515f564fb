"""The Taj Mahal game object: the engine contract (engine/core.py) wired to the rules modules."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import Action, Event, Result, StateCodec, check_players, resolve_options
from engine.games.taj_mahal import contract, rules, scoring, view
from engine.games.taj_mahal.components import DATA_NOTES, STANDARD
from engine.games.taj_mahal.heuristic import heuristic
from engine.games.taj_mahal.schemas import ACTIONS, OPTIONS
from engine.games.taj_mahal.setup import setup as new_state
from engine.games.taj_mahal.state import State


class TajMahal(StateCodec):
    id = "taj_mahal"
    state_class = State
    title = "Taj Mahal"
    min_players = min(STANDARD.player_counts)
    max_players = max(STANDARD.player_counts)
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
        resolve_options(self.options, options)
        return new_state(STANDARD, players, seed)

    def to_move(self, state: State) -> int | None:
        return rules.to_move(state)

    def legal_actions(self, state: State) -> list[Action]:
        return rules.legal_actions(state)

    def apply(self, state: State, action: Action, seat: int | None = None) -> list[Event]:
        return rules.apply(state, action, seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def result(self, state: State) -> Result | None:
        return scoring.result(state)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return view.determinize(state, seat, rng)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)
