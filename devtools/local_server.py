"""A private ``tabletop serve`` in development mode (its own Redis and bot worker) for one command's
lifetime: ``tabletop dataset --local`` plays its matches there when no server is named.

It runs in a temporary directory, so its Redis data (``var/redis``) goes away with it, on a free port
of 127.0.0.1, honours the seeds its caller sends (``TABLETOP_ALLOW_SEED``: nobody else plays there), and
is stopped (with its Redis and worker) when the ``with`` block ends.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _ready(url: str) -> bool:
    """``/readyz`` answers 200 once the API reaches Redis and a bot worker has sent a heartbeat."""
    try:
        with urllib.request.urlopen(f"{url}/readyz", timeout=2) as resp:
            return bool(resp.status == 200)
    except (OSError, urllib.error.URLError):
        return False


@contextmanager
def served(timeout: float = 120.0) -> Iterator[str]:
    """The base URL of a fresh development server, stopped on exit."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}  # development mode
    env["TABLETOP_ALLOW_SEED"] = "true"  # a private server: its caller's seeds deal its matches
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory(prefix="tabletop-serve-") as here:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            cwd=here, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout
            while not _ready(url):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise OSError(f"the development server did not come up on port {port}")
                time.sleep(0.2)
            yield url
        finally:
            proc.terminate()  # it stops its bot worker and its Redis itself
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
