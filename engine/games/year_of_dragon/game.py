"""The ``Game`` object of In the Year of the Dragon: the contract of engine/core.py over this package."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from engine.core import Action, Event, check_players, pack, unpack

from . import rules, scoring, view
from .components import PLAYER_COUNTS
from .heuristic import heuristic
from .schemas import ACTIONS, OPTIONS
from .setup import new_state
from .state import OVER, State

ENCODING_VERSION = 1


class YearOfDragon:
    id = "year_of_dragon"
    title = "In the Year of the Dragon"
    min_players = min(PLAYER_COUNTS)
    max_players = max(PLAYER_COUNTS)
    options = OPTIONS
    actions = ACTIONS
    rules_file = str(Path(__file__).with_name("RULES.md"))

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
        check_players(self, players)
        return new_state(players, options, seed)

    to_move = staticmethod(rules.to_move)
    legal_actions = staticmethod(rules.legal_actions)

    def apply(self, state: State, action: Action, seat: int | None = None) -> list[Event]:
        return rules.apply(state, action, seat)

    def clone(self, state: State) -> State:
        return state.clone()

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return view.view(state, seat)

    def result(self, state: State) -> dict[str, Any] | None:
        return scoring.result(state) if state.phase == OVER else None

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return view.determinize(state, seat, rng)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)

    def encode(self, state: State) -> bytes:
        return pack(self.id, ENCODING_VERSION, state.to_json())

    def decode(self, data: bytes) -> State:
        _, payload = unpack(self.id, {ENCODING_VERSION}, data)
        return State.from_json(payload)
