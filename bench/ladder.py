"""Ratings ladder: rated all-bot matches of the four built-in levels through real processes, every game.

    python -m bench.ladder                               # 200 rated matches per game, every game
    python -m bench.ladder --matches 20 --games china    # a short one

Issue 27 (point 7) asks whether the ratings put the built-in levels in their order: a ladder of
``random``, ``easy``, ``normal`` and ``hard`` whose final ordinals rank ``hard`` and ``normal`` above
``easy`` and ``easy`` above ``random`` in every game.  In one run this bench starts a private Redis,
``tabletop serve`` (``--api`` gunicorn processes, the admin token set) and ``--workers`` ``tabletop
worker`` processes (each a quick and a thinking lane, a clock keeper and a sweeper: what production
runs), then, through the API only:

1. the operator creates an app (admin API); with its key the bench creates ``--matches`` matches per
   game with ``"rated": true``, every seat a built-in bot (rater ``builtin:<level>``, or
   ``builtin:<level>@<think_ms>`` for a searching level at a shortened think budget), keeping
   ``--in-flight`` of them running at once so the workers always have work and no queue piles up;
2. the seats rotate: each game plays every player count it allows with distinct levels (2 to 4: five
   seats would seat one level twice, and a level against itself teaches its rating nothing), each
   count in turn, and within a count every choice of levels in every seat order, in turn, so each
   level sits in each seat equally often;
3. once a game's matches are over, it waits until the ratings have taken every one of them (the
   leaderboard's match counts add up to the seats played: a rating is recorded when the outbox of
   the finishing commit is carried, so it trails the match's status by a moment) and reads the
   ladder from ``GET /v1/games/{game}/leaderboard?pool=bots`` with the app key.

The searching levels think less than the server's defaults (500 ms and 2000 ms per decision, which
would make 800 matches take about half a day on two cores): each seat's ``think_ms`` is shortened to
:data:`THINK_MS` of its game, or ``--normal-ms`` and ``--hard-ms`` for every game, and the ladder
prints what it used.  China needs the most: a ladder at 25 and 60 ms on the loaded machine ranked
``easy`` first there, and ``python -m bench.strength --game china --lineup normal,easy,hard,random``
(24 games each) put ``easy``'s mean score above ``normal``'s with 10, 25 and 60 iterations for
``normal`` (20, 50 and 120 for ``hard``), while with 100 and 250 ``normal`` finished ahead of
``easy`` in 75% of the games and ``hard`` in all.  A search runs about 800 iterations a second on a
quiet core of this machine in China (Confucius 800, Year of the Dragon 1,300, Taj Mahal 2,400), a
third of that on a loaded one, so China's seats think 200 and 500 ms; in the other games 25 and 60
ms put the levels in order with room to spare.

Printed per game: the matches per player count, the wall time, matches/s and commits/s, then each
level's mu, sigma, ordinal (mu - 3 sigma), rated matches, and, from the matches' own results, its
first places and mean place (1 = first) as a cross-check; then whether the acceptance order holds.
The exit status is 0 when it holds in every game, 1 when not, 2 when the run could not complete (a
match or a rating missing at the deadline).
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bench.api import ROOT, Client, free_port, start_server
from bench.procs import progress, stop_processes, stop_server
from devtools.private_redis import PrivateRedis
from engine.ai import LEVELS
from engine.registry import GAMES
from service.domain.matches.bots import LANES, BotQueue
from service.domain.ratings import bot_rater
from service.storage.client import connect
from service.storage.matches import Store

ADMIN_TOKEN = "bench-ladder-admin-token"
#: The player count a ladder match never exceeds: one seat per built-in level.
MAX_SEATS = len(LEVELS)
#: The acceptance order (issue 27, point 7): each pair's first must rank above its second.
ABOVE = (("hard", "easy"), ("normal", "easy"), ("easy", "random"))
#: Think budgets (ms per decision of ``normal`` and ``hard``) per game, shortened for the machine (see
#: the module docstring); :data:`DEFAULT_THINK` for the games not named.
THINK_MS: dict[str, tuple[int, int]] = {"china": (200, 500)}
DEFAULT_THINK = (25, 60)
#: Seconds a ladder waits for the last ratings after its matches are over (a dead committer's
#: outbox is carried by the workers' sweep within a second or two; this is a generous bound).
RATING_PATIENCE = 60.0


def arrangements(game_id: str) -> dict[int, list[tuple[str, ...]]]:
    """Per player count the game allows (at most one seat per level), every seating: each choice of
    levels in each seat order, listed so that consecutive blocks of ``n!`` seat each level in each
    seat equally often."""
    game = GAMES[game_id]
    counts = range(max(2, game.min_players), min(game.max_players, MAX_SEATS) + 1)
    return {
        n: [perm for group in itertools.combinations(LEVELS, n) for perm in itertools.permutations(group)]
        for n in counts
    }


def schedule(game_id: str, matches: int) -> list[tuple[str, ...]]:
    """The seats (levels, seat order) of the ladder's ``matches`` matches of ``game_id``: the player
    counts in turn, and per count its arrangements in turn, interleaved so a short ladder still sees
    every level in every seat (the arrangements of a count are visited with a stride prime to their
    number, so consecutive matches of a count differ in levels and in order)."""
    by_count = arrangements(game_id)
    counts = sorted(by_count)
    taken: Counter[int] = Counter()
    out = []
    for i in range(matches):
        n = counts[i % len(counts)]
        options = by_count[n]
        stride = _coprime_stride(len(options))
        out.append(options[(taken[n] * stride) % len(options)])
        taken[n] += 1
    return out


def _coprime_stride(size: int) -> int:
    """A step through ``size`` items that visits each once per ``size`` steps and is not 1 (so that
    neighbours differ more than in the order of their last seats), when ``size`` allows one."""
    for step in (7, 5, 11, 13, 3):
        if size > step and _gcd(size, step) == 1:
            return step
    return 1


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def bot_seats(levels: tuple[str, ...], think: dict[str, int]) -> list[dict[str, Any]]:
    """A match's seats: one built-in bot per level, the searching ones with their think budget."""
    seats: list[dict[str, Any]] = []
    for level in levels:
        seat: dict[str, Any] = {"name": level, "kind": "bot", "level": level}
        if level in think:
            seat["think_ms"] = think[level]
        seats.append(seat)
    return seats


