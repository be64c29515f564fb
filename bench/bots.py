"""Bot throughput: all-bot matches through a real Redis and real worker processes, every game.

    python -m bench.bots                      # random and easy, every game, one worker process
    python -m bench.bots --workers 2 --matches 40

For each level and game: starts ``--workers`` quick-lane worker processes (``tabletop worker --lanes
quick``) on a private Redis, creates ``--matches`` matches whose every seat is a bot of that level
(through :meth:`service.domain.matches.operations.Matches.create`, as the API does: the first turn is
enqueued), and times until every match is over.  Every decision is its own compare-and-set commit, with its
events and log entry, as in production.  Prints decisions/s per worker process, and beside it the engine's own
rate of random play in this process (legal actions, apply), measured in the same run: the share of the
engine's speed that reaches a client through Redis and RQ.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator

from bench.api import ROOT
from bench.procs import stop_processes
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from service.config import Config
from service.domain.matches.bots import BotQueue
from service.storage.client import connect
from service.storage.matches import Store
from service.wiring import build


def engine_rate(game_id: str, players: int, seconds: float = 2.0) -> float:
    """Decisions/s of random play in this process (legal actions and apply)."""
    game = GAMES[game_id]
    rng = random.Random(1)
    decisions, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        state = game.setup(players, None, seed=rng.getrandbits(32))
        while game.to_move(state) is not None:
            game.apply(state, rng.choice(game.legal_actions(state)))
            decisions += 1
    return decisions / (time.perf_counter() - started)


@contextlib.contextmanager
def quick_workers(redis_url: str, count: int) -> Iterator[BotQueue]:
    """``count`` ``tabletop worker --lanes quick`` processes on ``redis_url`` (each with its clock
    keeper), heartbeating on entry and stopped on exit; yields a bot queue over that Redis."""
    env = {
        **os.environ,
        "TABLETOP_REDIS_URL": redis_url,
        "TABLETOP_LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker", "--lanes", "quick"], env=env, cwd=ROOT
        )
        for _ in range(count)
    ]
    try:
        queue = BotQueue(Store(connect(redis_url)))
        deadline = time.monotonic() + 30
        while queue.live_workers() < count:
            if time.monotonic() > deadline:
                raise RuntimeError("the workers did not start")
            time.sleep(0.1)
        yield queue
    finally:
        stop_processes(procs)


def run_level(redis_url: str, game_id: str, level: str, players: int, matches: int, workers: int) -> float:
    """Decisions/s per worker process for ``matches`` all-``level`` matches of ``game_id``."""
    client = connect(redis_url)
    client.flushall()
    config = Config(redis_url=redis_url, allow_seed=True)
    with quick_workers(redis_url, workers) as queue:
        play = build(config, store=Store(client), games=GAMES, bot_queue=queue).matches
        seats = [{"name": f"b{i}", "kind": "bot", "level": level} for i in range(players)]
        started = time.perf_counter()
        ids = [
            play.create({"game": game_id, "seats": seats, "options": {}, "seed": s})["id"]
            for s in range(matches)
        ]
        versions = {}
        while ids:
            for match_id in list(ids):
                meta = play.meta(match_id)
                if meta.status == "finished":
                    versions[match_id] = meta.version
                    ids.remove(match_id)
            time.sleep(0.02)
        elapsed = time.perf_counter() - started
    return sum(versions.values()) / elapsed / workers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="quick-lane worker processes")
    parser.add_argument("--matches", type=int, default=20, help="all-bot matches per game and level")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--levels", default="random,easy")
    parser.add_argument("--games", default=",".join(sorted(GAMES)))
    args = parser.parse_args(argv)
    levels, games = args.levels.split(","), args.games.split(",")
    print(
        f"bots bench: {args.matches} all-bot matches per game and level, {args.players} seats, "
        f"{args.workers} worker process(es) (quick lane), cpus={os.cpu_count()}"
    )
    print(
        f"{'game':16s} {'engine random/s':>16s} "
        + " ".join(f"{level + ' /s/worker':>18s}" for level in levels)
    )
    with PrivateRedis() as redis_url:
        for game_id in games:
            engine = engine_rate(game_id, args.players)
            rates = [
                run_level(redis_url, game_id, level, args.players, args.matches, args.workers)
                for level in levels
            ]
            cells = " ".join(
                f"{rate:8.0f} ({rate / engine:5.1%})" if level == "random" else f"{rate:18.0f}"
                for level, rate in zip(levels, rates, strict=True)
            )
            print(f"{game_id:16s} {engine:16.0f} {cells}", flush=True)
    print("(random: in brackets, the share of the engine's in-process random rate)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
