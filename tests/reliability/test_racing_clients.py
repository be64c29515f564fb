"""Racing clients: 50 client threads against gunicorn with 4 workers play 100 matches to the end.

Threads do not own matches: each step a thread picks any unfinished match and moves in it, so several
threads race on one version all the time.  On purpose, some requests carry a stale version (they must be
refused and change nothing) and some successful requests are sent again with the same Idempotency-Key,
at once or after the match moved on (they must replay the first answer, byte for byte, and apply
nothing).  At the end every match's log must be exactly its acknowledged moves (none lost, none applied
twice) and replay from the seed to the stored result and view.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections import Counter

import pytest

from tests.reliability.oracle import PlayedMatch
from tests.reliability.processes import ApiServer, RedisServer, bearer, call

GAME, PLAYERS = "year_of_dragon", 2  # the shortest registered game: ~80 decisions
MATCHES, THREADS = 100, 50
STALE_RATE, RETRY_RATE = 0.15, 0.2
DEADLINE_S = 300


@pytest.mark.timeout(DEADLINE_S + 120)
def test_fifty_threads_play_a_hundred_matches_without_losing_or_doubling_a_move(tmp_path):
    with (
        RedisServer(tmp_path / "redis") as redis_server,
        ApiServer(redis_server.url, tmp_path / "api.log", workers=4) as api,
    ):
        setup = api.client()
        matches = [PlayedMatch(setup, GAME, PLAYERS, seed=9000 + i) for i in range(MATCHES)]
        statuses: Counter[str] = Counter()
        failures: list[str] = []
        deadline = time.monotonic() + DEADLINE_S

        def play(index: int) -> None:
            rng = random.Random(index)
            client = api.client()
            try:
                while time.monotonic() < deadline:
                    live = [m for m in matches if not m.over()]
                    if not live:
                        return
                    step(rng.choice(live), client, rng)
            except Exception as exc:  # a dead thread must fail the test, not just warn
                failures.append(repr(exc))

        def step(match: PlayedMatch, client, rng: random.Random) -> None:
            picked = match.pick(rng)
            if picked is None:
                return
            version, seat, action = picked
            stale = version > 0 and rng.random() < STALE_RATE
            sent = rng.randrange(version) if stale else version
            key = str(uuid.uuid4())
            headers = {**bearer(match.tokens[seat]), "If-Match": f'"{sent}"', "Idempotency-Key": key}
            status, reply = call(client, "POST", f"{match.url}/actions", {"action": action}, **headers)
            statuses[f"{'stale' if stale else 'current'} {status}"] += 1
            if stale:
                assert status == 412 and reply["details"]["current_version"] > sent, (status, reply)
                return
            assert status in (200, 412), (status, reply)
            if status != 200:
                return
            match.acknowledge(version, action, reply)
            if rng.random() < RETRY_RATE:
                if rng.random() < 0.5:  # later: the match may have moved on meanwhile
                    time.sleep(rng.random() * 0.05)
                again, replayed = call(client, "POST", f"{match.url}/actions", {"action": action}, **headers)
                statuses[f"retry {again}"] += 1
                assert again == 200 and replayed == reply, (again, replayed, reply)

        threads = [threading.Thread(target=play, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"racing clients: {sum(statuses.values())} move requests: {dict(sorted(statuses.items()))}")
        assert not failures, failures[:5]
        assert all(m.over() for m in matches), "not every match finished before the deadline"
        checker = api.client()  # a fresh connection: the setup one idled past gunicorn's keep-alive
        for match in matches:
            match.verify(checker)
        assert statuses["current 412"] > 0, "no two clients ever raced on one version"
        assert statuses["retry 200"] > 0 and statuses["stale 412"] > 0
