"""Bot strength: seeded tournaments between bot levels, win rates with 95% confidence intervals.

    python -m bench.strength --game china --lineup hard,easy,random --games 60

Every game seats the lineup in one of its seat permutations (game ``g`` uses permutation ``g mod n!``,
so each level sits in each seat equally often) and plays to the end through :func:`engine.ai.choose_action`
exactly as a worker does.  The search levels run on an iteration budget (``--normal-iterations``,
``--hard-iterations``) rather than a clock, so a tournament is reproducible on any machine and under any
load; the run prints the measured iterations per second, which converts a budget into think time.

Printed per level: first places and the win rate with its Wilson 95% interval; per pair of levels, how
often the row finished ahead of the column.

An agent against the baselines: ``--agent`` seats a learner (``module:attr``: a ``pyspiel.Bot``, or a
policy callable ``policy(observation, info) -> action id`` as :class:`research.baselines.PolicyBot` calls
it; or a level, to calibrate) among ``--opponents`` (levels, the server's bots through
:mod:`research.baselines`), offline, with OpenSpiel's ``evaluate_bots``:

    python -m bench.strength --game taj_mahal --agent mypkg.agent:policy --opponents easy,easy --games 60

Match ``g`` puts the agent in seat ``g mod players`` on deal ``g // players``, so each deal is played from
every seat.  Printed: first places with a Wilson 95% interval, the mean place (1 = first) with a 95%
interval, the mean return.  The search levels search on iterations (``--normal-iterations``,
``--hard-iterations``) unless ``--normal-think-ms``/``--hard-think-ms`` give them a time per decision or
``--server-budgets`` the server's (500 ms and 2000 ms: ``hard`` then takes minutes a match).
:func:`measure` is the same from Python.

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
import importlib
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
                engine,
                state.engine_state,
                "hard",
                rng,
                think_ms=think_ms if simulations is None else None,
                iterations=simulations,
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


# --------------------------------------------------------------------------------------------------
# An agent against the baselines: a learner's OpenSpiel bot or policy, seated among built-in levels


@dataclass
class AgentRecord:
    """One match of the agent: its seat, its place (0 = first) and its return (+1 first, -1 last)."""

    seat: int
    place: int
    ret: float


#: A level's search budget: (think_ms, iterations); (None, None) is the server's default think time.
Budget = tuple[float | None, int | None]


def load_agent(spec: str) -> Any:
    """The agent a command line names: a level (``easy``), or ``module:attr``: a ``pyspiel.Bot`` (it
    must act for whichever seat ``state.current_player()`` names) or a policy callable
    ``policy(observation, info) -> action id`` (:data:`research.baselines.Policy`)."""
    if spec in LEVELS:
        return spec
    module, sep, attr = spec.partition(":")
    if not sep:
        raise ValueError(f"an agent is a level ({', '.join(LEVELS)}) or module:attr, not {spec!r}")
    return getattr(importlib.import_module(module), attr)


def agent_bot(agent: Any, game: Any, seat: int, seed: int, budgets: dict[str, Budget]) -> Any:
    """The ``pyspiel.Bot`` that plays ``agent`` in ``seat``: a level's :func:`research.baselines.make_bot`,
    a bot as given, a policy through :class:`research.baselines.PolicyBot`."""
    import pyspiel

    from research.baselines import PolicyBot, make_bot

    if isinstance(agent, str):
        think_ms, iterations = budgets.get(agent, (None, None))
        return make_bot(game, seat, agent, seed, think_ms, iterations)
    if isinstance(agent, pyspiel.Bot):
        return agent
    if callable(agent):
        return PolicyBot(agent, seat)
    raise TypeError(f"an agent is a level, a pyspiel.Bot or a policy callable, not {type(agent).__name__}")


def play_agent_match(
    game_id: str,
    agent: Any,
    opponents: tuple[str, ...],
    number: int,
    budgets: dict[str, Budget],
    seed: int,
    options: dict[str, Any] | None = None,
) -> AgentRecord:
    """Match ``number``: the agent in seat ``number mod players``, the opponents after it in order
    (cyclically), on deal ``number // players`` of the run, so every deal is played once from each seat
    and each opponent visits every seat too.  Played by OpenSpiel's ``evaluate_bots``."""
    import numpy as np
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from research.openspiel_game import load

    players = 1 + len(opponents)
    seat = number % players
    game = load(game_id, players=players, seed=seed * 100_003 + number // players, **(options or {}))
    bots = []
    for s in range(players):
        who = agent if s == seat else opponents[(s - seat - 1) % players]
        bots.append(agent_bot(who, game, s, seed * 1_000_003 + number * 17 + s, budgets))
    state = game.new_initial_state()
    returns = evaluate_bots(state, bots, np.random.RandomState(seed))
    ranking = get_game(game_id).result(state.engine_state)["ranking"]
    return AgentRecord(seat=seat, place=ranking.index(seat), ret=float(returns[seat]))


@dataclass
class AgentTally:
    """The agent's matches against one lineup of opponents, and what they say with 95% intervals."""

    game_id: str
    opponents: tuple[str, ...]
    records: list[AgentRecord] = field(default_factory=list)

    @property
    def wins(self) -> int:
        return sum(r.place == 0 for r in self.records)

    def win_rate(self) -> tuple[float, float, float]:
        """First places over matches, with its Wilson interval."""
        n = len(self.records)
        return (self.wins / n if n else 0.0, *wilson(self.wins, n))

    def mean_place(self) -> tuple[float, float, float]:
        """Mean place (1 = first), with a normal-approximation interval over matches."""
        places = [r.place + 1 for r in self.records]
        n = len(places)
        mean = sum(places) / n
        half = 1.96 * math.sqrt(sum((p - mean) ** 2 for p in places) / max(1, n - 1) / n)
        return mean, mean - half, mean + half

    def report(self, name: str) -> str:
        n, players = len(self.records), 1 + len(self.opponents)
        rate, lo, hi = self.win_rate()
        place, plo, phi = self.mean_place()
        ret = sum(r.ret for r in self.records) / n
        return (
            f"{name} vs {','.join(self.opponents)} in {self.game_id} ({n} matches, seats rotated): "
            f"first {self.wins}/{n} = {rate:.1%} [{lo:.1%}, {hi:.1%}] (even: {1 / players:.1%}); "
            f"mean place {place:.2f} [{plo:.2f}, {phi:.2f}] (even: {(players + 1) / 2:.2f}); "
            f"mean return {ret:+.2f}"
        )


def measure(
    agent: Any,
    game_id: str,
    opponents: tuple[str, ...],
    matches: int,
    seed: int = 1,
    budgets: dict[str, Budget] | None = None,
    procs: int = 1,
    options: dict[str, Any] | None = None,
) -> AgentTally:
    """Play ``matches`` matches of ``agent`` (a level, a ``pyspiel.Bot``, a policy callable, or with
    ``procs > 1`` a ``module:attr`` spec each process loads) against ``opponents`` (levels), offline.

    ``budgets``: per search level, (think_ms, iterations); a level missing there searches on
    :data:`DEFAULT_ITERATIONS`, so results reproduce on any machine.
    """
    budgets = {**{lv: (None, it) for lv, it in DEFAULT_ITERATIONS.items()}, **(budgets or {})}
    tally = AgentTally(game_id, opponents)
    jobs = [(game_id, agent, opponents, g, budgets, seed, options) for g in range(matches)]
    with mp.Pool(procs) if procs > 1 else _Serial() as pool:
        for record in pool.imap_unordered(_play_agent, jobs):
            tally.records.append(record)
    return tally


def _play_agent(args: tuple[Any, ...]) -> AgentRecord:
    game_id, agent, opponents, number, budgets, seed, options = args
    if isinstance(agent, str) and agent not in LEVELS:
        agent = load_agent(agent)
    return play_agent_match(game_id, agent, opponents, number, budgets, seed, options)


def main_agent(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``--agent``: the agent against ``--opponents`` in ``--game``."""
    opponents = tuple(args.opponents.split(","))
    unknown = [x for x in opponents if x not in LEVELS]
    if unknown:
        parser.error(f"unknown level {unknown[0]!r}; known: {', '.join(LEVELS)}")
    try:
        agent = load_agent(args.agent)
    except (ValueError, ImportError, AttributeError) as exc:
        parser.error(f"--agent: {exc}")
    budgets: dict[str, Budget] = {}
    for level in SEARCH_LEVELS:
        think_ms = getattr(args, f"{level}_think_ms")
        if think_ms is not None:
            budgets[level] = (think_ms, None)
        elif args.server_budgets:
            budgets[level] = (None, None)
        else:
            budgets[level] = (None, getattr(args, f"{level}_iterations"))
    t0 = time.perf_counter()
    tally = measure(
        args.agent if args.procs > 1 else agent,
        args.game,
        opponents,
        args.games,
        args.seed,
        budgets,
        args.procs,
    )
    shown = {
        lv: ("server default" if b == (None, None) else f"{b[0]} ms" if b[0] else f"{b[1]} iterations")
        for lv, b in budgets.items()
        if lv in (args.agent, *opponents)
    }
    print(
        f"strength: agent={args.agent} game={args.game} opponents={args.opponents} games={args.games} "
        f"seed={args.seed} search={shown or 'none'} wall={time.perf_counter() - t0:.0f}s"
    )
    print(tally.report(args.agent))
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
    parser.add_argument(
        "--agent", help="measure an agent: a level or module:attr (a pyspiel.Bot or a policy)"
    )
    parser.add_argument("--opponents", default="easy,easy", help="with --agent: levels of the other seats")
    parser.add_argument("--normal-think-ms", type=float, help="with --agent: normal thinks this long instead")
    parser.add_argument("--hard-think-ms", type=float, help="with --agent: hard thinks this long instead")
    parser.add_argument(
        "--server-budgets", action="store_true", help="with --agent: the server's think times (500/2000 ms)"
    )
    args = parser.parse_args(argv)
    if args.vs:
        return main_anchor(args)
    if not args.game:
        parser.error("--game is required (unless --vs)")
    if args.agent:
        return main_agent(args, parser)
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
