"""Engine throughput: complete random games per second on one core.

    python -m bench.engine --game year_of_dragon --players 4 --games 300

Random play calls ``legal_actions`` then ``apply`` for every decision, which is the bots' inner loop.
The run pins itself to one CPU and also times a fixed pure-Python calibration loop, so a figure can be
read as a ratio against this machine's speed in the same run.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

from engine.registry import GAMES, get_game


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    calib = calibration_ops_per_s()
    stats = run(args.game, args.players, args.games, args.seed)
    print(f"game={args.game} players={args.players} games={args.games} python={sys.version.split()[0]}")
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
