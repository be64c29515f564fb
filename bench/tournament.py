"""Tournament benchmark (issue 31, point 5): a round robin of all-bot matches run by the server's own
scheduler through real workers, with 1 and then 2 workers, in one run.

    python -m bench.tournament                          # 400 matches, 1 worker then 2
    python -m bench.tournament --matches 100 --workers 2
    python -m bench.tournament --quick                  # the smoke test's size

In one run this bench starts a private Redis and ``tabletop serve`` (``--api`` gunicorn processes, the
admin token set); the operator creates an app (admin API).  Then, for each count in ``--workers``, it
starts that many ``tabletop worker`` processes (each a quick and a thinking lane, a clock keeper with
the sweeps: what production runs) and, with the app's key, ``POST /v1/tournaments`` a round robin of
four built-in bots of the fast levels (``random``, ``easy``, ``Random B``, ``Easy B``: an unrated
tournament may enter a level twice under distinct names) in ``--players``-player matches of
``--game``, with the multiple of ``players`` as ``matches_per_pairing`` that brings the total nearest
``--matches`` (4 entrants in 4-player matches form one group, so 400 is exact, each entrant in each
seat 100 times), ``--parallel`` in flight.  ``--entrants random,easy,normal@5,hard@10`` enters other
levels, each with its ``think_ms`` (the entrant's budget per decision, copied into every bot seat it
takes): the four levels at a bench's pace.  It polls ``GET /v1/tournaments/{id}`` until the
tournament is over and stops the workers.  Nothing but the server schedules: the bench only reads.

Printed per worker count:

* matches per minute: the matches over the wall time from the tournament's ``created_at`` to its
  ``finished_at`` (the server's clock; the CPU shares below are over the bench's own window, from just
  before the ``POST`` to the poll that sees it finished);
* how busy the workers were, two ways: the sum of RQ job durations of the quick lanes (RQ's per-worker
  ``total_working_time``; all-bot matches of the fast levels play there) over wall time times lanes,
  and the CPU the quick lanes' processes used over the same (from /proc);
* the scheduler's own cost: the time from a match's end (its last commit, ``updated_at``) to the
  creation (``created_at``) of the match that took its place in flight (with ``parallel`` P, the
  k-th match to end frees the place of the (P+k)-th created), p50 and p99; and the CPU of the API
  processes and of the rest of the worker trees (clock keeper with the outbox, matchmaking and
  tournament sweeps, the thinking lane with the bot sweep, RQ's schedulers, the webhook lane) as a share
  of one core;
* a match's creation to its end (p50, p99, max), and the quick lanes' job time per match: what a match
  costs the workers, beside the few milliseconds between its end and the next one's creation;
* the quick queue's length, sampled at each poll: bot turns always waiting there mean the workers,
  not the scheduler, set the pace (RQ's own work between two jobs is not job time, so "busy jobs"
  stays under 100% even then).

**Cost** (issue 42, ``--cost``): what one ``POST /v1/tournaments`` of a 9,900-match round robin (100
bot entrants, two a match, each pair twice, ``--cost-parallel`` in flight: 10,000 by default, the
issue's measured case) costs the server, and what cancelling it costs, on this checkout and, with
``--baseline DIR``, on another one (a ``git worktree`` of the commit before), each on a fresh private
Redis and its own ``tabletop serve`` (no worker: the request alone is measured), in one run:

    git worktree add /tmp/base-t HEAD~1       # the code before (any commit)
    python -m bench.tournament --cost --baseline /tmp/base-t
    git worktree remove /tmp/base-t

Printed per checkout: the creation request's time, Redis's memory and keys it added, the RQ jobs it
queued, the matches that exist after it, and the cancel request's time; then each figure's ratio
(before / after).  The exit status is 2 when this checkout's cancel took 2 s or more (issue 42's bound;
a generous one: it does constant work) or its creation made a match.

Then checks on each tournament, from ``GET /v1/tournaments/{id}``, its results export and every match
read back: every scheduled match finished once with the seating recorded (each bot seat with its
entrant's ``think_ms``), each entrant in each seat position equally often, and the standings equal to
their recomputation from the export.  The exit status is 0
when every check holds, 2 when not (a tournament unfinished at ``--timeout``, a check failing).
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
from rq import Queue
from rq.worker import BaseWorker, Worker

from bench.api import ROOT, Client, free_port, percentile, start_server
from bench.ladder import workers
from bench.procs import cpu_seconds, descendants, named_children, progress, stop_server
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from service.domain.matches.bots import QUICK_QUEUE

ADMIN_TOKEN = "bench-tournament-admin-token"
#: The entrants: the two fast levels, each twice under distinct names (an unrated tournament allows it).
ENTRANTS: tuple[dict[str, Any], ...] = (
    {"level": "random"},
    {"level": "easy"},
    {"level": "random", "name": "Random B"},
    {"level": "easy", "name": "Easy B"},
)
#: ``--entrants``' default, which is :data:`ENTRANTS`.
DEFAULT_ENTRANTS = "random,easy,random,easy"
LEVELS = ("random", "easy", "normal", "hard")


def parse_entrants(text: str) -> list[dict[str, Any]]:
    """``--entrants``: comma-separated ``LEVEL`` or ``LEVEL@MS`` (the entrant's ``think_ms``: its bot's
    budget per decision, what makes a searching level affordable in a bench).  A level entered again
    is named ``<Level> B``, ``<Level> C``... (names are distinct; the first keeps the server's)."""
    out: list[dict[str, Any]] = []
    seen: Counter[str] = Counter()
    for part in filter(None, (p.strip() for p in text.split(","))):
        level, at, budget = part.partition("@")
        if level not in LEVELS or (at and not budget.isdigit()):
            raise ValueError(f"--entrants: {part!r} is not LEVEL or LEVEL@MS (levels: {', '.join(LEVELS)})")
        entrant: dict[str, Any] = {"level": level}
        if seen[level]:
            entrant["name"] = f"{level.title()} {chr(ord('A') + seen[level])}"
        if at:
            entrant["think_ms"] = int(budget)
        seen[level] += 1
        out.append(entrant)
    return out


#: A tournament is over in one of these.
OVER = ("finished", "cancelled")


def matches_per_pairing(matches: int, entrants: int, players: int) -> int:
    """The meetings per group that bring the round robin nearest ``matches`` while keeping every seat
    position equally used (a multiple of ``players``, at least ``players``)."""
    groups = math.comb(entrants, players)
    return max(players, players * round(matches / groups / players))


def describe(entrant: dict[str, Any]) -> str:
    """An entrant as the header prints it: its name (or level), and its budget when given."""
    text = str(entrant.get("name", entrant["level"]))
    return f"{text} ({entrant['think_ms']} ms)" if "think_ms" in entrant else text


# -- per-seat results and the standings, recomputed (the design's rules) ----------------------------


def points_of(places: list[int]) -> list[float]:
    """Per seat: 1 per opponent placed below, 1/2 per opponent tied (the design's points by place)."""
    return [
        sum(
            1.0 if other > mine else 0.5 if other == mine else 0.0 for j, other in enumerate(places) if j != i
        )
        for i, mine in enumerate(places)
    ]


def standings_of(names: list[str], played: list[tuple[list[int], list[int]]]) -> list[dict[str, Any]]:
    """The standings from ``played`` (per finished match: the entrant of each seat, their places):
    points, then wins (first places, shared ones count), then Buchholz (each opponent's final points,
    per match played), then entry order."""
    points = [0.0] * len(names)
    wins = [0] * len(names)
    count = [0] * len(names)
    for entrants, places in played:
        for entrant, got, place in zip(entrants, points_of(places), places, strict=True):
            points[entrant] += got
            wins[entrant] += place == 1
            count[entrant] += 1
    buchholz = [0.0] * len(names)
    for entrants, _ in played:
        for entrant in entrants:
            buchholz[entrant] += sum(points[other] for other in entrants if other != entrant)
    order = sorted(range(len(names)), key=lambda e: (-points[e], -wins[e], -buchholz[e], e))
    return [
        {
            "rank": rank,
            "entrant": e,
            "name": names[e],
            "points": points[e],
            "played": count[e],
            "wins": wins[e],
            "buchholz": buchholz[e],
        }
        for rank, e in enumerate(order, 1)
    ]


def played_from_export(export: dict[str, Any]) -> list[tuple[str, list[int], list[int]]]:
    """Per finished match of the results export (per-seat rows): its id, the entrant of each seat, their
    places, in seat order."""
    seats: dict[str, dict[int, tuple[int, int]]] = {}
    for row in export["results"]:
        if row["status"] != "finished":
            continue
        seats.setdefault(row["match_id"], {})[int(row["seat"])] = (int(row["entrant"]), int(row["place"]))
    out = []
    for match_id, by_seat in seats.items():
        ordered = [by_seat[s] for s in sorted(by_seat)]
        out.append((match_id, [e for e, _ in ordered], [p for _, p in ordered]))
    return out


def check_tournament(doc: dict[str, Any], export: dict[str, Any]) -> list[str]:
    """What is wrong with a finished round robin, from its document and its results export (an empty
    list when nothing is)."""
    problems: list[str] = []
    players = int(doc["players"])
    names = [e["name"] for e in sorted(doc["entrants"], key=lambda e: e["entrant"])]
    scheduled = doc["matches"]
    ids = [m["match_id"] for m in scheduled]
    total = math.comb(len(names), players) * int(doc["matches_per_pairing"])
    if len(ids) != total or len(set(ids)) != total:
        problems.append(f"{len(ids)} matches scheduled ({len(set(ids))} distinct), expected {total}")
    if doc["progress"]["done"] != total or doc["progress"]["total"] != total:
        problems.append(f"progress {doc['progress']}, expected {total} of {total}")
    unfinished = [m["match_id"] for m in scheduled if m["status"] != "finished"]
    if unfinished:
        problems.append(f"{len(unfinished)} matches not finished: {unfinished[:5]}")
    seat_use = Counter((e, seat) for m in scheduled for seat, e in enumerate(m["entrants"]))
    if len(set(seat_use.values())) != 1 or len(seat_use) != len(names) * players:
        problems.append(f"seat positions unequally used: {dict(seat_use)}")
    played = played_from_export(export)
    if sorted(p[0] for p in played) != sorted(ids):
        problems.append(f"the export has {len(played)} finished matches, the schedule {len(ids)}")
    recorded = {m["match_id"]: m for m in scheduled}
    for match_id, entrants, places in played:
        m = recorded.get(match_id)
        if m is None or m["entrants"] != entrants or m["places"] != places:
            problems.append(f"{match_id}: export {entrants} {places} vs schedule {m}")
    mine = standings_of(names, [(e, p) for _, e, p in played])
    theirs = [
        {k: row[k] for k in ("rank", "entrant", "name", "points", "played", "wins", "buchholz")}
        for row in doc["standings"]
    ]
    if mine != theirs or export["standings"] != doc["standings"]:
        problems.append(f"standings {theirs} differ from their recomputation {mine}")
    return problems


# -- one run: a tournament through ``count`` workers -------------------------------------------------


@dataclass
class Phase:
    workers: int
    matches: int
    wall: float  # the tournament's creation to its end, by the server's clock
    seconds: float  # the bench's window of CPU readings (from before the POST to the poll seeing the end)
    job_seconds: float  # RQ job durations of the quick lanes
    lane_cpu: float  # CPU seconds of the quick lanes' processes
    lanes: int
    api_cpu: float
    rest_cpu: float  # the workers' other processes: keeper and sweeps, thinking lane, RQ schedulers, webhooks
    redis_cpu: float
    gaps_ms: list[float]
    parallel: int
    durations: list[float] = field(default_factory=list)  # each match's creation to its end, seconds
    waiting: list[int] = field(default_factory=list)  # jobs queued for the quick lanes, per poll
    problems: list[str] = field(default_factory=list)

    @property
    def per_minute(self) -> float:
        return 60 * self.matches / self.wall

    def row(self) -> str:
        wall, lanes = self.seconds, self.seconds * self.lanes  # the shares are of the readings' window
        p50 = percentile(self.gaps_ms, 50) if self.gaps_ms else float("nan")
        p99 = percentile(self.gaps_ms, 99) if self.gaps_ms else float("nan")
        busy_jobs, busy_cpu = 100 * self.job_seconds / lanes, 100 * self.lane_cpu / lanes
        api, rest, store = (100 * cpu / wall for cpu in (self.api_cpu, self.rest_cpu, self.redis_cpu))
        return (
            f"{self.workers:>7} {self.matches:>7} {self.wall:>8.1f} {self.per_minute:>11.1f} "
            f"{busy_jobs:>9.0f}% {busy_cpu:>8.0f}% {p50:>9.1f} {p99:>9.1f} {len(self.gaps_ms):>6} "
            f"{api:>7.1f}% {rest:>8.1f}% {store:>7.1f}%"
        )


HEADER = (
    f"{'workers':>7} {'matches':>7} {'wall s':>8} {'matches/min':>11} {'busy jobs':>10} {'busy cpu':>9} "
    f"{'gap p50ms':>9} {'gap p99ms':>9} {'gaps':>6} {'api cpu':>8} {'rest cpu':>9} {'redis':>8}"
)


def lane_workers(connection: redis.Redis, trees: list[int], lane: str) -> list[BaseWorker]:
    """The RQ workers of ``lane`` running in the given process trees."""
    return [w for w in Worker.all(connection=connection) if w.name.startswith(f"{lane}-") and w.pid in trees]


def spent(before: dict[int, float], pids: list[int]) -> float:
    """CPU seconds ``pids`` used since ``before`` (per process; one started since counts from zero, one
    gone since is missed: the workers' processes live through a phase)."""
    return sum(cpu_seconds([p]) - before.get(p, 0.0) for p in pids)


def gaps(created: list[float], ended: list[float], parallel: int) -> list[float]:
    """Milliseconds from the k-th match to end to the creation of the (parallel + k)-th, which took its
    place in flight (a scheduler that keeps ``parallel`` in flight creates it only then)."""
    created, ended = sorted(created), sorted(ended)
    return [1000 * (created[parallel + k] - ended[k]) for k in range(len(created) - parallel)]


def run_phase(
    client: Client,
    auth: dict[str, str],
    redis_url: str,
    server: subprocess.Popen[bytes],
    count: int,
    args: argparse.Namespace,
) -> Phase:
    connection = redis.Redis.from_url(redis_url)
    mpp = matches_per_pairing(args.matches, len(args.entrants), args.players)
    body = {
        "name": f"bench: {count} worker(s)",
        "game": args.game,
        "players": args.players,
        "entrants": [dict(e) for e in args.entrants],
        "format": "round_robin",
        "matches_per_pairing": mpp,
        "rated": False,
        "parallel": args.parallel,
    }
    with workers(redis_url, count) as procs:
        trees = sorted({p for proc in procs for p in descendants(proc.pid)})
        quick = lane_workers(connection, trees, "quick")
        lanes = [w.pid for w in quick if w.pid is not None]
        api_pids = descendants(server.pid)
        redis_pids = named_children(os.getpid(), "redis-server")
        cpu0 = {p: cpu_seconds([p]) for p in {*trees, *api_pids, *redis_pids}}
        jobs0 = sum(w.total_working_time for w in quick)
        t0 = time.monotonic()
        status, doc = client.call("POST", "/v1/tournaments", body, auth)
        if status != 201:
            raise RuntimeError(f"creating the tournament: {status} {doc}")
        tid = doc["id"]
        total = doc["progress"]["total"]
        deadline = t0 + args.timeout
        last_note = t0
        waiting: list[int] = []  # bot turns queued for the quick lanes, sampled at each poll
        while doc["status"] not in OVER and time.monotonic() < deadline:
            time.sleep(args.poll)
            # the quick lane's queues: its own and each tenant's (the app's: bots-quick:<app>)
            quick = [q for q in Queue.all(connection=connection) if q.name.startswith(QUICK_QUEUE)]
            waiting.append(sum(q.count for q in quick))
            status, doc = client.call("GET", f"/v1/tournaments/{tid}", headers=auth)
            if status != 200:
                raise RuntimeError(f"reading tournament {tid}: {status} {doc}")
            if time.monotonic() - last_note > 30:
                last_note = time.monotonic()
                progress(f"{count} worker(s): {doc['progress']['done']}/{total} matches over")
        seconds = time.monotonic() - t0
        trees = sorted(set(trees) | {p for proc in procs for p in descendants(proc.pid)})
        lane_cpu = spent(cpu0, lanes)
        tree_cpu = spent(cpu0, trees)
        api_cpu = spent(cpu0, descendants(server.pid))
        redis_cpu = spent(cpu0, redis_pids)
        job_seconds = sum(w.total_working_time for w in lane_workers(connection, trees, "quick")) - jobs0
    problems = [] if doc["status"] == "finished" else [f"tournament {tid} is {doc['status']} at the deadline"]
    created: list[float] = []
    ended: list[float] = []
    if not problems:
        status, export = client.call("GET", f"/v1/tournaments/{tid}/results?format=json", headers=auth)
        if status != 200:
            raise RuntimeError(f"results of {tid}: {status} {export}")
        problems += check_tournament(doc, export)
        names = {e["entrant"]: e["name"] for e in doc["entrants"]}
        budgets = {e["entrant"]: e.get("think_ms") for e in doc["entrants"]}
        for m in doc["matches"]:
            status, match = client.call("GET", f"/v1/matches/{m['match_id']}", headers=auth)
            if status != 200:
                problems.append(f"reading match {m['match_id']}: {status}")
                continue
            seated = [s["name"] for s in match["seats"]]
            if match["status"] != "finished" or seated != [names[e] for e in m["entrants"]]:
                problems.append(f"match {m['match_id']} is {match['status']}, seats {seated}, record {m}")
            thinking = [s.get("think_ms") for s in match["seats"]]
            if thinking != [budgets[e] for e in m["entrants"]]:  # each seat has its entrant's budget
                problems.append(f"match {m['match_id']}: think_ms {thinking}, the entrants' {budgets}")
            created.append(float(match["created_at"]))
            ended.append(float(match["updated_at"]))
    return Phase(
        workers=count,
        matches=total,
        wall=float(doc["finished_at"]) - float(doc["created_at"]) if doc.get("finished_at") else seconds,
        seconds=seconds,
        job_seconds=job_seconds,
        lane_cpu=lane_cpu,
        lanes=max(1, len(lanes)),
        api_cpu=api_cpu,
        rest_cpu=tree_cpu - lane_cpu,
        redis_cpu=redis_cpu,
        gaps_ms=gaps(created, ended, min(args.parallel, total)),
        parallel=min(args.parallel, total),
        waiting=waiting,
        durations=[end - start for start, end in zip(created, ended, strict=True)],
        problems=problems,
    )


def run(args: argparse.Namespace) -> int:
    counts = [int(c) for c in str(args.workers).split(",")]
    mpp = matches_per_pairing(args.matches, len(args.entrants), args.players)
    total = math.comb(len(args.entrants), args.players) * mpp
    load = os.getloadavg()
    print(
        f"tournament bench: round robin of {total} {args.game} matches, {args.players} players each, "
        f"entrants {', '.join(describe(e) for e in args.entrants)} (matches_per_pairing {mpp}), "
        f"parallel {args.parallel}; worker counts {counts}, {args.api} API process(es); "
        f"cpus={os.cpu_count()} load average at start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}",
        flush=True,
    )
    phases: list[Phase] = []
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, args.api, admin_token=ADMIN_TOKEN)
        try:
            client = Client(port)
            status, app = client.call(
                "POST",
                "/v1/admin/apps",
                {"name": "tournament bench"},
                {"Authorization": f"Bearer {ADMIN_TOKEN}"},
            )
            if status != 201:
                raise RuntimeError(f"creating the app: {status} {app}")
            auth = {"Authorization": f"Bearer {app['key']}"}
            for count in counts:
                progress(f"{count} worker(s): starting")
                phases.append(run_phase(client, auth, redis_url, server, count, args))
        finally:
            stop_server(server)
    print(
        "busy jobs: the quick lanes' RQ job time over wall time per lane; busy cpu: their processes' CPU "
        "over the same; gap: a match's end to the creation of the match that took its place; "
        "api/rest/redis cpu: CPU-seconds per second of the API processes, of the workers' other "
        "processes (keeper with the sweeps, thinking lane, RQ schedulers, webhook lane) and of Redis"
    )
    print(HEADER)
    for phase in phases:
        print(phase.row())
    for phase in phases:
        if phase.durations:
            d = phase.durations
            print(
                f"{phase.workers} worker(s): a match's creation to its end p50 {percentile(d, 50):.2f} s, "
                f"p99 {percentile(d, 99):.2f} s, max {max(d):.2f} s ({phase.parallel} in flight); quick-lane "
                f"job time per match {1000 * phase.job_seconds / phase.matches:.0f} ms; quick queue "
                f"{statistics.fmean(phase.waiting or [0]):.1f} jobs waiting on average, none in "
                f"{sum(n == 0 for n in phase.waiting)} of {len(phase.waiting)} samples"
            )
    if len(phases) > 1:
        print(
            f"speed-up {phases[-1].workers} vs {phases[0].workers} worker(s): "
            f"{phases[-1].per_minute / phases[0].per_minute:.2f}x"
        )
    failed = [(p.workers, problem) for p in phases for problem in p.problems]
    for count, problem in failed:
        print(f"CHECK FAILED ({count} worker(s)): {problem}")
    print(
        "checks: "
        + (
            "every match finished once, seats equally used, standings recomputed from the export agree"
            if not failed
            else f"{len(failed)} failed"
        )
    )
    return 2 if failed else 0


