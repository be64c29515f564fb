"""Bot runner benchmark (issue 44, point 5): requests per decision, the cost of the chart's rate limits,
and the runner's own CPU per decision.

    python -m bench.bot_runner                       # 50 matches per game, every game
    python -m bench.bot_runner --matches 5 --games china
    python -m bench.bot_runner --url http://127.0.0.1:8000 --admin-token T   # one phase, a running server

A bot player plays through :class:`tabletop_client.runner.Runner` with the example random policy
(``examples/random_bot.py``) against built-in ``random`` bots, ``--matches`` matches per game at each
game's smallest table, ``--in-flight`` at once (the bench's harness creates the next match as one ends,
with the app key).  ``--bots K`` shares the matches among K bot players, each with its own runner and
so its own per-player limit (the issue's ladder had 6 bots).  Each phase starts from a fresh app and
players; it runs twice in one run, on one private Redis and ``--workers`` ``tabletop worker``
processes:

1. **unlimited**: ``tabletop serve`` with no rate limit;
2. **chart limits**: ``tabletop serve`` again with the Helm chart's limits (read from
   ``helm/tabletop/values.yaml``: per address, seat token, app and player), except its match-creation
   limit (30 a minute), which would time the harness's creations rather than the bot.

Printed per phase: matches, decisions, wall seconds, decisions a second, the runner's requests (and per
decision: target at most 1.1), its 429s and seconds waited at its gate, and the bench process's CPU per
decision (the runner's threads and the harness's creations; the random policy's own CPU apart).  Then
the ratio of the two phases' wall times (target at most 1.2).  The chart's per-player limit (600 a
minute) caps one player at 10 requests a second: a bot that decides faster than that is slowed by it
whatever its requests per decision, which the decisions a second show.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bench.api import ROOT, free_port, start_server
from bench.procs import progress, stop_processes, stop_server
from devtools.private_redis import PrivateRedis
from examples.random_bot import RandomBot
from tabletop_client import AppClient, Client
from tabletop_client.runner import Runner

ADMIN_TOKEN = "bench-bot-runner-admin-token"
#: Each game at its smallest table (the runner's seat and built-in random bots).
TABLES = {"year_of_dragon": 2, "china": 3, "taj_mahal": 3, "confucius": 3}
#: The chart's request limits this bench applies (``rateLimitCreate`` left out: see the module).
CHART_LIMITS = {
    "rateLimitAddress": "rate_limit_address",
    "rateLimitToken": "rate_limit_token",
    "rateLimitApp": "rate_limit_app",
    "rateLimitPlayer": "rate_limit_player",
}


def chart_limits() -> dict[str, str]:
    """The chart's request limits, as ``tabletop serve`` settings."""
    text = (ROOT / "helm" / "tabletop" / "values.yaml").read_text(encoding="utf-8")
    found = {}
    for key, setting in CHART_LIMITS.items():
        match = re.search(rf'^\s*{key}:\s*"([^"]*)"', text, re.M)
        if match is None:
            raise SystemExit(f"helm/tabletop/values.yaml has no {key}")
        found[setting] = match.group(1)
    return found


@dataclass
class Phase:
    label: str
    matches: int
    decisions: int
    seconds: float
    requests: int
    refused: int
    waited: float
    cpu: float
    policy_cpu: float

    def lines(self) -> str:
        per = self.requests / max(1, self.decisions)
        cpu_ms = 1000 * (self.cpu - self.policy_cpu) / max(1, self.decisions)
        return (
            f"{self.label}: {self.matches} matches, {self.decisions} decisions in {self.seconds:.1f} s "
            f"({self.decisions / self.seconds:.1f} decisions/s); {self.requests} requests, {per:.3f} per "
            f"decision (target <= 1.1); {self.refused} refused (429/503), {self.waited:.1f} thread-seconds "
            f"waited at the gate; runner CPU {cpu_ms:.2f} ms per decision"
        )


def seats(game: str, player: str) -> list[dict[str, Any]]:
    bots = [{"name": f"r{i}", "kind": "bot", "level": "random"} for i in range(1, TABLES[game])]
    return [{"player": player}, *bots]


