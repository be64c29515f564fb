"""Crowd: waiting clients beside players (``python -m bench.api --crowd 10000``).

Starts a private Redis and ``tabletop serve`` (``--workers`` processes), then measures in one run:

1. crowd-free: ``GET /healthz`` throughput, then ``--clients`` clients playing (as ``bench.api``) while a
   prober sends one ``GET /healthz`` at a time;
2. the crowd: ``N`` waiting clients, spread over the matches being played (client ``i`` follows the
   match of player ``i mod clients``): three quarters hold an event stream open (NDJSON and SSE in
   turn), a quarter long-poll (``wait=30``) and poll again as soon as events arrive; plus 64
   connections that send their request headers one line a second (the server drops them after
   ``TABLETOP_HEADER_TIMEOUT_SECONDS``, and they come back).  When a followed player starts a new
   match, its followers move to it.  With the crowd in place, the same play phase and prober run again.

Printed: moves/s and move p99 with and without the crowd, ``/healthz`` p99 under the crowd, how late
events reached the waiters (from the moment the move was sent to its arrival, so the move's own latency
is included: an upper bound of commit-to-arrival), the server's resident memory per open connection,
and the Redis connections in use.  Waiting clients run on asyncio in their own processes; a sample of
them (one in ``SAMPLE``) records arrival times, of the events committed after they subscribed (the
backlog a client reads when it subscribes is not a delivery).
"""

from __future__ import annotations

import asyncio
import multiprocessing as mp
import os
import queue
import random
import resource
import sys
import threading
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis

from bench.api import Client, free_port, percentile, phase, start_server
from bench.procs import cpu_seconds, descendants, named_children, rss_mb
from devtools.private_redis import PrivateRedis

#: One waiting client in this many records the arrival time of every version it sees.
SAMPLE = 20
SLOW_CLIENTS = 64
#: Seconds between two header lines of a slow client.
SLOW_LINE_SECONDS = 1.0
#: New connections per second while the crowd gathers (per waiter process): about what two server
#: processes set streams up at here (faster only overflows the listen queue).
RAMP_PER_SECOND = 300
#: Human-paced matches one pacing thread plays.
PACED_PER_THREAD = 50


