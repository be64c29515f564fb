"""The shared contract suite for China, plus China's own secrets (R61): no other seat's hand, no draw
pile content or order, no RNG state in any view."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from engine.games.china.components import COLOURS
from tests.engine.contract import ContractSuite


class TestContract(ContractSuite):
    game_id = "china"
    player_counts: ClassVar[list[int]] = [3, 4, 5]  # R2
    option_sets: ClassVar[list[dict[str, Any]]] = [{}, {"fortifications": True}, {"start_player": 2}]

    def check_view_secrets(self, game: Any, state: Any, seat: int | None, view: dict[str, Any]) -> None:
        """R61: only the seat's own hand; of the draw pile only its size; never the RNG."""
        for entry in view["players"]:
            if entry["seat"] == seat:
                assert len(entry["hand"]) == entry["hand_size"]
                assert set(entry["hand"]) <= set(COLOURS)
            else:
                assert "hand" not in entry, f"seat {entry['seat']}'s hand leaks to {seat}"
            assert set(entry["seen_cards"]) <= set(COLOURS)
        text = json.dumps(view)
        assert "deck" not in text.replace("deck_size", ""), "the draw pile's content leaks"
        assert "rng" not in text and "seed" not in text
        assert str(state.rng.s) not in text
