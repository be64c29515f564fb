"""Matchmaking: seeks paired per second with 1,000 seekers, and how long a seek waits for its match.

    python -m bench.seeks                    # 1,000 seekers, flat out, 30 s
    python -m bench.seeks --think 10         # each seeker seeks again 10 s (on average) after a match
    python -m bench.seeks --quick            # 40 seekers for 3 s (the smoke test)

Issue 27 (point 7) asks how many seeks the server pairs per second with 1,000 seekers.  In one run
this bench starts a private Redis and ``tabletop serve`` (``--api`` gunicorn processes, the admin
token set), then, through the API only:

1. setup: the operator creates an app (admin API); the app names ``--seekers`` players and mints a
   token for each (scopes ``read`` and ``play``);
2. every seeker opens its feed (``GET /v1/me/events``, NDJSON); once all are open, each posts
   ``POST /v1/seeks`` (the game, the player count of its pool, nothing else: every two seeks of a
   pool are compatible), then waits until it knows its match: its own ``201`` says ``matched`` when
   its seek completed a group, else the ``seek_matched`` entry reaches its feed; then it pauses
   ``--think`` seconds (exponentially distributed around it) and seeks again, until ``--seconds``
   have passed.  Without a pause (``--think 0``, the default) the seekers go flat out and all post
   their first seek at the same instant; with one, their first seeks are spread over one pause, as
   a population arriving.  Seekers alternate between the pools (``--pools``: 2- and 4-player pools
   of ``--game`` by default), and run as threads in ``--client-procs`` processes, each with its two
   connections (its feed and its requests);
3. at the end a seeker whose seek is still open cancels it (``DELETE``); one that was matched
   meanwhile waits for its note, so every match formed is accounted for.

Printed per pool and in all: the seekers, matches formed (a pairing: 2 seekers in a 2-player pool, 4
in a 4-player one), pairings/s and seekers matched/s over the run, and post-to-match latency p50/p99:
from the moment the seeker sent its ``POST`` to the moment it knew its match (its ``201``, or the
note's arrival on its feed; both clocks are this machine's), and on the server's side from the seek's
``created_at`` to when its ``seek_matched`` note was fed (the feed entry's id is its time).  Then the
checks: every match seated exactly its pool's number of seekers and none twice, every matched seeker
got its ``seek_matched`` note, the statuses of every request; and the server's CPU per pairing.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import os
import random
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import orjson

from bench.api import Client, free_port, percentile, start_server
from bench.crowd import collect, raise_fd_limit
from bench.feeds import name_players, player_id
from bench.procs import cpu_seconds, descendants, named_children, progress, stop_server
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES

ADMIN_TOKEN = "bench-seeks-admin-token"
#: Feed streams one client process opens per second while the seekers gather (a new stream costs the
#: server a few milliseconds; faster only overflows the listen queue).
RAMP_PER_SECOND = 200
#: The bench server's stream heartbeat (TABLETOP_HEARTBEAT_SECONDS): a seeker waiting on its feed
#: notices the end of the run within it.
HEARTBEAT_SECONDS = 5
#: Seconds a seeker waits, after the run, for the note of a seek matched while it was cancelling it.
LATE_NOTE_SECONDS = 30.0


@dataclass
class Sought:
    """One seek that found its match: its player and pool, when it was sent and known matched (this
    machine's clock), the server's ``created_at`` and feeding time of its ``seek_matched`` note
    (``None`` until the note came), its match, and whether it was known matched before the run
    ended (a seek matched while its seeker cancelled it at the end is not)."""

    player: str
    pool: int
    sent: float
    known: float
    created: float
    fed: float | None
    match_id: str
    in_run: bool


@dataclass
class Tally:
    """What one client process saw."""

    sought: list[Sought] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    cancelled: int = 0
    notes_missing: int = 0
    streams: int = 0


class Session(Client):
    """A keep-alive connection for a seeker's requests (opened anew after
    :data:`bench.api.IDLE_SECONDS` unused, as every :class:`~bench.api.Client`) whose request
    failing in transport is sent again once on a new connection (a seek's second post then meets the
    first: 409 ``seek_open``, which the seeker reads as its seek)."""

    def __init__(self, port: int) -> None:
        super().__init__(port)
        self.retried = 0

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        try:
            return super().call(method, path, body, headers)
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.retried += 1
            return super().call(method, path, body, headers)


class Feed:
    """A seeker's feed as an NDJSON stream: which of its seeks were matched, when the notes came."""

    def __init__(self, port: int, token: str) -> None:
        # A heartbeat comes every HEARTBEAT_SECONDS, so a read returns at least that often and a
        # waiting seeker notices the end of the run.
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.conn.request(
            "GET",
            "/v1/me/events",
            headers={"Accept": "application/x-ndjson", "Authorization": f"Bearer {token}"},
        )
        self.resp = self.conn.getresponse()
        if self.resp.status != 200:
            raise RuntimeError(f"feed stream: {self.resp.status} {self.resp.read()[:200]!r}")
        #: seek id -> (arrival on this machine, the note's feeding time on the server, match id)
        self.matched: dict[str, tuple[float, float, str]] = {}
        #: match id -> the feeding time of its note
        self.by_match: dict[str, float] = {}

    def read(self) -> None:
        """Read one line (an entry or a heartbeat), noting a ``seek_matched``."""
        line = self.resp.readline()
        if not line:
            raise EOFError("the feed stream ended")
        doc = orjson.loads(line)
        if doc.get("type") == "seek_matched":
            fed = int(str(doc["id"]).split("-")[0]) / 1000  # a Redis stream id: milliseconds first
            self.matched[doc["seek_id"]] = (time.time(), fed, doc["match_id"])
            self.by_match[doc["match_id"]] = fed

    def wait(self, seek_id: str, until: Any) -> bool:
        """Read until ``seek_id``'s note came (True) or ``until()`` holds (False)."""
        while seek_id not in self.matched:
            if until():
                return False
            self.read()
        return True

    def close(self) -> None:
        self.conn.close()


