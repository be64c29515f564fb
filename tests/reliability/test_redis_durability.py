"""Redis durability: the API over a Redis server with an append-only file, SIGKILLed while clients play.

50 matches are played partway through the API (gunicorn, 2 workers) by 10 client threads; while they
are still moving, the Redis server is SIGKILLed (no shutdown, no last fsync), then restarted on the same
data directory; the API is not restarted (its connection pool reconnects by itself).

With ``appendfsync always`` Redis answers a write only after it is on disk, so every move the API
acknowledged with a 200 must be there.  With ``everysec`` the write has normally reached the kernel before
the answer too (so a killed process loses nothing; a crashed host may lose about a second), but Redis may
postpone it while a slow fsync runs: the figure is printed rather than asserted, and what survived must
still be a prefix of each match.  A move whose answer was
lost in the crash may or may not have been applied; the client learns which from the match itself.
Either way every match then plays to the end, and its log replays to its stored result and view.
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from tests.reliability.oracle import PlayedMatch
from tests.reliability.processes import ApiServer, RedisServer, call

GAME, PLAYERS = "year_of_dragon", 2
MATCHES, THREADS = 50, 10
#: Moves acknowledged in all before the kill: 50 matches "partway" (a match is ~80 moves).
KILL_AFTER = MATCHES * 15
DEADLINE_S = 120


class Players:
    """THREADS client threads, each moving in its own matches round-robin until they are over.

    A refused or failed move is a failure, unless ``crashing`` is set: then Redis is being killed and
    the thread just stops."""

    def __init__(self, matches: list[PlayedMatch], api: ApiServer, crashing: threading.Event) -> None:
        self.failures: list[str] = []
        self.deadline = time.monotonic() + DEADLINE_S
        self.threads = [
            threading.Thread(target=self.run, args=(matches[i::THREADS], api, crashing, i))
            for i in range(THREADS)
        ]
        for t in self.threads:
            t.start()

    def run(self, mine: list[PlayedMatch], api: ApiServer, crashing: threading.Event, seed: int) -> None:
        rng = random.Random(seed)
        client = api.client()
        while time.monotonic() < self.deadline:
            live = [m for m in mine if not m.over()]
            if not live:
                return
            for match in live:
                status, reply = match.move(client, rng)
                if status != 200:
                    if not crashing.is_set():
                        self.failures.append(f"{match.id}: {status} {reply}")
                    return

    def join(self) -> list[str]:
        for t in self.threads:
            t.join()
        return self.failures


@pytest.mark.timeout(3 * DEADLINE_S)
@pytest.mark.parametrize("appendfsync", ["always", "everysec"])
def test_sigkill_of_redis_loses_no_acknowledged_move(tmp_path, appendfsync):
    redis_server = RedisServer(tmp_path / "redis", appendfsync)
    redis_server.start()
    try:
        with ApiServer(redis_server.url, tmp_path / "api.log", workers=2) as api:
            matches = [PlayedMatch(api.client(), GAME, PLAYERS, seed=5000 + i) for i in range(MATCHES)]
            crashing = threading.Event()
            players = Players(matches, api, crashing)
            while sum(m.version for m in matches) < KILL_AFTER:
                assert any(t.is_alive() for t in players.threads), players.failures
                time.sleep(0.005)
            crashing.set()
            redis_server.kill()
            assert not players.join(), players.failures[:5]
            acknowledged = sum(m.version for m in matches)
            assert all(not m.over() for m in matches), "the kill came too late: a match was over"

            redis_server.start()
            client = api.client()
            assert call(client, "GET", "/readyz")[0] == 200
            lost, found = map(sum, zip(*(m.resync(client) for m in matches), strict=True))
            print(
                f"appendfsync {appendfsync}: {acknowledged} moves acknowledged before SIGKILL, "
                f"{lost} of them lost, {found} unanswered moves found applied"
            )
            if appendfsync == "always":
                assert lost == 0

            assert not Players(matches, api, threading.Event()).join()
            assert all(m.over() for m in matches)
            checker = api.client()
            for match in matches:
                match.verify(checker)
    finally:
        redis_server.stop()
