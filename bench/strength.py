"""Bot strength: seeded tournaments between bot levels, win rates with 95% confidence intervals.

    python -m bench.strength --game china --lineup hard,easy,random --games 60

Every game seats the lineup in one of its seat permutations (game ``g`` uses permutation ``g mod n!``,
so each level sits in each seat equally often) and plays to the end through :func:`engine.ai.choose_action`
exactly as a worker does.  The search levels run on an iteration budget (``--normal-iterations``,
``--hard-iterations``) rather than a clock, so a tournament is reproducible on any machine and under any
load; the run prints the measured iterations per second, which converts a budget into think time.

Printed per level: first places and the win rate with its Wilson 95% interval; per pair of levels, how
often the row finished ahead of the column.

An outside anchor: ``--vs openspiel-ismcts`` seats our ``hard`` against two of OpenSpiel's IS-MCTS bots
(``open_spiel.python.algorithms.ismcts.ISMCTSBot`` with one random rollout per simulation, UCT constant
2 for returns in [-1, 1]) on the game registered by :mod:`research.openspiel_game`, 3 players, seats
rotated through all 6 permutations, for every game unless ``--game`` names one:

    python -m bench.strength --vs openspiel-ismcts --budget time --think-ms 100 --games 24
    python -m bench.strength --vs openspiel-ismcts --budget simulations --simulations 20 --games 24

``--budget time`` gives both the same time per decision: ours searches for ``--think-ms``; OpenSpiel's
bot has only a simulation budget, so each of its decisions gets ``think-ms`` times its measured
simulation rate (re-estimated after every decision), and the mean time each side really used is
printed.  ``--budget simulations`` gives both the same number of simulations (our iterations).
(OpenSpiel's C++ ``pyspiel.ISMCTSBot`` cannot search a Python game: it does not reach a Python state's
``resample_from_infostate`` and crashes, so the anchor is OpenSpiel's Python port of the same algorithm.)
Printed per game: how often ``hard`` finished ahead of an IS-MCTS bot (the head-to-head win rate, 0.5 is
even) with a 95% interval over games, and first places (1/3 is even) with a Wilson interval.
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
from typing import Any

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


# --------------------------------------------------------------------------------------------------
# Against an outside anchor: OpenSpiel's IS-MCTS


#: Seats of a game against the anchor: our hard against two IS-MCTS bots.
ANCHOR_LINEUP = ("hard", "ismcts", "ismcts")
#: UCT exploration constant of the anchor (OpenSpiel's examples use 2 for returns in [-1, 1]).
ANCHOR_UCT_C = 2.0


@dataclass
class AnchorRecord:
    """One game against the anchor, in :data:`ANCHOR_LINEUP` order."""

    places: list[int]
    ours_seconds: float = 0.0
    ours_decisions: int = 0
    ours_iterations: int = 0
    anchor_seconds: float = 0.0
    anchor_decisions: int = 0
    anchor_simulations: int = 0


class _TimedISMCTS:
    """OpenSpiel's IS-MCTS bot held to a time budget per decision.

    The bot only takes a simulation count, so each decision gets ``think_ms`` times its simulation
    rate as measured on its own previous decisions of this game (a first short search calibrates it).
    """

    def __init__(self, bot: Any, think_ms: float | None, simulations: int | None) -> None:
        self.bot = bot
        self.think_ms = think_ms
        self.simulations = simulations
        self.rate: float | None = None  # simulations per second

    def step(self, state: Any) -> tuple[int, int, float]:
        """Action, simulations run (0 if forced) and seconds taken."""
        if len(state.legal_actions()) == 1:
            return state.legal_actions()[0], 0, 0.0
        if self.think_ms is None:
            sims = max(2, self.simulations or 2)
        else:
            if self.rate is None:
                self.bot._max_simulations = 5
                t0 = time.perf_counter()
                self.bot.step(state)
                self.rate = 5 / max(1e-6, time.perf_counter() - t0)
            sims = max(2, round(self.rate * self.think_ms / 1000.0))  # 1 would leave the root unvisited
        self.bot._max_simulations = sims
        t0 = time.perf_counter()
        action = self.bot.step(state)
        took = time.perf_counter() - t0
        if self.think_ms is not None:
            measured = sims / max(1e-6, took)
            self.rate = 0.7 * self.rate + 0.3 * measured if self.rate else measured
        return action, sims, took


def play_vs_anchor(
    game_id: str, number: int, think_ms: float | None, simulations: int | None, seed: int
) -> AnchorRecord:
    """Game ``number`` of our hard against two OpenSpiel IS-MCTS bots (seat permutation from ``number``).

    The game runs on the OpenSpiel state, so the anchor sees exactly its information state; our bot is
    handed the wrapped engine state, which it reads only through ``determinize`` for its seat, as a
    worker does.
    """
    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts

    from research.openspiel_game import load

    engine = get_game(game_id)
    perms = list(itertools.permutations(range(len(ANCHOR_LINEUP))))
    seat_of = perms[number % len(perms)]
    role_at = {seat: i for i, seat in enumerate(seat_of)}  # seat -> lineup index
    game = load(game_id, players=len(ANCHOR_LINEUP), seed=seed * 1_000 + number)
    state = game.new_initial_state()
    rng = random.Random(seed * 1_000_003 + number)
    anchors = {}
    for seat, i in role_at.items():
        if ANCHOR_LINEUP[i] == "ismcts":
            rs = np.random.RandomState((seed * 1_000_003 + number * 7 + seat) % 2**32)
            bot = ismcts.ISMCTSBot(
                game, mcts.RandomRolloutEvaluator(1, rs), ANCHOR_UCT_C, simulations or 2, random_state=rs
            )
            anchors[seat] = _TimedISMCTS(bot, think_ms, simulations)
    record = AnchorRecord(places=[])
    codec = game.codec
    while not state.is_terminal():
        seat = state.current_player()
        if seat in anchors:
            action, sims, took = anchors[seat].step(state)
            if sims:
                record.anchor_decisions += 1
                record.anchor_simulations += sims
                record.anchor_seconds += took
            state.apply_action(action)
        else:
            t0 = time.perf_counter()
            move, stats = decide(
                engine, state.engine_state, "hard", rng,
                think_ms=think_ms if simulations is None else None, iterations=simulations,
            )
            if not stats.get("forced") and stats.get("iterations"):
                record.ours_decisions += 1
                record.ours_iterations += stats["iterations"]
                record.ours_seconds += time.perf_counter() - t0
            state.apply_action(codec.encode(move))
    ranking = engine.result(state.engine_state)["ranking"]
    record.places = [ranking.index(seat_of[i]) for i in range(len(ANCHOR_LINEUP))]
    return record


def _play_anchor(args: tuple[str, int, float | None, int | None, int]) -> AnchorRecord:
    return play_vs_anchor(*args)


def anchor_report(game_id: str, records: list[AnchorRecord]) -> list[str]:
    """Head-to-head and first-place rates of our hard against the anchor, with 95% intervals."""
    n = len(records)
    # Per game, the share of the two IS-MCTS bots that hard finished ahead of: the two comparisons of a
    # game are not independent, so the interval is over games (normal approximation of the mean).
    shares = [sum(r.places[0] < r.places[i] for i in (1, 2)) / 2 for r in records]
    mean = sum(shares) / n
    var = sum((x - mean) ** 2 for x in shares) / max(1, n - 1)
    half = 1.96 * math.sqrt(var / n)
    firsts = sum(r.places[0] == 0 for r in records)
    lo, hi = wilson(firsts, n)
    ours_s = sum(r.ours_seconds for r in records)
    ours_d = sum(r.ours_decisions for r in records)
    anc_s = sum(r.anchor_seconds for r in records)
    anc_d = sum(r.anchor_decisions for r in records)
    ours_its = sum(r.ours_iterations for r in records) / max(1, ours_d)
    anc_sims = sum(r.anchor_simulations for r in records) / max(1, anc_d)
    return [
        f"{game_id}: {n} games; hard ahead of IS-MCTS {mean:.1%} [{max(0, mean - half):.1%}, "
        f"{min(1, mean + half):.1%}]; hard first {firsts}/{n} = {firsts / n:.1%} [{lo:.1%}, {hi:.1%}]",
        f"    per searched decision: hard {1000 * ours_s / max(1, ours_d):.0f} ms, "
        f"{ours_its:.0f} iterations; IS-MCTS {1000 * anc_s / max(1, anc_d):.0f} ms, "
        f"{anc_sims:.0f} simulations",
    ]


def main_anchor(args: argparse.Namespace) -> int:
    """``--vs openspiel-ismcts``: every game (or ``--game``) against the anchor."""
    think_ms = args.think_ms if args.budget == "time" else None
    simulations = args.simulations if args.budget == "simulations" else None
    games = [args.game] if args.game else sorted(GAMES)
    print(
        f"strength vs openspiel-ismcts: budget={args.budget} "
        + (f"think_ms={think_ms}" if think_ms is not None else f"simulations={simulations}")
        + f" games={args.games} seed={args.seed} lineup={','.join(ANCHOR_LINEUP)} (seats rotated)",
        flush=True,
    )
    for game_id in games:
        t0 = time.perf_counter()
        jobs = [(game_id, g, think_ms, simulations, args.seed) for g in range(args.games)]
        records = []
        with mp.Pool(args.procs) if args.procs > 1 else _Serial() as pool:
            for n, record in enumerate(pool.imap_unordered(_play_anchor, jobs), 1):
                records.append(record)
                print(f"\r{game_id}: {n}/{args.games} games", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        wall = f"  (wall {time.perf_counter() - t0:.0f}s)"
        print("\n".join(anchor_report(game_id, records)) + wall, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAMES), help="required unless --vs (then: all games)")
    parser.add_argument("--vs", choices=["openspiel-ismcts"], help="play hard against an outside anchor")
    parser.add_argument("--budget", choices=["time", "simulations"], default="time", help="with --vs")
    parser.add_argument("--think-ms", type=float, default=100.0, help="with --vs --budget time")
    parser.add_argument("--simulations", type=int, default=20, help="with --vs --budget simulations")
    parser.add_argument("--lineup", default="hard,easy,random", help="comma-separated levels, one per seat")
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--normal-iterations", type=int, default=DEFAULT_ITERATIONS["normal"])
    parser.add_argument("--hard-iterations", type=int, default=DEFAULT_ITERATIONS["hard"])
    parser.add_argument("--procs", type=int, default=1, help="worker processes (games run in parallel)")
    args = parser.parse_args(argv)
    if args.vs:
        return main_anchor(args)
    if not args.game:
        parser.error("--game is required (unless --vs)")
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
