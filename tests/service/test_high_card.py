"""The High Card fixture passes the engine's shared contract suite, so the service tests run against a
real game, not a stub."""

from typing import Any, ClassVar

from tests.engine.contract import ContractSuite
from tests.service.high_card import GAME


class TestHighCardContract(ContractSuite):
    game_id = "high_card"
    player_counts: ClassVar[list[int]] = [2, 3, 4]
    option_sets: ClassVar[list[dict[str, Any]]] = [{}, {"rounds": 1}, {"swaps": False, "rounds": 4}]
    examples = 6
    # A fixture outside the registry: its view leaves out the swap option and the tie-break record
    # (R1, R6), so no state can be rebuilt from a view; the suite checks it says so.
    rebuilds_from_view = False

    @property
    def game(self) -> Any:
        return GAME

    def check_view_secrets(self, game: Any, state: Any, seat: int | None, view: dict[str, Any]) -> None:
        for entry in view["players"]:
            if entry["seat"] != seat:
                assert "hand" not in entry and "played" not in entry and "discarded" not in entry
        assert "deck" not in view
