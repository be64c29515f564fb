"""Where a move's CPU goes: N moves (``POST /v1/matches/{id}/actions``) through the real WSGI app against a
real Redis, in one process, beside N ``GET /healthz`` requests for scale (issue 30 point 2).

    python -m bench.profile_move --moves 3000
    python -m bench.profile_move --moves 3000 --top 40 --sort tottime

``bench.api`` gives the honest figure (gunicorn, gevent, sockets, several processes); this one says
where the time goes inside the app.  Only the app's own call is timed and profiled: the WSGI environ of
each request is built beforehand and the legal move drawn from a local replay of the match (as
``bench.api`` does), so neither the test client nor the engine's move generation is counted.  Match
creations are not counted either (``bench.api`` spreads them over the moves).

Prints, per request kind: CPU ms (process time, no profiler), Redis round trips (the connections'
``send_packed_command`` calls: one per command or pipeline) and Redis commands (``INFO commandstats``,
the commands a script runs included); then the profile's top functions.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import pstats
import random
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import redis
from redis.connection import AbstractConnection
from werkzeug.test import EnvironBuilder

from devtools.private_redis import PrivateRedis
from engine.registry import get_game
from service import logs
from service.config import Config
from service.http.app import create_app

#: One WSGI request, ready to run: its environ (built outside the measured section).
Request = dict[str, Any]


class RoundTrips:
    """Counts redis-py's writes to its connections: one per command sent alone, one per pipeline."""

    def __init__(self) -> None:
        self.count = 0
        self._original = AbstractConnection.send_packed_command

    def __enter__(self) -> RoundTrips:
        original = self._original

        def counted(conn: AbstractConnection, command: Any, check_health: bool = True) -> None:
            self.count += 1
            original(conn, command, check_health)  # type: ignore[no-untyped-call]

        AbstractConnection.send_packed_command = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        AbstractConnection.send_packed_command = self._original  # type: ignore[method-assign]


