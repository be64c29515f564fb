"""bench/ladder.py and bench/seeks.py (issue 27, point 7) end to end at a tiny scale, with real processes
(Redis, ``tabletop serve``, ``tabletop worker``): they must keep running, and what they print must add
up.  The full runs and their figures are in docs/benchmarks.md, "Ratings benchmark"."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from bench import ladder, seeks
from engine.ai import LEVELS
from engine.registry import GAMES

pytestmark = pytest.mark.timeout(300)

#: The openskill model's starting uncertainty (25/3): every level that played must be below it.
START_SIGMA = 25 / 3


def test_the_ladder_seats_every_level_in_every_seat_equally_often():
    for game_id, game in GAMES.items():
        by_count = ladder.arrangements(game_id)
        assert sorted(by_count) == list(range(max(2, game.min_players), min(game.max_players, 4) + 1))
        full = sum(len(a) for a in by_count.values()) * len(by_count)
        plan = ladder.schedule(game_id, full)
        # The player counts take turns; no level sits twice in a match.
        assert [len(s) for s in plan[: len(by_count)]] == sorted(by_count)
        assert all(len(set(seats)) == len(seats) for seats in plan)
        for n, options in by_count.items():
            of_n = [s for s in plan if len(s) == n]
            # A whole rotation of a count is each of its arrangements once: each level in each seat
            # equally often, and every level plays as often as every other.
            assert sorted(of_n[: len(options)]) == sorted(options)
            seats = Counter((seat, level) for s in of_n[: len(options)] for seat, level in enumerate(s))
            assert len(set(seats.values())) == 1 and len(seats) == n * len(LEVELS)
            # A short ladder mixes: the first matches of a count take every choice of levels in turn.
            choices = {frozenset(s) for s in options}
            assert {frozenset(s) for s in of_n[: len(choices)]} == choices


def test_the_ladder_rates_all_bot_matches_through_real_workers_and_reads_the_leaderboard(capsys):
    argv = ["--matches", "6", "--games", "year_of_dragon", "--workers", "1", "--normal-ms", "5",
            "--hard-ms", "10", "--in-flight", "4", "--poll", "0.2"]  # fmt: skip
    status = ladder.main(argv)
    out = capsys.readouterr().out
    assert status in (0, 1), out  # 2: a match or a rating missing
    assert re.search(
        r"^year_of_dragon: 6 rated matches \(2p 2, 3p 2, 4p 2\) in \d+ s .*; think_ms normal=5 hard=10$",
        out,
        re.M,
    ), out
    rows = re.findall(
        r"^\s+(\d+) builtin:(\w+)\s+([\d.-]+)\s+([\d.]+)\s+([\d.-]+)\s+(\d+)\s+(\d+)\s+([\d.]+)$", out, re.M
    )
    assert sorted(r[1] for r in rows) == sorted(LEVELS), out
    played = Counter(level for seats in ladder.schedule("year_of_dragon", 6) for level in seats)
    ordinals = []
    for rank, level, mu, sigma, ordinal, matches, firsts, mean_place in rows:
        mu_, sigma_, ordinal_ = float(mu), float(sigma), float(ordinal)
        # The board's figures, read over HTTP: every seat of every match rated once, no more.
        assert int(matches) == played[level]
        assert sigma_ < START_SIGMA  # it played, so the model is surer of it
        assert abs(ordinal_ - (mu_ - 3 * sigma_)) <= 0.0201  # each printed to 2 decimals: 0.005 + 3 * 0.005
        assert 1 <= float(mean_place) <= 4 and int(firsts) <= played[level]
        ordinals.append((int(rank), ordinal_))
    # The board is in ordinal order, best first; one first place per match.
    assert [o for _, o in sorted(ordinals)] == sorted((o for _, o in ordinals), reverse=True)
    assert sum(int(r[6]) for r in rows) == 6
    verdict = re.search(r"easy above random \(by ordinal\): (holds|DOES NOT HOLD)$", out, re.M).group(1)
    by_level = {r[1]: float(r[4]) for r in rows}
    holds = all(by_level[a] > by_level[b] for a, b in ladder.ABOVE)
    assert (verdict == "holds") == holds == (status == 0)
    assert re.search(r"^ladder: 6 rated matches in \d+ s", out, re.M)


def test_the_seeks_bench_pairs_seekers_and_accounts_for_every_match(capsys):
    assert seeks.main(["--quick"]) == 0
    out = capsys.readouterr().out
    rows = {
        m.group(1): m.groups()[1:]
        for m in re.finditer(
            r"^(2p|4p|all)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M
        )
    }
    assert set(rows) == {"2p", "4p", "all"}, out
    for pool, (seekers_, matches, pairings, matched, p50, p99, s50, s99) in rows.items():
        assert int(seekers_) == {"2p": 20, "4p": 20, "all": 40}[pool]
        assert int(matches) > 0 and float(pairings) > 0 and float(matched) > 0
        assert 0 <= int(p50) <= int(p99) and 0 <= int(s50) <= int(s99)
    assert int(rows["all"][1]) == int(rows["2p"][1]) + int(rows["4p"][1])
    # Seekers matched per second: at most 2 per pairing in the 2-player pool, 4 in the 4-player one (fewer
    # when a match formed as the run ended, some of its seekers learning of it only then), at least one.
    for pool, seats in (("2p", 2), ("4p", 4)):
        pairings, matched = float(rows[pool][2]), float(rows[pool][3])
        assert pairings - 0.1 <= matched <= seats * (pairings + 0.05) + 0.05, rows[pool]
    checks = re.search(
        r"checks: (\d+) matches, (\d+) seated exactly their pool's number of seekers, (\d+) seated a player "
        r"twice; seek_matched notes missing (\d+); open at the end and cancelled (\d+); feeds (\d+)/40",
        out,
    )
    assert checks, out
    total, exact, twice, missing, _, feeds = (int(x) for x in checks.groups())
    assert total == exact > 0 and twice == 0 and missing == 0 and feeds == 40
    statuses = re.search(r"^statuses (\{.*\})$", out, re.M).group(1)
    assert re.fullmatch(
        r"\{'(DELETE 200|DELETE 409|POST 201)': \d+(, '(DELETE 200|DELETE 409|POST 201)': \d+)*\}", statuses
    )
    assert re.search(r"^pairings/s [\d.]+ with 40 seekers$", out, re.M)
