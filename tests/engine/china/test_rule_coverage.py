"""Every numbered rule of RULES.md is cited by a test that checks it, or listed here with the reason
it describes no behaviour the engine could get wrong.  (The reasons name no rule ids: this module is
scanned for citations too, and a reason must not count as a test.)"""

from __future__ import annotations

from pathlib import Path

from engine.games.china import GAME
from tests.engine.support import numbered_rules, uncited_rules

UNTESTABLE = {
    "R1": "scope summary: each feature it lists (ports, borders, province, port, alliance and chain "
    "scoring) has a numbered rule of its own, tested there",
    "R3": "glossary of the seed's Hungarian terms; no behaviour",
    "R10a": "research log of the board search; the board facts it keeps are tested with the board rules",
    "R51": "unreachable: every action that can empty the pile follows a discard in the same turn "
    "(a place or swap discards first, a refill follows the turn's own discards), so the discard pile "
    "is never empty at the first exhaustion, and the scenario builder cannot express such a position",
}


def test_every_rule_is_cited_by_a_test():
    """Each R rule is cited by at least one test module of this folder, or is listed as untestable."""
    assert uncited_rules(GAME, Path(__file__).parent, UNTESTABLE) == []


def test_untestable_rules_exist():
    """The untestable list names real rules, so a renumbered RULES.md cannot hide one."""
    assert set(UNTESTABLE) <= set(numbered_rules(GAME.rules_file))
