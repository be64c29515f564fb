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
import math
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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis

from bench.api import Client, free_port, percentile, phase, start_server
from bench.procs import cpu_seconds, descendants, named_children, rss_mb, wait_workers
from devtools.private_redis import PrivateRedis
from service.storage.matches import match_key

#: One waiting client in this many records the arrival time of every version it sees.
SAMPLE = 20
SLOW_CLIENTS = 64
#: Seconds between two header lines of a slow client.
SLOW_LINE_SECONDS = 1.0
#: New connections per second while the crowd gathers (per waiter process): about what two server
#: processes set streams up at here (faster only overflows the listen queue).
RAMP_PER_SECOND = 300
#: What an overloaded server answers a request it sheds (the pacer tries the move again later).
REFUSALS = (429, 503)
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
    #: Of ``events``, those long-poll answers carried.
    poll_events: int = 0
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
#: waiters that do not record arrival times).  An event starts a line (after the previous line's or the
#: chunk size's newline), so the newline keeps a nested ``{"id":"`` inside an event from counting.
MARKS = {"application/x-ndjson": (b'\n{"id":"', b'"type":"match_over"'),
         "text/event-stream": (b"\nid: ", b"event: match_over")}  # fmt: skip


class Follower:
    """One waiting client: follows the match of its slot, by stream or by long-poll."""

    def __init__(
        self, index: int, slot: int, port: int, board: Board, tally: Tally, long_polls: float = 0.25
    ) -> None:
        self.index, self.slot, self.port, self.board, self.tally = index, slot, port, board, tally
        # Waiter i long-polls when (i + 1) * share passes a whole number: with 0.25, waiters 3, 7, 11...
        self.mode = "poll" if int((index + 1) * long_polls) > int(index * long_polls) else "stream"
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
            # The end of the last read, short of a whole mark: a mark cut in two by a read is counted
            # once, by the read that completes it.
            event_tail = over_tail = b""
            while data := await reader.read(65536):
                self.tally.events += (event_tail + data).count(event)
                if over in over_tail + data:
                    return
                event_tail = (event_tail + data)[-(len(event) - 1) :]
                over_tail = (over_tail + data)[-(len(over) - 1) :]
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
            self.tally.poll_events += len(page["events"])
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
    first: int,
    count: int,
    slow: int,
    slots: range,
    port: int,
    shared: Any,
    stop: Any,
    out: Any,
    received: Any = None,
    long_polls: float = 0.25,
) -> None:
    """Waiters ``first .. first + count - 1`` (waiter ``i`` follows slot ``slots[i % len(slots)]``) and
    ``slow`` slow clients, until ``stop`` is set.  ``received`` (a shared array of 3 integers) follows
    the events they have received, those of them long-poll answers carried and the long-polls sent,
    every 0.1 s, so the bench can count the deliveries of one phase."""
    raise_fd_limit()
    tally = Tally()

    async def main() -> None:
        board = Board()

        async def refresh() -> None:
            while True:
                board.update(shared.copy())  # one round trip to the manager (dict() makes one per key)
                if received is not None:
                    received[:] = [tally.events, tally.poll_events, tally.polls]
                await asyncio.sleep(0.1)

        tasks = [asyncio.create_task(refresh())]
        tasks += [asyncio.create_task(slow_client(port, tally)) for _ in range(slow)]
        for n, i in enumerate(range(first, first + count)):
            slot = slots[i % len(slots)]
            tasks.append(asyncio.create_task(Follower(i, slot, port, board, tally, long_polls).run()))
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
    published under slots ``first_slot ..``.  Puts the send time of every move on ``out`` at the end,
    and the requests the server refused (429, 503: the move is tried again at the match's next turn,
    as a person would)."""
    from engine.registry import get_game

    game = get_game(game_id)

    def pace_some(slots: list[int], sent: list[tuple[str, int, float]], refused: list[int]) -> None:
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
                    status, match = client.call("POST", "/v1/matches", body)
                    if status in REFUSALS:  # an overloaded server sheds load: try at the next turn
                        refused.append(status)
                        continue
                    assert status == 201, match
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
                at = time.time()
                status, moved = client.call(
                    "POST", f"/v1/matches/{table['id']}/actions", {"action": action}, headers
                )
                if status in REFUSALS:
                    refused.append(status)
                    continue
                assert status == 200, moved
                sent.append((table["id"], table["version"] + 1, at))
                game.apply(table["shadow"], action)
                table["seat"], table["version"] = moved["to_move"], moved["version"]

    all_slots = list(range(first_slot, first_slot + matches))
    sent: list[tuple[str, int, float]] = []
    refused: list[int] = []
    threads = [
        threading.Thread(target=pace_some, args=(all_slots[i : i + PACED_PER_THREAD], sent, refused))
        for i in range(0, matches, PACED_PER_THREAD)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put({"sent": sent, "refused": Counter(f"pacer {status}" for status in refused)})


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


def metrics_text(port: int, attempts: int = 1, timeout: float = 10.0) -> str | None:
    """The server's ``/metrics``, or ``None`` when it did not answer in ``attempts`` tries (a process
    swamped by a gathering crowd may answer late: a figure is then missing, the run goes on)."""
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=timeout) as resp:
                return str(resp.read().decode())
        except OSError:
            continue
    return None


def waiting_now(port: int, attempts: int = 1) -> float:
    """``tabletop_waiting_clients`` summed over the server's processes (from /metrics; NaN when the
    server did not answer)."""
    text = metrics_text(port, attempts)
    if text is None:
        return math.nan
    for line in text.splitlines():
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


def hold(
    cpu: dict[str, list[int]], seconds: float, delivered: Callable[[], list[int]] = lambda: [0, 0, 0]
) -> dict[str, Any]:
    """A window of ``seconds`` with only the paced matches moving (no players flat out, no prober):
    the server's CPU (API processes and Redis) and what the waiters received meanwhile.  Taken once
    without the crowd and once with it at the same pace, the difference is what holding and serving
    the crowd costs, with the moves' own cost and the load generator's rhythm the same on both sides."""
    received, before = delivered(), {name: cpu_seconds(pids) for name, pids in cpu.items()}
    time.sleep(seconds)
    spent = {name: cpu_seconds(pids) - before[name] for name, pids in cpu.items()}
    got = [b - a for a, b in zip(received, delivered(), strict=True)]
    return {
        "cpu": spent["server"] + spent.get("redis", 0.0),
        "events": got[0],
        "polls": got[2],
        "seconds": seconds,
    }


def play_with_probe(
    port: int,
    args: Any,
    slots: Any,
    cpu: dict[str, list[int]],
    delivered: Callable[[], list[int]] = lambda: [0, 0, 0],
) -> dict[str, Any]:
    """A play phase with the healthz prober beside it; also the CPU seconds each group of processes
    (``cpu``: name -> pids) spent meanwhile, what the waiters received meanwhile (``delivered`` counts
    it so far: events, events by long-poll, long-polls) and the phase's wall-clock ``window``."""
    prober = Prober(port)
    prober.start()
    play = (args.game, 3, False)
    received, started = delivered(), time.time()
    before = {name: cpu_seconds(pids) for name, pids in cpu.items()}
    results, players_cpu = phase("play", port, args.clients, args.client_procs, args.seconds, play, slots)
    spent = {name: cpu_seconds(pids) - before[name] for name, pids in cpu.items()}
    received, ended = [b - a for a, b in zip(received, delivered(), strict=True)], time.time()
    prober.halt.set()
    prober.join()
    latencies = [x for played in results for x in played["latencies"]]
    sent = {(m, v): t for played in results for m, v, t in played["sent"]}
    return {"moves": len(latencies), "latencies": latencies, "healthz": prober.latencies, "sent": sent,
            "probe_failures": prober.failures, "cpu": {**spent, "players": players_cpu},
            "delivered": received[0], "poll_events": received[1], "polls": received[2],
            "window": (started, ended)}  # fmt: skip


