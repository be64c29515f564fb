"""Every numbered rule of RULES.md is checked by some test that cites it, or is listed here as untestable
with the reason."""

from __future__ import annotations

from pathlib import Path

from engine.games.year_of_dragon import GAME
from tests.engine.support import uncited_rules

#: Rule id -> why it describes no behaviour a test could check.  None today: even the notes on the seeds'
#: translation errors are cited by the examples that exercise their resolutions.
UNTESTABLE: dict[str, str] = {}


def test_every_rule_is_cited_by_a_test():
    assert uncited_rules(GAME, Path(__file__).parent, UNTESTABLE) == []