# -- the cost of one request (issue 42) ---------------------------------------------------------------

#: ``--cost``: 100 bots, two a match, each pair twice: 4,950 pairs x 2 = 9,900 matches.
COST_ENTRANTS = 100
COST_PER_PAIRING = 2
#: Issue 42's bound on a cancel's answer, in seconds.
CANCEL_BOUND_S = 2.0


@dataclass
class Cost:
    """What one creation and one cancel cost on one checkout."""

    label: str
    matches: int
    create_s: float
    memory_bytes: int
    keys: int
    jobs: int
    made: int
    cancel_s: float

    def row(self) -> str:
        return (
            f"{self.label:<8} {self.matches:>7} {self.create_s:>9.3f} {self.memory_bytes / 2**20:>9.3f} "
            f"{self.keys:>7} {self.jobs:>6} {self.made:>6} {self.cancel_s:>9.3f}"
        )


COST_HEADER = (
    f"{'code':<8} {'matches':>7} {'create s':>9} {'redis MB':>9} {'keys':>7} {'jobs':>6} {'made':>6} "
    f"{'cancel s':>9}"
)


def _serve(root: str, redis_url: str, port: int) -> subprocess.Popen[bytes]:
    """``tabletop serve`` of the checkout at ``root`` (its code on the path; this interpreter)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(
        TABLETOP_REDIS_URL=redis_url,
        TABLETOP_ADMIN_TOKEN=ADMIN_TOKEN,
        TABLETOP_READY_NEEDS_WORKERS="false",
        TABLETOP_LOG_LEVEL="WARNING",
        PYTHONPATH=root,
    )
    cmd = [sys.executable, "-m", "service.cli", "serve", "--port", str(port), "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, cwd=root)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if _call(port, "GET", "/healthz")[0] == 200:
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"tabletop serve of {root} did not start")


def _call(port: int, method: str, path: str, body: Any = None, key: str | None = None) -> tuple[int, Any]:
    """One request on a fresh connection that waits as long as the server takes (the code before
    took tens of seconds for one creation)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {key}"
        conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None
    finally:
        conn.close()