#: The live readers' counters (service.live.hub.COUNTS, summed over the server's processes by ``/metrics``):
#: topic reads (one per topic per notification round), backlog reads (subscriptions catching up), the
#: events those reads returned, event batches encoded (once per visibility class and wire format),
#: events handed to waiting clients, and reads of a match spared spectators' long-polls.
LIVE_COUNTERS = (
    "tabletop_live_topic_reads_total",
    "tabletop_live_backlog_reads_total",
    "tabletop_live_events_read_total",
    "tabletop_live_encodings_total",
    "tabletop_live_deliveries_total",
    "tabletop_live_metas_spared_total",
)


def parse_counters(text: str, names: tuple[str, ...] = LIVE_COUNTERS) -> dict[str, float]:
    """The samples named ``names`` in a Prometheus text exposition, each summed over its label sets
    (a name the exposition lacks is left out).  Label values may hold spaces and braces."""
    wanted = set(names)
    found: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        end = 0
        while end < len(line) and line[end] not in " {":
            end += 1
        name, rest = line[:end], line[end:]
        if name not in wanted:
            continue
        if rest.startswith("{"):  # skip the labels: to the brace that closes them, outside quotes
            quoted, escaped, at = False, False, 1
            while at < len(rest) and (quoted or rest[at] != "}"):
                if escaped:
                    escaped = False
                elif rest[at] == "\\":
                    escaped = True
                elif rest[at] == '"':
                    quoted = not quoted
                at += 1
            rest = rest[at + 1 :]
        found[name] = found.get(name, 0.0) + float(rest.split()[0])
    return found


