"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

Each iteration samples a world with ``game.determinize(state, me, rng)``: the bot's own information set
with every hidden thing (other hands, deck order, the state's RNG) resampled.  The tree is keyed by the
sequence of actions from the root, so statistics from different worlds share nodes; a child's
*availability* counts the iterations in which its action was legal, and UCB uses it in place of the
parent's visit count because opponents' options differ between worlds.

Rewards are vectors (one entry per seat); each node is credited with the reward of the seat that chose
its action, so every seat maximises its own outcome (the "paranoid-free" max^n view).  Rollouts play the
random policy up to a depth cap and then score the position with ``game.heuristic``.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from engine.core import Action, Game


def action_key(action: Action) -> tuple[tuple[str, Any], ...]:
    """Hashable identity of an action (fields are ints and strings only)."""
    return tuple(sorted(action.items()))


class _Node:
    __slots__ = ("action", "avail", "children", "reward", "visits")

    def __init__(self, action: Action | None) -> None:
        self.action = action
        self.children: dict[tuple[tuple[str, Any], ...], _Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0


@dataclass(frozen=True)
class SearchConfig:
    """Knobs of one search. ``iterations`` makes a search reproducible; ``time_ms`` bounds it in time.

    When both are given the search stops at whichever comes first.
    """

    iterations: int | None = None
    time_ms: float | None = None
    exploration: float = 0.7
    rollout_depth: int = 40


def rank_rewards(values: list[float]) -> list[float]:
    """Map per-seat values to rewards in [0, 1] by rank: best 1, worst 0, ties share the mean."""
    n = len(values)
    if n == 1:
        return [1.0]
    order = sorted(range(n), key=lambda s: values[s], reverse=True)
    rewards = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and values[order[j + 1]] == values[order[i]]:
            j += 1
        share = sum((n - 1 - k) / (n - 1) for k in range(i, j + 1)) / (j - i + 1)
        for k in range(i, j + 1):
            rewards[order[k]] = share
        i = j + 1
    return rewards


def evaluate(game: Game, state: Any, players: int) -> list[float]:
    """Reward vector of a (possibly unfinished) world: the final ranking, else heuristic ranks."""
    result = game.result(state)
    if result is not None:
        ranking = result["ranking"]
        return [1.0 - ranking.index(s) / max(1, players - 1) for s in range(players)]
    return rank_rewards([game.heuristic(state, s) for s in range(players)])


def search(game: Game, state: Any, rng: random.Random, config: SearchConfig) -> tuple[Action, dict[str, Any]]:
    """Best action for the seat to move in ``state`` and search statistics.

    ``state`` is only ever read through ``determinize`` for the searching seat, so the choice cannot
    depend on information that seat does not have.
    """
    me = game.to_move(state)
    if me is None:
        raise ValueError("search called on a finished game")
    root_legal = game.legal_actions(state)
    if len(root_legal) == 1:
        return root_legal[0], {"iterations": 0, "forced": True}
    players = len(game.view(state, me)["players"])
    if config.iterations is None and config.time_ms is None:
        raise ValueError("a search needs an iteration or a time budget")
    deadline = None if config.time_ms is None else time.perf_counter() + config.time_ms / 1000.0
    root = _Node(None)
    c = config.exploration
    done = 0
    while True:
        if config.iterations is not None and done >= config.iterations:
            break
        if deadline is not None and done and time.perf_counter() >= deadline:
            break
        world = game.determinize(state, me, rng)
        node = root
        path: list[tuple[_Node, int]] = []
        # Selection and expansion.
        while True:
            seat = game.to_move(world)
            if seat is None:
                break
            legal = game.legal_actions(world)
            children = node.children
            unexplored = []
            for action in legal:
                key = action_key(action)
                child = children.get(key)
                if child is None:
                    unexplored.append((key, action))
                else:
                    child.avail += 1
            if unexplored:
                key, action = unexplored[rng.randrange(len(unexplored))]
                child = _Node(action)
                child.avail = 1
                children[key] = child
                game.apply(world, action)
                path.append((child, seat))
                break
            best = None
            best_score = -math.inf
            for action in legal:
                child = children[action_key(action)]
                score = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best, best_score = child, score
            assert best is not None and best.action is not None
            game.apply(world, best.action)
            path.append((best, seat))
            node = best
        # Rollout.
        for _ in range(config.rollout_depth):
            if game.to_move(world) is None:
                break
            moves = game.legal_actions(world)
            game.apply(world, moves[rng.randrange(len(moves))])
        rewards = evaluate(game, world, players)
        for child, seat in path:
            child.visits += 1
            child.reward += rewards[seat]
        done += 1
    legal_keys = {action_key(a) for a in root_legal}
    candidates = [ch for k, ch in root.children.items() if k in legal_keys]
    if not candidates:
        return rng.choice(root_legal), {"iterations": done, "forced": False}
    best = max(candidates, key=lambda ch: (ch.visits, ch.reward))
    assert best.action is not None
    return best.action, {
        "iterations": done,
        "forced": False,
        "visits": best.visits,
        "value": best.reward / max(1, best.visits),
    }