def raise_fd_limit() -> None:
    """As many open files as the hard limit allows: a crowd is a file descriptor per connection."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def ms(values: list[float], q: int) -> str:
    return f"{percentile(values, q) * 1000:.1f}"


@dataclass
class Tally:
    """What one waiter process saw."""

    events: int = 0
    polls: int = 0
    connects: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    slow_dropped: int = 0
    #: (match id, version, arrival time) of sampled waiters: first sight of each version.
    arrivals: list[tuple[str, int, float]] = field(default_factory=list)


class Board:
    """The match each slot (player) is on, as this waiter process knows it, and who follows it: when a
    slot's match changes, its followers' connections are closed, so they move without polling."""

    def __init__(self) -> None:
        self.ids: dict[int, str] = {}
        self._moved: dict[int, asyncio.Event] = {}
        self._followers: dict[int, set[asyncio.StreamWriter]] = {}

    def update(self, ids: dict[int, str]) -> None:
        for slot, match_id in ids.items():
            if self.ids.get(slot) != match_id:
                self.ids[slot] = match_id
                self._moved.pop(slot, asyncio.Event()).set()
                for writer in self._followers.pop(slot, set()):
                    writer.close()

    async def moved(self, slot: int) -> None:
        await self._moved.setdefault(slot, asyncio.Event()).wait()

    def follow(self, slot: int, writer: asyncio.StreamWriter) -> None:
        self._followers.setdefault(slot, set()).add(writer)

    def unfollow(self, slot: int, writer: asyncio.StreamWriter) -> None:
        self._followers.get(slot, set()).discard(writer)


#: What marks an event, and the end of a match, in each stream format (counted, not parsed, by the
#: waiters that do not record arrival times).
MARKS = {"application/x-ndjson": (b'{"id":"', b'"type":"match_over"'),
         "text/event-stream": (b"id: ", b"event: match_over")}  # fmt: skip


class Follower:
    """One waiting client: follows the match of its slot, by stream or by long-poll."""

    def __init__(self, index: int, slot: int, port: int, board: Board, tally: Tally) -> None:
        self.index, self.slot, self.port, self.board, self.tally = index, slot, port, board, tally
        self.mode = "poll" if index % 4 == 3 else "stream"
        self.accept = "application/x-ndjson" if index % 2 else "text/event-stream"
        self.sampled = index % SAMPLE == 0
        self.seen_version = -1

    def arrived(self, match_id: str, event_id: bytes, at: float) -> None:
        self.tally.events += 1
        version = int(event_id.split(b"-")[0])
        if version > self.seen_version:
            self.seen_version = version
            self.tally.arrivals.append((match_id, version, at))

    async def run(self) -> None:
        while True:
            match_id = self.board.ids.get(self.slot)
            if match_id is None:
                await self.board.moved(self.slot)
                continue
            self.seen_version = -1
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                self.tally.statuses["connect error"] += 1
                await asyncio.sleep(1.0)
                continue
            self.tally.connects += 1
            self.board.follow(self.slot, writer)
            try:
                if self.mode == "poll":
                    await self.poll(match_id, reader, writer)
                else:
                    await self.stream(match_id, reader, writer)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                if self.board.ids.get(self.slot) == match_id:  # not closed by the board: a failure
                    self.tally.statuses[f"transport {type(exc).__name__}"] += 1
                    await asyncio.sleep(0.5)
            finally:
                self.board.unfollow(self.slot, writer)
                writer.close()
            if self.board.ids.get(self.slot) == match_id:  # over: wait for the player's next match
                await self.board.moved(self.slot)

    async def _head(self, reader: asyncio.StreamReader) -> tuple[int, dict[bytes, bytes]]:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        headers = dict(line.split(b": ", 1) for line in lines[1:] if b": " in line)
        return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}

    async def _refused(self, status: int, headers: dict[bytes, bytes], reader: asyncio.StreamReader) -> None:
        self.tally.statuses[str(status)] += 1
        await reader.readexactly(int(headers.get(b"content-length", b"0")))
        await asyncio.sleep(float(headers.get(b"retry-after", b"1")))

    async def stream(self, match_id: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        request = f"GET /v1/matches/{match_id}/events HTTP/1.1\r\nHost: b\r\nAccept: {self.accept}\r\n\r\n"
        writer.write(request.encode())
        status, headers = await self._head(reader)
        if status != 200:
            await self._refused(status, headers, reader)
            return
        self.tally.statuses["200"] += 1
        if not self.sampled:  # count events in the raw bytes, stop at the end of the match
            event, over = MARKS[self.accept]
            while data := await reader.read(65536):
                self.tally.events += data.count(event)
                if over in data:
                    return
            return
        ndjson = self.accept == "application/x-ndjson"
        sep = b"\n" if ndjson else b"\n\n"
        pending = b""
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                return
            pending += (await reader.readexactly(size + 2))[:-2]
            at = time.time()
            *records, pending = pending.split(sep)
            for record in records:
                if record.startswith((b'{"type":"snapshot"', b"event: snapshot")):
                    # Events up to the snapshot's version came as the backlog: not deliveries.
                    self.seen_version = orjson.loads(record.split(b"data: ", 1)[-1])["match"]["version"]
                elif ndjson:
                    if record.startswith(b'{"id":"'):
                        self.arrived(match_id, record[7 : record.index(b'"', 7)], at)
                        if b'"type":"match_over"' in record:
                            return
                elif record.startswith(b"id: "):
                    self.arrived(match_id, record[4 : record.index(b"\n")], at)
                    if b"\nevent: match_over\n" in record:
                        return

    async def poll(self, match_id: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        after = "0-0"
        while True:
            path = f"/v1/matches/{match_id}/events?after={after}&wait=30"
            writer.write(f"GET {path} HTTP/1.1\r\nHost: b\r\n\r\n".encode())
            self.tally.polls += 1
            status, headers = await self._head(reader)
            if status != 200:
                await self._refused(status, headers, reader)
                return
            self.tally.statuses["200"] += 1
            page = orjson.loads(await reader.readexactly(int(headers[b"content-length"])))
            at = time.time()
            if after == "0-0":  # the backlog: not deliveries
                self.seen_version = page["version"]
            for event in page["events"]:
                if self.sampled:
                    self.arrived(match_id, event["id"].encode(), at)
                else:
                    self.tally.events += 1
            after = page["last_id"]
            if page["status"] != "active":
                return


async def slow_client(port: int, tally: Tally) -> None:
    """Sends a request's headers one line a second, for ever; counts the times the server hung up."""
    while True:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(1.0)
            continue
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: slow\r\n")
        try:
            while True:
                try:
                    data = await asyncio.wait_for(reader.read(1), timeout=SLOW_LINE_SECONDS)
                except TimeoutError:
                    writer.write(b"X-Slow: 1\r\n")
                    await writer.drain()
                    continue
                if not data:
                    tally.slow_dropped += 1
                    break
        except OSError:
            tally.slow_dropped += 1
        finally:
            writer.close()


