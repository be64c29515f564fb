"""Timeouts at scale: many clocked matches whose human decisions all run out at the same moment.

    python -m bench.clocks                          # 1,000 matches, 2-second clocks, two workers
    python -m bench.clocks --matches 200 --workers 1

Creates ``--matches`` two-human matches of ``--game`` with a ``--seconds`` per-decision clock (through
:meth:`service.domain.matches.operations.Matches.create`, as the API does), every first decision starting at
the same instant, so every deadline is the same; starts ``--workers`` ``tabletop worker --lanes quick``
processes on a private Redis (each with its clock keeper, which claims due deadlines and hands each
timeout to the lane of the ``on_timeout`` level: for ``random`` and ``easy``, the quick lane, whose
process plays it); and reads how late each first timeout was committed (the match's ``updated_at`` at
version 1 minus the deadline).  Prints p50/p99/max lateness.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from bench.bots import quick_workers
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from service.config import Config
from service.domain.matches.bots import QUICK_LEVELS
from service.storage.client import connect
from service.storage.matches import Store
from service.wiring import build

#: Seconds between the end of creation and the common start of the first decisions (workers start).
LEAD = 5.0


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(redis_url: str, game_id: str, matches: int, seconds: int, workers: int, level: str) -> list[float]:
    """Lateness (s) of each match's first timeout."""
    client = connect(redis_url)
    client.flushall()
    config = Config(redis_url=redis_url, allow_seed=True)
    with quick_workers(redis_url, workers) as queue:
        # Every match's first decision starts at ``base``: the creation's clock is pinned to it.
        base = time.time() + LEAD + matches * 0.01
        play = build(config, store=Store(client), games=GAMES, bot_queue=queue, clock=lambda: base).matches
        seats = [{"name": "h0", "kind": "human"}, {"name": "h1", "kind": "human"}]
        control = {"per_move_seconds": seconds, "on_timeout": level}
        request = {"game": game_id, "seats": seats, "options": {}, "time_control": control}
        ids = [play.create({**request, "seed": s})["id"] for s in range(matches)]
        if time.time() > base:
            raise RuntimeError("creating the matches took longer than the lead; use fewer")
        deadline = base + seconds
        lateness: dict[str, float] = {}
        give_up = time.monotonic() + (deadline - time.time()) + 120
        while len(lateness) < len(ids) and time.monotonic() < give_up:
            pending = [m for m in ids if m not in lateness]
            pipe = client.pipeline(transaction=False)
            for match_id in pending:
                pipe.hmget(f"tt:{{m:{match_id}}}:meta", "version", "updated_at")
            for match_id, (version, updated) in zip(pending, pipe.execute(), strict=True):
                if version is not None and int(version) >= 1:
                    if int(version) > 1:
                        raise RuntimeError("a match moved twice between two looks: poll faster")
                    lateness[match_id] = float(updated) - deadline
            time.sleep(0.05)
        if len(lateness) < len(ids):
            raise RuntimeError(f"only {len(lateness)} of {len(ids)} timeouts fired")
        return list(lateness.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seconds", type=int, default=2, help="per-decision clock")
    parser.add_argument("--workers", type=int, default=2, help="tabletop worker processes")
    parser.add_argument("--game", default="year_of_dragon", choices=sorted(GAMES))
    parser.add_argument(
        "--level", default="easy", choices=sorted(QUICK_LEVELS), help="the on_timeout bot level (quick lane)"
    )
    args = parser.parse_args(argv)
    with PrivateRedis() as redis_url:
        late = run(redis_url, args.game, args.matches, args.seconds, args.workers, args.level)
    print(
        f"clocks bench: {args.matches} {args.game} matches, {args.seconds}-s clocks all due at once, "
        f"{args.workers} worker(s), on_timeout={args.level}, cpus={os.cpu_count()}"
    )
    print(
        f"lateness after the deadline: p50 {statistics.median(late):.3f} s, "
        f"p99 {quantile(late, 0.99):.3f} s, max {max(late):.3f} s (target: p99 < 1 s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
