"""A rated match updates its players' ratings exactly once through crashes (issue 27 point 1: "tested
with retries, a worker SIGKILL and a Redis restart mid-update"), with real processes and a real Redis
server keeping an append-only file.

* A process that finishes a rated match is SIGKILLed by its own rating update, after computing the new
  ratings and before writing them: the commit stands, the outcome waits in the match's outbox, and a
  real ``tabletop worker``'s sweep rates the match, once.
* Redis is SIGKILLed (``appendfsync always``) twice while threads play rated matches: once just before
  a rating's compare-and-set (the write is lost with the connection), once just after one (the write is
  on disk, the outbox entry not yet popped), each time with moves and other updates in flight; after
  each restart play goes on, the sweep finishes what was left, and every match is rated exactly once:
  the counts are right, every history is a chain, and replaying the matches in the order they were
  rated reproduces every stored rating bit for bit.  (The retries of one update, and concurrent ones,
  are tests/service/test_ratings.py's.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from engine.registry import GAMES
from service.config import Config
from service.domain.identity import APP, Caller
from service.domain.matches.operations import Matches
from service.domain.outbox.sweep import sweep_outboxes
from service.domain.ratings import MODEL, places, rate
from service.storage.client import STORAGE_ERRORS
from service.storage.matches import connect_store, match_key
from service.storage.ratings import RatingStore, slot_key
from service.wiring import build
from tests.reliability.processes import ROOT, RedisServer, kill_tree
from tests.service.conftest import TEST_GAMES

#: Seconds a worker may take to start and sweep (it imports the games, then sweeps once a second).
SWEEP_S = 30.0
CRASH_GAME = "year_of_dragon"


def make_players(matches: Matches, players: tuple[str, ...]) -> tuple[str, Caller]:
    app = matches.accounts.create_app("Ratings crash test")["id"]
    caller = Caller(APP, app=app, scopes=frozenset({"read", "play"}))
    for player in players:
        matches.accounts.put_player(caller, player, player.title(), False)
    return app, caller


def step(matches: Matches, match_id: str) -> bool:
    """One move of the match (the first legal action; a bot seat's as a worker commits it); ``False``
    once the match is over."""
    loaded = matches.store.load(match_id)
    assert loaded is not None
    meta = loaded.meta
    if meta.to_move is None:
        return False
    game = matches.games[meta.game]
    state = game.decode(loaded.encoded_state())
    action = game.legal_actions(state)[0]
    if meta.seats[meta.to_move]["kind"] == "bot":
        matches.bot_move(meta, state, meta.to_move, action, announce=False)
    else:
        matches.seat_move(meta, state, meta.to_move, action)
    return True


def rate_then_die() -> None:
    """The doomed process (run by the test in a subprocess): play a rated match to its end and die by
    SIGKILL in the rating update, between computing the new ratings and writing them."""
    config = Config.from_env()
    matches = build(config, store=connect_store(config), games=GAMES).matches
    app, caller = make_players(matches, ("ann", "bob"))
    seats = [
        {"kind": "human", "player": "ann"},
        {"kind": "human", "player": "bob"},
        {"kind": "bot", "name": "Bot", "level": "easy", "think_ms": 0},
    ]
    doc = matches.create(
        {"game": CRASH_GAME, "seats": seats, "options": {}, "seed": 11, "rated": True}, caller=caller
    )
    print(json.dumps({"app": app, "match": doc["id"]}), flush=True)

    def die(self: RatingStore, *args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    RatingStore.apply = die  # type: ignore[method-assign]
    for _ in range(2000):
        step(matches, doc["id"])
    sys.exit(3)  # the match never ended


def environment(redis_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_ALLOW_SEED="1", PYTHONPATH=str(ROOT))
    return env


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis", "always") as server:
        yield server


@pytest.fixture
def start_worker(redis_server: RedisServer, tmp_path: Path) -> Iterator[Callable[[], None]]:
    procs: list[subprocess.Popen[bytes]] = []

    def start() -> None:
        with (tmp_path / "worker.log").open("ab") as log:
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "service.cli", "worker"],
                    env=environment(redis_server.url),
                    cwd=ROOT,
                    stdout=log,
                    stderr=log,
                )
            )

    yield start
    for proc in procs:  # SIGKILL, with all below it: a warm stop here left lane processes orphaned
        if proc.poll() is None:
            kill_tree(proc)


def stored_ratings(client: redis.Redis, app: str, game: str) -> dict[str, dict[str, Any]]:
    return {k.decode(): json.loads(v) for k, v in client.hgetall(slot_key(app, game, "ratings")).items()}


def test_a_process_killed_mid_update_leaves_the_match_to_the_sweep_which_rates_it_once(
    redis_server: RedisServer, start_worker: Callable[[], None], tmp_path: Path
) -> None:
    client = redis.Redis.from_url(redis_server.url)
    doomed = subprocess.run(
        [sys.executable, "-c", f"from {__name__} import rate_then_die; rate_then_die()"],
        env=environment(redis_server.url),
        cwd=ROOT,
        capture_output=True,
        timeout=300,
    )
    assert doomed.returncode == -signal.SIGKILL, doomed.stderr.decode()[-2000:]
    made = json.loads(doomed.stdout.decode().splitlines()[0])
    app, match_id = made["app"], made["match"]

    # The match is over, its outcome waits in the outbox, marked for the sweep; nobody is rated yet.
    assert client.hget(match_key(match_id, "meta"), "status") == b"finished"
    left = [json.loads(raw) for raw in client.lrange(match_key(match_id, "outbox"), 0, -1)]
    outcome = left[-1]["rating"]
    assert outcome["players"] == ["ann", "bob", "builtin:easy"]
    assert client.zscore("tt:outbox:pending", match_id) is not None
    assert stored_ratings(client, app, CRASH_GAME) == {}

    start_worker()
    deadline = time.monotonic() + SWEEP_S
    while client.llen(match_key(match_id, "outbox")) or not stored_ratings(client, app, CRASH_GAME):
        assert time.monotonic() < deadline, (tmp_path / "worker.log").read_text()[-3000:]
        time.sleep(0.05)

    stored = stored_ratings(client, app, CRASH_GAME)
    expected = rate(
        dict.fromkeys(outcome["players"], (MODEL.mu, MODEL.sigma)), outcome["players"], outcome["ranks"]
    )
    assert {r: (stored[r]["mu"], stored[r]["sigma"], stored[r]["matches"]) for r in expected} == {
        r: (*v, 1) for r, v in expected.items()
    }
    # The outcome asked for again (a second sweep, a late drain): still once.
    config = Config(redis_url=redis_server.url)
    ratings = build(config, store=connect_store(config), games=GAMES).ratings
    assert ratings.record(match_id, outcome) is False
    assert stored_ratings(client, app, CRASH_GAME) == stored


PLAYERS = ("ann", "bob", "cy", "dee", "eve", "fay")
MATCHES = 24
THREADS = 4


class Season:
    """Rated High Card matches among PLAYERS (and built-in bots), played by THREADS threads in process,
    each its own matches, through Redis going away: a failed call is retried once Redis is back."""

    def __init__(self, matches: Matches, caller: Caller) -> None:
        self.matches = matches
        self.ids: list[str] = []
        self.seats: dict[str, list[str]] = {}
        for i in range(MATCHES):
            shift = (i // 6) % 2
            third = "builtin:hard@0" if i % 3 == 0 else PLAYERS[(i + 3 + shift) % 6]  # hard at 0 ms
            trio = [PLAYERS[i % 6], PLAYERS[(i + 1 + shift) % 6], third]
            seats: list[dict[str, Any]] = [
                {"kind": "bot", "name": "Hard", "level": "hard", "think_ms": 0}
                if p.startswith("builtin:")
                else {"kind": "human", "player": p}
                for p in trio
            ]
            doc = matches.create(
                {"game": "high_card", "seats": seats, "options": {}, "seed": i, "rated": True}, caller=caller
            )
            self.ids.append(doc["id"])
            self.seats[doc["id"]] = trio
        self.errors: list[str] = []
        self.storage_errors = 0
        self.deadline = time.monotonic() + 120

    def play(self, mine: list[str]) -> None:
        live = list(mine)
        while live and time.monotonic() < self.deadline:
            for match_id in list(live):
                try:
                    if not step(self.matches, match_id):
                        live.remove(match_id)
                except STORAGE_ERRORS:
                    self.storage_errors += 1
                    time.sleep(0.02)  # Redis is away: try again (the match's version tells what stood)
                except Exception as exc:
                    self.errors.append(f"{match_id}: {exc!r}")
                    live.remove(match_id)
        if live:
            self.errors.append(f"unfinished: {live}")


def test_redis_killed_before_and_after_a_rating_write_rates_every_match_once(
    redis_server: RedisServer,
) -> None:
    config = Config(redis_url=redis_server.url, allow_seed=True)
    wired = build(config, store=connect_store(config), games=TEST_GAMES)
    matches = wired.matches
    app, caller = make_players(matches, PLAYERS)
    season = Season(matches, caller)
    client = redis.Redis.from_url(redis_server.url)

    # Redis dies in the 4th rating update before its write, and in the first one from the 10th on
    # (once it is back up) right after its write.
    store, real_apply = wired.ratings.store, wired.ratings.store.apply
    calls, lock = [0], threading.Lock()
    killed, up = threading.Event(), threading.Event()
    up.set()
    kills: list[str] = []

    def apply(*args: Any, **kwargs: Any) -> Any:
        with lock:
            calls[0] += 1
            n = calls[0]
            when = None
            if up.is_set() and (n == 4 or (n >= 10 and len(kills) == 1)):
                when = "before" if not kills else "after"
                kills.append(f"{when} the write of {args[2]}")
                up.clear()
        if when == "before":
            redis_server.kill()
            killed.set()
            return real_apply(*args, **kwargs)  # fails: Redis is gone
        reply = real_apply(*args, **kwargs)
        if when == "after":
            redis_server.kill()
            killed.set()
        return reply

    store.apply = apply  # type: ignore[method-assign]
    threads = [threading.Thread(target=season.play, args=(season.ids[i::THREADS],)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for _ in range(2):
        assert killed.wait(timeout=60), "no rating update came"
        time.sleep(0.3)  # keep it down while the threads' calls fail
        killed.clear()
        redis_server.start()
        up.set()
    for t in threads:
        t.join()
    assert not season.errors, season.errors[:5]
    assert len(kills) == 2 and season.storage_errors > 0, kills

    # The sweep finishes what the kills left (here called directly, as a worker's keeper does).
    sweep_outboxes(wired.outbox, time.time() + 3600, settle=0)
    for match_id in season.ids:
        assert client.llen(match_key(match_id, "outbox")) == 0, match_id
        assert client.hget(match_key(match_id, "meta"), "status") == b"finished"

    # Once more after a last restart: what was rated is on disk.
    redis_server.kill()
    redis_server.start()
    rated = {m.decode() for m in client.zrange(slot_key(app, "high_card", "rated"), 0, -1)}
    assert rated == set(season.ids)
    stored = stored_ratings(client, app, "high_card")
    raters = {r for trio in season.seats.values() for r in trio}
    assert {r: stored[r]["matches"] for r in raters} == {
        r: sum(r in trio for trio in season.seats.values()) for r in raters
    }
    order: dict[int, str] = {}
    for r in raters:
        history = [json.loads(e) for e in client.lrange(slot_key(app, "high_card", f"history:{r}"), 0, -1)]
        assert [h["before"] for h in history[:-1]] == [h["after"] for h in history[1:]], r
        order.update({h["seq"]: h["match_id"] for h in history})
    assert sorted(order) == list(range(1, MATCHES + 1))
    outcomes = {}
    for match_id in season.ids:
        meta = matches.meta(match_id)
        assert meta.result is not None
        outcomes[match_id] = (season.seats[match_id], places(meta.result))
    replayed: dict[str, tuple[float, float]] = {}
    for seq in sorted(order):
        players, ranks = outcomes[order[seq]]
        replayed.update(rate({p: replayed.get(p, (MODEL.mu, MODEL.sigma)) for p in players}, players, ranks))
    assert replayed == {r: (stored[r]["mu"], stored[r]["sigma"]) for r in raters}
    print(f"ratings through Redis kills ({'; '.join(kills)}): {season.storage_errors} calls retried")