def seeker(
    port: int,
    player: str,
    token: str,
    game: str,
    players: int,
    think: float,
    seed: int,
    opened: threading.Semaphore,
    go: Any,
    stop: Any,
    tally: Tally,
    lock: threading.Lock,
) -> None:
    """One seeker: its feed open, then seek, wait for the match, pause, seek again until ``stop``."""
    auth = {"Authorization": f"Bearer {token}"}
    statuses: Counter[str] = Counter()
    mine: list[Sought] = []
    cancelled = missing = 0
    try:
        feed = Feed(port, token)
    except (OSError, http.client.HTTPException, RuntimeError) as exc:
        with lock:
            tally.statuses[f"feed: {type(exc).__name__}"] += 1
        opened.release()
        return
    opened.release()
    client = Session(port)
    rng = random.Random(seed)
    body = {"game": game, "players": players}
    go.wait()
    try:
        # Paced seekers start spread over one pause, as a population arriving does; flat out, all at
        # once (the burst is part of the measure).
        if think > 0 and stop.wait(rng.uniform(0, think)):
            return
        while not stop.is_set():
            sent = time.time()
            retried = client.retried
            status, seek = client.call("POST", "/v1/seeks", body, auth)
            statuses[f"POST {status}" + (f" {seek.get('code')}" if status >= 400 and seek else "")] += 1
            if status == 409 and seek.get("code") == "seek_open" and client.retried > retried:
                # A post retried after a transport error had landed the first time: that is the seek.
                status, seek = client.call("GET", f"/v1/seeks/{seek['details']['seek_id']}", headers=auth)
            if status not in (200, 201) or seek["status"] not in ("open", "pairing", "matched"):
                time.sleep(0.1)
                continue

            news: tuple[float, float | None, str, bool] | None = None  # known, fed, match, in the run
            ended = False
            if seek["status"] == "matched":
                news = (time.time(), None, seek["match_id"], True)
            elif feed.wait(seek["id"], stop.is_set):
                news = (*feed.matched[seek["id"]], True)
            else:  # the run ended with the seek open: cancel it, or learn it was matched meanwhile
                ended = True
                status, _ = client.call("DELETE", f"/v1/seeks/{seek['id']}", headers=auth)
                statuses[f"DELETE {status}"] += 1
                give_up = time.monotonic() + LATE_NOTE_SECONDS
                if status == 200:
                    cancelled += 1
                elif feed.wait(seek["id"], lambda until=give_up: time.monotonic() > until):
                    news = (*feed.matched[seek["id"]], False)
            if news is not None:
                known, fed, match_id, in_run = news
                mine.append(Sought(player, players, sent, known, seek["created_at"], fed, match_id, in_run))
            if ended:
                break
            if think > 0 and stop.wait(rng.expovariate(1 / think)):
                break
        # The note of a seek whose own post completed its group comes on the feed too: wait for the
        # notes (every matched seeker is told), then fill in when each was fed.
        give_up = time.monotonic() + LATE_NOTE_SECONDS
        for s in mine:
            while s.match_id not in feed.by_match and time.monotonic() < give_up:
                feed.read()
            if s.match_id in feed.by_match:
                s.fed = feed.by_match[s.match_id]
            else:
                missing += 1
    except (OSError, http.client.HTTPException, EOFError) as exc:
        statuses[f"transport {type(exc).__name__}"] += 1
    finally:
        feed.close()
    statuses["transport retried"] += client.retried
    with lock:
        tally.sought.extend(mine)
        tally.statuses.update(statuses)
        tally.cancelled += cancelled
        tally.notes_missing += missing
        tally.streams += 1