def phase(
    base: str, admin_token: str, label: str, games: list[str], matches: int, in_flight: int, bots: int = 1
) -> Phase:
    """A fresh app's ``bots`` bot players play ``matches`` matches of each game between them, each
    through its own runner (its own rate limit), ``in_flight`` matches at once in all."""
    admin = Client(base)
    app = AppClient(base, admin.create_app(admin_token, f"bot runner bench {label}")["key"])
    admin.close()
    plan = [game for game in games for _ in range(matches)]
    share = max(1, -(-in_flight // bots))  # each bot's matches at once
    runners: list[Runner] = []
    for number in range(bots):
        app.put_player(f"runner{number}", f"Runner {number}", bot=True)
        token = app.mint_token(f"runner{number}")["token"]
        runners.append(Runner(base, token, RandomBot(seed=number), concurrency=share))
    failed: list[BaseException] = []

    def play(number: int) -> None:  # one bot: its runner, and its share of the plan kept going
        runner, mine = runners[number], plan[number::bots]

        def create() -> None:
            creator = AppClient(base, app.key)  # a client per thread: one is one connection
            try:
                for made, game in enumerate(mine):
                    while made - runner.stats.finished >= share:
                        time.sleep(0.005)
                    creator.create_match(game, seats(game, f"runner{number}"))
            except BaseException as exc:
                failed.append(exc)
                runner.stop()
            finally:
                creator.close()

        threading.Thread(target=create, daemon=True).start()
        try:
            runner.run(until=lambda r: r.stats.finished >= len(mine))
        except BaseException as exc:
            failed.append(exc)

    cpu0, t0 = _cpu(), time.monotonic()
    threads = [threading.Thread(target=play, args=(n,)) for n in range(bots)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds, cpu = time.monotonic() - t0, _cpu() - cpu0
    app.close()
    if failed:
        raise failed[0]
    return Phase(
        label, sum(r.stats.finished for r in runners), sum(r.stats.decisions for r in runners), seconds,
        sum(r.requests for r in runners), sum(r.pacer.refused for r in runners),
        sum(r.pacer.waited for r in runners), cpu, sum(r.stats.policy_cpu for r in runners),
    )  # fmt: skip


def _cpu() -> float:
    times = os.times()
    return times.user + times.system


@contextmanager
def worker_processes(redis_url: str, count: int) -> Iterator[None]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT)
        for _ in range(count)
    ]
    try:
        yield
    finally:
        stop_processes(procs)


def own_servers(args: argparse.Namespace, games: list[str]) -> list[Phase]:
    """Both phases on a private Redis: a server without limits, then one with the chart's."""
    phases = []
    with PrivateRedis() as redis_url, worker_processes(redis_url, args.workers):
        for label, limits in (("unlimited", {}), ("chart limits", chart_limits())):
            port = free_port()
            server = start_server(redis_url, port, args.api, admin_token=ADMIN_TOKEN, **limits)
            try:
                progress(f"phase {label}: {', '.join(f'{k}={v}' for k, v in limits.items()) or 'no limits'}")
                base = f"http://127.0.0.1:{port}"
                phases.append(phase(base, ADMIN_TOKEN, label, games, args.matches, args.in_flight, args.bots))
                print(phases[-1].lines(), flush=True)
            finally:
                stop_server(server)
    return phases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bot_runner", description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=50, help="matches per game (%(default)s)")
    parser.add_argument("--games", default=",".join(TABLES), help="comma-separated (%(default)s)")
    parser.add_argument("--in-flight", type=int, default=8, help="matches at once (%(default)s)")
    parser.add_argument(
        "--bots",
        type=int,
        default=1,
        help="bot players sharing the matches, each its own runner (%(default)s)",
    )
    parser.add_argument("--workers", type=int, default=2, help="tabletop worker processes (%(default)s)")
    parser.add_argument("--api", type=int, default=2, help="API processes (%(default)s)")
    parser.add_argument("--url", help="measure one phase on this running server instead (its own limits)")
    parser.add_argument("--admin-token", default=ADMIN_TOKEN, help="with --url: its admin token")
    args = parser.parse_args(argv)
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in TABLES]
    if unknown or min(args.matches, args.in_flight, args.bots) < 1:
        parser.error(f"--games among {', '.join(TABLES)}; --matches, --in-flight and --bots positive")
    load = os.getloadavg()
    print(
        f"bot runner bench: {args.matches} matches per game of {', '.join(games)}, random policy against "
        f"built-in random bots, {args.in_flight} at once, {args.bots} bot player(s); cpus={os.cpu_count()} "
        f"load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        flush=True,
    )
    if args.url:
        print(
            phase(
                args.url, args.admin_token, "as served", games, args.matches, args.in_flight, args.bots
            ).lines()
        )
        return 0
    free, limited = own_servers(args, games)
    print(
        f"chart limits / unlimited wall time: {limited.seconds / free.seconds:.2f}x (target <= 1.2); "
        f"requests per decision {limited.requests / max(1, limited.decisions):.3f} and "
        f"{free.requests / max(1, free.decisions):.3f} (target <= 1.1)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
