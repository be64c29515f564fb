"""Nobody is booked twice (issue 27 point 3): 200 seekers post at once, from 4 processes of 50 threads
each (each process its own app and Redis connections, as API processes are), all released together by
a barrier, into three pools of one app (High Card for 2, 3 and 4 players).  Then: every seek is either
matched or still open; no player is in two matches; every match is full and made of exactly the
seekers whose seeks name it; each pool's leftovers are fewer than a group and still open (and listed);
no pairing is left unfinished."""

from __future__ import annotations

import multiprocessing as mp
import threading
from collections import Counter, defaultdict
from typing import Any

import pytest
import redis
from flask import Flask

from service.domain.matches import seating
from service.http.app import create_app
from service.storage.seeks import Pool
from tests.service.conftest import TEST_GAMES, bearer, make_config
from tests.service.test_accounts import ADMIN, new_app, put_player

PROCESSES, THREADS = 4, 50
SEEKERS = PROCESSES * THREADS
GAME = "high_card"
#: Seekers per player count: 67 for 2 (one left over), 67 for 3 (one), 66 for 4 (two).
COUNTS = {2: 67, 3: 67, 4: 66}
TIMEOUT = 120.0


@pytest.fixture
def app(redis_client: redis.Redis, redis_url: str) -> Flask:
    return create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)


def _post_all(redis_url: str, jobs: list[tuple[str, str, int]], barrier: Any, results: Any) -> None:
    """A child process: its own app (and Redis connections), one thread per seeker, all posting when
    every process's threads are at the barrier."""
    app = create_app(make_config(redis_url, admin_token=ADMIN), games=TEST_GAMES)
    ready = threading.Barrier(len(jobs) + 1)
    out: list[tuple[str, int, Any]] = []
    lock = threading.Lock()

    def seek(pid: str, token: str, players: int) -> None:
        client = app.test_client()
        ready.wait()
        resp = client.post("/v1/seeks", json={"game": GAME, "players": players}, headers=bearer(token))
        with lock:
            out.append((pid, resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=seek, args=job) for job in jobs]
    for thread in threads:
        thread.start()
    barrier.wait(timeout=TIMEOUT)  # every process has its threads started
    ready.wait()  # ...and here they all go
    for thread in threads:
        thread.join(TIMEOUT)
    results.put(out)


def test_200_seekers_at_once_are_each_booked_at_most_once(client: Any, redis_url: str) -> None:
    backend = new_app(client, "crowd")
    key = backend["key"]
    jobs: list[tuple[str, str, int]] = []
    for players, count in COUNTS.items():
        for i in range(count):
            pid = f"p{players}_{i}"
            assert put_player(client, key, pid).status_code == 201
            token = client.post(f"/v1/players/{pid}/tokens", json={"scopes": ["play"]}, headers=bearer(key))
            jobs.append((pid, token.json["token"], players))
    assert len(jobs) == SEEKERS
    fork = mp.get_context("fork")
    barrier, results = fork.Barrier(PROCESSES), fork.Queue()
    children = [
        fork.Process(target=_post_all, args=(redis_url, jobs[i::PROCESSES], barrier, results))
        for i in range(PROCESSES)
    ]
    for child in children:
        child.start()
    answers: list[tuple[str, int, Any]] = []
    for _ in children:
        answers += results.get(timeout=TIMEOUT)
    for child in children:
        child.join(TIMEOUT)
        assert child.exitcode == 0
    assert sorted(pid for pid, _, _ in answers) == sorted(pid for pid, _, _ in jobs)
    assert all(status == 201 for _, status, _ in answers), [a for a in answers if a[1] != 201][:3]

    svc = client.application.extensions["tabletop"]
    app_id = backend["id"]
    seek_of = {pid: body["id"] for pid, _, body in answers}
    final = {pid: client.get(f"/v1/seeks/{sid}", headers=bearer(key)).json for pid, sid in seek_of.items()}
    assert {doc["status"] for doc in final.values()} <= {"open", "matched"}
    by_match: dict[str, set[str]] = defaultdict(set)
    for pid, doc in final.items():
        if doc["status"] == "matched":
            by_match[doc["match_id"]].add(pid)
    seated: Counter[str] = Counter()
    for match_id, seekers in by_match.items():
        meta = svc.matches.store.metas([match_id])[0]
        assert meta is not None and meta.status == "active"
        players = {k.split(":", 1)[1] for k in seating.player_keys(meta.life).values()}
        assert players == seekers  # the match is made of exactly the seekers naming it...
        assert len(players) == meta.players == len(meta.seats)  # ...and it is full, of people only
        assert all(s["kind"] == "human" for s in meta.seats)
        seated.update(players)
    assert max(seated.values()) == 1  # nobody in two matches
    for players, count in COUNTS.items():
        matches = [m for m, seekers in by_match.items() if next(iter(seekers)).startswith(f"p{players}_")]
        assert len(matches) == count // players
        left = sorted(
            pid for pid, doc in final.items() if pid.startswith(f"p{players}_") and doc["status"] == "open"
        )
        assert len(left) == count % players
        listed = client.get(f"/v1/seeks?game={GAME}&players={players}", headers=bearer(key)).json["seeks"]
        assert sorted(s["player"]["id"] for s in listed) == left
        pool = Pool(app_id, GAME, players)
        assert svc.seeks.store.unfinished(pool, float("inf"), 10) == []
    for pid in seated:  # and each matched seeker knows its match from its feed
        mine = client.get(f"/v1/me/matches?player={pid}", headers=bearer(key)).json["matches"]
        assert [m["id"] for m in mine] == [final[pid]["match_id"]]
