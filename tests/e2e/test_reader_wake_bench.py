"""bench/reader_wake.py end to end, briefly: under gevent, as in a server process, the live reader's
subscription receives every message published with either parser, and the bench prints both."""

from __future__ import annotations

import re
import subprocess
import sys


def test_the_reader_wake_bench_receives_every_message_with_both_parsers() -> None:
    # Its own process: the bench patches the standard library for gevent at import.
    done = subprocess.run(
        [sys.executable, "-m", "bench.reader_wake", "--messages", "60", "--gap", "0.002", "--rounds", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr  # each round asserts it received all 60 messages
    figures = dict(
        re.findall(
            r"^(redis-py's parser|QuickCheckParser)\s+CPU µs per message: mean (\d+)", done.stdout, re.M
        )
    )
    assert set(figures) == {"redis-py's parser", "QuickCheckParser"}
    assert all(int(v) > 0 for v in figures.values())
    assert re.search(r"ratio QuickCheckParser / redis-py's: \d+\.\d\d", done.stdout)