def live_counters(port: int) -> dict[str, float] | None:
    """:data:`LIVE_COUNTERS` from the server's ``/metrics`` (the ones it has; ``None``: no answer)."""
    text = metrics_text(port, attempts=3, timeout=30.0)
    return None if text is None else parse_counters(text)


def event_counts(client: redis.Redis) -> dict[str, int]:
    """Every match's number of committed events (its events stream's length), by match id."""
    prefix, suffix = match_key("", "events").split("}", 1)
    keys = list(client.scan_iter(match=match_key("*", "events"), count=1000))
    with client.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.xlen(key)
        lengths = pipe.execute()
    return {key.decode()[len(prefix) : -len(suffix) - 1]: n for key, n in zip(keys, lengths, strict=True)}


class FollowedMatches(threading.Thread):
    """The ids of every match the crowd's slots (``slots``: those some waiter follows) hold while it
    runs, read from the shared board every 0.1 s: the matches whose events the crowd waits for."""

    def __init__(self, board: Any, slots: set[int]) -> None:
        super().__init__(daemon=True)
        self.board, self.slots = board, slots
        self.ids: set[str] = set()
        self.halt = threading.Event()

    def run(self) -> None:
        while True:
            self.ids.update(m for slot, m in self.board.copy().items() if slot in self.slots)
            if self.halt.wait(0.1):
                return

    def stop(self) -> set[str]:
        self.halt.set()
        self.join()
        self.ids.update(m for slot, m in self.board.copy().items() if slot in self.slots)
        return self.ids


def run(args: Any) -> int:
    return report(args, measure(args, args.workers or os.cpu_count() or 2))


def measure(
    args: Any, workers: int, server_cpus: set[int] | None = None, client_cpus: set[int] | None = None
) -> dict[str, Any]:
    """One run of the crowd bench with ``workers`` server processes: the figures :func:`report` prints
    and :mod:`bench.scaling` tabulates.  With ``server_cpus`` Redis and the server start on those CPUs,
    and this process and every client process (players, waiters, pacer) run on ``client_cpus``.

    Besides what :func:`report` prints, over the crowd phase: the events the waiters received
    (``delivered``: every one, counted in the waiter processes), the events committed (all, and on the
    matches the crowd followed), the paced moves of each phase, the live readers' counters (``live``:
    the growth of each of :data:`LIVE_COUNTERS` the server has), and the healthz phase's CPU."""
    n = args.crowd
    procs = max(1, args.waiter_procs)
    port = free_port()
    raise_fd_limit()
    if server_cpus:
        os.sched_setaffinity(0, server_cpus)  # Redis and gunicorn inherit it
    with PrivateRedis() as redis_url:
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
        try:
            if client_cpus:
                os.sched_setaffinity(0, client_cpus)  # and every client process this one starts
            wait_workers(server.pid, workers)  # every worker booted: all counted, no boot counted
            with mp.Manager() as manager:
                figures = _crowd_run(args, n, procs, port, redis_url, server, manager)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return {**figures, "n": n, "workers": workers, "procs": procs}


