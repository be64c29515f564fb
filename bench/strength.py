"""Bot strength: seeded tournaments between bot levels, win rates with 95% confidence intervals.

    python -m bench.strength --game china --lineup hard,easy,random --games 60

Every game seats the lineup in one of its seat permutations (game ``g`` uses permutation ``g mod n!``,
so each level sits in each seat equally often) and plays to the end through :func:`engine.ai.choose_action`
exactly as a worker does.  The search levels run on an iteration budget (``--normal-iterations``,
``--hard-iterations``) rather than a clock, so a tournament is reproducible on any machine and under any
load; the run prints the measured iterations per second, which converts a budget into think time.

Printed per level: first places and the win rate with its Wilson 95% interval; per pair of levels, how
often the row finished ahead of the column.
"""

from __future__ import annotations

import argparse
import itertools
import math
import multiprocessing as mp
import random
import sys
import time
from dataclasses import dataclass, field

from engine.ai import LEVELS, SEARCH_LEVELS, decide
from engine.registry import GAMES, get_game

#: Iteration budgets standing in for the levels' think times (see the module docstring).
DEFAULT_ITERATIONS = {"normal": 250, "hard": 1000}
#: Width of a cell of the pairwise table.
CELL = 26


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion: sound near 0 and 1, unlike the normal one."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denom = 1 + z * z / n
    return max(0.0, (centre - margin) / denom), min(1.0, (centre + margin) / denom)


@dataclass
class GameRecord:
    """One finished game, in lineup order (index ``i`` is the ``i``-th level of the lineup)."""

    places: list[int]  # 0 = first
    scores: list[float]
    search_iterations: int = 0
    search_seconds: float = 0.0


def play_one(
    game_id: str, lineup: tuple[str, ...], number: int, budgets: dict[str, int], seed: int
) -> GameRecord:
    """Play game ``number`` of the tournament (seat permutation and seeds derive from it)."""
    game = get_game(game_id)
    perms = list(itertools.permutations(range(len(lineup))))
    seat_of = perms[number % len(perms)]  # lineup index -> seat
    level_at = {seat: lineup[i] for i, seat in enumerate(seat_of)}
    state = game.setup(len(lineup), None, seed=seed + number)
    rng = random.Random(seed * 1_000_003 + number)
    iterations, seconds = 0, 0.0
    while (seat := game.to_move(state)) is not None:
        level = level_at[seat]
        t0 = time.perf_counter()
        action, stats = decide(game, state, level, rng, iterations=budgets.get(level))
        if level in SEARCH_LEVELS and stats.get("iterations"):
            iterations += stats["iterations"]
            seconds += time.perf_counter() - t0
        game.apply(state, action)
    result = game.result(state)
    ranking = result["ranking"]
    return GameRecord(
        places=[ranking.index(seat_of[i]) for i in range(len(lineup))],
        scores=[result["scores"][seat_of[i]] for i in range(len(lineup))],
        search_iterations=iterations,
        search_seconds=seconds,
    )


@dataclass
class Tally:
    lineup: tuple[str, ...]
    games: list[GameRecord] = field(default_factory=list)

    def wins(self, i: int) -> int:
        return sum(g.places[i] == 0 for g in self.games)

    def ahead(self, i: int, j: int) -> int:
        return sum(g.places[i] < g.places[j] for g in self.games)

    def report(self) -> list[str]:
        n = len(self.games)
        width = max(len(x) for x in self.lineup) + 2
        lines = [f"{'level':<{width}} {'wins':>5} {'win rate':>9}   95% CI          mean score"]
        for i, level in enumerate(self.lineup):
            w = self.wins(i)
            lo, hi = wilson(w, n)
            mean = sum(g.scores[i] for g in self.games) / n
            lines.append(f"{level:<{width}} {w:>5} {w / n:>9.1%}   [{lo:5.1%}, {hi:5.1%}]  {mean:10.1f}")
        lines.append("")
        lines.append("row finished ahead of column (95% CI)")
        lines.append(" " * width + "".join(f"{c:>{CELL}}" for c in self.lineup))
        for i, row in enumerate(self.lineup):
            cells = []
            for j in range(len(self.lineup)):
                a = self.ahead(i, j)
                lo, hi = wilson(a, n)
                cell = "-" if i == j else f"{a / n:.1%} [{lo:.1%}, {hi:.1%}]"
                cells.append(f"{cell:>{CELL}}")
            lines.append(f"{row:<{width}}" + "".join(cells))
        its = sum(g.search_iterations for g in self.games)
        secs = sum(g.search_seconds for g in self.games)
        if secs:
            lines.append("")
            lines.append(f"search speed: {its / secs:.0f} iterations/s (over {its} iterations, {secs:.0f} s)")
        return lines


def _play(args: tuple[str, tuple[str, ...], int, dict[str, int], int]) -> GameRecord:
    return play_one(*args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=sorted(GAMES))
    parser.add_argument("--lineup", default="hard,easy,random", help="comma-separated levels, one per seat")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--normal-iterations", type=int, default=DEFAULT_ITERATIONS["normal"])
    parser.add_argument("--hard-iterations", type=int, default=DEFAULT_ITERATIONS["hard"])
    parser.add_argument("--procs", type=int, default=1, help="worker processes (games run in parallel)")
    args = parser.parse_args(argv)
    lineup = tuple(args.lineup.split(","))
    unknown = [x for x in lineup if x not in LEVELS]
    if unknown:
        parser.error(f"unknown level {unknown[0]!r}; known: {', '.join(LEVELS)}")
    budgets = {"normal": args.normal_iterations, "hard": args.hard_iterations}
    tally = Tally(lineup)
    jobs = [(args.game, lineup, g, budgets, args.seed) for g in range(args.games)]
    t0 = time.perf_counter()
    with mp.Pool(args.procs) if args.procs > 1 else _Serial() as pool:
        for n, record in enumerate(pool.imap_unordered(_play, jobs), 1):
            tally.games.append(record)
            print(f"\r{n}/{args.games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(
        f"strength: game={args.game} players={len(lineup)} lineup={','.join(lineup)} games={args.games} "
        f"seed={args.seed} iterations normal={budgets['normal']} hard={budgets['hard']} "
        f"wall={time.perf_counter() - t0:.0f}s"
    )
    print("\n".join(tally.report()))
    return 0


class _Serial:
    """``mp.Pool``'s interface in this process, for ``--procs 1`` (easier to profile and debug)."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *_: object) -> None:
        return None

    @staticmethod
    def imap_unordered(func, items):  # type: ignore[no-untyped-def]
        return map(func, items)


if __name__ == "__main__":
    sys.exit(main())
