"""A one-ply greedy bot for every game: the rules engine run locally on worlds sampled from the seat's
view.

    tabletop bot run examples.greedy_bot:GreedyBot --url http://127.0.0.1:8000 --token tp.…

A client sees only its seat's view, never the hidden part of the state (other hands, the deck order),
so it cannot apply an action to "the" state.  The engine rebuilds a full state consistent with the
view, the hidden part sampled (``game.sample_from_view``: the same determinization the server's own
bots search on, from the view instead of the state).  The bot samples a few such worlds, applies each
legal action to each, and plays the action whose results score best on average by the game's
heuristic (``game.heuristic``: what the built-in ``easy`` level maximizes).  Needs the engine, which
the ``tabletop`` package installs; the runner and the client do not.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import IllegalAction
from engine.registry import get_game


class GreedyBot:
    """One-ply lookahead averaged over ``samples`` sampled worlds (ties broken at random)."""

    def __init__(self, samples: int = 4, seed: int | None = None) -> None:
        self.samples = samples
        self.rng = random.Random(seed)

    def decide(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        if len(legal_actions) == 1:
            return legal_actions[0]
        game = get_game(view["game"])
        seat = view["to_move"]
        worlds = [game.sample_from_view(view, seat, self.rng) for _ in range(self.samples)]
        scores: list[float] = []
        for action in legal_actions:
            values = []
            for world in worlds:
                child = game.clone(world)
                try:
                    game.apply(child, action)
                except IllegalAction:  # not legal in this sampled world: it tells nothing
                    continue
                values.append(game.heuristic(child, seat))
            scores.append(sum(values) / len(values) if values else float("-inf"))
        best = max(scores)
        return self.rng.choice([a for a, s in zip(legal_actions, scores, strict=True) if s == best])


# One name per game, as `tabletop bot run` names a policy: the same bot plays each.
ChinaGreedy = ConfuciusGreedy = TajMahalGreedy = YearOfDragonGreedy = GreedyBot
