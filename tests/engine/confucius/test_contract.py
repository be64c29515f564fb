"""The shared contract suite (tests/engine/contract.py) over Confucius in both game modes, with the
game's own secrets (R114, R115, R116): Confucius and reward cards in hand, face-down tutoring cards, cards set
aside at the End of Round discard, deck and stack orders, and the RNG."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from tests.engine.contract import ContractSuite

PRIVATE = ("hand", "rewards", "set_aside_cards")


class TestContract(ContractSuite):
    game_id = "confucius"
    player_counts: ClassVar[list[int]] = [3, 4, 5]
    option_sets: ClassVar[list[dict[str, Any]]] = [
        {},
        {"advanced": True},
        {"advanced": True, "admiral_variant": True},
    ]

    def check_view_secrets(self, game: Any, state: Any, seat: int | None, view: dict[str, Any]) -> None:
        """Rule R114: hands and reward cards only to their owner; R116: others' tutoring cards only as a
        count; R115: no deck, stack or candidate order, no RNG."""
        for player in view["players"]:
            if player["seat"] != seat:
                for key in PRIVATE:
                    assert key not in player, f"seat {seat} sees seat {player['seat']}'s {key}"
                if player["tutoring"] is not None:
                    assert set(player["tutoring"]) == {"student", "cards"}, "face-down tutoring cards leak"
            else:
                assert all(key in player for key in PRIVATE), "a seat must see its own cards"
        for key in ("deck", "official_stack", "reward_stack"):
            assert isinstance(view[key], int), f"{key} must be a count, not an order"
        assert set(view["candidate_stack"]) == {"count", "ministries", "any"}
        text = json.dumps(view)
        assert str(state.rng.s) not in text, "the RNG state leaks into the view"
        assert "rng" not in text and "seed" not in text

    def flow_may_reveal(self, game: Any, before: Any, action: dict[str, Any], events: list[Any]) -> bool:
        """Two documented cases where the move itself shows everybody what decided the next step:
        - Rule R37: a payment is auto-played only when it is the single option, i.e. the whole hand, and
          the payment event shows those cards;
        - Rule R87: the move that completes the tutoring reveals every face-down card (``exam_decided``
          lists them), and the revealed totals decide who places the candidate next."""
        return any(
            ev["visible_to"] == "all"
            and (ev["type"] == "exam_decided" or (ev["type"] == "action" and ev["action"]["type"] == "pay"))
            for ev in events
        )
