"""bench/api.py end to end, briefly: it must keep running, and its CPU accounting must see the server."""

from __future__ import annotations

import re

from bench import api


def test_the_api_bench_measures_moves_and_who_spent_the_cpu(capsys):
    argv = ["--clients", "4", "--client-procs", "2", "--seconds", "1.5", "--workers", "1"]
    assert api.main(argv) == 0
    out = capsys.readouterr().out
    moves = float(re.search(r"moves/s\s+(\d+)", out).group(1))
    healthz_cpu, move_cpu = map(
        float, re.search(r"server CPU ms\s+healthz ([\d.]+)\s+move ([\d.]+)", out).groups()
    )
    redis_move_cpu = float(re.search(r"of which Redis\s+healthz [\d.]+\s+move ([\d.]+)", out).group(1))
    client_move_cpu = float(re.search(r"client CPU ms\s+healthz [\d.]+\s+move ([\d.]+)", out).group(1))
    assert moves > 0
    assert 0 < healthz_cpu < move_cpu  # a move (a Redis round trip or two, the engine) costs more than a ping
    assert 0 < redis_move_cpu < move_cpu  # Redis is part of the server's share, and only part
    assert client_move_cpu > 0


def test_the_crowd_bench_gathers_its_crowd_and_measures_delivery(capsys):
    argv = ["--crowd", "40", "--clients", "4", "--client-procs", "2", "--waiter-procs", "1", "--seconds", "2",
            "--workers", "1"]  # fmt: skip
    assert api.main(argv) == 0
    out = capsys.readouterr().out
    gathered = float(re.search(r"gathered (\d+) waiting", out).group(1))
    received = int(re.search(r"events received (\d+)", out).group(1))
    p99 = float(re.search(r"delivery ms p50 [\d.]+\s+p99 ([\d.]+)", out).group(1))
    # A quarter of the crowd long-polls and re-polls as events arrive: at any instant some are between
    # two polls, so the streams (three quarters) are what is surely waiting.
    assert gathered >= 30 and received > 0 and 0 < p99 < 5000
    assert re.search(r"moves/s\s+no crowd\s+\d+ .* with crowd\s+\d+", out)
    assert "statuses" in out and "'200'" in out


def test_the_bots_bench_times_all_bot_matches_through_real_workers(capsys):
    from bench import bots

    assert bots.main(["--matches", "2", "--games", "taj_mahal", "--levels", "random,easy"]) == 0
    row = re.search(r"taj_mahal\s+(\d+)\s+(\d+) \(\s*([\d.]+)%\)\s+(\d+)", capsys.readouterr().out)
    engine, random_rate, share, easy_rate = (float(x) for x in row.groups())
    assert engine > random_rate > 0 and easy_rate > 0
    assert abs(share - 100 * random_rate / engine) < 0.2


def test_the_clocks_bench_measures_how_late_timeouts_fire(capsys):
    from bench import clocks

    assert clocks.main(["--matches", "40", "--seconds", "1", "--workers", "1", "--level", "random"]) == 0
    p50, p99, worst = map(
        float,
        re.search(r"p50 ([\d.-]+) s, p99 ([\d.-]+) s, max ([\d.-]+) s", capsys.readouterr().out).groups(),
    )
    assert 0 <= p50 <= p99 <= worst < 30  # no timeout fires before its deadline


def test_the_cluster_bench_compares_one_node_with_a_cluster(capsys):
    from bench import cluster

    assert cluster.main(["--clients", "4", "--client-procs", "1", "--seconds", "1.5", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    rates = [float(x) for x in re.findall(r"moves/s\s+(\d+) \(", out)]
    assert len(rates) == 3 and all(r > 0 for r in rates)
    assert re.search(r"masters [\d.]+\s+replicas [\d.]+", out) and "one master core carries about" in out
