"""A random bot: any legal action, for every game.  The smallest policy the bot runner plays.

    tabletop bot run examples.random_bot:RandomBot --url http://127.0.0.1:8000 --token tp.…

It needs nothing but the view's legal actions, so it runs wherever the client does (no engine).
"""

from __future__ import annotations

import random
from typing import Any


class RandomBot:
    """Picks uniformly among the legal actions (``seed`` makes its picks repeatable)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        return self.rng.choice(legal_actions)


# One name per game, as `tabletop bot run` names a policy: the same bot plays each.
ChinaRandom = ConfuciusRandom = TajMahalRandom = YearOfDragonRandom = RandomBot