def waiter_process(
    first: int, count: int, slow: int, slots: range, port: int, shared: Any, stop: Any, out: Any
) -> None:
    """Waiters ``first .. first + count - 1`` (waiter ``i`` follows slot ``slots[i % len(slots)]``) and
    ``slow`` slow clients, until ``stop`` is set."""
    raise_fd_limit()
    tally = Tally()

    async def main() -> None:
        board = Board()

        async def refresh() -> None:
            while True:
                board.update(dict(shared))
                await asyncio.sleep(0.1)

        tasks = [asyncio.create_task(refresh())]
        tasks += [asyncio.create_task(slow_client(port, tally)) for _ in range(slow)]
        for n, i in enumerate(range(first, first + count)):
            slot = slots[i % len(slots)]
            tasks.append(asyncio.create_task(Follower(i, slot, port, board, tally).run()))
            if n % 100 == 99:
                await asyncio.sleep(100 / RAMP_PER_SECOND)
        await asyncio.get_running_loop().run_in_executor(None, stop.wait)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    out.put(tally)


def pace_process(port: int, game_id: str, first_slot: int, matches: int, pace: float, shared: Any,
                 stop: Any, out: Any) -> None:  # fmt: skip
    """``matches`` matches played at human speed: each gets a move about every ``pace`` seconds (a
    thread per ``PACED_PER_THREAD`` of them, in turn), and a new match when one ends; their ids are
    published under slots ``first_slot ..``.  Puts the send time of every move on ``out`` at the end."""
    from engine.registry import get_game

    game = get_game(game_id)

    def pace_some(slots: list[int], sent: list[tuple[str, int, float]]) -> None:
        client = Client(port, reconnect=0)
        rng = random.Random(slots[0])
        tables: dict[int, Any] = {}
        while not stop.is_set():
            for slot in slots:
                if stop.wait(pace / len(slots)):
                    return
                table = tables.get(slot)
                if table is None or table["seat"] is None:
                    seed = rng.getrandbits(32)
                    body = {"game": game_id, "seats": [{"name": f"p{i}"} for i in range(3)], "seed": seed}
                    match = client.call("POST", "/v1/matches", body)[1]
                    table = tables[slot] = {
                        "id": match["id"], "shadow": game.setup(3, match["options"], seed=seed),
                        "tokens": {t["seat"]: t["token"] for t in match["tokens"]},
                        "seat": match["to_move"], "version": match["version"],
                    }  # fmt: skip
                    shared[slot] = match["id"]
                    continue
                action = rng.choice(game.legal_actions(table["shadow"]))
                headers = {"Authorization": f"Bearer {table['tokens'][table['seat']]}",
                           "If-Match": f'"{table["version"]}"'}  # fmt: skip
                sent.append((table["id"], table["version"] + 1, time.time()))
                status, moved = client.call(
                    "POST", f"/v1/matches/{table['id']}/actions", {"action": action}, headers
                )
                assert status == 200, moved
                game.apply(table["shadow"], action)
                table["seat"], table["version"] = moved["to_move"], moved["version"]

    all_slots = list(range(first_slot, first_slot + matches))
    sent: list[tuple[str, int, float]] = []
    threads = [
        threading.Thread(target=pace_some, args=(all_slots[i : i + PACED_PER_THREAD], sent))
        for i in range(0, matches, PACED_PER_THREAD)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(sent)


class Prober(threading.Thread):
    """One ``GET /healthz`` at a time, every ``interval`` seconds, recording each latency."""

    def __init__(self, port: int, interval: float = 0.02) -> None:
        super().__init__(daemon=True)
        self.port, self.interval = port, interval
        self.latencies: list[float] = []
        self.failures = 0
        self.halt = threading.Event()

    def run(self) -> None:
        client = Client(self.port, reconnect=0)
        while not self.halt.is_set():
            t0 = time.perf_counter()
            try:
                ok = client.call("GET", "/healthz")[0] == 200
            except OSError:
                client = Client(self.port, reconnect=0)
                ok = False
            self.latencies.append(time.perf_counter() - t0)
            self.failures += not ok
            self.halt.wait(self.interval)


def waiting_now(port: int) -> float:
    """``tabletop_waiting_clients`` summed over the server's processes (from /metrics)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        for line in resp.read().decode().splitlines():
            if line.startswith("tabletop_waiting_clients "):
                return float(line.split()[1])
    return 0.0


def collect(out: Any, expected: int, timeout: float = 120.0) -> list[Any]:
    """What the helper processes put on ``out`` (a process that fails to report is left out)."""
    got: list[Any] = []
    deadline = time.monotonic() + timeout
    while len(got) < expected:
        try:
            got.append(out.get(timeout=max(0.1, deadline - time.monotonic())))
        except queue.Empty:
            print(f"warning: {expected - len(got)} helper process(es) did not report", file=sys.stderr)
            break
    return got


def play_with_probe(port: int, args: Any, slots: Any, cpu: dict[str, list[int]]) -> dict[str, Any]:
    """A play phase with the healthz prober beside it; also the CPU seconds each group of processes
    (``cpu``: name -> pids) spent meanwhile."""
    prober = Prober(port)
    prober.start()
    play = (args.game, 3, False)
    before = {name: cpu_seconds(pids) for name, pids in cpu.items()}
    results, players_cpu = phase("play", port, args.clients, args.client_procs, args.seconds, play, slots)
    spent = {name: cpu_seconds(pids) - before[name] for name, pids in cpu.items()}
    prober.halt.set()
    prober.join()
    latencies = [x for played in results for x in played["latencies"]]
    sent = {(m, v): t for played in results for m, v, t in played["sent"]}
    return {"moves": len(latencies), "latencies": latencies, "healthz": prober.latencies, "sent": sent,
            "probe_failures": prober.failures, "cpu": {**spent, "players": players_cpu}}  # fmt: skip


def run(args: Any) -> int:
    n = args.crowd
    workers = args.workers or os.cpu_count() or 2
    procs = max(1, args.waiter_procs)
    port = free_port()
    raise_fd_limit()
    with PrivateRedis() as redis_url, mp.Manager() as manager:
        per_process = n // workers + SLOW_CLIENTS + 1000
        server = start_server(
            redis_url,
            port,
            workers,
            max_waiters=per_process,
            max_waiters_per_address=per_process,
            max_connections=per_process + 2000,
            **args.settings,
        )
        stop = mp.Event()
        out: Any = mp.Queue()
        waiters: list[mp.Process] = []
        slots = manager.dict()
        pacer = mp.Process(
            target=pace_process, args=(port, args.game, args.clients, args.paced, args.pace, slots, stop, out)
        )
        try:
            hits, _ = phase("healthz", port, args.clients, args.client_procs, args.seconds, ("", 0, False))
            healthz_rps = sum(hits) / args.seconds
            if args.paced:
                pacer.start()
                time.sleep(args.pace)  # every paced match made
            cpu = {"server": descendants(server.pid), "redis": named_children(os.getpid(), "redis-server")}
            free = play_with_probe(port, args, slots, cpu)
            rss_free = rss_mb(server.pid)
            followed = range(args.clients if args.follow == "paced" else 0, args.clients + args.paced)
            first = 0
            for p in range(procs):
                count = n // procs + (1 if p < n % procs else 0)
                slow = SLOW_CLIENTS // procs + (1 if p < SLOW_CLIENTS % procs else 0)
                job = mp.Process(
                    target=waiter_process,
                    args=(first, count, slow, followed, port, slots, stop, out),
                )
                job.start()
                waiters.append(job)
                first += count
            gathered_at = time.monotonic()
            while waiting_now(port) < 0.9 * n and time.monotonic() - gathered_at < 30 + n / 200:
                time.sleep(0.5)
            gathered = waiting_now(port), time.monotonic() - gathered_at
            rss_crowd = rss_mb(server.pid)
            client = redis.Redis.from_url(redis_url)
            crowd = play_with_probe(port, args, slots, {**cpu, "waiters": [w.pid for w in waiters]})
            redis_clients = int(client.info("clients")["connected_clients"]) - 1  # less this one
            waiting_end = waiting_now(port)
        finally:
            stop.set()
            results = collect(out, len(waiters) + bool(args.paced))
            tallies = [r for r in results if isinstance(r, Tally)]
            paced_sent = [x for r in results if isinstance(r, list) for x in r]
            for job in [*waiters, *([pacer] if args.paced else [])]:
                job.join(timeout=30)
                if job.is_alive():
                    job.kill()
            server.terminate()
            server.wait(timeout=30)
    sent = {**crowd["sent"], **{(m, v): t for m, v, t in paced_sent}}
    delays = [at - sent[(m, v)] for t in tallies for m, v, at in t.arrivals if (m, v) in sent]
    statuses: Counter[str] = Counter()
    for t in tallies:
        statuses.update(t.statuses)
    free_rate, crowd_rate = free["moves"] / args.seconds, crowd["moves"] / args.seconds
    print(
        f"crowd bench: N={n} waiting clients ({SLOW_CLIENTS} slow-header connections besides) "
        f"players={args.clients} game={args.game} server processes={workers} waiter processes={procs} "
        f"seconds={args.seconds:g} cpus={os.cpu_count()}"
    )
    if args.paced:
        print(
            f"paced       {args.paced} more matches played at human speed (a move every {args.pace:g} s "
            f"each, {args.paced / args.pace:.0f} moves/s in all, in both phases); the crowd follows "
            + (
                "the paced matches only"
                if args.follow == "paced"
                else f"all {args.clients + args.paced} matches"
            )
        )
    print(f"healthz requests/s (no crowd)   {healthz_rps:8.0f}")
    print(
        f"moves/s     no crowd {free_rate:7.0f} ({free_rate / healthz_rps:.0%} of healthz)   with crowd "
        f"{crowd_rate:7.0f} ({crowd_rate / free_rate:.0%} of no crowd)"
    )
    print(f"move p99 ms no crowd {ms(free['latencies'], 99)}   with crowd {ms(crowd['latencies'], 99)}")
    print(
        f"healthz ms  no crowd p50 {ms(free['healthz'], 50)} p99 {ms(free['healthz'], 99)}   with crowd "
        f"p50 {ms(crowd['healthz'], 50)} p99 {ms(crowd['healthz'], 99)} (n={len(crowd['healthz'])}, failed "
        f"{crowd['probe_failures']})"
    )
    if delays:
        print(
            f"delivery ms p50 {ms(delays, 50)}  p99 {ms(delays, 99)}  max {max(delays) * 1000:.0f}  "
            f"(n={len(delays)} sampled arrivals; from the move's send)"
        )
    print(
        f"crowd       gathered {gathered[0]:.0f} waiting in {gathered[1]:.1f} s; {waiting_end:.0f} waiting "
        f"at the end; events received {sum(t.events for t in tallies)}, polls "
        f"{sum(t.polls for t in tallies)}, connections {sum(t.connects for t in tallies)}; slow clients "
        f"dropped "
        f"{sum(t.slow_dropped for t in tallies)} times"
    )
    print(f"statuses    {dict(sorted(statuses.items()))}")
    print(
        f"server RSS  {rss_free:.0f} MiB without the crowd, {rss_crowd:.0f} MiB with it: "
        f"{(rss_crowd - rss_free) * 1024 / (n + SLOW_CLIENTS):.1f} KiB per open connection"
    )
    for label, played in (("no crowd", free), ("crowd", crowd)):
        spent = "  ".join(f"{k} {v:.1f}" for k, v in played["cpu"].items())
        per_move = played["cpu"]["server"] / played["moves"] * 1000
        print(f"CPU s {label:9s}{spent}   (server CPU ms per move {per_move:.2f})")
    print(f"redis       {redis_clients} client connections in use with the crowd (the bench's own excluded)")
    return 0
