"""Research adapters' speed against the engine they wrap and against OpenSpiel's own Python game.

    python -m bench.research [--game G] [--seconds S] [--players N]

One process pinned to one CPU; for each game, the loops below run *interleaved* in short slices (so a
slower or busier moment of the machine weighs on all of them alike), each playing uniformly random
games from start to end, a new game as soon as one ends.  Time is this process's CPU time
(``time.process_time``), so other work on a shared machine slows the rates less; the ratios are the
figures to compare.


* ``engine``: ``game.legal_actions`` + ``game.apply`` on the engine directly (decisions/s);
* ``adapter``: the pyspiel adapter's ``legal_actions`` + ``apply_action`` (steps/s);
* ``adapter+obs``: the same, reading ``observation_tensor`` of the seat to move every step (the hashed
  tensor, a list);
* ``adapter+features``: the same, reading the seat to move's documented feature vector every step
  through OpenSpiel's observation API (``make_observation(game, type, {"observation": "features"})``,
  ``set_from``, ``.tensor``), as a learner does: written from the state by the game's writer
  (:meth:`research.features.spec.FeatureSpec.encode_state`);
* ``adapter+tensor``: the same vector read as ``observation_tensor`` of the seat to move, from a game
  loaded with ``observation=features`` (the route of OpenSpiel's algorithms and ``rl_environment``):
  a Python list, as pyspiel's own, so it also pays a float object per value;
* ``liars_poker``: OpenSpiel's ``python_liars_poker`` (a pure-Python game shipped with OpenSpiel) in
  the same loop as ``adapter``, the yardstick for "as fast as a Python OpenSpiel game".  Its rate is
  per decision, like ours (our games have no chance nodes); it also deals cards at chance nodes, about
  2.6 deals per decision, so counted per step (``liars_poker_steps``, deals included) it runs about
  3.6 times as many steps.  The targets use the rate per decision; the ratios to the rate per step,
  the stricter reading, are printed beside them;
* ``pettingzoo``: the PettingZoo AEC env, ``last()`` (which builds the observation and mask) then
  ``step`` with a random legal id;
* ``null_game``: a Python OpenSpiel game that does nothing (:class:`NullGame`: five legal actions, a
  counter, answers from Python as our states give them) in the same loop, and ``bare_loop``, the loop
  alone (a random pick from five ids, no game): their difference is what pyspiel costs any Python
  game a step.  An adapter doing no work of its own would run at the engine's rate with that cost
  added to each decision: ``1 / (1 / engine + 1 / null_game - 1 / bare_loop)``, printed as the
  ``adapter ceiling``; against Liars' Poker's steps it shows whether the stricter reading can be met
  over this engine at all.

Printed: the rates, and the ratios against the targets of issue 46 (``adapter >= 0.5x engine``,
``adapter+features >= 0.2x engine``, ``adapter >= 1x liars_poker``, ``engine >= 1x liars_poker``), and
with no target the same two against Liars' Poker's steps, and ``adapter+obs / engine``: the hashed
tensor is the form that needs no game knowledge, and it costs the seat's whole view as JSON, hashed,
every step.  Ratios are the figures to compare across machines; the rates only hold for this one.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.games import liars_poker  # noqa: F401  # registers python_liars_poker
from open_spiel.python.observation import make_observation

from engine.registry import GAMES, get_game
from research.openspiel_game import load
from research.pettingzoo_env import env as pettingzoo_env

#: (name, numerator, denominator, target ratio or None) printed per game.
TARGETS: tuple[tuple[str, str, str, float | None], ...] = (
    ("adapter / engine", "adapter", "engine", 0.5),
    ("adapter+features / engine", "adapter+features", "engine", 0.2),
    ("adapter+tensor / engine", "adapter+tensor", "engine", None),
    ("adapter+obs / engine", "adapter+obs", "engine", None),
    ("adapter / liars_poker", "adapter", "liars_poker", 1.0),
    ("engine / liars_poker", "engine", "liars_poker", 1.0),
    ("adapter / liars_poker steps", "adapter", "liars_poker_steps", None),
    ("engine / liars_poker steps", "engine", "liars_poker_steps", None),
    ("adapter ceiling / liars_poker steps", "adapter ceiling", "liars_poker_steps", None),
)
LOOPS = (
    "engine",
    "adapter",
    "adapter+obs",
    "adapter+features",
    "adapter+tensor",
    "liars_poker",
    "pettingzoo",
    "null_game",
    "bare_loop",
)
#: Steps between two looks at the clock (a look per step would weigh on the fastest loop most).
_CHUNK = 16


class NullGame(pyspiel.Game):
    """A Python OpenSpiel game that does nothing: the per-step floor of the loop (see the module)."""

    LENGTH = 100  # steps a game, about what our games last

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__(_NULL_TYPE, _NULL_INFO, params or {})

    def new_initial_state(self) -> NullState:
        return NullState(self)


class NullState(pyspiel.State):
    """Five legal actions, a counter; ``legal_actions`` and ``is_chance_node`` answered from Python, as
    :class:`research.openspiel_game.TabletopState` answers them."""

    LEGAL = (1, 3, 5, 7, 9)

    def __init__(self, game: NullGame) -> None:
        super().__init__(game)
        self.steps = 0

    def current_player(self) -> int:
        return pyspiel.PlayerId.TERMINAL if self.steps >= NullGame.LENGTH else self.steps % 3

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.LEGAL)

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(self.LEGAL)

    def _apply_action(self, action: int) -> None:
        self.steps += 1

    def is_terminal(self) -> bool:
        return self.steps >= NullGame.LENGTH

    def is_chance_node(self) -> bool:
        return False

    def returns(self) -> list[float]:
        return [0.0, 0.0, 0.0]


_NULL_TYPE = pyspiel.GameType(
    short_name="tabletop_bench_null_game",
    long_name="A game that does nothing (bench.research)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=3,
    min_num_players=3,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=False,
    provides_observation_tensor=False,
    parameter_specification={},
)
_NULL_INFO = pyspiel.GameInfo(
    num_distinct_actions=10,
    max_chance_outcomes=0,
    num_players=3,
    min_utility=-1.0,
    max_utility=1.0,
    utility_sum=0.0,
    max_game_length=NullGame.LENGTH,
)
if _NULL_TYPE.short_name not in pyspiel.registered_names():
    pyspiel.register_game(_NULL_TYPE, NullGame)


# Every loop yields once per decision; the value is the steps since the last yield (the decision, and
# for Liars' Poker the deals before it).


def _engine_steps(game_id: str, players: int, rng: random.Random) -> Iterator[int]:
    game = get_game(game_id)
    while True:
        state = game.setup(players, None, seed=rng.getrandbits(32))
        while game.to_move(state) is not None:
            game.apply(state, rng.choice(game.legal_actions(state)))
            yield 1


def _pyspiel_steps(game: Any, rng: random.Random, observe: bool) -> Iterator[int]:
    while True:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            steps += 1
            if state.is_chance_node():  # liars poker deals at chance nodes; ours has none
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            if observe:
                state.observation_tensor(state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            yield steps
            steps = 0


def _bare_steps(rng: random.Random) -> Iterator[int]:
    legal = NullState.LEGAL
    while True:
        rng.choice(list(legal))
        yield 1


def _observer_steps(game: Any, rng: random.Random) -> Iterator[int]:
    kind = pyspiel.IIGObservationType(perfect_recall=False)
    observer = make_observation(game, kind, {"observation": "features"})
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            observer.set_from(state, state.current_player())
            state.apply_action(rng.choice(state.legal_actions()))
            yield 1


def _pettingzoo_steps(game_id: str, players: int, rng: random.Random) -> Iterator[int]:
    e = pettingzoo_env(game_id, players)
    while True:
        e.reset(seed=rng.getrandbits(32))
        for _ in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            e.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            yield 1


def loops(game_id: str, players: int, seed: int) -> dict[str, Iterator[int]]:
    """The step generators of one game, one per name of :data:`LOOPS` (each yields once per decision)."""
    rng = random.Random(seed)
    adapter = load(game_id, players=players)
    features = load(game_id, players=players, observation="features")
    return {
        "engine": _engine_steps(game_id, players, random.Random(rng.random())),
        "adapter": _pyspiel_steps(adapter, random.Random(rng.random()), observe=False),
        "adapter+obs": _pyspiel_steps(adapter, random.Random(rng.random()), observe=True),
        "adapter+features": _observer_steps(adapter, random.Random(rng.random())),
        "adapter+tensor": _pyspiel_steps(features, random.Random(rng.random()), observe=True),
        "liars_poker": _pyspiel_steps(
            pyspiel.load_game("python_liars_poker"), random.Random(rng.random()), observe=False
        ),
        "pettingzoo": _pettingzoo_steps(game_id, players, random.Random(rng.random())),
        "null_game": _pyspiel_steps(
            pyspiel.load_game(_NULL_TYPE.short_name), random.Random(rng.random()), observe=False
        ),
        "bare_loop": _bare_steps(random.Random(rng.random())),
    }


def _run_slice(loop: Iterator[int], seconds: float, clock: Callable[[], float]) -> tuple[int, int, float]:
    """Run ``loop`` for about ``seconds``: (decisions, steps, elapsed)."""
    t0 = clock()
    end = t0 + seconds
    decisions = steps = 0
    while True:
        for _ in range(_CHUNK):
            steps += next(loop)
        decisions += _CHUNK
        now = clock()
        if now >= end:
            return decisions, steps, now - t0


def measure(game_id: str, players: int, seconds: float, seed: int = 1, rounds: int = 10) -> dict[str, float]:
    """Decisions per second of every loop of ``game_id``, ``seconds`` in all, interleaved over
    ``rounds``, ``liars_poker_steps``: Liars' Poker's steps per second, its deals included, and the
    ``adapter ceiling``: the engine's decisions with pyspiel's cost of a step added to each."""
    gens = loops(game_id, players, seed)
    for g in gens.values():  # warm-up: imports, caches, first deals
        _run_slice(g, 0.01, time.process_time)
    decisions = dict.fromkeys(gens, 0)
    steps = dict.fromkeys(gens, 0)
    spent = dict.fromkeys(gens, 0.0)
    share = seconds / rounds / len(gens)
    for _ in range(rounds):
        for name, g in gens.items():
            d, n, dt = _run_slice(g, share, time.process_time)
            decisions[name] += d
            steps[name] += n
            spent[name] += dt
    rates = {name: decisions[name] / spent[name] for name in gens}
    rates["liars_poker_steps"] = steps["liars_poker"] / spent["liars_poker"]
    pyspiel_step = 1 / rates["null_game"] - 1 / rates["bare_loop"]
    rates["adapter ceiling"] = 1 / (1 / rates["engine"] + pyspiel_step)
    return rates


def report(game_id: str, rates: dict[str, float]) -> list[str]:
    """Lines of the printout for one game: rates, then each target with its ratio and verdict."""
    lines = [f"{game_id}"]
    for name in LOOPS:
        lines.append(
            f"  {name:<14} {rates[name]:>10.0f} steps/s   {rates[name] / rates['engine']:5.2f}x engine"
        )
    for label, num, den, target in TARGETS:
        ratio = rates[num] / rates[den]
        if target is None:
            lines.append(f"  {label:<36} {ratio:6.2f}x  (no target)")
            continue
        verdict = "ok" if ratio >= target else "BELOW"
        lines.append(f"  {label:<36} {ratio:6.2f}x  (target >= {target:.1f}x)  {verdict}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), help="one game (default: all four)")
    parser.add_argument("--seconds", type=float, default=20.0, help="per game, all loops together")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"python={sys.version.split()[0]} players={args.players} seconds/game={args.seconds}")
    for game_id in [args.game] if args.game else sorted(GAMES):
        rates = measure(game_id, args.players, args.seconds, args.seed)
        print("\n".join(report(game_id, rates)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
