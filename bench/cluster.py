"""The cost of Redis Cluster: ``bench.api``'s move phase against one Redis node and against a private
three-master cluster (one replica each, the queue on a Redis of its own), in one run.

    python -m bench.cluster                    # 32 clients, 10 s per form, 2 server processes
    python -m bench.cluster --seconds 20 --clients 64

On one machine this measures the cluster's overhead (client routing, ``WAIT`` for a replica per
write, replication), not its scaling: all nodes share the same cores.  It prints, per form, moves/s,
move latency and the CPU a move costs the API and Redis (masters and replicas apart), and from the
masters' CPU per move a sizing estimate on paper: moves/s one master core could carry.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.api import free_port, percentile, phase, start_server
from bench.procs import cpu_seconds, descendants
from devtools.private_cluster import PrivateCluster
from devtools.private_redis import PrivateRedis


def measure(
    redis_url: str, redis_pids: dict[str, list[int]], args: argparse.Namespace, **settings: Any
) -> dict[str, Any]:
    """One move phase through a fresh API on ``redis_url``; CPU seconds per group of ``redis_pids``."""
    port = free_port()
    server = start_server(redis_url, port, args.workers, **settings)
    try:
        server_pids = descendants(server.pid)
        groups = {"api": server_pids, **redis_pids}
        before = {name: cpu_seconds(pids) for name, pids in groups.items()}
        results, _ = phase("play", port, args.clients, args.client_procs, args.seconds, (args.game, 3, False))
        spent = {name: cpu_seconds(pids) - before[name] for name, pids in groups.items()}
    finally:
        server.terminate()
        server.wait(timeout=30)
    latencies = [x for played in results for x in played["latencies"]]
    moves = len(latencies)
    return {
        "moves_per_s": moves / args.seconds,
        "p50": percentile(latencies, 50) * 1000,
        "p99": percentile(latencies, 99) * 1000,
        "cpu_ms": {name: seconds / max(1, moves) * 1000 for name, seconds in spent.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="year_of_dragon")
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2, help="API server processes")
    args = parser.parse_args(argv)
    with PrivateRedis() as single_url:
        single_pids = [
            p for p in descendants(os.getpid())[1:] if Path(f"/proc/{p}/comm").read_text().startswith("redis")
        ]
        single = measure(single_url, {"redis": single_pids}, args)
    with PrivateRedis() as queue_url, PrivateCluster(Path(tempfile.mkdtemp(prefix="tt-cluster-"))) as cluster:
        masters = [n.proc.pid for n in cluster.masters() if n.proc]
        replicas = [n.proc.pid for n in cluster.nodes if n.proc and n.proc.pid not in masters]
        pids = {"masters": masters, "replicas": replicas}
        forms = {
            "cluster, WAIT 1": measure(
                cluster.url, pids, args, redis_cluster="true", queue_redis_url=queue_url
            ),
            "cluster, no WAIT": measure(
                cluster.url,
                pids,
                args,
                redis_cluster="true",
                queue_redis_url=queue_url,
                redis_wait_replicas=0,
            ),
        }
    print(
        f"cluster bench: game={args.game} clients={args.clients} seconds={args.seconds:g} "
        f"API processes={args.workers} cpus={os.cpu_count()} (one machine: overhead, not scaling)"
    )
    print("one node: unix socket, no AOF; cluster: 3 masters + 3 replicas over TCP, appendfsync always")
    for name, fig in (("one node", single), *forms.items()):
        cpu = "  ".join(f"{k} {v:.3f}" for k, v in fig["cpu_ms"].items())
        share = fig["moves_per_s"] / single["moves_per_s"]
        print(
            f"{name:18s} moves/s {fig['moves_per_s']:7.0f} ({share:4.0%})  "
            f"latency ms p50 {fig['p50']:.1f} p99 {fig['p99']:.1f}  CPU ms/move: {cpu}"
        )
    clustered = forms["cluster, WAIT 1"]
    busy = clustered["cpu_ms"]["masters"]  # a move runs on one master: the three's CPU, per move
    print(
        f"sizing on paper: the masters spent {busy:.3f} ms of CPU per move in all, so one master core "
        f"carries about {1000 / busy:,.0f} moves/s of its slots' matches (Redis runs commands on one "
        f"core); N masters about N times that, while the API tier scales by processes "
        f"({clustered['cpu_ms']['api']:.2f} ms of API CPU per move)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
