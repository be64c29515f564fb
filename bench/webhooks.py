"""Webhooks: deliveries/s per lane process, and commit-to-delivery latency of human-paced matches with
healthy and timing-out receivers (``python -m bench.webhooks``; ``--quick`` for a smoke run).

Issue 26 asks for at least 500 deliveries/s per worker process, a p99 under 1 s from a move's commit to
its webhook's arrival with healthy receivers, and the same p99 for the healthy receivers while 10% of the
endpoints time out.  In one run this bench measures, each on a private Redis of its own:

(a) **drain rate**: ``--deliveries`` messages queued (``Webhooks.enqueue``, as the outbox does) for
    ``--drain-apps`` apps of ``--drain-endpoints`` endpoints each, spread over many matches (a match's
    messages go out in order, one at a time per endpoint), before one delivery lane process starts;
    the rate at which they reach a fast local receiver (:mod:`bench.webhook_receiver`: asyncio, raw
    HTTP, ``204``) from the lane's first delivery to its last, and in the middle 80% (steady state).
    Baseline in the same run: one plain keep-alive HTTP client posting the same body to the same
    receiver as fast as it can, the ceiling of the receiver and the loopback on this machine.
(b) **commit to delivery**: ``--matches`` three-player matches of ``--apps`` apps (one endpoint each,
    every type), each moved about every ``--pace`` seconds through the API (``tabletop serve``) with
    the token of the player to move; a ``tabletop worker`` (as deployed: one delivery lane process
    beside its idle bot lanes, and the outbox sweep) delivers; timed from ``--warmup`` seconds after its
    first delivery, so that the worker's start-up is no commit's latency.  Latency is from
    the move's ``200`` (the commit lies between the send and the answer; from the send is printed
    too) to the first arrival of each webhook about that version (``data.match_id``, ``data.version``).
(c) the same moves, once ``--timeout-share`` of the endpoints (every tenth app) were pointed at a
    receiver that accepts and never answers: the other endpoints' p50/p99 beside (b)'s for the same
    apps (the ratio is the figure: 1.0 is "unchanged").

(d) **catch-up** (issue 42; its own run: ``--only catch-up``): a receiver stopped for ``--outage`` seconds
    while ``--catch-up-matches`` matches' notes are queued for it (a note every 0.25 s, a match's in
    order), then started again on its port; with the default day-long retry window.  Measured: from the
    receiver's return to its first 2xx, and to the last note of the backlog delivered (and from that
    first success to it), in two cases: *busy* (new notes of other matches keep coming after the
    return, as in the issue's measurement: they go through at once) and *quiet* (nothing else comes).
    ``--base-root DIR`` runs the same rounds with the delivery lane of another checkout (``git worktree
    add /tmp/base-w HEAD`` of the code before the change), alternately, for a same-run baseline (the
    messages are queued by this checkout's domain: the stored shape is the same).

Every move of a healthy app that passed the turn must have reached the receiver by the end (none
lost); the timing-out endpoints' messages stay queued (retried with backoff), which is printed.  So that
a tail explains itself, the bench also prints the three slowest deliveries split into queueing (from
the 200), waiting to be claimed and sending; how many of the healthy endpoints' messages needed more
than one attempt; and, for any due webhook not delivered by the end, where it is (its delivery log
entry, or the match's outbox).
Everything shares the machine's cores (the API, Redis, the lane, the receivers and the pacing
clients), as in the other benchmarks.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import multiprocessing as mp
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bench.api import Client, free_port, percentile, start_server
from bench.procs import cpu_seconds, descendants
from bench.webhook_receiver import ReceiverProcess
from devtools.private_redis import PrivateRedis

ROOT = Path(__file__).resolve().parents[1]
GAME, SEATS = "year_of_dragon", 3
#: Matches one pacing thread plays in turn.
PACED_PER_THREAD = 50
#: Settings every process of the bench runs with: the receivers are on loopback, over plain http.
WEBHOOK_SETTINGS = {"webhook_allow_http": "1", "webhook_allow_private": "1"}


def environment(redis_url: str, **settings: Any) -> dict[str, str]:
    """The environment of a server or worker process: ``TABLETOP_<NAME>`` from ``settings``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update({f"TABLETOP_{k.upper()}": str(v) for k, v in {**WEBHOOK_SETTINGS, **settings}.items()})
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_ALLOW_SEED="1", PYTHONPATH=str(ROOT))
    env.setdefault("TABLETOP_LOG_LEVEL", "WARNING")
    return env


def start_lane(
    redis_url: str, log: Any = None, root: Path = ROOT, **settings: Any
) -> subprocess.Popen[bytes]:
    """One delivery lane process (what ``tabletop worker`` starts beside its bot lanes), from the
    checkout at ``root`` (another one: a baseline)."""
    env = environment(redis_url, **settings)
    env["PYTHONPATH"] = str(root)
    return subprocess.Popen(
        [sys.executable, "-m", "workers.webhooks"], env=env, cwd=root, stdout=log, stderr=log
    )


