"""What the live reader spends to receive one published message when it has to wake for it (issue 30).

    python -m bench.reader_wake --messages 2000 --rounds 5

A process that follows a match hears of each of its commits by a Redis message; at a human pace each
message wakes the reader from idle, so what one wake costs is paid per commit per process that
follows the match, however few of its waiters the process holds.  This runs the reader's loop (one
``get_message`` that waits, then one that does not) under gevent, as a server process does, against
a real Redis, while another process publishes ``--messages`` messages of 300 bytes, one every
``--gap`` seconds; it prints the loop's CPU per message with redis-py's own hiredis parser and with
:class:`service.storage.client.QuickCheckParser`, in alternating rounds, and the ratio of their means.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()  # before anything imports socket: the reader runs under gevent in the server

import argparse  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

from redis._parsers import _HiredisParser  # noqa: E402

from devtools.private_redis import PrivateRedis  # noqa: E402
from service.storage.client import QuickCheckParser, connect  # noqa: E402

PUBLISHER = """
import sys, time, redis
url, count, gap = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
client = redis.Redis.from_url(url)
time.sleep(0.3)
for _ in range(count):
    client.publish("wake", b"x" * 300)
    time.sleep(gap)
client.publish("wake", b"end")
"""


def one_round(url: str, parser: type, messages: int, gap: float) -> float:
    """The reader loop's CPU (µs) per message received, with ``parser`` on its connection."""
    client = connect(url, timeout=2)
    client.connection_pool.connection_kwargs["parser_class"] = parser
    pubsub = client.pubsub()
    pubsub.subscribe("wake")
    assert pubsub.get_message(timeout=2) is not None  # the confirmation
    publisher = subprocess.Popen([sys.executable, "-c", PUBLISHER, url, str(messages), str(gap)])
    got, over = 0, False
    started = time.process_time()
    while not over:
        message = pubsub.get_message(timeout=0.5)
        while message is not None:
            if message["type"] == "message":
                over = message["data"] == b"end"
                got += not over
            message = pubsub.get_message(timeout=0)
    spent = time.process_time() - started
    publisher.wait()
    pubsub.close()
    client.connection_pool.disconnect()
    assert got == messages, (got, messages)
    return spent / got * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--gap", type=float, default=0.004, help="seconds between two messages")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    kinds = {"redis-py's parser": _HiredisParser, "QuickCheckParser": QuickCheckParser}
    figures: dict[str, list[float]] = {name: [] for name in kinds}
    with PrivateRedis() as url:
        for _ in range(args.rounds):
            for name, kind in kinds.items():
                figures[name].append(one_round(url, kind, args.messages, args.gap))
    every = f"one every {args.gap * 1000:g} ms"
    print(f"reader_wake: {args.messages} messages a round, {every}, {args.rounds} rounds")
    for name, values in figures.items():
        spread = ", ".join(f"{v:.0f}" for v in values)
        print(f"{name:18s} CPU µs per message: mean {statistics.mean(values):.0f} ({spread})")
    base, ours = (statistics.mean(v) for v in figures.values())
    print(f"ratio QuickCheckParser / redis-py's: {ours / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
