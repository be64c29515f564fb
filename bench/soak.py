"""Soak: mixed traffic against the production stack for a long time (``python -m bench.api --soak 600``).

Runs a private Redis (AOF on, as production), gunicorn (``tabletop serve``) and one bot worker
(``tabletop worker``), then clients in several processes, each thread in one role until the end:

``human``   creates human-only matches and plays them (local replay for legal moves, ``If-Match`` and an
            ``Idempotency-Key`` on every move); at the end of each match its log must hold exactly the
            acknowledged moves, else the difference counts as lost moves.
``poller``  creates a match of bots and follows it as a spectator: conditional ``GET`` (mostly 304)
            and events long-polls, until it is over; a bot match without progress for ``STALL_S`` is
            counted as stalled.
``stream``  creates a match of bots and reads its NDJSON event stream to ``match_over``.

Prints requests/s, moves/s, latency percentiles per request kind, status counts (5xx and transport
errors apart), lost moves, bot matches finished and stalled, and the resident memory of the API
processes (gunicorn master and workers) and the bot worker after warm-up and at the end.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from typing import Any

from bench.api import ROOT, Client, free_port, percentile, start_server
from bench.procs import rss_mb
from devtools.private_redis import PrivateRedis

#: A bot match with no new version for this long is stalled (sweep interval + a think budget, twice).
STALL_S = 60.0
#: Client roles, cycled over the threads: half play, a quarter polls, a quarter streams.
ROLES = ("human", "poller", "human", "stream")
BOT_LEVELS = ("random", "easy")


class Recorder:
    """Per-thread figures, merged at the end: latencies by request kind, statuses, counters."""

    def __init__(self) -> None:
        self.latency: dict[str, list[float]] = {}
        self.status: Counter[str] = Counter()
        self.count: Counter[str] = Counter()

    def request(
        self, client: Client, kind: str, method: str, path: str, body: Any = None, **headers: str
    ) -> tuple[int, Any]:
        t0 = time.perf_counter()
        try:
            status, doc = client.call(method, path, body, headers)
        except (OSError, ValueError) as exc:
            client.conn.close()
            self.status[f"transport {type(exc).__name__}"] += 1
            return 0, None
        self.latency.setdefault(kind, []).append(time.perf_counter() - t0)
        self.status[str(status)] += 1
        return status, doc

    def merge(self, other: dict[str, Any]) -> None:
        for kind, values in other["latency"].items():
            self.latency.setdefault(kind, []).extend(values)
        self.status.update(other["status"])
        self.count.update(other["count"])

    def dump(self) -> dict[str, Any]:
        return {"latency": self.latency, "status": dict(self.status), "count": dict(self.count)}


def play_humans(client: Client, rec: Recorder, rng: random.Random, stop_at: float, game_id: str) -> None:
    from engine.registry import get_game

    game = get_game(game_id)
    while time.monotonic() < stop_at:
        seed = rng.getrandbits(40)
        body = {"game": game_id, "seats": [{"name": f"p{i}"} for i in range(3)], "seed": seed}
        status, match = rec.request(client, "create", "POST", "/v1/matches", body)
        if status != 201:
            continue
        shadow = game.setup(3, match["options"], seed=seed)
        tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        url, version, acked = f"/v1/matches/{match['id']}", 0, 0
        while game.to_move(shadow) is not None and time.monotonic() < stop_at:
            action = rng.choice(game.legal_actions(shadow))
            headers = {
                "Authorization": f"Bearer {tokens[game.to_move(shadow)]}",
                "If-Match": f'"{version}"',
                "Idempotency-Key": str(uuid.uuid4()),
            }
            for _attempt in range(3):  # a transport error is retried with the same key
                status, moved = rec.request(
                    client, "move", "POST", f"{url}/actions", {"action": action}, **headers
                )
                if status:
                    break
            if status != 200:
                rec.count["moves refused"] += 1
                break
            game.apply(shadow, action)
            version, acked = moved["version"], acked + 1
        rec.count["human moves"] += acked
        if game.to_move(shadow) is None:
            status, log = rec.request(client, "log", "GET", f"{url}/log")
            stored = len(log["entries"]) if status == 200 and log["complete"] else 0
            rec.count["lost moves"] += abs(acked - stored)
            rec.count["human matches"] += 1


def bot_match(client: Client, rec: Recorder, rng: random.Random, game_id: str) -> str | None:
    seats = [{"name": f"b{i}", "kind": "bot", "level": rng.choice(BOT_LEVELS)} for i in range(3)]
    status, match = rec.request(client, "create", "POST", "/v1/matches", {"game": game_id, "seats": seats})
    return match["id"] if status == 201 else None


def poll_bots(client: Client, rec: Recorder, rng: random.Random, stop_at: float, game_id: str) -> None:
    while time.monotonic() < stop_at:
        match_id = bot_match(client, rec, rng, game_id)
        if match_id is None:
            continue
        version, moved_at, after = 0, time.monotonic(), "0-0"
        while time.monotonic() < stop_at:
            status, doc = rec.request(
                client, "read", "GET", f"/v1/matches/{match_id}", **{"If-None-Match": f'"{version}"'}
            )
            if status == 200:
                version, moved_at = doc["version"], time.monotonic()
                if doc["status"] == "finished":
                    rec.count["bot matches finished"] += 1
                    rec.count["bot moves"] += version
                    break
            if time.monotonic() - moved_at > STALL_S:
                rec.count["bot matches stalled"] += 1
                break
            status, page = rec.request(
                client, "long-poll", "GET", f"/v1/matches/{match_id}/events?after={after}&wait=2"
            )
            if status == 200:
                after = page["last_id"]


def stream_bots(port: int, rec: Recorder, rng: random.Random, stop_at: float, game_id: str) -> None:
    import http.client

    while time.monotonic() < stop_at:
        match_id = bot_match(Client(port), rec, rng, game_id)  # a fresh connection: the last one idled
        if match_id is None:
            continue
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=STALL_S)
        t0 = time.perf_counter()
        try:
            conn.request("GET", f"/v1/matches/{match_id}/events", headers={"Accept": "application/x-ndjson"})
            resp = conn.getresponse()
            rec.status[str(resp.status)] += 1
            rec.latency.setdefault("stream open", []).append(time.perf_counter() - t0)
            last = None
            for line in resp:
                last = json.loads(line)
                if last.get("type") == "match_over" or time.monotonic() > stop_at:
                    break
            if last and last.get("type") == "match_over":
                rec.count["streams to match_over"] += 1
                rec.count["bot moves"] += int(last["id"].split("-")[0])
            else:
                rec.count["streams cut"] += 1
        except (OSError, ValueError) as exc:
            rec.status[f"transport {type(exc).__name__}"] += 1
        finally:
            conn.close()


def client_thread(role: str, port: int, seed: int, stop_at: float, game_id: str, out: list[Any]) -> None:
    rec, rng = Recorder(), random.Random(seed)
    if role == "human":
        play_humans(Client(port), rec, rng, stop_at, game_id)
    elif role == "poller":
        poll_bots(Client(port), rec, rng, stop_at, game_id)
    else:
        stream_bots(port, rec, rng, stop_at, game_id)
    out.append(rec.dump())


def client_process(first: int, count: int, port: int, stop_at: float, game_id: str, results: Any) -> None:
    local: list[Any] = []
    threads = [
        threading.Thread(target=client_thread, args=(ROLES[i % len(ROLES)], port, i, stop_at, game_id, local))
        for i in range(first, first + count)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results.extend(local)


def run(
    seconds: float, clients: int, procs: int, workers: int, game_id: str, settings: dict[str, str]
) -> dict[str, Any]:
    """The soak; returns its figures (also used by the short soak test)."""
    port = free_port()
    data_dir = tempfile.mkdtemp(prefix="tabletop-soak-")
    with PrivateRedis(data_dir=data_dir) as redis_url:
        env = {**os.environ, "TABLETOP_REDIS_URL": redis_url, "TABLETOP_LOG_LEVEL": "WARNING",
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        api = start_server(redis_url, port, workers, **settings)
        worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        try:
            stop_at = time.monotonic() + seconds
            with mp.Manager() as manager:
                results = manager.list()
                jobs = []
                for p in range(procs):
                    share = clients // procs + (1 if p < clients % procs else 0)
                    first = sum(clients // procs + (1 if q < clients % procs else 0) for q in range(p))
                    jobs.append(
                        mp.Process(
                            target=client_process, args=(first, share, port, stop_at, game_id, results)
                        )
                    )
                for job in jobs:
                    job.start()
                time.sleep(min(30.0, seconds / 10))  # warm-up: imports done, pools and caches filled
                memory_start = (rss_mb(api.pid), rss_mb(worker.pid))
                for job in jobs:
                    job.join()
                memory_end = (rss_mb(api.pid), rss_mb(worker.pid))
                rec = Recorder()
                for item in results:
                    rec.merge(item)
        finally:
            for proc in (worker, api):
                proc.terminate()
                proc.wait(timeout=60)
    shutil.rmtree(data_dir, ignore_errors=True)
    return {"recorder": rec, "memory_start": memory_start, "memory_end": memory_end, "seconds": seconds}


def report(figures: dict[str, Any], clients: int, workers: int, game_id: str) -> int:
    """Print the figures; 1 when the run missed a target (a 5xx, a lost move, a stalled bot match)."""
    rec: Recorder = figures["recorder"]
    seconds = figures["seconds"]
    requests = sum(rec.status.values())
    errors_5xx = sum(n for s, n in rec.status.items() if s.startswith("5"))
    transport = sum(n for s, n in rec.status.items() if s.startswith("transport"))
    moves = rec.count["human moves"] + rec.count["bot moves"]
    print(
        f"soak: {seconds:g} s game={game_id} clients={clients} (roles {'/'.join(ROLES)}) server "
        f"processes={workers} bot workers=1 cpus={os.cpu_count()}"
    )
    count = rec.count
    print(
        f"throughput           {requests / seconds:10.0f} requests/s   {moves / seconds:8.1f} moves/s "
        f"(human {count['human moves']}, bot {count['bot moves']})"
    )
    for kind in sorted(rec.latency):
        values = rec.latency[kind]
        marks = "  ".join(f"p{q} {percentile(values, q) * 1000:7.1f}" for q in (50, 95, 99))
        print(f"latency ms {kind:12s} {marks}   (n={len(values)})")
    print(f"statuses             {dict(sorted(rec.status.items()))}")
    print(
        f"errors               5xx {errors_5xx}   transport {transport}   lost moves {count['lost moves']}"
        f"   refused moves {count['moves refused']}"
    )
    print(
        f"matches              human finished {count['human matches']}   bot finished "
        f"{count['bot matches finished']}   bot stalled {count['bot matches stalled']}   "
        f"streams to match_over {count['streams to match_over']}"
    )
    (api0, worker0), (api1, worker1) = figures["memory_start"], figures["memory_end"]
    print(
        f"memory MiB           API {api0:.0f} -> {api1:.0f} ({(api1 - api0) / api0:+.1%})   "
        f"bot worker {worker0:.0f} -> {worker1:.0f} ({(worker1 - worker0) / worker0:+.1%})"
    )
    failed = errors_5xx or count["lost moves"] or count["bot matches stalled"]
    return 1 if failed else 0