def start_worker(redis_url: str, log: Any = None, **settings: Any) -> subprocess.Popen[bytes]:
    """``tabletop worker``, as deployed: its bot lanes (idle here), its clock keeper with the outbox
    sweep (which carries a commit whose drain was deferred), and one delivery lane process."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "worker"],
        env=environment(redis_url, **settings),
        cwd=ROOT,
        stdout=log,
        stderr=log,
    )


def stop_tree(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """SIGTERM a process, SIGKILL it and everything below it if it lingers."""
    if proc.poll() is not None:
        return
    below = descendants(proc.pid)[1:]
    proc.terminate()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=timeout)
    for pid in [proc.pid, *below]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=10)


def domain(redis_url: str, **settings: Any) -> Any:
    """The domain (:func:`service.wiring.build`) over ``redis_url``, for setting up."""
    from engine.registry import GAMES
    from service.config import Config
    from service.storage.matches import connect_store
    from service.wiring import build

    config = Config(
        redis_url=redis_url, allow_seed=True, webhook_allow_http=True, webhook_allow_private=True, **settings
    )
    return build(config, store=connect_store(config), games=GAMES)


def app_caller(app: str) -> Any:
    from service.domain.identity import APP, Caller

    return Caller(APP, app=app, scopes=frozenset({"read", "play"}))


def ms(values: list[float], q: int) -> float:
    return percentile(values, q) * 1000 if values else float("nan")


# -- (a) drain rate ---------------------------------------------------------------------------------


def your_turn(source: str, number: int, player: int) -> dict[str, Any]:
    """A feed entry as a move's outbox carries it (the size and shape of a real one)."""
    return {
        "type": "your_turn",
        "match_id": source,
        "game": GAME,
        "version": number,
        "status": "active",
        "seat": player % SEATS,
        "to_move": player % SEATS,
        "my_turn": True,
        "deadline": None,
    }


