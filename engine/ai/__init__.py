"""Bots that play any game through the :class:`engine.core.Game` contract alone.

This module is the one home of the bot levels: the API validates seats against :data:`LEVELS` and the
workers budget their thinking with :data:`DEFAULT_THINK_MS`.  ``random``; ``easy`` = greedy one-ply on
the game's heuristic; ``normal`` and ``hard`` = ISMCTS with a think budget of about 0.5 s and 2 s.
:func:`decide_blind` is how a bot is handed a state, by the workers and by the research baselines
(:mod:`research.baselines`) alike.
"""

from __future__ import annotations

import random
from typing import Any

from engine.ai.ismcts import SearchConfig, search
from engine.ai.simple import greedy_action, random_action
from engine.core import Action, Game

LEVELS: tuple[str, ...] = ("random", "easy", "normal", "hard")
#: The levels that search, and so take a think budget.
SEARCH_LEVELS: tuple[str, ...] = ("normal", "hard")
#: Default think budget per decision, in milliseconds (ignored by the levels that do not search).
DEFAULT_THINK_MS: dict[str, int] = {"random": 0, "easy": 0, "normal": 500, "hard": 2000}


def decide(
    game: Game,
    state: Any,
    level: str,
    rng: random.Random,
    think_ms: float | None = None,
    iterations: int | None = None,
) -> tuple[Action, dict[str, Any]]:
    """The action a bot of ``level`` plays for the seat to move, and the search statistics.

    ``iterations`` (search levels only) replaces the time budget, which makes the choice reproducible
    for a given ``rng`` seed whatever the machine's speed.
    """
    if level == "random":
        return random_action(game, state, rng), {}
    if level == "easy":
        return greedy_action(game, state, rng), {}
    if level in SEARCH_LEVELS:
        budget = DEFAULT_THINK_MS[level] if think_ms is None else think_ms
        config = SearchConfig(
            iterations=iterations, time_ms=None if iterations else budget, **game.search_options
        )
        return search(game, state, rng, config)
    raise ValueError(f"unknown bot level {level!r}; known: {', '.join(LEVELS)}")


def choose_action(
    game: Game,
    state: Any,
    level: str,
    rng: random.Random,
    think_ms: float | None = None,
    iterations: int | None = None,
) -> Action:
    """:func:`decide` without the statistics."""
    return decide(game, state, level, rng, think_ms, iterations)[0]


def decide_blind(
    game: Game,
    state: Any,
    seat: int,
    level: str,
    rng: random.Random,
    think_ms: float | None = None,
    iterations: int | None = None,
) -> Action:
    """The move a bot of ``level`` makes for ``seat``, computed on a world sampled from what ``seat``
    knows (``game.determinize``), never on ``state`` itself: whatever the bot does, it cannot read
    another seat's hand or the deck order.

    The one place a bot is handed a state: a worker's bot turn, hint and timeout, and an offline baseline
    (:mod:`research.baselines`), so a baseline plays as the server's bot does.  The worker seeds ``rng``
    from the operating system; a baseline seeds it to be reproducible.
    """
    world = game.determinize(state, seat, rng)
    return choose_action(game, world, level, rng, think_ms, iterations)
