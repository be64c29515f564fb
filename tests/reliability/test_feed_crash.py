"""The players' feeds survive a process killed between a match's commit and the feed write, and clock
warnings reach the deciding player, with real processes: a real Redis server (AOF), a process that
commits a move and is SIGKILLed by its own drain (so the commit stands and nothing was fed), and a real
``tabletop worker``, whose clock keeper sweeps the outboxes and gives the warnings."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from engine.registry import GAMES
from service.config import Config
from service.domain.identity import APP, Caller
from service.domain.matches.operations import Matches
from service.domain.outbox.entries import Outbox
from service.storage.accounts import AccountStore
from service.storage.matches import connect_store, match_key
from service.wiring import build
from tests.reliability.processes import ROOT, RedisServer, kill_tree

PLAYERS = ("ann", "bob", "cy")
#: Seconds a worker may take to start and deliver (it imports the games, then sweeps once a second).
DELIVERY_S = 15.0


def setup_match(matches: Matches, **request: Any) -> tuple[str, dict[str, Any]]:
    """An app with three players and a China match between them; the app id and the created match."""
    app = matches.accounts.create_app("Crash test")["id"]
    caller = Caller(APP, app=app, scopes=frozenset({"read", "play"}))
    for player in PLAYERS:
        matches.accounts.put_player(caller, player, player.title(), False)
    seats = [{"name": p.title(), "kind": "human", "player": p} for p in PLAYERS]
    doc = matches.create(
        {"game": "china", "seats": seats, "options": {}, "seed": 5, **request}, caller=caller
    )
    return app, doc


def commit_then_die() -> None:
    """The doomed process (run by the test in a subprocess): set up a match, then play until a commit
    has notes for the feeds, and die by SIGKILL where the committer would drain them into the feeds."""
    config = Config.from_env()
    matches = build(config, store=connect_store(config), games=GAMES).matches
    app, doc = setup_match(matches)
    print(json.dumps({"app": app, "match": doc["id"]}), flush=True)

    def die(self: Outbox, match_id: str) -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    Outbox.drain = die  # type: ignore[method-assign]
    for _ in range(500):
        loaded = matches.store.load(doc["id"])
        assert loaded is not None and loaded.meta.to_move is not None
        game = matches.games["china"]
        state = game.decode(loaded.encoded_state())
        matches.seat_move(loaded.meta, state, loaded.meta.to_move, game.legal_actions(state)[0])
    sys.exit(3)  # never had a note to deliver


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


def environment(redis_url: str, **settings: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update({f"TABLETOP_{k.upper()}": str(v) for k, v in settings.items()})
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_ALLOW_SEED="1", PYTHONPATH=str(ROOT))
    return env


@pytest.fixture
def start_worker(
    redis_server: RedisServer, tmp_path: Path
) -> Iterator[Callable[..., subprocess.Popen[bytes]]]:
    """Start ``tabletop worker`` (its lanes, sweeper and clock keeper) on the test's Redis; stopped,
    with every process it forked, at the end."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(**settings: Any) -> subprocess.Popen[bytes]:
        with (tmp_path / "worker.log").open("ab") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker"],
                env=environment(redis_server.url, **settings),
                cwd=ROOT,
                stdout=log,
                stderr=log,
            )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:  # SIGKILL: a warm stop takes seconds even when idle, and no test here checks it
        if proc.poll() is None:
            kill_tree(proc)


def feed_of(client: redis.Redis, app: str, player: str) -> list[tuple[str, dict[str, Any]]]:
    """A player's feed entries (stream id, entry), read from Redis as a client's feed would be."""
    store = AccountStore(client)
    return [(e.id, e.entry) for e in store.feed_after(f"{app}:{player}", "0-0")]


def noted(app: str, outbox: list[dict[str, Any]]) -> Counter[tuple[str, int, str]]:
    return Counter(
        (note["player"].removeprefix(f"{app}:"), entry["version"], note["entry"]["type"])
        for entry in outbox
        for note in entry["notes"]
    )