def plain_client(port: int, body: bytes, seconds: float, out: Any) -> None:
    """Baseline: one keep-alive connection posting ``body`` back to back for ``seconds``."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json", "webhook-id": "msg_baseline"}
    n, stop_at = 0, time.monotonic() + seconds
    started = time.monotonic()
    while time.monotonic() < stop_at:
        conn.request("POST", "/ok/baseline", body=body, headers=headers)
        conn.getresponse().read()
        n += 1
    out.put(n / (time.monotonic() - started))


@dataclass
class Drain:
    deliveries: int = 0
    received: int = 0
    unique: int = 0
    enqueue_s: float = 0.0
    overall: float = 0.0
    steady: float = 0.0
    baseline: float = 0.0
    start_to_first_s: float = 0.0
    lane_cpu_ms: float = 0.0
    #: The lane's CPU seconds per second while it drained: how much of a core it got.
    lane_core_share: float = 0.0
    redis_cpu_ms: float = 0.0
    receiver_cpu_ms: float = 0.0


def drain_rate(args: argparse.Namespace) -> Drain:
    """Phase (a): queue the messages, start one lane, time the drain at the receiver."""
    result = Drain()
    per_app = args.deliveries // (args.drain_apps * args.drain_endpoints)
    result.deliveries = per_app * args.drain_apps * args.drain_endpoints
    with PrivateRedis() as redis_url, ReceiverProcess() as receiver:
        wired = domain(redis_url)
        for a in range(args.drain_apps):
            app = wired.accounts.create_app(f"Drain {a}")["id"]
            for e in range(args.drain_endpoints):
                wired.webhooks.create(app, receiver.url(f"/ok/{app}/{e}"), None, f"drain {e}")
            started = time.perf_counter()
            for n in range(per_app):
                player = n % args.players_per_app
                source = f"m{a}x{n % args.drain_matches}"
                wired.webhooks.enqueue(f"{app}:p{player}", source, n, your_turn(source, n, player))
            result.enqueue_s += time.perf_counter() - started
        body = orjson.dumps(
            {"type": "your_turn", "timestamp": "2025-01-01T00:00:00Z", "data": your_turn("m", 1, 0)}
        )
        out: Any = mp.get_context("spawn").Queue()
        baseline = mp.get_context("spawn").Process(
            target=plain_client, args=(receiver.port, body, args.baseline_seconds, out)
        )
        baseline.start()
        result.baseline = out.get(timeout=args.baseline_seconds + 60)
        baseline.join()
        before = receiver.count()
        redis_pids = [p for p in descendants(os.getpid()) if _comm(p).startswith("redis-server")]
        cpu_before = cpu_seconds(redis_pids), cpu_seconds([receiver.proc.pid])  # type: ignore[union-attr]
        with open(os.devnull, "wb") as devnull:
            started_at = time.time()
            lane = start_lane(redis_url, devnull)
        try:
            deadline = time.monotonic() + args.drain_deadline
            # CPU from the first delivery on: the lane's start (imports, gevent) is not a delivery's.
            lane_cpu_first, first_count, first_at = None, 0, time.monotonic()
            while (got := receiver.count() - before) < result.deliveries and time.monotonic() < deadline:
                if lane.poll() is not None:
                    raise RuntimeError(f"the delivery lane exited with {lane.returncode}")
                if lane_cpu_first is None and got > 0:
                    lane_cpu_first, first_count = cpu_seconds(descendants(lane.pid)), got
                    first_at = time.monotonic()
                time.sleep(0.02 if lane_cpu_first is None else 0.1)
            lane_cpu = cpu_seconds(descendants(lane.pid)) - (lane_cpu_first or 0.0)
            drained_at = time.monotonic()
            time.sleep(0.5)  # a duplicate, if any, would arrive now
        finally:
            stop_tree(lane)
        records = [r for r in receiver.records(before, brief=True) if r["path"] != "/ok/baseline"]
        redis_cpu = cpu_seconds(redis_pids) - cpu_before[0]
        receiver_cpu = cpu_seconds([receiver.proc.pid]) - cpu_before[1]  # type: ignore[union-attr]
    result.lane_cpu_ms = lane_cpu / max(1, len(records) - first_count) * 1000
    result.lane_core_share = lane_cpu / max(1e-9, drained_at - first_at)
    result.received = len(records)
    result.unique = len({r["id"] for r in records})
    times = sorted(r["t"] for r in records)
    if len(times) > 1:
        result.overall = (len(times) - 1) / (times[-1] - times[0])
        lo, hi = len(times) // 10, len(times) * 9 // 10
        result.steady = (hi - lo) / max(1e-9, times[hi] - times[lo])
        result.start_to_first_s = times[0] - started_at
    n = max(1, result.received)
    result.redis_cpu_ms = redis_cpu / n * 1000
    result.receiver_cpu_ms = receiver_cpu / n * 1000
    return result


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text()
    except OSError:
        return ""


# -- (b) and (c): human-paced matches -------------------------------------------------------------


@dataclass
class Table:
    """One paced match as its pacing thread knows it."""

    id: str
    app: int
    seed: int
    options: dict[str, Any]
    tokens: list[str]  # the player token of each seat
    seat: int | None
    version: int


@dataclass
class Paced:
    """What one pacing process did: every move (match id, app index, version made, sent, answered,
    whether the turn passed to another seat, so that a ``your_turn`` webhook is due), and statuses."""

    moves: list[tuple[str, int, int, float, float, bool]] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    finished: int = 0


def pace_process(port: int, tables: list[Table], pace: float, stop: Any, out: Any) -> None:
    """Move ``tables`` at human speed (a thread per :data:`PACED_PER_THREAD`, in turn, each match about
    every ``pace`` seconds) until ``stop`` is set; puts a :class:`Paced` on ``out``."""
    from engine.registry import get_game

    game = get_game(GAME)
    result = Paced()
    lock = threading.Lock()

    def play_some(mine: list[Table]) -> None:
        client = Client(port, reconnect=0)
        rng = random.Random(mine[0].seed)
        shadows = {t.id: game.setup(SEATS, t.options, seed=t.seed) for t in mine}
        moves: list[tuple[str, int, int, float, float, bool]] = []
        statuses: Counter[str] = Counter()
        finished = 0
        if stop.wait(rng.random() * pace / len(mine)):  # spread the first moves over the pace
            mine = []
        while mine and not stop.is_set():
            for table in mine:
                if stop.wait(pace / len(mine)):
                    break
                if table.seat is None:
                    continue
                action = rng.choice(game.legal_actions(shadows[table.id]))
                headers = {
                    "Authorization": f"Bearer {table.tokens[table.seat]}",
                    "If-Match": f'"{table.version}"',
                }
                sent = time.time()
                try:
                    status, moved = client.call(
                        "POST", f"/v1/matches/{table.id}/actions", {"action": action}, headers
                    )
                except (OSError, http.client.HTTPException):
                    client.conn.close()
                    client = Client(port, reconnect=0)
                    statuses["transport error"] += 1
                    table.seat = None
                    continue
                answered = time.time()
                statuses[str(status)] += 1
                if status != 200:  # out of step with the server: leave the match
                    table.seat = None
                    continue
                game.apply(shadows[table.id], action)
                passed = moved["status"] == "active" and moved["to_move"] not in (None, table.seat)
                moves.append((table.id, table.app, moved["version"], sent, answered, passed))
                table.seat, table.version = moved["to_move"], moved["version"]
                if moved["status"] != "active" or moved["to_move"] is None:
                    table.seat = None
                    finished += 1
        with lock:
            result.moves.extend(moves)
            result.statuses.update(statuses)
            result.finished += finished

    threads = [
        threading.Thread(target=play_some, args=(tables[i : i + PACED_PER_THREAD],))
        for i in range(0, len(tables), PACED_PER_THREAD)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(result)


def set_up_matches(
    wired: Any, args: argparse.Namespace, receiver: ReceiverProcess
) -> tuple[list[str], list[str], list[Table]]:
    """``--apps`` apps with one endpoint each (every type) and their players; ``--matches`` matches
    spread over the apps, each seating three of its app's players.  The app ids, the endpoint ids and
    the tables."""
    apps, endpoints, tables = [], [], []
    per_app = -(-args.matches // args.apps)
    rng = random.Random(26)
    for a in range(args.apps):
        app = wired.accounts.create_app(f"Paced {a}")["id"]
        caller = app_caller(app)
        apps.append(app)
        endpoints.append(wired.webhooks.create(app, receiver.url(f"/ok/{app}"), None, "paced")["id"])
        players = max(SEATS, per_app)  # every player sits in about SEATS matches
        tokens = []
        for p in range(players):
            wired.accounts.put_player(caller, f"p{p}", f"Player {p}", False)
            tokens.append(wired.accounts.mint_token(caller, f"p{p}", ["read", "play"], None)["token"])
        for j in range(min(per_app, args.matches - a * per_app)):
            seated = [(j + s * max(1, players // SEATS)) % players for s in range(SEATS)]
            seed = rng.getrandbits(32)
            seats = [{"name": f"P{p}", "kind": "human", "player": f"p{p}"} for p in seated]
            request = {"game": GAME, "seats": seats, "options": {}, "seed": seed}
            doc = wired.matches.create(request, caller=caller)
            tables.append(
                Table(
                    doc["id"],
                    a,
                    seed,
                    doc["options"],
                    [tokens[p] for p in seated],
                    doc["to_move"],
                    doc["version"],
                )
            )
    return apps, endpoints, tables


@dataclass
class Window:
    """Latencies (s) of one phase's moves of the healthy apps: from the 200, from the send."""

    moves: int = 0
    due: int = 0
    delivered: int = 0
    from_ok: list[float] = field(default_factory=list)
    from_send: list[float] = field(default_factory=list)


