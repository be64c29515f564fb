"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley & Whitehouse 2012).

Each iteration samples a world with ``game.determinize(state, me, rng)``: the bot's own information set
with every hidden thing (other hands, deck order, the state's RNG) resampled.  The tree is keyed by the
sequence of actions from the root, so statistics from different worlds share nodes; a child's
*availability* counts the iterations in which its action was legal, and UCB uses it in place of the
parent's visit count because opponents' options differ between worlds.

Rewards are vectors (one entry per seat); each node is credited with the reward of the seat that chose
its action, so every seat maximises its own outcome (the "paranoid-free" max^n view).

Rollouts play a cheap greedy policy (the best of a few sampled moves by ``game.heuristic``) up to a
depth cap, then score each seat by its heuristic lead over the best other seat.  Tuning with
``bench/strength.py`` (3 players, hard vs easy vs random, 300 iterations) showed why: 40 random moves
ruined Confucius, where random play collapses (the search won 1 game in 12 against greedy); no rollout
at all lost Taj Mahal's bidding and China's majorities (about 58%); ranks instead of margins cannot
tell a safe lead from a narrow one.  Depth 10 with the best of 3 sampled moves won 83-100% everywhere.

A game may also ask for progressive widening at the root (``Game.search_options``; progressive
unpruning, Chaslot et al. 2008): the root's actions enter the search in the order of their one-ply
heuristic value, more of them as the iterations grow.  Confucius needs it: with about 40 actions a turn,
a search spread over all of them compared each on a handful of noisy samples, and 4 times the budget
played no better (hard finished ahead of normal in 22 of 48 games); widened, in 34 of 48.
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

    When both are given the search stops at whichever comes first.  The defaults were tuned with
    ``bench/strength.py`` over the four games (3 players; see the module docstring).
    """

    iterations: int | None = None
    time_ms: float | None = None
    exploration: float = 0.7
    #: Rollout moves after the tree before the world is scored: the cap on how far noise can drift it.
    rollout_depth: int = 10
    #: A rollout move is the best by ``heuristic`` of this many legal actions sampled at random.
    rollout_sample: int = 3
    #: Temperature (in heuristic units, roughly victory points) of the leader-margin reward.
    margin_scale: float = 5.0
    #: Progressive widening at the root (None: off).  The root's actions are ordered by their one-ply
    #: ``heuristic`` value, and after ``n`` iterations only the first ``ceil(root_widening * sqrt(n))``
    #: are searched, so a bigger budget both looks at more moves and compares them on more samples.
    root_widening: float | None = None


def margin_rewards(values: list[float], scale: float) -> list[float]:
    """Per seat, the logistic of its lead over the best other seat: 0.5 level, near 1 far ahead.

    Unlike ranks, margins tell a comfortable lead from a narrow one, so the search keeps preferring the
    better move when every line leaves the bot first (or last).
    """
    if len(values) == 1:
        return [1.0]
    out = []
    for s, v in enumerate(values):
        lead = v - max(w for o, w in enumerate(values) if o != s)
        out.append(1.0 / (1.0 + math.exp(max(-50.0, min(50.0, -lead / scale)))))
    return out


def evaluate(game: Game, state: Any, players: int, margin_scale: float) -> list[float]:
    """Reward vector of a world: by the final ranking once over (1 first, 0 last), else by the
    heuristic margins."""
    result = game.result(state)
    if result is not None:
        ranking = result["ranking"]
        return [1.0 - ranking.index(s) / max(1, players - 1) for s in range(players)]
    return margin_rewards([game.heuristic(state, s) for s in range(players)], margin_scale)


def best_of(game: Game, world: Any, seat: int, moves: list[Action]) -> Any:
    """The rollout policy: the successor of ``world`` best for ``seat`` among those ``moves`` lead to.

    Sampling a few moves keeps a rollout far cheaper than full greedy play while avoiding the blunders
    that make purely random rollouts worthless in games where random play collapses (Confucius).
    """
    best, best_value = None, -math.inf
    for action in moves:
        child = game.clone(world)
        game.apply(child, action)
        value = game.heuristic(child, seat)
        if value > best_value:
            best, best_value = child, value
    return best


def root_order(
    game: Game, state: Any, me: int, actions: list[Action], rng: random.Random
) -> dict[tuple[tuple[str, Any], ...], int]:
    """Rank (0 = best) of each root action by the mover's one-ply heuristic in one determinized world:
    the order in which progressive widening lets the actions into the search."""
    world = game.determinize(state, me, rng)
    values = []
    for action in actions:
        child = game.clone(world)
        game.apply(child, action)
        values.append(game.heuristic(child, me))
    order = sorted(range(len(actions)), key=lambda i: -values[i])
    return {action_key(actions[i]): r for r, i in enumerate(order)}


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
    rank = None if config.root_widening is None else root_order(game, state, me, root_legal, rng)
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
            keyed = [(action_key(a), a) for a in game.legal_actions(world)]
            if node is root and rank is not None:
                width = math.ceil(config.root_widening * math.sqrt(done + 1))
                keyed = [(k, a) for k, a in keyed if rank.get(k, width) < width]
            children = node.children
            unexplored = []
            for key, action in keyed:
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
            for key, _ in keyed:
                child = children[key]
                score = child.reward / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                if score > best_score:
                    best, best_score = child, score
            assert best is not None and best.action is not None
            game.apply(world, best.action)
            path.append((best, seat))
            node = best
        # Rollout.
        for _ in range(config.rollout_depth):
            mover = game.to_move(world)
            if mover is None:
                break
            moves = game.legal_actions(world)
            if len(moves) == 1:
                game.apply(world, moves[0])
            else:
                world = best_of(game, world, mover, rng.sample(moves, min(config.rollout_sample, len(moves))))
        rewards = evaluate(game, world, players, config.margin_scale)
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
