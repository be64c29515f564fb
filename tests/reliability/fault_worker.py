"""``tabletop worker`` with faults injected into chosen matches' bot turns (for test_worker_faults.py).

    python -m tests.reliability.fault_worker        # TABLETOP_* variables as for tabletop worker

The test writes a fault for a match into the Redis hash :data:`FAULTS`: ``"raise:<n>:<v>"`` or
``"hang:<n>:<v>"``; from version ``v`` on, the next ``n`` attempts at that match's bot turns raise an
exception, or hang past the job's timeout (RQ's death penalty interrupts it), instead of playing.
Everything else is the real worker: RQ, lanes, retries, the fallback to a random move, the sweep.
Attempts are counted in Redis because a worker runs a process per lane.
"""

from __future__ import annotations

import time
from typing import Any

import redis

from service.config import Config
from workers import jobs
from workers.worker import run

FAULTS = "tt:test:faults"
#: Attempts at each match's turns since its fault version, and how many of them the fault hit.
ATTEMPTS = "tt:test:faults:attempts"
FIRED = "tt:test:faults:fired"


class InjectedFault(RuntimeError):
    pass


def main() -> None:
    config = Config.from_env()
    client = redis.Redis.from_url(config.redis_url)
    real_take_turns = jobs.take_turns

    def take_turns(matches: Any, match_id: str, version: int, **kwargs: Any) -> Any:
        spec = client.hget(FAULTS, match_id)
        if spec is not None:
            kind, times, from_version = spec.decode().split(":")
            if version >= int(from_version) and client.hincrby(ATTEMPTS, match_id, 1) <= int(times):
                client.hincrby(FIRED, match_id, 1)
                if kind == "raise":
                    raise InjectedFault(f"injected fault in {match_id} at version {version}")
                time.sleep(24 * 3600)  # hang: only the job timeout ends this
        return real_take_turns(matches, match_id, version, **kwargs)

    jobs.take_turns = take_turns  # the fault wraps the real turns; the job functions look it up here
    run(config)


if __name__ == "__main__":
    main()
