"""Engine throughput: complete random games per second on one core.

    python -m bench.engine --game year_of_dragon --players 4 --games 300
    python -m bench.engine --game all --versus-liars-poker --seconds 3

Random play calls ``legal_actions`` then ``apply`` for every decision, which is the bots' inner loop.
The run pins itself to one CPU and also times a fixed pure-Python calibration loop, so a figure can be
read as a ratio against this machine's speed in the same run.

``--versus-liars-poker`` measures instead, for every game and player count asked for, the engine's
random decisions/s (and the same with a ``clone`` before every decision, which is what search does)
against OpenSpiel's pure-Python ``python_liars_poker`` in the same loop, interleaved in slices so load
on the machine hits both alike.  Liars' Poker deals its cards at chance nodes: its rate is given per
decision (the definition ``bench.research`` uses) and per step with the deals counted (the stricter
one); issue 46 asks the engine for at least 1.0x.  ``PYTHONPATH=build/mypyc`` measures the optional
compiled build (``scripts/build_mypyc.sh``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable, Iterator

from engine.registry import GAMES, get_game

#: Decisions (or steps) per timed slice between clock reads.
_CHUNK = 16


def calibration_ops_per_s(n: int = 300_000) -> float:
    """A fixed mix of the operations engines are made of (dict build, list scan, RNG)."""
    rng = random.Random(0)
    items = list(range(16))
    t0 = time.perf_counter()
    acc = 0
    for i in range(n):
        d = {"type": "x", "a": i, "b": items[i & 15]}
        acc += d["a"] + rng.choice(items)
    return n / (time.perf_counter() - t0)


def run(game_id: str, players: int, games: int, seed: int) -> dict[str, float]:
    game = get_game(game_id)
    rng = random.Random(seed)
    decisions = 0
    t0 = time.perf_counter()
    for g in range(games):
        state = game.setup(players, None, seed=seed + g)
        while game.to_move(state) is not None:
            game.apply(state, rng.choice(game.legal_actions(state)))
            decisions += 1
        assert game.result(state) is not None
    elapsed = time.perf_counter() - t0
    return {
        "games_per_s": games / elapsed,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_game": decisions / games,
        "seconds": elapsed,
    }


# -- against python_liars_poker ----------------------------------------------------------------------


def _engine_decisions(game_id: str, players: int, rng: random.Random, clone: bool) -> Iterator[int]:
    """Yields once per decision of endless random games (1 per yield: the decision)."""
    game = get_game(game_id)
    while True:
        state = game.setup(players, None, seed=rng.getrandbits(32))
        while game.to_move(state) is not None:
            if clone:
                state = game.clone(state)
            game.apply(state, rng.choice(game.legal_actions(state)))
            yield 1


def _liars_poker_decisions(rng: random.Random) -> Iterator[int]:
    """Yields once per decision of endless random Liars' Poker games; the value is the steps since the
    last yield (the decision plus the deals before it)."""
    import pyspiel
    from open_spiel.python.games import liars_poker  # noqa: F401  # registers python_liars_poker

    game = pyspiel.load_game("python_liars_poker")
    while True:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            steps += 1
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            state.apply_action(rng.choice(state.legal_actions()))
            yield steps
            steps = 0


def _slice(
    loop: Iterator[int], seconds: float, clock: Callable[[], float] = time.perf_counter
) -> list[float]:
    """Run ``loop`` for about ``seconds``: [decisions, steps, elapsed]."""
    t0 = clock()
    end = t0 + seconds
    decisions = steps = 0
    while True:
        for _ in range(_CHUNK):
            steps += next(loop)
        decisions += _CHUNK
        now = clock()
        if now >= end:
            return [decisions, steps, now - t0]


def versus_liars_poker(
    game_id: str, players: int, seconds: float, seed: int, rounds: int = 6
) -> dict[str, float]:
    """Rates of the engine (plain, with clone) and of python_liars_poker, ``seconds`` in all, interleaved."""
    rng = random.Random(seed)
    loops: dict[str, Iterator[int]] = {
        "engine": _engine_decisions(game_id, players, random.Random(rng.random()), clone=False),
        "clone": _engine_decisions(game_id, players, random.Random(rng.random()), clone=True),
        "liars_poker": _liars_poker_decisions(random.Random(rng.random())),
    }
    for loop in loops.values():  # warm-up: imports, caches, first deals
        _slice(loop, 0.01)
    totals = {name: [0.0, 0.0, 0.0] for name in loops}
    share = seconds / rounds / len(loops)
    for _ in range(rounds):
        for name, loop in loops.items():
            for i, value in enumerate(_slice(loop, share)):
                totals[name][i] += value
    _, lp_steps, lp_time = totals["liars_poker"]
    out = {name: t[0] / t[2] for name, t in totals.items()}
    out["liars_poker_steps"] = lp_steps / lp_time
    return out


def _versus_main(games: list[str], players: int | None, seconds: float, seed: int) -> int:
    print(f"python={sys.version.split()[0]} engine={_engine_build()} seconds per row={seconds}")
    print(
        f"{'game':15s} {'n':>2s} {'engine/s':>9s} {'clone/s':>9s} {'lp dec/s':>9s} {'lp step/s':>9s}"
        f" {'x lp dec':>8s} {'x lp step':>9s} {'clone x lp dec':>14s}"
    )
    for game_id in games:
        game = get_game(game_id)
        counts = [players] if players else range(game.min_players, game.max_players + 1)
        for n in counts:
            r = versus_liars_poker(game_id, n, seconds, seed)
            lp, steps = r["liars_poker"], r["liars_poker_steps"]
            print(
                f"{game_id:15s} {n:2d} {r['engine']:9.0f} {r['clone']:9.0f} {lp:9.0f} {steps:9.0f}"
                f" {r['engine'] / lp:8.2f} {r['engine'] / steps:9.2f} {r['clone'] / lp:14.2f}",
                flush=True,
            )
    return 0


def _engine_build() -> str:
    """``mypyc (N modules)`` when the compiled build (scripts/build_mypyc.sh) is what runs."""
    compiled = [
        name
        for name, module in sys.modules.items()
        if name.startswith("engine.") and str(getattr(module, "__file__", "")).endswith(".so")
    ]
    return f"mypyc ({len(compiled)} modules)" if compiled else "python"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=[*sorted(GAMES), "all"])
    parser.add_argument("--players", type=int, default=None, help="default: 4, or every count with --versus")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--versus-liars-poker",
        action="store_true",
        help="decisions/s against OpenSpiel's python_liars_poker, interleaved in the same run",
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="per row, with --versus-liars-poker")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    games = sorted(GAMES) if args.game == "all" else [args.game]
    if args.versus_liars_poker:
        return _versus_main(games, args.players, args.seconds, args.seed)
    calib = calibration_ops_per_s()
    for game_id in games:
        players = args.players or 4
        stats = run(game_id, players, args.games, args.seed)
        print(f"game={game_id} players={players} games={args.games} python={sys.version.split()[0]}")
        print(f"complete games/s   {stats['games_per_s']:10.1f}")
        print(f"decisions/s        {stats['decisions_per_s']:10.0f}")
        print(f"decisions/game     {stats['decisions_per_game']:10.1f}")
        print(
            f"calibration ops/s  {calib:10.0f}   (games per 1M calibration ops: "
            f"{stats['games_per_s'] / calib * 1e6:.1f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
