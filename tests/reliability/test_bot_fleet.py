"""The bot fleet as production runs it: ``tabletop worker`` processes (a quick lane and a thinking lane
each, and the sweeper) over a real Redis, behind ``tabletop serve``.

* Fairness: one client floods the thinking lanes with hard hints and long-thinking bot matches; another
  client's random bot still moves within a second.
* Outages: Redis is SIGKILLed in the middle of all-bot matches of every game and restarted on its
  append-only file; every match finishes with no move lost or doubled, a hint asked for just before is
  answered, and no worker process had to be restarted.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from rq import Queue, Worker
from rq.exceptions import NoSuchJobError
from rq.job import Job

from engine.registry import GAMES
from service.domain.matches.bots import ANONYMOUS, LANES, bot_job_id, queue_name
from tests.reliability.processes import ROOT, ApiServer, RedisServer, bearer, call, create_match, kill_tree

SWEEP_S, STALL_S = 4, 3


class Fleet:
    """``tabletop worker`` processes on the API's Redis, killed at the end."""

    def __init__(self, api: ApiServer, log_path: Path) -> None:
        self.env = {
            **api.env,
            "TABLETOP_SWEEP_SECONDS": str(SWEEP_S),
            "TABLETOP_BOT_STALL_SECONDS": str(STALL_S),
        }
        self.log_path = log_path
        self.procs: list[subprocess.Popen[bytes]] = []

    def add(self) -> subprocess.Popen[bytes]:
        with self.log_path.open("ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker"],
                env=self.env,
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )
        self.procs.append(proc)
        return proc

    def lane_pids(self, connection: redis.Redis) -> set[int]:
        """The processes of the lanes that have registered with RQ (each lane is a process of its own;
        after a lost Redis a lane registers anew, from the same process)."""
        return {worker.pid for worker in Worker.all(connection=connection)}

    def stop(self) -> None:
        """SIGKILL every worker with its lanes: a warm shutdown would wait for the long thinking (and
        takes seconds even when idle); no test here checks how a worker stops."""
        for proc in self.procs:
            if proc.poll() is None:
                kill_tree(proc)


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[RedisServer, ApiServer, Fleet]]:
    redis_server = RedisServer(tmp_path / "redis", appendfsync="always")
    redis_server.start()
    api = ApiServer(redis_server.url, tmp_path / "api.log", workers=1, ready_needs_workers=True)
    api.start()
    fleet = Fleet(api, tmp_path / "workers.log")
    try:
        yield redis_server, api, fleet
    finally:
        fleet.stop()
        api.stop()
        redis_server.stop()


def start_two_workers(api: ApiServer, fleet: Fleet, timeout: float = 30) -> None:
    """Two workers, live once the API says it is ready (which needs a worker's heartbeat)."""
    fleet.add()
    fleet.add()
    deadline = time.monotonic() + timeout
    while call(api.client(), "GET", "/readyz") != (200, {"status": "ready"}):
        assert time.monotonic() < deadline, "no worker became live"
        time.sleep(0.1)


def first_move_after(api: ApiServer, match_id: str, since: float, timeout: float = 30) -> float:
    """Seconds from ``since`` until the match's first move is visible."""
    client = api.client()
    while True:
        status, doc = call(client, "GET", f"/v1/matches/{match_id}")
        if status == 200 and doc["version"] >= 1:
            return time.monotonic() - since
        assert time.monotonic() - since < timeout, "the bot never moved"
        time.sleep(0.01)


def test_a_flood_of_thinking_from_one_client_does_not_delay_another_clients_quick_bot(stack):
    _, api, fleet = stack
    start_two_workers(api, fleet)
    client = api.client()
    hard = {"kind": "bot", "level": "hard", "think_ms": 4000}
    for _ in range(4):  # long-thinking all-bot matches: both thinking lanes busy for minutes
        create_match(client, "china", [{"name": f"h{i}", **hard} for i in range(3)])
    hinted = 0
    for _ in range(6):  # and hard hints from human seats
        match = create_match(client, "taj_mahal", [{"name": f"p{i}"} for i in range(3)])
        token = next(t["token"] for t in match["tokens"] if t["seat"] == match["to_move"])
        status, _ = call(client, "POST", f"/v1/matches/{match['id']}/hint",
                         {"level": "hard", "think_ms": 4000}, **bearer(token))  # fmt: skip
        hinted += status == 202
    assert hinted == 6
    time.sleep(1.0)  # the thinking lanes are taken
    delays = []
    for game in sorted(GAMES):
        seats = [{"name": "dice", "kind": "bot", "level": "random"}] + [
            {"name": f"p{i}"} for i in range(GAMES[game].min_players - 1)
        ]
        # One random bot beside humans (so it makes one move, and no chain of bot moves keeps the quick
        # lane busy), in a match whose deal makes it move first: deals are random, so create until one
        # does (each creation is a fresh deal; a match left to a human waits without work).
        for _ in range(40):
            started = time.monotonic()
            match = create_match(client, game, seats)
            if match["to_move"] == 0:
                delays.append(first_move_after(api, match["id"], started))
                break
    print(f"bot fleet: first move of a random bot beside the flood after {[round(d, 2) for d in delays]} s")
    assert len(delays) == len(GAMES) and max(delays) < 1.0