def command_counts(client: redis.Redis) -> dict[str, int]:
    """Calls per Redis command so far (``INFO commandstats``)."""
    stats = client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def environ(method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Request:
    data = None if body is None else orjson.dumps(body)
    sent: dict[str, str] = {"Content-Type": "application/json"} if data else {}
    builder = EnvironBuilder(
        path=path,
        method=method,
        data=data,
        headers=[*sent.items(), *(headers or {}).items()],
        environ_base={"REMOTE_ADDR": "127.0.0.1"},
    )
    try:
        return builder.get_environ()
    finally:
        builder.close()


def call(app: Any, env: Request) -> tuple[int, bytes]:
    """Run one request through the WSGI app and read its whole body, as a server would."""
    status: list[str] = []

    def start_response(s: str, headers: Any, exc_info: Any = None) -> None:
        status.append(s)

    result = app(env, start_response)
    try:
        body = b"".join(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    return int(status[0].split()[0]), body


def plans(app: Any, game_id: str, players: int, rng: random.Random) -> Iterator[Callable[[], Request]]:
    """Move requests of random matches, one after the other: each yields a function that builds the next
    move's environ (the match is created and the previous move's answer read outside what is timed)."""
    game = get_game(game_id)
    while True:
        seed = rng.getrandbits(32)
        body = {"game": game_id, "seats": [{"name": f"p{i}"} for i in range(players)], "seed": seed}
        status, raw = call(app, environ("POST", "/v1/matches", body))
        assert status == 201, raw
        match = orjson.loads(raw)
        shadow = game.setup(players, match["options"], seed=seed)
        tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        seat, version = match["to_move"], match["version"]
        while seat is not None:
            action = rng.choice(game.legal_actions(shadow))
            game.apply(shadow, action)
            headers = {"Authorization": f"Bearer {tokens[seat]}", "If-Match": f'"{version}"'}
            url = f"/v1/matches/{match['id']}/actions"
            yield functools.partial(environ, "POST", url, {"action": action}, headers)
            seat, version = seat_after(match["id"])


#: The last move's answer, read by :func:`plans` for the next decision (set by :func:`run_moves`).
_ANSWERS: dict[str, tuple[int | None, int]] = {}


def seat_after(match_id: str) -> tuple[int | None, int]:
    return _ANSWERS[match_id]


def run_moves(
    app: Any,
    n: int,
    game_id: str,
    players: int,
    profiler: cProfile.Profile | None,
    rng: random.Random,
    commands: dict[str, int] | None = None,
    client: redis.Redis | None = None,
) -> tuple[float, int]:
    """``n`` moves; returns the process time spent inside the app and the round trips they made.  With
    ``client``, adds the Redis commands of the moves alone (not the creations) to ``commands``."""
    spent = 0.0
    trips = 0
    source = plans(app, game_id, players, rng)
    for _ in range(n):
        env = next(source)()
        match_id = env["PATH_INFO"].split("/")[3]
        before = command_counts(client) if client is not None else {}
        with RoundTrips() as counter:
            t0 = time.process_time()
            if profiler is not None:
                profiler.enable()
            status, raw = call(app, env)
            if profiler is not None:
                profiler.disable()
            spent += time.process_time() - t0
        trips += counter.count
        if client is not None and commands is not None:
            for name, calls in command_counts(client).items():
                commands[name] = commands.get(name, 0) + calls - before.get(name, 0)
        assert status == 200, raw
        answer = orjson.loads(raw)
        _ANSWERS[match_id] = (answer["to_move"], answer["version"])
    return spent, trips


def run_healthz(app: Any, n: int, profiler: cProfile.Profile | None) -> tuple[float, int]:
    spent = 0.0
    trips = 0
    for _ in range(n):
        env = environ("GET", "/healthz")
        with RoundTrips() as counter:
            t0 = time.process_time()
            if profiler is not None:
                profiler.enable()
            status, _ = call(app, env)
            if profiler is not None:
                profiler.disable()
            spent += time.process_time() - t0
        trips += counter.count
        assert status == 200
    return spent, trips


def top(profiler: cProfile.Profile, sort: str, lines: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(sort).print_stats(lines)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--top", type=int, default=30, help="profile lines to print (0: no profile)")
    parser.add_argument("--sort", default="tottime", help="pstats order: tottime, cumulative, ...")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--wall",
        action="store_true",
        help="profile wall time (default: CPU time, so waits on Redis and on a busy machine do not count)",
    )
    args = parser.parse_args(argv)
    logs.configure("WARNING")  # as bench.api runs the server: the access line is built, not written
    with PrivateRedis() as url:
        config = Config(redis_url=url, allow_seed=True, ready_needs_workers=False)
        app = create_app(config)
        client = redis.Redis.from_url(url)
        # Warm up (script loading, first-request set-up), then measure without the profiler.
        run_moves(app, 200, args.game, args.players, None, random.Random(args.seed))
        run_healthz(app, 200, None)
        n = args.moves
        move_cpu, move_trips = run_moves(app, n, args.game, args.players, None, random.Random(2))
        healthz_cpu, healthz_trips = run_healthz(app, n, None)
        commands: dict[str, int] = {}
        run_moves(app, min(n, 500), args.game, args.players, None, random.Random(2), commands, client)
        commands.pop("info", None)
        python = sys.version.split()[0]
        print(f"profile_move: game={args.game} players={args.players} moves={n} python={python}")
        print(f"move     CPU ms {move_cpu / n * 1000:.3f}   Redis round trips {move_trips / n:.2f}")
        print(f"healthz  CPU ms {healthz_cpu / n * 1000:.3f}   Redis round trips {healthz_trips / n:.2f}")
        print(f"ratio move/healthz {move_cpu / healthz_cpu:.2f}")
        counted = min(n, 500)
        per_move = ", ".join(
            f"{name} {calls / counted:.2f}"
            for name, calls in sorted(commands.items(), key=lambda kv: -kv[1])
            if calls
        )
        print(f"Redis commands per move (those a script runs included): {per_move}")
        if args.top:
            timer = time.perf_counter if args.wall else time.process_time
            profiler = cProfile.Profile(timer)
            run_moves(app, n, args.game, args.players, profiler, random.Random(3))
            print(f"\n-- move profile ({n} moves), by {args.sort} --")
            print(top(profiler, args.sort, args.top))
            profiler = cProfile.Profile(timer)
            run_healthz(app, n, profiler)
            print(f"-- healthz profile ({n} requests), by {args.sort} --")
            print(top(profiler, args.sort, max(10, args.top // 2)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