@dataclass
class PacedRun:
    apps: int = 0
    matches: int = 0
    timing_out: int = 0
    setup_s: float = 0.0
    #: From the pacing's start to the first delivery (the worker's start-up, left out of (b)).
    worker_ready_s: float = 0.0
    windows: dict[str, Window] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    duplicates: int = 0
    hung_requests: int = 0
    #: Moves of the timing-out apps in (c) that handed the turn on (each owes their endpoint a webhook).
    sick_passes: int = 0
    pending_timing_out: str = ""
    #: Why a due webhook had not arrived by the end (the first few), from the delivery log and outbox.
    missing: list[str] = field(default_factory=list)
    #: The healthy endpoints' messages that took more than one attempt, and why.
    retried: str = ""
    #: Where the time of the slowest healthy deliveries went (queueing, claiming, sending).
    slowest: list[str] = field(default_factory=list)


def wait_for_first_delivery(
    receiver: ReceiverProcess, worker: subprocess.Popen[bytes], deadline: float
) -> float:
    """Seconds until ``receiver`` got its first request (the worker's delivery lane is up)."""
    started = time.monotonic()
    while receiver.count() == 0:
        if worker.poll() is not None:
            raise RuntimeError(f"tabletop worker exited ({worker.returncode}) before its first delivery")
        if time.monotonic() - started > deadline:
            raise RuntimeError(f"no webhook delivered {deadline:g} s after the pacing began")
        time.sleep(0.1)
    return time.monotonic() - started


