"""bench/longpoll.py end to end, briefly: a real server process, matches moved at a pace and long-polled
by spectators and by seat holders; the bench prints the CPU per answer of each and the spectators'
share of polls that read no match (which the server's own counter gives)."""

from __future__ import annotations

import re

from bench import longpoll


def test_the_longpoll_bench_measures_spectators_against_seats_in_one_run(capsys) -> None:
    argv = ["--matches", "3", "--pollers", "4", "--pace", "0.3", "--seconds", "2", "--rounds", "1"]
    assert longpoll.main(argv) == 0
    out = capsys.readouterr().out
    figures = dict(re.findall(r"^(spectator|seat)\s+CPU µs per long-poll answer: mean (-?\d+)", out, re.M))
    assert set(figures) == {"spectator", "seat"}, out
    assert all(0 < int(v) < 1_000_000 for v in figures.values()), out
    # Four spectators per match poll again together after each commit: one reads the match, the
    # others take its copy (or join its read), so well over half read nothing.
    share = re.search(r"^spectator polls that read no match: (\d+)%", out, re.M)
    assert share and 50 <= int(share.group(1)) <= 100, out
    assert re.search(r"^ratio spectator / seat: \d+\.\d\d$", out, re.M), out