def client_process(
    port: int,
    game: str,
    jobs: list[tuple[str, str, int, int]],
    think: float,
    ready: Any,
    go: Any,
    stop: Any,
    out: Any,
) -> None:
    """Run the seekers ``jobs`` (player id, token, pool, seed) as threads: open their feeds (at most
    :data:`RAMP_PER_SECOND` a second), report how many opened on ``ready``, seek from ``go`` to
    ``stop``; put a :class:`Tally` on ``out``."""
    raise_fd_limit()
    tally, lock = Tally(), threading.Lock()
    opened = threading.Semaphore(0)
    threads = []
    for n, (player, token, players, seed) in enumerate(jobs):
        t = threading.Thread(
            target=seeker,
            args=(port, player, token, game, players, think, seed, opened, go, stop, tally, lock),
            daemon=True,
        )
        t.start()
        threads.append(t)
        if n % 20 == 19:
            time.sleep(20 / RAMP_PER_SECOND)
    for _ in jobs:
        opened.acquire()
    ready.put(len(jobs) - sum(v for k, v in tally.statuses.items() if k.startswith("feed")))
    for t in threads:
        t.join()
    out.put(tally)


# -- the run ----------------------------------------------------------------------------------------


@dataclass
class Run:
    started: float = 0.0
    ended: float = 0.0
    seekers: dict[int, int] = field(default_factory=dict)
    tallies: list[Tally] = field(default_factory=list)
    server_cpu: float = 0.0
    redis_cpu: float = 0.0
    client_cpu: float = 0.0
    #: CPU seconds of each API process (gunicorn's workers): how evenly they shared the seekers
    api_cpu: list[float] = field(default_factory=list)
    setup_seconds: float = 0.0


def run(args: argparse.Namespace) -> Run:
    pools = [int(n) for n in args.pools.split(",")]
    port = free_port()
    raise_fd_limit()
    result = Run()
    with PrivateRedis() as redis_url:
        settings = {
            "admin_token": ADMIN_TOKEN,
            "heartbeat_seconds": HEARTBEAT_SECONDS,
            "max_waiters": args.seekers + 1000,
            "max_waiters_per_app": args.seekers + 1000,
            "max_connections": 2 * args.seekers + 2000,
        }
        server = start_server(redis_url, port, args.api, **settings)
        procs: list[mp.Process] = []
        stop, go = mp.Event(), mp.Event()
        ready: Any = mp.Queue()
        out: Any = mp.Queue()
        try:
            t0 = time.monotonic()
            status, app = Client(port).call(
                "POST", "/v1/admin/apps", {"name": "seeks bench"}, {"Authorization": f"Bearer {ADMIN_TOKEN}"}
            )
            if status != 201:
                raise RuntimeError(f"creating the app: {status} {app}")
            tokens = name_players(port, app["key"], args.seekers, args.client_procs)
            result.setup_seconds = time.monotonic() - t0
            progress(f"{len(tokens)} players named in {result.setup_seconds:.1f} s")
            jobs = [
                (player_id(i), token, pools[i % len(pools)], args.seed * 1_000_003 + i)
                for i, token in enumerate(tokens)
            ]
            result.seekers = dict(Counter(players for _, _, players, _ in jobs))
            for p in range(args.client_procs):
                job = mp.Process(
                    target=client_process,
                    args=(port, args.game, jobs[p :: args.client_procs], args.think, ready, go, stop, out),
                )
                job.start()
                procs.append(job)
            opened = sum(ready.get(timeout=60 + args.seekers / RAMP_PER_SECOND) for _ in procs)
            progress(f"{opened} of {args.seekers} feeds open")
            groups = {
                "server": descendants(server.pid),
                "redis": named_children(os.getpid(), "redis-server"),
                "clients": [job.pid for job in procs if job.pid is not None],
            }
            before = {name: cpu_seconds(pids) for name, pids in groups.items()}
            api = descendants(server.pid)[1:]  # gunicorn's workers
            api_before = [cpu_seconds([pid]) for pid in api]
            result.started = time.time()
            go.set()
            time.sleep(args.seconds)
            result.ended = time.time()
            stop.set()
            result.server_cpu = cpu_seconds(groups["server"]) - before["server"]
            result.redis_cpu = cpu_seconds(groups["redis"]) - before["redis"]
            result.client_cpu = cpu_seconds(groups["clients"]) - before["clients"]
            result.api_cpu = [cpu_seconds([pid]) - b for pid, b in zip(api, api_before, strict=True)]
            progress("seeking stopped; the seekers cancel what is open")
            result.tallies = [
                t for t in collect(out, len(procs), timeout=60 + LATE_NOTE_SECONDS) if isinstance(t, Tally)
            ]
        finally:
            stop.set()
            go.set()
            for job in procs:
                job.join(timeout=30)
                if job.is_alive():
                    job.kill()
            stop_server(server)
    return result