# -- processes --------------------------------------------------------------------------------------


@contextmanager
def workers(redis_url: str, count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` ``tabletop worker`` processes (every lane, clock keeper and sweeper each), stopped
    (SIGTERM: a lane finishes its job first) on exit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_LOG_LEVEL="WARNING", PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT)
        for _ in range(count)
    ]
    try:
        queue = BotQueue(Store(connect(redis_url)))
        deadline = time.monotonic() + 60
        while queue.live_workers() < count * len(LANES):  # an RQ worker per lane and process
            if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                raise RuntimeError("the workers did not start")
            time.sleep(0.1)
        yield procs
    finally:
        stop_processes(procs)


# -- one game's ladder ------------------------------------------------------------------------------


@dataclass
class Rung:
    """One level's line of a game's ladder."""

    level: str
    rank: int
    mu: float
    sigma: float
    ordinal: float
    matches: int
    firsts: int = 0
    places: list[int] = field(default_factory=list)  # 1 = first, from the matches' results


@dataclass
class GameLadder:
    game: str
    matches: int
    per_count: dict[int, int]
    seconds: float
    commits: int
    think: dict[str, int]
    rungs: list[Rung]
    complete: bool
    unfinished: list[str] = field(default_factory=list)

    def ordinal(self, level: str) -> float:
        return next(r.ordinal for r in self.rungs if r.level == level)

    def holds(self) -> bool:
        """The acceptance order (:data:`ABOVE`) by ordinal."""
        levels = {r.level for r in self.rungs}
        if not self.complete or not levels >= set(LEVELS):
            return False
        return all(self.ordinal(high) > self.ordinal(low) for high, low in ABOVE)


def think_ms(game_id: str, args: argparse.Namespace) -> dict[str, int]:
    """The think budgets of ``game_id``'s searching seats: the flags', else :data:`THINK_MS`."""
    normal, hard = THINK_MS.get(game_id, DEFAULT_THINK)
    return {
        "normal": normal if args.normal_ms is None else args.normal_ms,
        "hard": hard if args.hard_ms is None else args.hard_ms,
    }


def leaderboard(client: Client, auth: dict[str, str], game_id: str) -> list[dict[str, Any]]:
    """Every row of the app's bots board for ``game_id``, following the cursor."""
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        path = f"/v1/games/{game_id}/leaderboard?pool=bots&limit=100"
        if cursor:
            path += f"&cursor={cursor}"
        status, page = client.call("GET", path, headers=auth)
        if status != 200:
            raise RuntimeError(f"leaderboard of {game_id}: {status} {page}")
        rows.extend(page["players"])
        cursor = page.get("next_cursor")
        if not cursor:
            return rows


def play_game(client: Client, auth: dict[str, str], game_id: str, args: argparse.Namespace) -> GameLadder:
    """Run ``args.matches`` rated matches of ``game_id`` (``args.in_flight`` at once) and read its
    ladder once the ratings have every one of them."""
    think = think_ms(game_id, args)
    plan = schedule(game_id, args.matches)
    seats_played: Counter[str] = Counter(level for levels in plan for level in levels)
    places: dict[str, list[int]] = defaultdict(list)
    pending = list(enumerate(plan))
    running: dict[str, tuple[str, ...]] = {}
    commits = 0
    started = time.monotonic()
    deadline = started + args.timeout
    done = 0
    last_note = started
    while (pending or running) and time.monotonic() < deadline:
        while pending and len(running) < args.in_flight:
            number, levels = pending.pop(0)
            body = {
                "game": game_id,
                "seats": bot_seats(levels, think),
                "rated": True,
                "seed": args.seed * 1_000_003 + number,
            }
            status, match = client.call("POST", "/v1/matches", body, auth)
            if status != 201:
                raise RuntimeError(f"creating a rated match of {game_id}: {status} {match}")
            running[match["id"]] = levels
        time.sleep(args.poll)
        for match_id, levels in list(running.items()):
            status, doc = client.call("GET", f"/v1/matches/{match_id}", headers=auth)
            if status != 200:
                raise RuntimeError(f"reading match {match_id}: {status} {doc}")
            if doc["status"] in ("finished", "aborted", "cancelled"):
                del running[match_id]
                done += 1
                commits += int(doc["version"])
                if doc["status"] != "finished" or not doc.get("result"):
                    raise RuntimeError(f"match {match_id} ended {doc['status']} without a result")
                ranking = doc["result"]["ranking"]
                for place, seat in enumerate(ranking, 1):
                    places[levels[seat]].append(place)
        if time.monotonic() - last_note > 30:
            last_note = time.monotonic()
            progress(f"{game_id}: {done}/{len(plan)} matches over")
    played = time.monotonic() - started
    unfinished = list(running) + [f"(not created: {len(pending)})"] * bool(pending)
    # The ratings trail the matches' status by the outbox's carrying: wait until they add up.  A level
    # at a shortened think_ms is rated as its own player (builtin:normal@25): those are this ladder's.
    raters = {bot_rater(level, think.get(level)): level for level in LEVELS}
    expected = sum(seats_played.values())
    rows: list[dict[str, Any]] = []
    patience = time.monotonic() + RATING_PATIENCE
    while True:
        rows = [r for r in leaderboard(client, auth, game_id) if str(r["player"]) in raters]
        rated = sum(int(r["matches"]) for r in rows)
        if rated >= expected or time.monotonic() > patience:
            break
        time.sleep(0.25)
    rungs = []
    for row in rows:
        level = raters[str(row["player"])]
        rung = Rung(
            level,
            int(row["rank"]),
            float(row["mu"]),
            float(row["sigma"]),
            float(row["ordinal"]),
            int(row["matches"]),
        )
        rung.places = places.get(level, [])
        rung.firsts = sum(p == 1 for p in rung.places)
        rungs.append(rung)
    per_count = Counter(len(levels) for levels in plan)
    return GameLadder(
        game_id,
        len(plan),
        dict(sorted(per_count.items())),
        played,
        commits,
        think,
        rungs,
        complete=not unfinished and rated == expected,
        unfinished=unfinished,
    )


# -- report -----------------------------------------------------------------------------------------


def report(ladder: GameLadder) -> list[str]:
    counts = ", ".join(f"{n}p {k}" for n, k in ladder.per_count.items())
    lines = [
        f"{ladder.game}: {ladder.matches} rated matches ({counts}) in {ladder.seconds:.0f} s "
        f"({ladder.matches / ladder.seconds:.2f} matches/s, "
        f"{ladder.commits / ladder.seconds:.0f} commits/s); "
        f"think_ms normal={ladder.think['normal']} hard={ladder.think['hard']}",
        f"  {'rank':>4} {'player':16s} {'mu':>7} {'sigma':>6} {'ordinal':>8} {'matches':>7} "
        f"{'firsts':>7} {'mean place':>10}",
    ]
    for r in ladder.rungs:
        mean = sum(r.places) / len(r.places) if r.places else float("nan")
        lines.append(
            f"  {r.rank:>4} {'builtin:' + r.level:16s} {r.mu:7.2f} {r.sigma:6.2f} {r.ordinal:8.2f} "
            f"{r.matches:>7} {r.firsts:>7} {mean:10.2f}"
        )
    if not ladder.complete:
        lines.append(
            f"  INCOMPLETE: {len(ladder.unfinished)} matches unfinished, or ratings missing: "
            f"{ladder.unfinished[:5]}"
        )
    verdict = "holds" if ladder.holds() else "DOES NOT HOLD"
    lines.append(f"  hard and normal above easy, easy above random (by ordinal): {verdict}")
    return lines


def run(args: argparse.Namespace) -> int:
    games = args.games.split(",")
    unknown = [g for g in games if g not in GAMES]
    if unknown:
        raise SystemExit(f"unknown game {unknown[0]!r}; known: {', '.join(sorted(GAMES))}")
    load = os.getloadavg()
    print(
        f"ladder bench: {args.matches} rated matches per game, built-in levels {', '.join(LEVELS)}, "
        f"seats rotated; think_ms shortened from 500 (normal) and 2000 (hard): "
        + "; ".join(f"{g} {think_ms(g, args)['normal']}/{think_ms(g, args)['hard']}" for g in games)
        + f"; {args.workers} tabletop worker process(es), {args.api} API process(es), "
        f"{args.in_flight} matches at once; cpus={os.cpu_count()} load average at start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        flush=True,
    )
    port = free_port()
    ladders: list[GameLadder] = []
    t0 = time.monotonic()
    with PrivateRedis() as redis_url:
        server = start_server(redis_url, port, args.api, admin_token=ADMIN_TOKEN)
        try:
            with workers(redis_url, args.workers):
                client = Client(port)
                status, app = client.call(
                    "POST",
                    "/v1/admin/apps",
                    {"name": "ladder bench"},
                    {"Authorization": f"Bearer {ADMIN_TOKEN}"},
                )
                if status != 201:
                    raise RuntimeError(f"creating the app: {status} {app}")
                auth = {"Authorization": f"Bearer {app['key']}"}
                for game_id in games:
                    ladder = play_game(client, auth, game_id, args)
                    ladders.append(ladder)
                    print("\n".join(report(ladder)), flush=True)
        finally:
            stop_server(server)
    total = time.monotonic() - t0
    matches = sum(ladder.matches for ladder in ladders)
    failed = [ladder.game for ladder in ladders if not ladder.holds()]
    print(
        f"ladder: {matches} rated matches in {total:.0f} s ({total / 60:.1f} min); "
        + (
            "the order holds in every game"
            if not failed
            else f"the order DOES NOT HOLD in {', '.join(failed)}"
        )
    )
    if not all(ladder.complete for ladder in ladders):
        return 2
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=200, help="rated matches per game")
    parser.add_argument("--games", default=",".join(sorted(GAMES)))
    parser.add_argument("--normal-ms", type=int, help="think_ms of the normal seats (default: per game)")
    parser.add_argument("--hard-ms", type=int, help="think_ms of the hard seats (default: per game)")
    parser.add_argument("--workers", type=int, default=2, help="tabletop worker processes")
    parser.add_argument("--api", type=int, default=1, help="API processes")
    parser.add_argument("--in-flight", type=int, default=8, help="matches running at once")
    parser.add_argument("--seed", type=int, default=1, help="the deals' seeds derive from it")
    parser.add_argument("--poll", type=float, default=0.5, help="seconds between looks at running matches")
    parser.add_argument("--timeout", type=float, default=4 * 3600, help="seconds a game's matches may take")
    args = parser.parse_args(argv)
    if args.matches < 1 or args.workers < 1 or args.in_flight < 1:
        parser.error("--matches, --workers and --in-flight must be positive")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
