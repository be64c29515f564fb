"""Every numbered rule of RULES.md is cited by a test that checks it, or listed here with the reason
it describes no behaviour the engine could get wrong."""

from __future__ import annotations

from pathlib import Path

from engine.games.taj_mahal import GAME
from tests.engine.support import numbered_rules, uncited_rules

UNTESTABLE = {
    "R6": "box inventory: a spare ring stays in the box; the one crown in play is tested under R33, R35, R54",
    "R9": "symbol colours are printing only; the engine and its views name symbols and never colour them",
}


def test_every_rule_is_cited_by_a_test():
    """Each R/X rule is cited by at least one test module of this folder, or is listed as untestable."""
    assert uncited_rules(GAME, Path(__file__).parent, UNTESTABLE) == []


def test_untestable_rules_exist():
    """The untestable list names real rules, so a renumbered RULES.md cannot hide one."""
    assert set(UNTESTABLE) <= set(numbered_rules(GAME.rules_file))