def stalled(connection: redis.Redis, client: Any, match_ids: set[str]) -> str:
    """Why these matches are not over: each one's pending turn and its job, the queues, the workers."""
    lines = []
    for match_id in sorted(match_ids):
        _, doc = call(client, "GET", f"/v1/matches/{match_id}")
        try:
            state = Job.fetch(bot_job_id(match_id, doc["version"]), connection=connection).get_status()
        except NoSuchJobError:
            state = "no job"
        lines.append(f"{match_id} v{doc['version']} to move {doc['to_move']}: {state}")
    queues = {
        name: Queue(name, connection=connection).count
        for lane in LANES.values()
        for kind in lane
        for name in (kind, queue_name(kind, ANONYMOUS))
    }
    workers = [(w.name, w.get_state(), w.last_heartbeat) for w in Worker.all(connection=connection)]
    return "\n".join(
        [f"{len(match_ids)} matches never finished", *lines, f"queues {queues}", f"workers {workers}"]
    )


def all_bot_seats(game: str) -> list[dict[str, Any]]:
    levels = [("normal", 40), ("random", 0), ("easy", 0)][: GAMES[game].min_players if game != "china" else 3]
    return [
        {"name": f"{lvl}{i}", "kind": "bot", "level": lvl, "think_ms": ms}
        for i, (lvl, ms) in enumerate(levels)
    ]


@pytest.mark.timeout(300)
def test_workers_survive_a_redis_restart_and_every_match_finishes_without_a_lost_or_doubled_move(stack):
    redis_server, api, fleet = stack
    start_two_workers(api, fleet)
    connection = redis.Redis.from_url(redis_server.url)
    deadline = time.monotonic() + 30
    while len(before := fleet.lane_pids(connection)) < 2 * len(LANES):  # every lane in each of two workers
        assert time.monotonic() < deadline, before
        time.sleep(0.1)
    client = api.client()
    matches = {create_match(client, game, all_bot_seats(game))["id"]: game for game in sorted(GAMES) * 2}
    time.sleep(2.0)  # under way
    progress = {m: call(client, "GET", f"/v1/matches/{m}")[1]["version"] for m in matches}
    assert all(v > 0 for v in progress.values()) and any(
        call(client, "GET", f"/v1/matches/{m}")[1]["status"] == "active" for m in matches
    ), "the matches must be in the middle when Redis dies"
    human = create_match(client, "taj_mahal", [{"name": f"p{i}"} for i in range(3)])
    auth = bearer(next(t["token"] for t in human["tokens"] if t["seat"] == human["to_move"]))
    hint_path = f"/v1/matches/{human['id']}/hint"
    status, hint = call(client, "POST", hint_path, {"level": "normal", "think_ms": 300}, **auth)
    assert status == 202
    redis_server.kill()
    time.sleep(1.5)
    redis_server.start()  # on its append-only file (appendfsync always)
    deadline = time.monotonic() + 60
    while True:  # the hint: answered, or (caught running when Redis died) failed, and asked again
        status, doc = call(client, "GET", f"/v1/jobs/{hint['id']}", **auth)
        if status == 200 and doc["status"] == "finished":
            break
        if status == 200 and doc["status"] == "failed":
            hint = call(client, "POST", hint_path, {"level": "normal", "think_ms": 300}, **auth)[1]
        assert time.monotonic() < deadline, f"the hint never came: {status} {doc}"
        time.sleep(0.2)
    deadline = time.monotonic() + 120
    pending = set(matches)
    while pending:
        assert time.monotonic() < deadline, stalled(connection, client, pending)
        for match_id in list(pending):
            status, doc = call(client, "GET", f"/v1/matches/{match_id}")
            if status == 200 and doc["status"] == "finished":
                pending.discard(match_id)
        time.sleep(0.2)
    for match_id, game in matches.items():
        status, log = call(client, "GET", f"/v1/matches/{match_id}/log")
        assert status == 200 and log["complete"]
        engine = GAMES[game]
        state = engine.setup(log["players"], log["options"], seed=log["seed"])
        for version, entry in enumerate(log["entries"], 1):
            assert entry["version"] == version, "a move lost or doubled"
            assert entry["seat"] == engine.to_move(state)
            engine.apply(state, entry["action"], seat=entry["seat"])
        assert engine.to_move(state) is None
        result = call(client, "GET", f"/v1/matches/{match_id}")[1]["result"]
        assert {k: v for k, v in result.items() if k not in ("decisions", "stand_in")} == engine.result(state)
    assert all(proc.poll() is None for proc in fleet.procs), "a worker exited"
    assert fleet.lane_pids(connection) == before, "a lane had to be started in a new process"
