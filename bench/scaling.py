"""Scaling mode (issue 30, point 3): ``bench.api`` or the crowd bench once per server process count, one
table.

    python -m bench.api --scale 1,2,4,8 --clients 32 --seconds 15
    python -m bench.api --crowd 10000 --paced 500 --follow paced --scale 1,2,4

Each column is a fresh Redis and ``tabletop serve`` with that many processes, measured exactly as a
single run measures it (:func:`bench.api.measure`, :func:`bench.crowd.measure`); the columns differ in
the process count only.  The server (API processes and Redis) and the load generator (players,
waiters, pacer, prober) get CPUs of their own when the machine has enough for the largest count
(``max(count, half the CPUs)`` for the server, the rest for the load generator, the same split in
every column); otherwise they share, and a warning says so: moves/s and CPU per request then carry
the load generator's contention, and those columns compare processes more than machines.

Two figures a machine that cannot separate them still measures fairly (with ``--crowd``), the first
also as a multiple of a bare loopback ``send`` measured in the same run (:mod:`bench.sendfloor`):

- **server CPU per delivered event** (µs): the server's CPU (API processes and Redis) in the crowd
  phase, less what the crowd-free phase spent per move for the same moves, over the events the
  waiters received in that phase (each waiter process counts every event line, server-sent event and
  long-poll event, sampled or not).  The move's own cost is not counted as delivery; the crowd's
  reconnections and long-poll requests are (a row gives the long-polls and the events they carried).
- **Redis reads, events read and encodings per committed event per process**: from the live readers'
  counters in ``/metrics`` (:data:`bench.crowd.LIVE_COUNTERS`, summed over the processes through
  ``PROMETHEUS_MULTIPROC_DIR``, which ``tabletop serve`` sets itself when it runs several), over the
  events committed on the matches the crowd followed in that phase (the growth of their event streams),
  divided by the process count.  A fan-out whose work grows with processes and visibility classes,
  not waiters, keeps these flat as the crowd grows.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

from bench import api, crowd, sendfloor
from bench.procs import progress


@dataclass(frozen=True)
class CpuPlan:
    """Which CPUs the server and the load generator get (``None``: all of this process's, shared)."""

    server: set[int] | None
    clients: set[int] | None
    line: str
    warning: str | None


def parse_counts(text: str) -> list[int]:
    """``"1,2,4,8"`` -> ``[1, 2, 4, 8]`` (positive, in the order given)."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise SystemExit(f"--scale wants process counts such as 1,2,4,8, not {text!r}") from None
    if not counts or min(counts) < 1:
        raise SystemExit(f"--scale wants process counts such as 1,2,4,8, not {text!r}")
    return counts


def cpu_list(cpus: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2,5"``."""
    runs: list[list[int]] = []
    for cpu in sorted(cpus):
        if runs and runs[-1][-1] == cpu - 1:
            runs[-1].append(cpu)
        else:
            runs.append([cpu])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def plan_cpus(most: int, cpus: list[int] | None = None) -> CpuPlan:
    """The server gets ``max(most, half the CPUs)`` (a CPU per process of the largest count, Redis
    beside them), the load generator the rest; when that leaves it none, they share every CPU."""
    mine = sorted(os.sched_getaffinity(0) if cpus is None else cpus)
    server_n = max(most, (len(mine) + 1) // 2)
    if server_n < len(mine):
        server, clients = mine[:server_n], mine[server_n:]
        line = (
            f"cpus: server (API processes and Redis) on {cpu_list(server)}, "
            f"load generator on {cpu_list(clients)}"
        )
        return CpuPlan(set(server), set(clients), line, None)
    crowded = ""
    if most > len(mine):
        crowded = f"; {most} server processes on {len(mine)} CPUs share them among themselves too"
    warning = (
        f"warning: {len(mine)} CPUs cannot give {most} server process(es) a CPU each and the load generator "
        f"its own: they share{crowded}.  Moves/s carry the load generator's contention; CPU per "
        "request (and with a crowd, CPU per delivered event and the reads and encodings per committed "
        "event) are the figures this machine measures fairly."
    )
    return CpuPlan(None, None, f"cpus: server and load generator share {cpu_list(mine)}", warning)


def _num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def _per(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def api_column(run: dict[str, Any]) -> dict[str, str]:
    """A column of the crowd-free table from one :func:`bench.api.measure`."""
    return {
        "healthz requests/s": _num(run["healthz_rps"], 0),
        "crowd-free moves/s": _num(run["moves_rps"], 0),
        "move p99 ms": _num(api.percentile(run["latencies"], 99) * 1000 if run["latencies"] else None, 1),
        "server CPU ms per move (API processes + Redis)": _num(run["move_cpu_ms"]),
        "of which Redis": _num(run["move_redis_ms"]),
        "healthz CPU ms per request (API processes + Redis)": _num(run["healthz_cpu_ms"]),
        "move CPU / healthz CPU": _num(_per(run["move_cpu_ms"], run["healthz_cpu_ms"]), 1),
    }


def crowd_column(fig: dict[str, Any], seconds: float, floor_us: float | None = None) -> dict[str, str]:
    """A column of the crowd table from one :func:`bench.crowd.measure`."""
    free, with_crowd = fig["free"], fig["crowd"]
    workers: int = fig["workers"]

    def server_cpu(cpu: dict[str, float]) -> float:
        return cpu["server"] + cpu["redis"]

    free_ms = _per(server_cpu(free["cpu"]) * 1000, free["moves"])
    healthz_ms = _per(server_cpu(fig["healthz_cpu"]) * 1000, fig["n_healthz"])
    crowd_ms = _per(server_cpu(with_crowd["cpu"]) * 1000, with_crowd["moves"])
    free_rate, crowd_rate = free["moves"] / seconds, with_crowd["moves"] / seconds
    share = _per(100 * crowd_rate, free_rate)
    # The crowd-free phase's server CPU per move, paced moves included (they run in both phases), for
    # the crowd phase's moves: what the crowd phase would have cost with nobody waiting.
    paced_free, paced_crowd = fig["paced_moves"]
    per_move = _per(server_cpu(free["cpu"]), free["moves"] + paced_free)
    delivered = with_crowd["delivered"]
    delivery_us = (
        None
        if per_move is None or not delivered
        else (server_cpu(with_crowd["cpu"]) - per_move * (with_crowd["moves"] + paced_crowd))
        / delivered
        * 1e6
    )
    # The same over two windows with only the paced moves going (no players flat out), without and
    # with the crowd: the moves' cost and the machine's rhythm alike on both sides (see crowd.hold).
    held_free, held_crowd = fig.get("held") or (None, None)
    held = in_sends = "n/a"
    if held_free and held_crowd and held_crowd["events"]:
        extra = held_crowd["cpu"] / held_crowd["seconds"] - held_free["cpu"] / held_free["seconds"]
        held_us = extra * held_crowd["seconds"] / held_crowd["events"] * 1e6
        held = f"{held_us:,.1f} ({held_crowd['events']:,})"
        if floor_us:
            in_sends = _num(held_us / floor_us, 1)
    live: dict[str, float] = fig["live"]
    committed: int = fig["committed_followed"]

    def per_event_per_process(*names: str) -> float | None:
        if any(name not in live for name in names) or not committed:
            return None
        return sum(live[name] for name in names) / committed / workers

    topic = per_event_per_process("tabletop_live_topic_reads_total")
    backlog = per_event_per_process("tabletop_live_backlog_reads_total")
    reads = "n/a"
    if topic is not None and backlog is not None:
        reads = f"{topic + backlog:.2f} ({topic:.2f} + {backlog:.2f})"
    deliveries = live.get("tabletop_live_deliveries_total")
    spared, polls = (
        live.get("tabletop_live_metas_spared_total"),
        with_crowd["polls"] + (held_crowd or {}).get("polls", 0),
    )
    delays = fig["delays"]
    refused = sum(n for status, n in fig["statuses"].items() if status != "200")
    return {
        "healthz requests/s": _num(fig["healthz_rps"], 0),
        "crowd-free moves/s": _num(free_rate, 0),
        "server CPU ms per move (API processes + Redis)": _num(free_ms),
        "of which Redis": _num(_per(free["cpu"]["redis"] * 1000, free["moves"])),
        "healthz CPU ms per request (API processes + Redis)": _num(healthz_ms),
        "move CPU / healthz CPU": _num(
            None if free_ms is None or not healthz_ms else free_ms / healthz_ms, 1
        ),
        "waiters gathered (refusals and failures over the run)": f"{fig['gathered'][0]:,.0f} ({refused:,})",
        "moves/s with the crowd (% of crowd-free)": f"{crowd_rate:,.0f} ({_num(share, 0)}%)",
        "server CPU ms per move with the crowd (API processes + Redis)": _num(crowd_ms),
        "of which Redis, with the crowd": _num(_per(with_crowd["cpu"]["redis"] * 1000, with_crowd["moves"])),
        "events received by the waiters (committed on followed matches, both crowd windows)": (
            f"{delivered:,} ({committed:,})"
        ),
        "of which by long-poll (long-polls sent)": f"{with_crowd['poll_events']:,} ({with_crowd['polls']:,})",
        "server CPU µs per delivered event": _num(delivery_us, 1),
        "server CPU µs per delivered event, paced moves only (events)": held,
        "the same, in bare loopback sends": in_sends,
        "delivery ms p50 / p99 (sampled, from the move's send)": (
            f"{crowd.ms(delays, 50)} / {crowd.ms(delays, 99)}" if delays else "n/a"
        ),
        "Redis reads per committed event per process (topic + backlog)": reads,
        "events read per committed event per process": _num(
            per_event_per_process("tabletop_live_events_read_total")
        ),
        # Three digits: a loaded machine batches more events per encoding (0.05 here when quiet).
        "encodings per committed event per process": _num(
            per_event_per_process("tabletop_live_encodings_total"), 3
        ),
        # The live counters grow over both crowd windows (the paced-only one and the play phase).
        "long-polls answered without reading the match (both crowd windows)": (
            "n/a"
            if spared is None or not polls
            else f"{100 * spared / polls:.0f}% ({spared:,.0f} of {polls:,})"
        ),
        "deliveries counted by the server per event received (both crowd windows)": _num(
            None if deliveries is None else _per(deliveries, delivered + (held_crowd or {}).get("events", 0))
        ),
    }


def table(counts: list[int], columns: list[dict[str, str]]) -> list[str]:
    """The columns as a Markdown table: a row per figure, a column per process count."""
    heads = [f"{c} proc" if c == 1 else f"{c} procs" for c in counts]
    lines = ["| figure | " + " | ".join(heads) + " |", "|---|" + "---|" * len(counts)]
    for row in columns[0]:
        lines.append(f"| {row} | " + " | ".join(col[row] for col in columns) + " |")
    return lines


def run(args: Any) -> int:
    """Measure once per process count of ``args.scale``, print the table."""
    counts = parse_counts(args.scale)
    plan = plan_cpus(max(counts))
    mine = os.sched_getaffinity(0)
    columns: list[dict[str, str]] = []
    missing: set[str] = set()
    # A delivery's floor on this machine, on the server's CPUs (see bench.sendfloor).
    floor_us = None
    if args.crowd:
        if plan.server:
            os.sched_setaffinity(0, plan.server)
        try:
            floor_us = sendfloor.measure()
        finally:
            os.sched_setaffinity(0, mine)
    for count in counts:
        progress(f"scaling: {count} server process(es)")
        try:
            if args.crowd:
                fig = crowd.measure(args, count, plan.server, plan.clients)
                missing.update(name for name in crowd.LIVE_COUNTERS if name not in fig["live"])
                columns.append(crowd_column(fig, args.seconds, floor_us))
            else:
                columns.append(api_column(api.measure(args, count, plan.server, plan.clients)))
        finally:
            os.sched_setaffinity(0, mine)  # the next column's server starts from the whole set again
    what = (
        f"crowd={args.crowd} waiting clients (+{crowd.SLOW_CLIENTS} slow-header) waiter processes="
        f"{max(1, args.waiter_procs)} paced={args.paced} follow={args.follow} players=3"
        if args.crowd
        else f"players={args.players} server-legal={args.server_legal}"
    )
    print(
        f"scaling bench: game={args.game} clients={args.clients} {what} seconds={args.seconds:g} "
        f"client processes={args.client_procs} cpus={os.cpu_count()} python={sys.version.split()[0]}"
    )
    print(plan.line)
    if plan.warning:
        print(plan.warning)
    for line in table(counts, columns):
        print(line)
    if args.crowd:
        print(
            f"a bare loopback send of 300 bytes (bench.sendfloor, paced, to an asyncio reader) costs "
            f"{floor_us:.1f} µs of CPU here: the floor under a stream's delivery on this machine"
        )
        print(
            "CPU per delivered event: crowd phase server CPU less the crowd-free CPU per move for its moves, "
            "over every event the waiters received in that phase; paced moves only: the server's CPU per "
            "second while only the paced matches moved, with the crowd less without it, over the events "
            "the crowd received then (no flat-out players on either side, so the moves cost alike).  Per "
            "committed event: the live readers' counters over the events committed on the followed "
            "matches in that phase, per process."
        )
    if missing:
        print(f"n/a: not in this server's /metrics, or /metrics did not answer: {', '.join(sorted(missing))}")
    return 0
