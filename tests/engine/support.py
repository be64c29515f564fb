"""Test helpers shared by every game's tests: refusal checks and the greedy-versus-random tournament."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from engine.ai.simple import greedy_action, random_action
from engine.core import Game, IllegalAction


def assert_refused(game: Game, state: Any, action: Any, rule: str, seat: int | None = None) -> IllegalAction:
    """Assert ``action`` is refused naming ``rule`` and leaves ``state`` unchanged (byte for byte)."""
    before = game.encode(state)
    with pytest.raises(IllegalAction) as info:
        game.apply(state, action, seat)
    assert info.value.rule == rule, info.value
    assert game.encode(state) == before, "a refused action changed the state"
    return info.value


def greedy_wins(game: Game, players: int, games: int) -> int:
    """How many of ``games`` seeded games the greedy bot wins (ranking[0]) against random bots.

    Game ``g`` uses seed ``g`` and puts greedy in seat ``g % players``, so every seat is tried.
    """
    wins = 0
    for g in range(games):
        state = game.setup(players, None, seed=g)
        rng = random.Random(g)
        greedy = g % players
        while (seat := game.to_move(state)) is not None:
            bot = greedy_action if seat == greedy else random_action
            game.apply(state, bot(game, state, rng))
        wins += game.result(state)["ranking"][0] == greedy
    return wins


_RULE_HEADING = re.compile(r"^\*\*((?:R|X)\d+[a-z]?)\b", re.MULTILINE)
_CITATION = re.compile(r"\b((?:R|X)\d+[a-z]?)\b")


def numbered_rules(rules_file: str) -> list[str]:
    """The rule ids RULES.md defines (each rule starts a line with ``**R12`` or ``**X3``)."""
    return list(dict.fromkeys(_RULE_HEADING.findall(Path(rules_file).read_text(encoding="utf-8"))))


def cited_rules(test_dir: Path) -> set[str]:
    """Every rule id cited anywhere in the test modules of ``test_dir`` (docstrings, comments)."""
    cited: set[str] = set()
    for path in test_dir.glob("*.py"):
        cited.update(_CITATION.findall(path.read_text(encoding="utf-8")))
    return cited


def uncited_rules(game: Game, test_dir: Path, untestable: dict[str, str]) -> list[str]:
    """Rules of ``game`` that no test cites and that are not listed (with a reason) as untestable."""
    for rule, reason in untestable.items():
        assert reason.strip(), f"{rule}: say why it cannot be tested"
    cited = cited_rules(test_dir)
    return [r for r in numbered_rules(game.rules_file) if r not in cited and r not in untestable]
