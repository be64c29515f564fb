"""Feeds: one connection per player against three match streams per player (``python -m bench.feeds``).

Issue 25 asks what a player's feed (``GET /v1/me/events``) saves an integration that would otherwise
hold a stream per match.  In one run this bench starts a private Redis and ``tabletop serve`` (2 API
processes by default, the admin token set), then, through the API only:

1. setup: the operator creates an app (admin API); the app names ``--players`` players and mints a
   player token for each; ``--matches`` three-seat matches are created by the app naming their
   players (match ``j`` seats players ``j``, ``j + n/3`` and ``j + 2n/3`` modulo ``n``, so with as many
   matches as players each player sits in 3);
2. human pace: every match gets a move every ``--pace`` seconds (60: a move a minute), made with the
   token of the player whose turn it is, in every phase, so each phase carries the same paced load;
3. three conditions, each on a freshly started server (the same Redis), so its memory is its own:
   no crowd, the **feed crowd** (an NDJSON stream of ``/v1/me/events`` per player) and the **match
   crowd** (the same players, each holding an NDJSON stream of ``/v1/matches/{id}/events`` for each
   of its 3 matches).  Each condition gathers its crowd, holds it ``--seconds`` with the paced moves
   only (server CPU, deliveries), then measures the moves/s ``--clients`` clients reach playing
   anonymous matches flat out (``--play-seconds``), the server's capacity left beside the crowd.

Printed per condition: flat-out moves/s beside the crowd-free baseline, the delivery latency of
the paced moves (from the mover's 200, and from its send: commit lies between the two; only moves
sent after the receiving stream was open count, the backlog a stream starts with is not a delivery),
server memory per player (RSS of the API processes with the crowd less before it, over players),
server CPU per second while only the paced moves run, Redis connections (``INFO clients``, the
bench's own excluded), and what the feed crowd costs as a share of what the match crowd costs.

The crowds run on asyncio in ``--waiter-procs`` processes of their own (raw HTTP/1.1, many
connections each, as :mod:`bench.crowd`); the paced players are threads in ``--pace-procs``
processes.  Everything shares the machine's cores with the server, as in the other benchmarks.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import multiprocessing as mp
import os
import random
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis

from bench.api import Client, free_port, percentile, phase, start_server
from bench.crowd import collect, raise_fd_limit, waiting_now
from bench.procs import cpu_seconds, descendants, named_children, progress, rss_mb, stop_server
from devtools.private_redis import PrivateRedis

ADMIN_TOKEN = "bench-feeds-admin-token"
#: Matches one pacing thread plays in turn.
PACED_PER_THREAD = 50
#: New connections per second a waiter process opens while its crowd gathers (about what two server
#: processes set streams up at on the 2-core machine; faster only overflows the listen queue).
RAMP_PER_SECOND = 300
#: Seats per match, and matches per player when there are as many matches as players.
SEATS = 3
CONDITIONS = ("none", "feed", "match")
LABELS = {"none": "no crowd", "feed": "feed crowd", "match": "match crowd"}


def player_id(i: int) -> str:
    return f"p{i}"


def seated(match: int, players: int) -> list[int]:
    """The players (indexes) of match ``match``: a third of the population apart, so that with as many
    matches as players every player sits in exactly :data:`SEATS` matches, with different opponents."""
    step = max(1, players // SEATS)
    return [(match + s * step) % players for s in range(SEATS)]


class Retrying:
    """A keep-alive connection that survives the server's restarts between conditions: a request that
    fails in transport is sent again on a new connection (moves carry an ``Idempotency-Key``, so a
    move committed before its answer was lost is answered again, not applied twice)."""

    def __init__(self, port: int, stop: Any = None) -> None:
        self.port, self.stop = port, stop
        self.client = Client(port, reconnect=0)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        patience: float = 120.0,
    ) -> tuple[int, Any]:
        give_up = time.monotonic() + patience
        while time.monotonic() < give_up:
            if self.stop is not None and self.stop.is_set():
                return 0, None  # the run is over: the server may be gone for good
            try:
                status, answer = self.client.call(method, path, body, headers)
            except (OSError, http.client.HTTPException):
                self.client.conn.close()
                self.client = Client(self.port, reconnect=0)
                time.sleep(0.25)
                continue
            if status != 503:
                return status, answer
            time.sleep(0.25)
        return self.client.call(method, path, body, headers)


# -- setup ------------------------------------------------------------------------------------------


def _name_players(port: int, app_key: str, first: int, count: int, threads: int) -> list[str]:
    """Players ``first ..`` named (idempotent PUT) and given a token each (scopes read and play)."""
    local = threading.local()
    auth = {"Authorization": f"Bearer {app_key}"}

    def one(i: int) -> str:
        if not hasattr(local, "client"):
            local.client = Retrying(port)
        pid = player_id(i)
        status, doc = local.client.call("PUT", f"/v1/players/{pid}", {"name": f"Player {i}"}, auth)
        assert status in (200, 201), doc
        status, doc = local.client.call("POST", f"/v1/players/{pid}/tokens", {}, auth)
        assert status == 201, doc
        return str(doc["token"])

    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(one, range(first, first + count)))


def name_players(port: int, app_key: str, players: int, procs: int) -> list[str]:
    """Every player's token, in player order (the work spread over ``procs`` processes)."""
    chunk = -(-players // procs)
    jobs = [(port, app_key, first, min(chunk, players - first), 16) for first in range(0, players, chunk)]
    with mp.Pool(len(jobs)) as pool:
        return [token for tokens in pool.starmap(_name_players, jobs) for token in tokens]


# -- the paced players ------------------------------------------------------------------------------


@dataclass
class Paced:
    """What one pacing process did: its matches' ids, and every move (match id, the version it made,
    when it was sent, when its 200 came)."""

    ids: dict[int, str] = field(default_factory=dict)
    moves: list[tuple[str, int, float, float]] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    finished: int = 0


def pace_process(
    port: int,
    game_id: str,
    app_key: str,
    tokens: list[str],
    matches: list[int],
    pace: float,
    made: Any,
    stop: Any,
    out: Any,
) -> None:
    """Create ``matches`` (the app naming their players), report their ids on ``made``, then play them
    at human speed: each gets a move about every ``pace`` seconds (a thread per
    :data:`PACED_PER_THREAD` of them, in turn), made with the token of the player to move.  Puts a
    :class:`Paced` on ``out`` once ``stop`` is set."""
    from engine.registry import get_game

    game = get_game(game_id)
    players = len(tokens)
    result = Paced()
    lock = threading.Lock()

    def play_some(slots: list[int]) -> None:
        client = Retrying(port, stop)
        rng = random.Random(slots[0])
        tables: dict[int, dict[str, Any]] = {}
        for j in slots:
            seed = rng.getrandbits(32)
            seats = [{"player": player_id(p)} for p in seated(j, players)]
            body = {"game": game_id, "seats": seats, "seed": seed}
            status, match = client.call("POST", "/v1/matches", body, {"Authorization": f"Bearer {app_key}"})
            assert status == 201, match
            tables[j] = {
                "id": match["id"],
                "shadow": game.setup(SEATS, match["options"], seed=seed),
                "players": seated(j, players),
                "seat": match["to_move"],
                "version": match["version"],
            }
            made.put((j, match["id"]))
        moves: list[tuple[str, int, float, float]] = []
        statuses: Counter[str] = Counter()
        finished = 0
        # Spread the first moves over the pace, so the load is even from the start.
        offset = rng.random() * pace / len(slots)
        if stop.wait(offset):
            slots = []
        while slots and not stop.is_set():
            for j in slots:
                if stop.wait(pace / len(slots)):
                    break
                table = tables[j]
                if table["seat"] is None:
                    continue
                token = tokens[table["players"][table["seat"]]]
                headers = {
                    "Authorization": f"Bearer {token}",
                    "If-Match": f'"{table["version"]}"',
                    "Idempotency-Key": f"{table['id']}-{table['version']}",
                }
                action = rng.choice(game.legal_actions(table["shadow"]))
                sent = time.time()
                status, moved = client.call(
                    "POST", f"/v1/matches/{table['id']}/actions", {"action": action}, headers
                )
                statuses[str(status) if status else "cut short by the end"] += 1
                if status != 200:  # out of step with the server: leave the match
                    table["seat"] = None
                    continue
                moves.append((table["id"], moved["version"], sent, time.time()))
                game.apply(table["shadow"], action)
                table["seat"], table["version"] = moved["to_move"], moved["version"]
                if moved["status"] != "active" or moved["to_move"] is None:
                    table["seat"] = None
                    finished += 1
        with lock:
            result.moves.extend(moves)
            result.statuses.update(statuses)
            result.finished += finished
            result.ids.update({j: t["id"] for j, t in tables.items()})

    threads = [
        threading.Thread(target=play_some, args=(matches[i : i + PACED_PER_THREAD],))
        for i in range(0, len(matches), PACED_PER_THREAD)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(result)


# -- the crowds -------------------------------------------------------------------------------------


@dataclass
class Tally:
    """What one waiter process saw: statuses, connections, and every delivery (match id, version,
    arrival time, when the stream it came on was opened)."""

    statuses: Counter[str] = field(default_factory=Counter)
    connects: int = 0
    lines: int = 0
    arrivals: list[tuple[str, int, float, float]] = field(default_factory=list)


class Waiter:
    """One open stream: a player's feed, or one match's events, with the player's token."""

    def __init__(self, port: int, token: str, match_id: str | None, tally: Tally, source: str) -> None:
        self.port, self.token, self.match_id, self.tally = port, token, match_id, tally
        #: The loopback address the stream is opened from: one machine's ~28,000 ephemeral ports bound
        #: the streams of one source address, so a crowd of 30,000 spreads over several.
        self.source = source
        self.path = "/v1/me/events" if match_id is None else f"/v1/matches/{match_id}/events"
        self.last = ""  # the last id seen, to resume after a dropped stream

    async def run(self) -> None:
        while True:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", self.port, limit=2**20, local_addr=(self.source, 0)
                )
            except OSError:
                self.tally.statuses["connect error"] += 1
                await asyncio.sleep(1.0)
                continue
            try:
                if await self.stream(reader, writer):
                    return
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                self.tally.statuses[f"transport {type(exc).__name__}"] += 1
                await asyncio.sleep(0.5)
            finally:
                writer.close()

    async def stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Read one stream until it ends; whether the match is over (nothing more to wait for)."""
        after = f"?after={self.last}" if self.last else ""
        writer.write(
            f"GET {self.path}{after} HTTP/1.1\r\nHost: b\r\nAccept: application/x-ndjson\r\n"
            f"Authorization: Bearer {self.token}\r\n\r\n".encode()
        )
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        self.tally.statuses[str(status)] += 1
        if status != 200:
            headers = {k.lower(): v for k, _, v in (line.partition(b": ") for line in lines[1:])}
            await reader.readexactly(int(headers.get(b"content-length", b"0")))
            await asyncio.sleep(float(headers.get(b"retry-after", b"1")))
            return False
        self.tally.connects += 1
        opened = time.time()
        seen: set[tuple[str, int]] = set()
        pending = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                return False
            pending += (await reader.readexactly(size + 2))[:-2]
            at = time.time()
            *records, pending = pending.split(b"\n")
            for record in records:
                doc = orjson.loads(record)
                if "id" not in doc:  # a heartbeat, a snapshot
                    continue
                self.tally.lines += 1
                self.last = doc["id"]
                if self.match_id is None:  # a feed entry: one delivery to this player
                    self.tally.arrivals.append((doc["match_id"], doc["version"], at, opened))
                else:  # a match's events: the first of each version is the delivery
                    version = int(doc["id"].split("-")[0])
                    if (self.match_id, version) not in seen:
                        seen.add((self.match_id, version))
                        self.tally.arrivals.append((self.match_id, version, at, opened))
                    if doc.get("type") == "match_over":
                        return True


#: Loopback source addresses the waiters of one process spread over (127.0.0.2 onwards).
SOURCES = 8


def waiter_process(port: int, streams: list[tuple[str, str | None]], stop: Any, out: Any) -> None:
    """Hold ``streams`` (player token, match id or ``None`` for the feed) open until ``stop`` is set,
    opening at most :data:`RAMP_PER_SECOND` a second; puts a :class:`Tally` on ``out``."""
    raise_fd_limit()
    tally = Tally()

    async def main() -> None:
        tasks = []
        for n, (token, match_id) in enumerate(streams):
            source = f"127.0.0.{2 + n % SOURCES}"
            tasks.append(asyncio.create_task(Waiter(port, token, match_id, tally, source).run()))
            if n % 50 == 49:
                await asyncio.sleep(50 / RAMP_PER_SECOND)
        await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    out.put(tally)


def crowd_streams(kind: str, tokens: list[str], ids: dict[int, str]) -> list[tuple[str, str | None]]:
    """The crowd of a condition: a feed per player, or a stream per (player, match) seat."""
    if kind == "feed":
        return [(token, None) for token in tokens]
    if kind == "match":
        players = len(tokens)
        return [(tokens[p], ids[j]) for j in sorted(ids) for p in seated(j, players)]
    return []


# -- one condition ----------------------------------------------------------------------------------


@dataclass
class Condition:
    kind: str
    streams: int = 0
    gathered: float = 0.0
    gather_seconds: float = 0.0
    rss_before: float = 0.0
    rss_crowd: float = 0.0
    hold: tuple[float, float] = (0.0, 0.0)
    hold_cpu: dict[str, float] = field(default_factory=dict)
    play_moves: int = 0
    play_latencies: list[float] = field(default_factory=list)
    play_cpu: float = 0.0
    redis_clients: int = 0
    tallies: list[Tally] = field(default_factory=list)


def server_settings(args: argparse.Namespace) -> dict[str, Any]:
    # The whole crowd may land on one process (gunicorn workers take connections as they come).
    cap = SEATS * args.players + 1000
    return {
        "admin_token": ADMIN_TOKEN,
        "max_waiters": cap,
        "max_waiters_per_app": cap,
        "max_waiters_per_player": SEATS + 2,
        "max_connections": cap + 2000,
    }


def waiting(port: int) -> float:
    """The server's waiting clients (:func:`bench.crowd.waiting_now`), or -1 while a server busy
    setting streams up is too slow to say."""
    try:
        return waiting_now(port)
    except OSError:
        return -1.0


def run_condition(
    kind: str, args: argparse.Namespace, redis_url: str, port: int, tokens: list[str], ids: dict[int, str]
) -> Condition:
    """One condition on a fresh server: gather the crowd, hold it with the paced moves only, then
    measure flat-out play beside it."""
    cond = Condition(kind)
    server = start_server(redis_url, port, args.workers, **server_settings(args))
    progress(f"{LABELS[kind]}: server up")
    waiters: list[mp.Process] = []
    stop = mp.Event()
    out: Any = mp.Queue()
    try:
        time.sleep(args.warmup)  # the paced moves warm the new processes up
        cond.rss_before = rss_mb(server.pid)
        streams = crowd_streams(kind, tokens, ids)
        cond.streams = len(streams)
        procs = min(args.waiter_procs, len(streams))
        for p in range(procs):
            job = mp.Process(target=waiter_process, args=(port, streams[p::procs], stop, out))
            job.start()
            waiters.append(job)
        started = time.monotonic()
        while (
            streams and waiting(port) < len(streams) and time.monotonic() - started < 60 + len(streams) / 100
        ):
            time.sleep(0.5)
        cond.gathered, cond.gather_seconds = waiting(port), time.monotonic() - started
        progress(f"{LABELS[kind]}: {cond.gathered:.0f} of {len(streams)} streams open")
        time.sleep(args.settle if streams else 0)
        cond.rss_crowd = rss_mb(server.pid)
        groups: dict[str, list[int]] = {
            "server": descendants(server.pid),
            "redis": named_children(os.getpid(), "redis-server"),
            "waiters": [w.pid for w in waiters if w.pid is not None],
        }
        before = {name: cpu_seconds(pids) for name, pids in groups.items()}
        t0 = time.time()
        time.sleep(args.seconds)
        cond.hold = (t0, time.time())
        progress(f"{LABELS[kind]}: held")
        cond.hold_cpu = {name: cpu_seconds(pids) - before[name] for name, pids in groups.items()}
        client = redis.Redis.from_url(redis_url)
        cond.redis_clients = int(client.info("clients")["connected_clients"]) - 1  # less this one
        client.close()
        if args.play_seconds > 0:
            server_cpu = cpu_seconds(groups["server"])
            results, _ = phase(
                "play", port, args.clients, args.client_procs, args.play_seconds, (args.game, 3, False)
            )
            cond.play_cpu = cpu_seconds(groups["server"]) - server_cpu
            cond.play_latencies = [x for played in results for x in played["latencies"]]
            cond.play_moves = len(cond.play_latencies)
    finally:
        stop.set()
        cond.tallies = [t for t in collect(out, len(waiters)) if isinstance(t, Tally)]
        for job in waiters:
            job.join(timeout=30)
            if job.is_alive():
                job.kill()
        stop_server(server)
        progress(f"{LABELS[kind]}: done")
    return cond


# -- the run ----------------------------------------------------------------------------------------


def ms(values: list[float], q: int) -> str:
    return f"{percentile(values, q) * 1000:.1f}" if values else "-"


def delays(
    cond: Condition, moves: dict[tuple[str, int], tuple[float, float]]
) -> tuple[list[float], list[float]]:
    """Delivery delays of the paced moves made while the crowd was held, from the move's send and from
    its 200; only moves sent after the stream that carried them was open."""
    t0, t1 = cond.hold
    from_send, from_ok = [], []
    for tally in cond.tallies:
        for match_id, version, at, opened in tally.arrivals:
            move = moves.get((match_id, version))
            if move is None or not t0 <= move[0] <= t1 or move[0] < opened:
                continue
            from_send.append(at - move[0])
            from_ok.append(at - move[1])
    return from_send, from_ok


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    port = free_port()
    raise_fd_limit()
    with PrivateRedis() as redis_url:
        # The setup server: apps, players, tokens; the pacers create the matches on it.
        server = start_server(redis_url, port, args.workers, **server_settings(args))
        stop = mp.Event()
        made: Any = mp.Queue()
        out: Any = mp.Queue()
        pacers: list[mp.Process] = []
        conditions: list[Condition] = []
        try:
            t_setup = time.monotonic()
            status, app = Client(port).call(
                "POST", "/v1/admin/apps", {"name": "feeds bench"}, {"Authorization": f"Bearer {ADMIN_TOKEN}"}
            )
            assert status == 201, app
            tokens = name_players(port, app["key"], args.players, args.client_procs)
            progress(f"{len(tokens)} players named")
            for p in range(args.pace_procs):
                mine = list(range(p, args.matches, args.pace_procs))
                job = mp.Process(
                    target=pace_process,
                    args=(port, args.game, app["key"], tokens, mine, args.pace, made, stop, out),
                )
                job.start()
                pacers.append(job)
            ids: dict[int, str] = {}
            while len(ids) < args.matches:
                j, match_id = made.get(timeout=120)
                ids[j] = match_id
            setup_seconds = time.monotonic() - t_setup
            progress(f"setup done in {setup_seconds:.1f} s")
            stop_server(server)
            for kind in CONDITIONS:
                conditions.append(run_condition(kind, args, redis_url, port, tokens, ids))
        finally:
            stop.set()
            paced = [r for r in collect(out, len(pacers), timeout=60 + args.pace) if isinstance(r, Paced)]
            for job in pacers:
                job.join(timeout=30)
                if job.is_alive():
                    job.kill()
            if server.poll() is None:
                stop_server(server)
    moves = {(m, v): (sent, ok) for r in paced for m, v, sent, ok in r.moves}
    report(args, conditions, paced, moves, setup_seconds, time.monotonic() - started)
    return 0


def report(
    args: argparse.Namespace,
    conditions: list[Condition],
    paced: list[Paced],
    moves: dict[tuple[str, int], tuple[float, float]],
    setup_seconds: float,
    total: float,
) -> None:
    by = {c.kind: c for c in conditions}
    statuses: Counter[str] = Counter()
    for r in paced:
        statuses.update(r.statuses)
    print(
        f"feeds bench: players={args.players} matches={args.matches} ({SEATS} seats, named by an app) "
        f"game={args.game} API processes={args.workers} waiter processes={args.waiter_procs} "
        f"cpus={os.cpu_count()} ({total:.0f} s in all)"
    )
    print(
        f"setup       app, {args.players} players and tokens, {args.matches} matches in {setup_seconds:.1f} s"
    )
    print(
        f"paced       a move every {args.pace:g} s per match ({args.matches / args.pace:.1f} moves/s), "
        f"{len(moves)} moves made, {sum(r.finished for r in paced)} matches finished, "
        f"statuses {dict(sorted(statuses.items()))}"
    )
    print(
        f"phases      hold {args.seconds:g} s (paced moves only), then play {args.play_seconds:g} s "
        f"({args.clients} clients flat out); each condition on a fresh server"
    )

    def row(label: str, values: list[str]) -> None:
        print(f"{label:30s}" + "".join(f"{v:>14s}" for v in values))

    row("", [LABELS[c.kind] for c in conditions])
    row("streams held", [f"{c.gathered:.0f}/{c.streams}" for c in conditions])
    row("gathered in s", [f"{c.gather_seconds:.1f}" if c.streams else "-" for c in conditions])
    rate = {c.kind: c.play_moves / args.play_seconds if args.play_seconds else 0.0 for c in conditions}
    base = rate.get("none") or 0.0
    row(
        "moves/s flat out",
        [f"{rate[c.kind]:.0f}" + (f" ({rate[c.kind] / base:.0%})" if base else "") for c in conditions],
    )
    row("move p99 ms flat out", [ms(c.play_latencies, 99) for c in conditions])
    # Server CPU per move: what the crowd costs each move, less swayed than moves/s by whatever else
    # runs on the machine's cores.
    per_move = {c.kind: c.play_cpu / c.play_moves * 1000 if c.play_moves else 0.0 for c in conditions}
    row("server CPU ms per move", [f"{per_move[c.kind]:.2f}" for c in conditions])
    lat = {c.kind: delays(c, moves) for c in conditions}
    row("deliveries in hold", [f"{len(lat[c.kind][0])}" if c.streams else "-" for c in conditions])
    row("delivery p50 ms from 200", [ms(lat[c.kind][1], 50) if c.streams else "-" for c in conditions])
    row("delivery p99 ms from 200", [ms(lat[c.kind][1], 99) if c.streams else "-" for c in conditions])
    row("delivery p50 ms from send", [ms(lat[c.kind][0], 50) if c.streams else "-" for c in conditions])
    row("delivery p99 ms from send", [ms(lat[c.kind][0], 99) if c.streams else "-" for c in conditions])
    row("server RSS MiB before/with", [f"{c.rss_before:.0f}/{c.rss_crowd:.0f}" for c in conditions])
    per_player = {c.kind: (c.rss_crowd - c.rss_before) * 1024 / args.players for c in conditions}
    row("server KiB per player", [f"{per_player[c.kind]:.1f}" if c.streams else "-" for c in conditions])
    cpu = {c.kind: c.hold_cpu.get("server", 0.0) / args.seconds for c in conditions}
    row("server CPU s/s in hold", [f"{cpu[c.kind]:.3f}" for c in conditions])
    row(
        "waiters CPU s/s in hold",
        [f"{c.hold_cpu.get('waiters', 0.0) / args.seconds:.3f}" for c in conditions],
    )
    row("redis CPU s/s in hold", [f"{c.hold_cpu.get('redis', 0.0) / args.seconds:.3f}" for c in conditions])
    row("redis connections", [str(c.redis_clients) for c in conditions])
    for c in conditions:
        merged: Counter[str] = Counter()
        for t in c.tallies:
            merged.update(t.statuses)
        if c.streams:
            print(
                f"statuses    {LABELS[c.kind]}: {dict(sorted(merged.items()))}, connections "
                f"{sum(t.connects for t in c.tallies)}, lines {sum(t.lines for t in c.tallies)}"
            )
    if "feed" in by and "match" in by:
        costs = {
            "memory": (per_player["feed"], per_player["match"]),
            "hold CPU": (cpu["feed"] - cpu["none"], cpu["match"] - cpu["none"]),
            "CPU per move": (per_move["feed"] - per_move["none"], per_move["match"] - per_move["none"]),
            "moves/s lost": (base - rate["feed"], base - rate["match"]),
        }
        shares = "  ".join(f"{name} {share(f, m)}" for name, (f, m) in costs.items())
        print(f"feed crowd cost / match crowd cost: {shares}  (target: at most 33%)")
        p99 = percentile(lat["feed"][0], 99) if lat["feed"][0] else float("nan")
        print(f"feed delivery p99 from send {p99 * 1000:.0f} ms (target: under 1000 ms)")


def share(feed: float, match: float) -> str:
    """The feed crowd's cost as a share of the match crowd's (a cost under noise reads as 0)."""
    if match <= 0:
        return "n/a (the match crowd cost nothing measurable)"
    return f"{max(feed, 0.0) / match:.0%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--matches", type=int, help="three-seat matches (default: as many as players)")
    parser.add_argument("--pace", type=float, default=60.0, help="seconds between two moves of a match")
    parser.add_argument("--seconds", type=float, default=60.0, help="hold: the crowd with paced moves only")
    parser.add_argument("--play-seconds", type=float, default=10.0, help="flat-out play beside the crowd")
    parser.add_argument("--clients", type=int, default=8, help="flat-out players (anonymous matches)")
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--waiter-procs", type=int, default=2, help="processes holding a crowd")
    parser.add_argument("--pace-procs", type=int, default=2, help="processes playing the paced matches")
    parser.add_argument("--workers", type=int, default=2, help="API processes")
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds after a server start")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds after the crowd gathered")
    args = parser.parse_args(argv)
    args.matches = args.matches or args.players
    if args.players < SEATS:
        parser.error(f"--players must be at least {SEATS}")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