def measure_cost(label: str, root: str, parallel: int) -> Cost:
    """One checkout's figures: a fresh private Redis, its server, an app, one creation, one cancel."""
    with PrivateRedis() as redis_url:
        connection = redis.Redis.from_url(redis_url)
        port = free_port()
        server = _serve(root, redis_url, port)
        try:
            status, app = _call(port, "POST", "/v1/admin/apps", {"name": "cost bench"}, ADMIN_TOKEN)
            if status != 201:
                raise RuntimeError(f"creating the app: {status} {app}")
            entrants = [{"level": "random", "name": f"Bot {i}"} for i in range(COST_ENTRANTS)]
            body = {
                "name": "cost",
                "game": "year_of_dragon",
                "players": 2,
                "entrants": entrants,
                "matches_per_pairing": COST_PER_PAIRING,
                "parallel": parallel,
            }
            before = set(connection.scan_iter(count=1000))
            t0 = time.perf_counter()
            status, doc = _call(port, "POST", "/v1/tournaments", body, app["key"])
            create_s = time.perf_counter() - t0
            if status != 201:
                raise RuntimeError(f"creating the tournament: {status} {doc}")
            added = [k for k in connection.scan_iter(count=1000) if k not in before]
            pipe = connection.pipeline(transaction=False)
            for k in added:
                pipe.memory_usage(k, samples=0)
            memory = sum(int(n or 0) for n in pipe.execute())  # every byte of every key it added
            keys = len(added)
            jobs = sum(q.count for q in Queue.all(connection=connection))
            made = sum(1 for _ in connection.scan_iter(f"*{doc['id']}-*:meta", count=1000))
            t0 = time.perf_counter()
            status, done = _call(port, "POST", f"/v1/tournaments/{doc['id']}/cancel", None, app["key"])
            cancel_s = time.perf_counter() - t0
            if status != 200:
                raise RuntimeError(f"cancelling the tournament: {status} {done}")
            return Cost(label, doc["progress"]["total"], create_s, memory, keys, jobs, made, cancel_s)
        finally:
            stop_server(server)