def fed(client: redis.Redis, app: str, match_id: str) -> Counter[tuple[str, int, str]]:
    return Counter(
        (player, entry["version"], entry["type"])
        for player in PLAYERS
        for _, entry in feed_of(client, app, player)
        if entry["match_id"] == match_id
    )


def test_a_process_killed_between_commit_and_feed_loses_no_entry(
    redis_server: RedisServer, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    client = redis.Redis.from_url(redis_server.url)
    doomed = subprocess.run(
        [sys.executable, "-c", f"from {__name__} import commit_then_die; commit_then_die()"],
        env=environment(redis_server.url),
        cwd=ROOT,
        capture_output=True,
        timeout=120,
    )
    assert doomed.returncode == -signal.SIGKILL, doomed.stderr.decode()[-2000:]
    made = json.loads(doomed.stdout.decode().splitlines()[0])
    app, match_id = made["app"], made["match"]

    # The commit stands, its notes are in the match's outbox and in nobody's feed.
    left = [json.loads(raw) for raw in client.lrange(match_key(match_id, "outbox"), 0, -1)]
    assert len(left) == 1
    version = left[0]["version"]
    assert client.hget(match_key(match_id, "meta"), "version") == str(version).encode()
    expected = noted(app, left)
    assert expected and not any(key[1] == version for key in fed(client, app, match_id))
    assert client.zscore("tt:outbox:pending", match_id) is not None

    start_worker()
    started = time.monotonic()
    while not all(fed(client, app, match_id)[key] for key in expected):
        assert time.monotonic() - started < DELIVERY_S, "the worker never delivered the dead commit's notes"
        time.sleep(0.05)
    took = time.monotonic() - started
    print(f"feed crash: a dead committer's notes delivered {took:.2f} s after the worker started")
    time.sleep(2.5)  # two more sweeps: nothing is delivered twice
    counts = fed(client, app, match_id)
    assert {key: counts[key] for key in expected} == dict.fromkeys(expected, 1)
    assert client.llen(match_key(match_id, "outbox")) == 0


def test_a_clock_warning_reaches_the_deciding_player_through_a_real_worker(
    redis_server: RedisServer, start_worker: Callable[..., subprocess.Popen[bytes]]
) -> None:
    """A 3-second decision with a 2-second warning: the keeper of a real worker feeds the player to move
    one ``clock_warning`` between the warning time and the deadline, and nobody else gets one for it."""
    client = redis.Redis.from_url(redis_server.url)
    start_worker(clock_warning_seconds=2)
    config = Config(redis_url=redis_server.url, allow_seed=True, clock_warning_seconds=2)
    matches = build(config, store=connect_store(config), games=GAMES).matches
    give_up = time.monotonic() + DELIVERY_S
    while not client.keys("rq:worker:*"):  # the worker is up (its keeper starts with its lanes)
        assert time.monotonic() < give_up, "the worker never started"
        time.sleep(0.1)

    control = {"per_move_seconds": 3, "on_timeout": "random", "warning_seconds": 2}  # the default: 0.6 s
    app, doc = setup_match(matches, time_control=control)
    deadline = doc["clock"]["deadline"]
    to_move = PLAYERS[doc["to_move"]]
    while time.time() < deadline + 1.0:
        time.sleep(0.1)

    warnings = [
        (player, eid, entry)
        for player in PLAYERS
        for eid, entry in feed_of(client, app, player)
        if entry["type"] == "clock_warning" and entry["version"] == 0
    ]
    assert [w[0] for w in warnings] == [to_move]
    _, eid, entry = warnings[0]
    written = int(eid.split("-")[0]) / 1000  # Redis stamps a stream entry with its time in ms
    assert deadline - 2 - 0.01 <= written < deadline
    assert entry["deadline"] == deadline and entry["my_turn"] and entry["seat"] == doc["to_move"]
    print(f"clock warning: fed {deadline - written:.2f} s before the deadline (lead 2 s)")
