"""bench/tournament.py (issue 31, point 5) end to end at a tiny scale (``--quick``: 8 matches with 1, then
2 workers), with real processes (Redis, ``tabletop serve``, ``tabletop worker``): it must run, its checks
must hold, and what it prints must add up.  The full run and its figures are in
docs/benchmarks.md, "Tournament benchmark"."""

from __future__ import annotations

import re

import pytest

from bench import tournament

pytestmark = pytest.mark.timeout(240)


def test_matches_per_pairing_keeps_the_seats_equal_and_the_total_near_the_ask():
    assert tournament.matches_per_pairing(400, 4, 4) == 400  # one group: exact
    assert tournament.matches_per_pairing(400, 4, 2) == 66  # 6 groups x 66 = 396, a multiple of 2
    assert tournament.matches_per_pairing(1, 4, 3) == 3  # at least one meeting per seat position
    assert tournament.points_of([1, 3, 2]) == [2.0, 0.0, 1.0]
    assert tournament.points_of([1, 1, 3]) == [1.5, 1.5, 0.0]


def test_the_quick_bench_runs_a_round_robin_with_one_then_two_workers(capsys):
    assert tournament.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"round robin of 8 year_of_dragon matches, 4 players each", out), out
    rows = re.findall(
        r"^\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)%\s+(\d+)%\s+([\d.]+)\s+([\d.]+)\s+(\d+)"
        r"\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%$",
        out,
        re.M,
    )
    assert [(int(r[0]), int(r[1])) for r in rows] == [(1, 8), (2, 8)], out
    for _, matches, wall, per_min, busy_jobs, busy_cpu, p50, p99, gaps, *_ in rows:
        # matches/min is the matches over the wall time, both printed to one decimal: the wall time was
        # within 0.05 s of what is printed (at 0.8 s, that is 564.7 to 640 matches/min)
        fastest, slowest = float(wall) - 0.05, float(wall) + 0.05
        assert 60 * int(matches) / slowest - 0.05 <= float(per_min) <= 60 * int(matches) / fastest + 0.05
        assert 0 < int(busy_jobs) <= 100 and 0 < int(busy_cpu) <= 100
        # 4 in flight: the 5th to 8th created replace the first four to end
        assert int(gaps) == 4 and 0 <= float(p50) <= float(p99)
    assert re.search(r"^speed-up 2 vs 1 worker\(s\): [\d.]+x$", out, re.M), out
    for workers in (1, 2):
        line = re.search(
            rf"^{workers} worker\(s\): a match's creation to its end p50 ([\d.]+) s, p99 ([\d.]+) s, "
            r"max ([\d.]+) s \(4 in flight\); quick-lane job time per match (\d+) ms; quick queue "
            r"([\d.]+) jobs waiting on average, none in (\d+) of (\d+) samples$",
            out,
            re.M,
        )
        assert line, out
        p50, p99, longest, per_match, queued, idle, samples = (float(x) for x in line.groups())
        assert 0 < p50 <= p99 <= longest + 0.01 and per_match > 0
        assert 0 <= queued <= 4 and 0 <= idle <= samples  # at most the 4 in flight wait
    assert "checks: every match finished once, seats equally used" in out


def test_the_cost_bench_creates_and_cancels_a_9900_match_tournament_in_bounded_time(capsys):
    """Issue 42 point 3 with real processes (a private Redis, ``tabletop serve``, no worker): one
    creation of a 9,900-match round robin makes no match and queues no job, and its cancel answers
    within 2 s (the bench's own check, exit status 2 if not: a generous bound for constant work, which
    takes milliseconds).  The comparison with the code before (``--baseline``) is in docs/benchmarks.md."""
    assert tournament.main(["--cost"]) == 0
    out = capsys.readouterr().out
    row = re.search(r"^after\s+(\d+)\s+([\d.]+)\s+(-?[\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)$", out, re.M)
    assert row, out
    matches, create_s, megabytes, keys, jobs, made, cancel_s = row.groups()
    assert int(matches) == 9900 and int(made) == 0 and int(jobs) == 0, out
    assert float(create_s) < 2.0 and float(cancel_s) < 2.0, out
    assert int(keys) <= 8 and float(megabytes) < 1.0, out  # one record and the indexes, not 9,900 of each
    assert "checks: creation made nothing, cancel under 2 s" in out