def run_cost(args: argparse.Namespace) -> int:
    total = math.comb(COST_ENTRANTS, 2) * COST_PER_PAIRING
    load = os.getloadavg()
    print(
        f"tournament cost bench: one POST /v1/tournaments of a {total}-match round robin ({COST_ENTRANTS} "
        f"bots, 2 a match, each pair {COST_PER_PAIRING} times, parallel {args.cost_parallel}), then its "
        f"cancel; no worker runs. cpus={os.cpu_count()} load average at start {load[0]:.2f}",
        flush=True,
    )
    rows = []
    if args.baseline:
        progress(f"before: {args.baseline}")
        rows.append(measure_cost("before", str(Path(args.baseline).resolve()), args.cost_parallel))
    progress("after: this checkout")
    rows.append(measure_cost("after", str(ROOT), args.cost_parallel))
    print(
        "create s / cancel s: the requests' time; redis MB and keys: the keys the creation added and their "
        "bytes (MEMORY USAGE); jobs: RQ jobs queued after it; made: matches that exist after it"
    )
    print(COST_HEADER)
    for row in rows:
        print(row.row())
    after = rows[-1]
    if len(rows) == 2:
        before = rows[0]

        def ratio(a: float, b: float) -> str:
            return f"{a / b:.0f}x" if b > 0 else ("=" if a == b else "inf")

        print(
            f"ratios (before / after): create time {ratio(before.create_s, after.create_s)}, redis memory "
            f"{ratio(before.memory_bytes, max(after.memory_bytes, 1))}, keys "
            f"{ratio(before.keys, after.keys)}, cancel time {ratio(before.cancel_s, after.cancel_s)}"
        )
    failed = []
    if after.cancel_s >= CANCEL_BOUND_S:
        failed.append(f"the cancel took {after.cancel_s:.2f} s, not under {CANCEL_BOUND_S:.0f} s")
    if after.made or after.jobs:
        failed.append(f"the creation made {after.made} matches and queued {after.jobs} jobs")
    for problem in failed:
        print(f"CHECK FAILED: {problem}")
    print("checks: " + ("creation made nothing, cancel under 2 s" if not failed else f"{len(failed)} failed"))
    return 2 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=400, help="matches in each tournament (about)")
    parser.add_argument("--workers", default="1,2", help="worker counts to run in turn, comma-separated")
    parser.add_argument("--game", default="year_of_dragon", choices=sorted(GAMES))
    parser.add_argument("--players", type=int, default=4, help="players per match")
    parser.add_argument("--parallel", type=int, default=32, help="matches in flight (the tournament's)")
    parser.add_argument("--api", type=int, default=1, help="API processes")
    parser.add_argument("--poll", type=float, default=0.5, help="seconds between reads of the tournament")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds a tournament may take")
    parser.add_argument(
        "--entrants",
        default=DEFAULT_ENTRANTS,
        help="comma-separated LEVEL or LEVEL@MS, MS its bot's think_ms a decision (e.g. "
        "random,easy,normal@5,hard@10; the searching levels play on the thinking lanes, which the busy "
        "figures do not count); default %(default)s",
    )
    parser.add_argument("--quick", action="store_true", help="a tiny run: 8 matches, 1 then 2 workers")
    parser.add_argument(
        "--cost",
        action="store_true",
        help="issue 42: the cost of creating and cancelling a 9,900-match tournament (no worker)",
    )
    parser.add_argument(
        "--baseline", help="--cost: a checkout of the code before (a git worktree) to compare"
    )
    parser.add_argument(
        "--cost-parallel", type=int, default=10_000, help="--cost: the tournament's parallel (%(default)s)"
    )
    args = parser.parse_args(argv)
    if args.cost:
        return run_cost(args)
    if args.quick:
        args.matches, args.parallel = 8, 4
    try:
        args.entrants = parse_entrants(args.entrants)
    except ValueError as exc:
        parser.error(str(exc))
    if args.matches < 1 or args.parallel < 1 or not 2 <= args.players <= len(args.entrants):
        parser.error("--matches and --parallel must be positive, --players 2 to the number of --entrants")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
