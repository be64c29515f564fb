"""The shared contract suite (tests/engine/contract.py) run on Taj Mahal, plus its own secrets (R64)."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from tests.engine.contract import ContractSuite


class TestContract(ContractSuite):
    game_id = "taj_mahal"
    player_counts: ClassVar[list[int]] = [3, 4, 5]  # R10-R18

    def check_view_secrets(self, game: Any, state: Any, seat: int | None, view: dict[str, Any]) -> None:
        """R64: no other seat's secret hand cards, no deck card, no RNG state in any view."""
        comp = state.comp
        text = json.dumps(view)
        assert str(state.rng.s) not in text
        assert view["deck_size"] == len(state.deck)
        hidden = [comp.card_ids[c] for c in state.deck]
        for i, p in enumerate(state.players):
            entry = view["players"][i]
            if i == seat:
                assert sorted(c["id"] for c in entry["hand"]) == sorted(comp.card_ids[c] for c in p.hand)
                continue
            assert "hand" not in entry
            hidden += [comp.card_ids[c] for c in p.hand if c not in p.known]
        for cid in hidden:
            assert f'"{cid}"' not in text, f"seat {seat} sees the hidden card {cid}"