def ms(values: list[float], q: int) -> str:
    return f"{percentile(values, q) * 1000:.0f}" if values else "-"


def report(args: argparse.Namespace, r: Run) -> dict[str, Any]:
    """Print the run's figures; return the checks (for the exit status and the smoke test)."""
    seconds = r.ended - r.started
    sought = [s for t in r.tallies for s in t.sought]
    statuses: Counter[str] = Counter()
    for t in r.tallies:
        statuses.update(t.statuses)
    # A match's seekers; it was formed in the run if one of them knew it before the end.
    members: dict[str, list[Sought]] = defaultdict(list)
    for s in sought:
        members[s.match_id].append(s)
    in_run = {m for m, group in members.items() if any(s.in_run for s in group)}
    print(
        f"seeks bench: {args.seekers} seekers (players of one app, a token each) in pools of "
        f"{args.pools} players of {args.game}; think {args.think:g} s between a match and the next seek; "
        f"{args.api} API process(es), {args.client_procs} client process(es), {seconds:.1f} s, "
        f"cpus={os.cpu_count()}"
    )
    print(
        f"{'pool':8s} {'seekers':>8s} {'matches':>8s} {'pairings/s':>11s} {'matched/s':>10s} "
        f"{'post->match ms p50':>19s} {'p99':>7s} {'server-side p50':>16s} {'p99':>7s}"
    )
    rows = {}
    for pool in [*sorted(r.seekers), 0]:
        group = [s for s in sought if (pool == 0 or s.pool == pool) and s.in_run]
        formed = {s.match_id for s in group}
        waits = [s.known - s.sent for s in group]
        server_side = [s.fed - s.created for s in group if s.fed is not None]
        label = f"{pool}p" if pool else "all"
        seekers = r.seekers.get(pool, sum(r.seekers.values()))
        rows[label] = len(formed) / seconds
        print(
            f"{label:8s} {seekers:>8d} {len(formed):>8d} {len(formed) / seconds:>11.1f} "
            f"{len(group) / seconds:>10.1f} {ms(waits, 50):>19s} {ms(waits, 99):>7s} "
            f"{ms(server_side, 50):>16s} {ms(server_side, 99):>7s}"
        )
    wrong = [m for m, group in members.items() if len(group) != group[0].pool]
    twice = [m for m, group in members.items() if len({s.player for s in group}) != len(group)]
    notes_missing = sum(t.notes_missing for t in r.tallies)
    cancelled = sum(t.cancelled for t in r.tallies)
    streams = sum(t.streams for t in r.tallies)
    formed_all = len(in_run)
    print(
        f"checks: {len(members)} matches, {len(members) - len(wrong)} seated exactly their pool's "
        f"number of seekers, {len(twice)} seated a player twice; seek_matched notes missing "
        f"{notes_missing}; open at the end and cancelled {cancelled}; feeds {streams}/{args.seekers}"
    )
    print(f"statuses {dict(sorted((k, v) for k, v in statuses.items() if v))}")
    per = r.server_cpu / formed_all * 1000 if formed_all else float("nan")
    print(
        f"server CPU {r.server_cpu / seconds:.2f} s/s (API {per:.1f} ms per pairing; by API process "
        + "/".join(f"{c / seconds:.2f}" for c in sorted(r.api_cpu, reverse=True))
        + "), "
        f"Redis {r.redis_cpu / seconds:.2f} s/s, the seekers' processes {r.client_cpu / seconds:.2f} s/s "
        "(all on the same cores)"
    )
    print(f"pairings/s {rows['all']:.1f} with {args.seekers} seekers")
    return {"wrong": wrong, "twice": twice, "notes_missing": notes_missing, "formed": formed_all}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seekers", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--think", type=float, default=0.0, help="mean seconds from a match to the next seek")
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--pools", default="2,4", help="player counts; seekers alternate between them")
    parser.add_argument("--api", type=int, default=2, help="API processes")
    parser.add_argument("--client-procs", type=int, default=4, help="processes running the seekers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="40 seekers for 3 s, 1 API and 1 client process")
    args = parser.parse_args(argv)
    if args.quick:
        args.seekers, args.seconds, args.api, args.client_procs = 40, 3.0, 1, 1
    game = GAMES.get(args.game)
    if game is None:
        parser.error(f"unknown game {args.game!r}")
    for n in (int(x) for x in args.pools.split(",")):
        if not game.min_players <= n <= game.max_players:
            parser.error(f"{args.game} takes {game.min_players}-{game.max_players} players, not {n}")
    result = run(args)
    checks = report(args, result)
    ok = not checks["wrong"] and not checks["twice"] and not checks["notes_missing"] and checks["formed"] > 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
