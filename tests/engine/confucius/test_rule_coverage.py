"""Every numbered rule of RULES.md is cited by a test that checks it, or listed here with the reason
it describes no behaviour a test could check."""

from __future__ import annotations

from pathlib import Path

from engine.games.confucius import GAME
from tests.engine.support import uncited_rules

UNTESTABLE = {
    "R63": "heading that introduces the four obligations, each a numbered rule with its own tests",
    "R123": "a note on which ministry a worked example names; no rule depends on it",
    "R124": "a note on a garbled seed sentence; the invasion deadlines it settles are rules with own tests",
}


def test_every_rule_is_cited_by_a_test_or_listed_as_untestable():
    assert uncited_rules(GAME, Path(__file__).parent, UNTESTABLE) == []