def paced(args: argparse.Namespace) -> PacedRun:
    """Phases (b) and (c) on one server, worker and pair of receivers."""
    run = PacedRun(apps=args.apps, matches=args.matches)
    port = free_port()
    settings = {"webhook_timeout_seconds": args.timeout}
    with PrivateRedis() as redis_url, ReceiverProcess() as healthy, ReceiverProcess() as hanging:
        server = start_server(redis_url, port, args.server_procs, **WEBHOOK_SETTINGS, **settings)
        with open(os.devnull, "wb") as devnull:
            worker = start_worker(redis_url, devnull, **settings)
        try:
            started = time.perf_counter()
            wired = domain(redis_url, webhook_timeout_seconds=args.timeout)
            apps, endpoints, tables = set_up_matches(wired, args, healthy)
            run.setup_s = time.perf_counter() - started
            step = max(1, round(1 / args.timeout_share)) if args.timeout_share > 0 else 0
            sick = set(range(0, args.apps, step)) if step else set()
            run.timing_out = len(sick)
            ctx = mp.get_context("fork")
            stop, out = ctx.Event(), ctx.Queue()
            chunk = -(-len(tables) // args.pace_procs)
            pacers = [
                ctx.Process(target=pace_process, args=(port, tables[i : i + chunk], args.pace, stop, out))
                for i in range(0, len(tables), chunk)
            ]
            for p in pacers:
                p.start()
            # The warm-up counts from the worker's first delivery: on a loaded machine starting its
            # processes takes seconds, which would otherwise land in (b)'s tail as "latency".
            run.worker_ready_s = wait_for_first_delivery(healthy, worker, deadline=60.0)
            time.sleep(args.warmup)
            b_start = time.time()
            time.sleep(args.seconds)
            switch = time.time()
            for a in sorted(sick):
                wired.webhooks.update(apps[a], endpoints[a], url=hanging.url(f"/hang/{apps[a]}"))
            c_start = time.time()
            time.sleep(args.seconds)
            c_end = time.time()
            stop.set()
            paced_results = [out.get(timeout=120) for _ in pacers]
            for p in pacers:
                p.join(timeout=30)
            moves = [m for r in paced_results for m in r.moves]
            for r in paced_results:
                run.statuses.update(r.statuses)
            healthy_moves = [m for m in moves if m[1] not in sick]
            due = {(m[0], m[2]) for m in healthy_moves if m[5]}
            # A loaded machine may move a timing-out app's matches rarely in (c), none handing the turn
            # on: then their endpoints owe nothing, and nothing is held.
            run.sick_passes = sum(1 for m in moves if m[1] in sick and m[5] and m[3] >= c_start)
            owed_hang = run.sick_passes > 0
            deadline = time.monotonic() + args.settle
            while time.monotonic() < deadline:  # wait for the last moves' webhooks, and (on a loaded
                # machine the lane may reach the sick endpoints late) for a request they hold
                arrived = {(r["match_id"], r["version"]) for r in healthy.records(brief=True)}
                if due <= arrived and (not owed_hang or hanging.count() > 0):
                    break
                time.sleep(0.5)
            records = healthy.records(brief=True)
            arrived = {(r["match_id"], r["version"]) for r in records}
            app_of = {m[0]: m[1] for m in healthy_moves}
            run.missing = [
                explain_missing(wired, apps[app_of[mv[0]]], endpoints[app_of[mv[0]]], *mv)
                for mv in sorted(due - arrived)[:5]
            ]
            run.retried = retried_summary(
                wired,
                [apps[a] for a in range(args.apps) if a not in sick],
                [endpoints[a] for a in range(args.apps) if a not in sick],
            )
            run.slowest = explain_slowest(wired, apps, endpoints, records, healthy_moves)
            run.hung_requests = hanging.count()
            run.pending_timing_out = pending_summary(
                wired, [apps[a] for a in sorted(sick)], [endpoints[a] for a in sorted(sick)]
            )
        finally:
            stop_tree(worker)
            server.terminate()
            server.wait(timeout=30)
    first: dict[str, dict[str, Any]] = {}
    for r in records:
        if r["id"] in first:
            run.duplicates += 1
        else:
            first[r["id"]] = r
    arrivals: dict[tuple[str, int], list[float]] = {}
    for r in first.values():
        if r["match_id"] is not None:
            arrivals.setdefault((r["match_id"], r["version"]), []).append(r["t"])
    for name, (lo, hi) in {"b": (b_start, switch), "c": (c_start, c_end)}.items():
        window = Window()
        for match_id, _app, version, sent, answered, passed in healthy_moves:
            if not lo <= sent < hi:
                continue
            window.moves += 1
            window.due += passed
            got = arrivals.get((match_id, version), [])
            window.delivered += bool(got) if passed else 0
            for t in got:
                window.from_ok.append(t - answered)
                window.from_send.append(t - sent)
        run.windows[name] = window
    return run


def explain_missing(wired: Any, app: str, endpoint: str, match_id: str, version: int) -> str:
    """Where the webhook of ``match_id``'s ``version`` is: its message in the endpoint's delivery log
    (status, attempts, error), or, if none, whether the match's outbox still holds the commit."""
    from service.storage.matches import match_key

    before = None
    for _ in range(20):
        found, before = wired.webhooks.deliveries(app, endpoint, status=None, before=before, limit=100)
        for d in found:
            data = (d.get("payload") or {}).get("data") or {}
            if data.get("match_id") == match_id and data.get("version") == version:
                return (
                    f"{match_id} v{version}: {d['status']} after {d['attempts']} attempts, "
                    f"error {d['error']}, next attempt {d['next_attempt_at']}"
                )
        if before is None:
            break
    left = wired.store.redis.llen(match_key(match_id, "outbox"))
    return f"{match_id} v{version}: never queued (the match's outbox holds {left} entries)"


def explain_slowest(
    wired: Any,
    apps: list[str],
    endpoints: list[str],
    records: list[dict[str, Any]],
    moves: list[tuple[str, int, int, float, float, bool]],
    count: int = 3,
) -> list[str]:
    """The ``count`` slowest deliveries from a move's 200, each split into: queued after the 200, last
    claimed after it was queued, arrived after that claim, with its attempts."""
    answered = {(m[0], m[2]): m[4] for m in moves}
    index = {app: i for i, app in enumerate(apps)}
    timed = [
        (r["t"] - answered[(r["match_id"], r["version"])], r)
        for r in records
        if (r["match_id"], r["version"]) in answered
    ]
    lines = []
    for late, r in sorted(timed, key=lambda x: x[0], reverse=True)[:count]:
        app = r["path"].split("/")[2]
        try:
            doc = wired.webhooks.delivery(app, endpoints[index[app]], r["id"])
        except Exception as exc:  # trimmed from the log meanwhile: say so
            lines.append(f"{r['id']}: {late * 1000:.0f} ms ({type(exc).__name__})")
            continue
        ok = answered[(r["match_id"], r["version"])]
        claimed = doc["last_attempt_at"] or 0.0
        lines.append(
            f"{r['id']} {late * 1000:.0f} ms: queued {(doc['created_at'] - ok) * 1000:+.0f} ms after the "
            "200, "
            f"last claimed {(claimed - doc['created_at']) * 1000:.0f} ms after, arrived "
            f"{(r['t'] - claimed) * 1000:.0f} ms after that; {doc['attempts']} attempts"
        )
    return lines


def retried_summary(wired: Any, apps: list[str], endpoints: list[str]) -> str:
    """How many of the healthy endpoints' messages (their newest 1,000 each) took more than one
    attempt, and the errors of their first attempts' that the log kept (the last error of each)."""
    retried, total = 0, 0
    errors: Counter[str] = Counter()
    for app, endpoint in zip(apps, endpoints, strict=True):
        found, _ = wired.webhooks.deliveries(app, endpoint, status=None, before=None, limit=1000)
        total += len(found)
        for d in found:
            if d["attempts"] > 1:
                retried += 1
                errors[str(d.get("error"))] += 1
    return f"{retried} of {total} took more than one attempt {dict(errors.most_common(3))}"


def pending_summary(wired: Any, apps: list[str], endpoints: list[str]) -> str:
    """What the timing-out endpoints' delivery logs say: messages by status, and the last error."""
    statuses: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for app, endpoint in zip(apps, endpoints, strict=True):
        found, _ = wired.webhooks.deliveries(app, endpoint, status=None, before=None, limit=100)
        statuses.update(d["status"] for d in found)
        errors.update(str(d.get("error")) for d in found if d.get("error"))
    top = errors.most_common(1)[0][0] if errors else "none"
    return f"{dict(statuses)} (newest 100 per endpoint), most common error: {top}"


# -- (d) catch-up after an outage -----------------------------------------------------------------


@dataclass
class CatchUp:
    """One round: which lane, which case, and the times after the receiver's return (seconds)."""

    lane: str
    case: str
    backlog: int = 0
    delivered: int = 0
    first_success: float = float("nan")
    last_backlog: float = float("nan")
    p50_backlog: float = float("nan")


def lane_source(root: Path) -> str:
    """Where a lane started from ``root`` imports its code from (a baseline must not run this one)."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    code = "import workers.webhooks as w; print(w.__file__)"
    return subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()


def catch_up_round(args: argparse.Namespace, root: Path, label: str, case: str) -> CatchUp:
    """Queue a backlog for a stopped receiver, start it again, time the backlog's delivery."""
    import tempfile

    result = CatchUp(label, case)
    pace = 0.25
    with tempfile.TemporaryDirectory() as tmp, PrivateRedis() as redis_url:
        receiver = ReceiverProcess(log=Path(tmp) / "received.jsonl").start()
        wired = domain(redis_url)
        app = wired.accounts.create_app("Catch-up")["id"]
        hooks = wired.webhooks
        hooks.create(app, receiver.url(f"/ok/{app}"), None, "catch-up")
        with open(os.devnull, "wb") as devnull:
            lane = start_lane(redis_url, devnull, root)
        try:
            hooks.enqueue(f"{app}:p0", "warm", 1, your_turn("warm", 1, 0))
            deadline = time.monotonic() + 60
            while receiver.count() < 1:  # the lane is up and delivering
                if lane.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the delivery lane did not start")
                time.sleep(0.05)
            receiver.stop()
            backlog: set[tuple[str, int]] = set()
            n, down_at = 0, time.monotonic()
            while time.monotonic() - down_at < args.outage:
                source = f"b{n % args.catch_up_matches}"
                hooks.enqueue(f"{app}:p{n % 7}", source, n, your_turn(source, n, n % 7))
                backlog.add((source, n))
                n += 1
                time.sleep(pace)  # the pace of the notes during the outage
            receiver.start()
            back_at = time.time()
            result.backlog = len(backlog)
            deadline = time.monotonic() + args.catch_up_settle
            fresh = 0
            got: list[dict[str, Any]] = []
            arrived: dict[tuple[str, int], float] = {}
            while time.monotonic() < deadline:
                if case == "busy":
                    source = f"f{fresh % 5}"
                    hooks.enqueue(f"{app}:p{fresh % 7}", source, fresh, your_turn(source, fresh, fresh % 7))
                    fresh += 1
                # Every 2xx of the process started again (one may come in before back_at is read).
                got = [r for r in receiver.records(brief=False) if r["status"] == 204]
                arrived = {
                    (d["match_id"], d["version"]): r["t"]
                    for r in got
                    for d in [orjson.loads(r["body"])["data"]]
                    if (d["match_id"], d["version"]) in backlog
                }
                if len(arrived) == len(backlog):
                    break
                time.sleep(pace)  # the pace of the notes after the return, and of the look
        finally:
            stop_tree(lane)
            receiver.kill()
    result.delivered = len(arrived)
    if got:
        result.first_success = min(r["t"] for r in got) - back_at
    if arrived:
        times = sorted(t - back_at for t in arrived.values())
        result.last_backlog = times[-1]
        result.p50_backlog = times[len(times) // 2]
    return result


def catch_up(args: argparse.Namespace) -> list[CatchUp]:
    """Phase (d): the rounds, this checkout's lane and (with ``--base-root``) the baseline's alternately."""
    lanes = [("this", ROOT)]
    if args.base_root:
        lanes.insert(0, ("base", Path(args.base_root)))
    for label, root in lanes:
        print(f"(d) lane {label!r} runs {lane_source(root)}")
    return [
        catch_up_round(args, root, label, case)
        for _ in range(args.catch_up_rounds)
        for case in ("busy", "quiet")
        for label, root in lanes
    ]


def report_catch_up(args: argparse.Namespace, rounds: list[CatchUp]) -> None:
    print(
        f"(d) catch-up: receiver down {args.outage:g} s, a note every 0.25 s for "
        f"{args.catch_up_matches} matches meanwhile, day-long retry window; {args.catch_up_rounds} "
        f"round(s) per case; seconds after the receiver's return"
    )
    print(
        f"{'lane':6}{'case':7}{'backlog':>9}{'deliv.':>8}{'1st 2xx':>9}{'p50':>8}{'last':>8}{'last-1st':>10}"
    )
    for r in rounds:
        print(
            f"{r.lane:6}{r.case:7}{r.backlog:>9}{r.delivered:>8}{r.first_success:>9.2f}"
            f"{r.p50_backlog:>8.2f}{r.last_backlog:>8.2f}{r.last_backlog - r.first_success:>10.2f}"
        )
    for case in ("busy", "quiet"):
        mine = [r.last_backlog for r in rounds if r.case == case and r.lane == "this"]
        base = [r.last_backlog for r in rounds if r.case == case and r.lane == "base"]
        if mine and base:
            worst_mine, worst_base = max(mine), max(base)
            print(
                f"{case}: return to last backlog note, worst round: this {worst_mine:.2f} s, base "
                f"{worst_base:.2f} s (this/base {worst_mine / max(1e-9, worst_base):.3f})"
            )


# -- report -----------------------------------------------------------------------------------------


def report(args: argparse.Namespace, drain: Drain | None, run: PacedRun | None) -> None:
    print(
        f"webhooks bench: cpus={os.cpu_count()} python={sys.version.split()[0]} "
        f"load average at start={args.load:.2f}{' (quick)' if args.quick else ''}"
    )
    if drain is not None:
        from service.config import Config

        cap = Config().webhook_concurrency
        print(
            f"(a) drain: {drain.deliveries} deliveries queued for {args.drain_apps} apps x "
            f"{args.drain_endpoints} endpoints over {args.drain_matches} matches per app, one lane process "
            f"(at most {args.drain_apps * args.drain_endpoints * cap} in flight: {cap} per endpoint)"
        )
        print(f"deliveries received        {drain.received}  (unique webhook-ids {drain.unique})")
        print(f"deliveries/s first-last   {drain.overall:8.0f}")
        print(f"deliveries/s middle 80%   {drain.steady:8.0f}   (target >= 500)")
        print(
            f"plain client posts/s      {drain.baseline:8.0f}   (one keep-alive connection, same receiver; "
            f"lane/plain {drain.steady / max(1e-9, drain.baseline):.2f})"
        )
        print(
            f"CPU ms per delivery       lane {drain.lane_cpu_ms:.2f}  redis {drain.redis_cpu_ms:.2f}  "
            f"receiver {drain.receiver_cpu_ms:.2f}   (lane: from its first delivery on; "
            f"one core's worth is {1000 / max(1e-9, drain.lane_cpu_ms):.0f} deliveries/s)"
        )
        print(f"lane CPU while draining   {drain.lane_core_share:8.2f} of a core")
        print(
            f"lane start to first delivery s {drain.start_to_first_s:.2f}   enqueue s {drain.enqueue_s:.2f}"
        )
    if run is not None:
        b, c = run.windows["b"], run.windows["c"]
        print(
            f"(b)/(c) paced: {run.matches} matches of {run.apps} apps ({SEATS} players, {GAME}), a move "
            f"every {args.pace:g} s each, {args.seconds:g} s per phase, setup {run.setup_s:.1f} s, first "
            f"delivery {run.worker_ready_s:.1f} s later, then {args.warmup:g} s warm-up; "
            f"(c): {run.timing_out} endpoints time out (timeout {args.timeout:g} s)"
        )
        print(f"{'':28}{'(b) healthy':>14}{'(c) 10% hang':>14}{'c/b':>8}")
        print(f"{'moves (healthy apps)':28}{b.moves:>14}{c.moves:>14}")
        print(f"{'your_turn due / delivered':28}{f'{b.due}/{b.delivered}':>14}{f'{c.due}/{c.delivered}':>14}")
        for label, attr in (("from 200", "from_ok"), ("from send", "from_send")):
            for q in (50, 99):
                vb, vc = ms(getattr(b, attr), q), ms(getattr(c, attr), q)
                ratio = vc / vb if vb > 0 else float("nan")
                print(f"{f'p{q} ms {label}':28}{vb:>14.1f}{vc:>14.1f}{ratio:>8.2f}")
        worst = [max(w.from_ok, default=0) * 1000 for w in (b, c)]
        print(f"{'max ms from 200':28}{worst[0]:>14.1f}{worst[1]:>14.1f}")
        print(f"duplicate deliveries (same webhook-id) {run.duplicates}; move statuses {dict(run.statuses)}")
        print(
            f"timing-out endpoints: {run.hung_requests} requests held (after {run.sick_passes} moves of "
            f"theirs that handed the turn on); {run.pending_timing_out}"
        )
        print(f"healthy endpoints' messages: {run.retried}")
        for line in run.slowest:
            print(f"slowest: {line}")
        for line in run.missing:
            print(f"not delivered by the end: {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small smoke run (seconds, not minutes)")
    parser.add_argument(
        "--only", choices=("drain", "paced", "catch-up"), help="run one part only (catch-up: only so)"
    )
    parser.add_argument("--deliveries", type=int, default=20_000)
    parser.add_argument("--drain-apps", type=int, default=4)
    parser.add_argument("--drain-endpoints", type=int, default=4, help="endpoints per app")
    parser.add_argument("--drain-matches", type=int, default=250, help="matches per app")
    parser.add_argument("--players-per-app", type=int, default=100)
    parser.add_argument("--drain-deadline", type=float, default=300.0)
    parser.add_argument("--baseline-seconds", type=float, default=3.0)
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--apps", type=int, default=50)
    parser.add_argument("--pace", type=float, default=10.0, help="seconds between two moves of a match")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of phases (b) and (c)")
    parser.add_argument(
        "--warmup", type=float, default=10.0, help="seconds of moves before (b), from the first delivery"
    )
    parser.add_argument("--settle", type=float, default=30.0, help="wait at most this for the last webhooks")
    parser.add_argument("--timeout", type=float, default=5.0, help="TABLETOP_WEBHOOK_TIMEOUT_SECONDS")
    parser.add_argument("--timeout-share", type=float, default=0.1)
    parser.add_argument("--server-procs", type=int, default=2)
    parser.add_argument("--pace-procs", type=int, default=2)
    parser.add_argument("--outage", type=float, default=20.0, help="(d): seconds the receiver is down")
    parser.add_argument("--catch-up-matches", type=int, default=20, help="(d): matches of the backlog")
    parser.add_argument("--catch-up-rounds", type=int, default=2, help="(d): rounds per case and lane")
    parser.add_argument("--catch-up-settle", type=float, default=240.0, help="(d): wait at most this")
    parser.add_argument("--base-root", help="(d): a checkout whose delivery lane is the baseline")
    args = parser.parse_args(argv)
    args.load = os.getloadavg()[0]  # other work on the machine skews every figure: say how much
    if args.quick:
        args.deliveries, args.drain_apps, args.drain_endpoints, args.drain_matches = 1200, 2, 3, 40
        args.players_per_app, args.baseline_seconds = 10, 1.0
        args.matches, args.apps, args.pace, args.seconds = 60, 10, 1.0, 6.0
        args.warmup, args.settle, args.timeout, args.pace_procs, args.server_procs = 2.0, 20.0, 1.0, 1, 1
        args.outage, args.catch_up_matches, args.catch_up_rounds, args.catch_up_settle = 4.0, 5, 1, 60.0
    if args.only == "catch-up":
        print(f"webhooks bench: cpus={os.cpu_count()} load average at start={args.load:.2f}")
        report_catch_up(args, catch_up(args))
        return 0
    drain = drain_rate(args) if args.only in (None, "drain") else None
    run = paced(args) if args.only in (None, "paced") else None
    report(args, drain, run)
    return 0


if __name__ == "__main__":
    sys.exit(main())