def _crowd_run(
    args: Any, n: int, procs: int, port: int, redis_url: str, server: Any, manager: Any
) -> dict[str, Any]:
    """:func:`measure`'s phases, against a started server."""
    stop = mp.Event()
    out: Any = mp.Queue()
    waiters: list[mp.Process] = []
    received = [mp.RawArray("q", 3) for _ in range(procs)]
    slots = manager.dict()
    pacer = mp.Process(
        target=pace_process, args=(port, args.game, args.clients, args.paced, args.pace, slots, stop, out)
    )
    cpu = {"server": descendants(server.pid), "redis": named_children(os.getpid(), "redis-server")}
    try:
        before = {name: cpu_seconds(pids) for name, pids in cpu.items()}
        hits, _ = phase("healthz", port, args.clients, args.client_procs, args.seconds, ("", 0, False))
        healthz_cpu = {name: cpu_seconds(pids) - before[name] for name, pids in cpu.items()}
        healthz_rps = sum(hits) / args.seconds
        if args.paced:
            pacer.start()
            time.sleep(args.pace)  # every paced match made
        held_free = hold(cpu, args.seconds) if args.paced else None
        free = play_with_probe(port, args, slots, cpu)
        rss_free = rss_mb(server.pid)
        followed = range(args.clients if args.follow == "paced" else 0, args.clients + args.paced)
        long_polls = getattr(args, "long_polls", 0.25)
        first = 0
        for p in range(procs):
            count = n // procs + (1 if p < n % procs else 0)
            slow = SLOW_CLIENTS // procs + (1 if p < SLOW_CLIENTS % procs else 0)
            job = mp.Process(
                target=waiter_process,
                args=(first, count, slow, followed, port, slots, stop, out, received[p], long_polls),
            )
            job.start()
            waiters.append(job)
            first += count
        gathered_at = time.monotonic()
        # Every waiter in place before anything is measured: a stream being set up costs the server
        # about 3.5 ms, so the last tenth still arriving would count 3-4 s of CPU as delivery.
        while not waiting_now(port) >= n and time.monotonic() - gathered_at < 30 + n / 200:
            time.sleep(0.5)
        time.sleep(1.0)  # the last ones have their backlog written
        gathered = waiting_now(port, attempts=3), time.monotonic() - gathered_at
        rss_crowd = rss_mb(server.pid)
        client = redis.Redis.from_url(redis_url)
        # Outside the phase's CPU window (both cost the server a little): committed events and the
        # live readers' counters before and after it.
        committed_before, live_before = event_counts(client), live_counters(port)
        tracker = FollowedMatches(
            slots, {followed[i % len(followed)] for i in range(n)} if followed else set()
        )
        tracker.start()
        received_now = lambda: [sum(r[i] for r in received) for i in range(3)]  # noqa: E731
        held_crowd = hold(cpu, args.seconds, received_now) if args.paced else None
        crowd = play_with_probe(
            port,
            args,
            slots,
            {**cpu, "waiters": [w.pid for w in waiters if w.pid is not None]},
            delivered=received_now,
        )
        followed_ids = tracker.stop()
        live_after, committed_after = live_counters(port), event_counts(client)
        redis_clients = int(client.info("clients")["connected_clients"]) - 1  # less this one
        waiting_end = waiting_now(port, attempts=3)
    finally:
        stop.set()
        results = collect(out, len(waiters) + bool(args.paced))
        tallies = [r for r in results if isinstance(r, Tally)]
        paced = [r for r in results if isinstance(r, dict)]
        paced_sent = [x for r in paced for x in r["sent"]]
        for job in [*waiters, *([pacer] if args.paced else [])]:
            job.join(timeout=30)
            if job.is_alive():
                job.kill()
    sent = {**crowd["sent"], **{(m, v): t for m, v, t in paced_sent}}
    delays = [at - sent[(m, v)] for t in tallies for m, v, at in t.arrivals if (m, v) in sent]
    statuses: Counter[str] = Counter()
    for t in tallies:
        statuses.update(t.statuses)
    for r in paced:
        statuses.update(r["refused"])
    grown = {m: k - committed_before.get(m, 0) for m, k in committed_after.items()}

    def paced_in(window: tuple[float, float]) -> int:
        return sum(window[0] <= at < window[1] for _, _, at in paced_sent)

    return {
        "healthz_rps": healthz_rps, "n_healthz": sum(hits), "healthz_cpu": healthz_cpu,
        "free": free, "crowd": crowd, "rss_free": rss_free, "rss_crowd": rss_crowd,
        "gathered": gathered, "waiting_end": waiting_end, "redis_clients": redis_clients,
        "tallies": tallies, "statuses": statuses, "delays": delays,
        "paced_moves": (paced_in(free["window"]), paced_in(crowd["window"])),
        "held": (held_free, held_crowd),
        "committed": sum(grown.values()),
        "committed_followed": sum(grown.get(m, 0) for m in followed_ids),
        "live": (
            {}
            if live_before is None or live_after is None
            else {k: v - live_before.get(k, 0.0) for k, v in live_after.items()}
        ),
    }  # fmt: skip


def report(args: Any, fig: dict[str, Any]) -> int:
    """The crowd bench's printout of one :func:`measure`."""
    n, workers, procs = fig["n"], fig["workers"], fig["procs"]
    free, crowd, tallies, delays = fig["free"], fig["crowd"], fig["tallies"], fig["delays"]
    healthz_rps, gathered, statuses = fig["healthz_rps"], fig["gathered"], fig["statuses"]
    rss_free, rss_crowd = fig["rss_free"], fig["rss_crowd"]
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
        f"crowd       gathered {gathered[0]:.0f} waiting in {gathered[1]:.1f} s; {fig['waiting_end']:.0f} "
        f"waiting at the end; events received {sum(t.events for t in tallies)}, polls "
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
    redis_clients = fig["redis_clients"]
    print(f"redis       {redis_clients} client connections in use with the crowd (the bench's own excluded)")
    return 0
