"""Process trees from /proc: which processes a benchmark started, their memory and their CPU time; and
the small process chores the benchmarks share (stopping a server, a progress line).

The benchmarks run the server and the load generator on the same machine, so a figure only means
something next to who spent the CPU; these read it per process tree rather than for the machine.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

_TICKS = os.sysconf("SC_CLK_TCK")


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it, from /proc (gone ones are skipped)."""
    found, stack = [], [pid]
    while stack:
        p = stack.pop()
        found.append(p)
        with contextlib.suppress(OSError):
            stack.extend(int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split())
    return found


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants, in MiB."""
    total = 0
    for p in descendants(pid):
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{p}/status").read_text()
            total += sum(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return total / 1024


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time of these processes (all their threads), in seconds."""
    total = 0
    for p in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / _TICKS


def wait_workers(pid: int, count: int, timeout: float = 30.0) -> list[int]:
    """The direct children of ``pid`` (gunicorn's workers) once there are ``count`` of them and they
    have finished booting (their CPU time stands still for a moment), or whatever there is after
    ``timeout`` seconds.  ``tabletop serve`` answers ``/readyz`` from its first worker while the others
    may still be forking or importing the app: a CPU count read from the process tree before they
    exist misses them, and their boot would land in the first phase's figures."""
    deadline = time.monotonic() + timeout
    children: list[int] = []
    spent = -1.0
    while time.monotonic() < deadline:
        try:
            children = [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            children = []
        now = cpu_seconds(children)
        if len(children) >= count and now - spent < 0.02:  # under 10% of a CPU over the last 0.2 s
            break
        spent = now
        time.sleep(0.2)
    return children


def named_children(pid: int, name: str) -> list[int]:
    """The processes below ``pid`` whose command name starts with ``name``."""
    found = []
    for child in descendants(pid)[1:]:
        with contextlib.suppress(OSError):
            if Path(f"/proc/{child}/comm").read_text().startswith(name):
                found.append(child)
    return found


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """gunicorn's quick shutdown (SIGINT): a graceful one would wait out the load generator's
    keep-alive connections, which the next server takes anyway."""
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def stop_processes(procs: list[subprocess.Popen[bytes]], timeout: float = 60.0) -> None:
    """SIGTERM to all first, so they wind down together, then each waited for (killed past ``timeout``)."""
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def progress(message: str) -> None:
    """A timestamped progress line on stderr (the figures go to stdout)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)
