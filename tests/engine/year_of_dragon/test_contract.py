"""The shared contract suite (tests/engine/contract.py) over In the Year of the Dragon, with the game's own
secrets: hands (R58a), hidden played cards (R58a) and the RNG (R58b)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from tests.engine.contract import ContractSuite


class TestContract(ContractSuite):
    game_id = "year_of_dragon"
    player_counts: ClassVar[list[int]] = [2, 3, 4, 5]
    option_sets: ClassVar[list[dict[str, Any]]] = [
        {},
        {"reveal_played_card": False},
        {"large_privilege_cost": 7, "first_player": 1},
    ]

    def check_view_secrets(self, game: Any, state: Any, seat: int | None, view: dict[str, Any]) -> None:
        """R58: no other seat's hand, no hidden played card, no RNG state anywhere in the view."""
        for player in view["players"]:
            if player["seat"] != seat:
                assert "hand" not in player, f"seat {seat} sees seat {player['seat']}'s hand"
                if not view["options"]["reveal_played_card"]:
                    assert "played" not in player, f"seat {seat} sees seat {player['seat']}'s played cards"
        text = json.dumps(view)
        assert str(state.rng.s) not in text, "the RNG state leaks into the view"
        assert "rng" not in text and "seed" not in text
