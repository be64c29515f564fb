"""End to end, with real processes: Redis (the bundled redis-server), the API under gunicorn and RQ
workers started as ``tabletop worker``.  All-bot matches of every registered game play to the end over
HTTP; a worker killed with SIGKILL in the middle of a bot turn is replaced and the match still finishes;
``tabletop match`` prints its table; ``tabletop serve`` alone (development mode) plays bot matches."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from rq.job import Job, JobStatus

from bench.api import free_port, start_server
from devtools.private_redis import PrivateRedis
from engine.registry import GAMES
from service.domain.matches.bots import bot_job_id
from tabletop_client import ApiError, Client

ROOT = Path(__file__).resolve().parents[2]
#: Sweep every second; a running job silent for 3 s (heartbeats every second) is presumed dead.
WORKER_ENV = {
    "TABLETOP_SWEEP_SECONDS": "1",
    "TABLETOP_BOT_STALL_SECONDS": "3",
    "TABLETOP_LOG_LEVEL": "WARNING",
}
#: Every level plays; the search thinks briefly so a match takes seconds.
LINEUP = [("random", None), ("easy", None), ("normal", 20)]

pytestmark = pytest.mark.timeout(600)


def players(game_id: str) -> int:
    return max(GAMES[game_id].min_players, min(3, GAMES[game_id].max_players))


def bot_seats(n: int, lineup: list[tuple[str, int | None]] = LINEUP) -> list[dict]:
    seats = []
    for i in range(n):
        level, think_ms = lineup[i % len(lineup)]
        seats.append({"name": f"{level}{i}", "kind": "bot", "level": level})
        if think_ms is not None:
            seats[-1]["think_ms"] = think_ms
    return seats


class Worker:
    """``tabletop worker`` as a child process."""

    def __init__(self, redis_url: str) -> None:
        env = {**os.environ, **WORKER_ENV, "TABLETOP_REDIS_URL": redis_url, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"], env=env, cwd=ROOT)

    def kill(self) -> None:
        """SIGKILL the worker and every process it started (its work horse, which RQ puts in a process
        group of its own, and its sweep scheduler), horse first, as a crashed machine would."""
        for pid in [*reversed(_descendants(self.proc.pid)), self.proc.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc.wait(timeout=30)


def _descendants(pid: int) -> list[int]:
    """Every live descendant of ``pid``, parents before children (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(") ", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@pytest.fixture(scope="module")
def system() -> Iterator[tuple[str, str, list[Worker]]]:
    """Redis, gunicorn and one worker; yields (API base URL, Redis URL, the workers to clean up)."""
    workers: list[Worker] = []
    with PrivateRedis() as redis_url:
        port = free_port()
        server = start_server(redis_url, port, workers=1)
        try:
            workers.append(Worker(redis_url))
            yield f"http://127.0.0.1:{port}", redis_url, workers
        finally:
            for w in workers:
                w.kill()
            server.terminate()
            server.wait(timeout=30)


def replay_result(game_id: str, log: dict) -> dict:
    """The result of replaying a finished match's log on its seed: every logged move must be legal.  With
    the seats' decision counts the log implies (issue 42 point 6): bots from the start, no stand-in."""
    game = GAMES[game_id]
    state = game.setup(log["players"], log["options"], seed=log["seed"])
    for entry in log["entries"]:
        assert entry["seat"] == game.to_move(state)
        game.apply(state, entry["action"])
    seats = range(log["players"])
    decisions = [sum(e["seat"] == s for e in log["entries"]) for s in seats]
    return {**game.result(state), "decisions": decisions, "stand_in": [0 for _ in seats]}


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_an_all_bot_match_plays_to_the_end_over_http(system, game_id):
    base, _, _ = system
    api = Client(base)
    created = api.create_match(game_id, bot_seats(players(game_id)), seed=11)
    assert created["tokens"] == []
    done = api.wait_finished(created["id"], timeout=240)
    assert done["status"] == "finished" and done["to_move"] is None
    log = api.log(created["id"])
    assert log["complete"] and len(log["entries"]) == done["version"]
    assert replay_result(game_id, log) == done["result"]


def test_a_worker_killed_during_a_bot_turn_is_replaced_and_the_match_finishes(system):
    """SIGKILL the worker (and its horse) while the thinking seat's job runs; the match waits, a new
    worker's sweep finds the turn's job silent and enqueues it again, and the match finishes."""
    base, redis_url, workers = system
    game_id = "year_of_dragon" if "year_of_dragon" in GAMES else sorted(GAMES)[0]
    api = Client(base)
    lineup = [("normal", 400), ("random", None), ("random", None)]
    created = api.create_match(game_id, bot_seats(players(game_id), lineup), seed=5)
    match_id = created["id"]
    conn = redis.Redis.from_url(redis_url)
    deadline = time.monotonic() + 120
    while True:  # wait until the thinking seat (0) is computing a move
        meta = api.match(match_id)
        assert meta["status"] == "active" and time.monotonic() < deadline
        job_id = bot_job_id(match_id, meta["version"])
        thinking = meta["to_move"] == 0 and Job.exists(job_id, conn)
        if thinking and Job.fetch(job_id, connection=conn).get_status() == JobStatus.STARTED:
            break
        time.sleep(0.02)
    workers[0].kill()
    killed_at = meta["version"]
    time.sleep(1.0)
    assert api.match(match_id)["version"] == killed_at  # nobody plays while no worker runs
    workers.append(Worker(redis_url))
    done = api.wait_finished(match_id, timeout=240)
    assert done["status"] == "finished" and done["version"] > killed_at
    assert replay_result(game_id, api.log(match_id)) == done["result"]


def test_tabletop_match_prints_a_results_table(system):
    base, _, _ = system
    game_id = "year_of_dragon" if "year_of_dragon" in GAMES else sorted(GAMES)[0]
    args = ["match", "--game", game_id, "--seats", "easy,random,random", "--games", "2", "--url", base]
    out = subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "2/2 matches" in out.stderr
    rows = out.stdout.strip().splitlines()
    assert rows[0].split() == [
        "#",
        "level",
        "wins",
        "win",
        "%",
        "mean",
        "score",
        "mean",
        "move",
        "ms",
        "moves",
    ]
    assert [r.split()[1] for r in rows[1:]] == ["easy", "random", "random"]
    assert sum(int(r.split()[2]) for r in rows[1:]) == 2  # one winner per match


def test_serve_alone_plays_bot_matches_and_stops_its_worker(tmp_path):
    """Development mode: ``tabletop serve`` without a Redis URL runs a worker beside the API."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(WORKER_ENV, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    worker_pid = None
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            found = re.search(r"bot worker running beside the API \(pid (\d+)\)", line)
            if found:
                worker_pid = int(found.group(1))
                break
        assert worker_pid is not None, "serve did not start a worker"
        api = Client(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 60
        while True:  # ready once the API answers and its worker has sent a heartbeat
            try:
                api.request("GET", "/readyz")
                break
            except (OSError, ApiError):
                assert time.monotonic() < deadline, "serve did not come up"
                time.sleep(0.2)
        game_id = min(GAMES, key=lambda g: GAMES[g].min_players)
        seats = bot_seats(GAMES[game_id].min_players, [("random", None)])
        created = api.create_match(game_id, seats)
        assert api.wait_finished(created["id"], timeout=120)["status"] == "finished"
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    if worker_pid is not None:
        deadline = time.monotonic() + 30
        while _pid_alive(worker_pid):
            assert time.monotonic() < deadline, "the development worker outlived serve"
            time.sleep(0.1)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))
