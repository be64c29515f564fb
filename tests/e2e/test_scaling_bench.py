"""bench/scaling.py (issue 30, point 3): ``bench.api --scale`` and ``--crowd N --scale`` end to end, briefly
(1 and 2 server processes, a few seconds per phase): every row of the table printed, for every process
count, with numbers in a sane range and consistent with each other within the rounding of the printed
figures; and the parts a short run cannot exercise (the CPU split of a large machine, a /metrics text
with labels) against hand-made input.
"""

from __future__ import annotations

import re

from bench import api, scaling
from bench.crowd import LIVE_COUNTERS, parse_counters

NUMBER = r"-?[\d,]+(?:\.\d+)?"


def number(cell: str) -> float:
    assert re.fullmatch(NUMBER, cell), cell
    return float(cell.replace(",", ""))


def table(out: str, counts: list[int]) -> dict[str, list[str]]:
    """The printed table, row label -> a cell per process count (the header checked on the way)."""
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    heads = [f"{c} proc" if c == 1 else f"{c} procs" for c in counts]
    assert lines[0] == "| figure | " + " | ".join(heads) + " |"
    rows = {}
    for line in lines[1:]:
        label, *cells = (cell.strip() for cell in line.strip("|").split("|"))
        assert len(cells) == len(counts), line
        rows[label] = cells
    return rows


def ratio_bounds(top: float, bottom: float, half: float) -> tuple[float, float]:
    """The range of ``top / bottom`` for figures printed rounded to ``half`` either way."""
    return (top - half) / (bottom + half), (top + half) / max(1e-9, bottom - half)


def check_crowd_free(rows: dict[str, list[str]], column: int) -> None:
    healthz_rps = number(rows["healthz requests/s"][column])
    moves = number(rows["crowd-free moves/s"][column])
    move_ms = number(rows["server CPU ms per move (API processes + Redis)"][column])
    redis_ms = number(rows["of which Redis"][column])
    healthz_ms = number(rows["healthz CPU ms per request (API processes + Redis)"][column])
    times = number(rows["move CPU / healthz CPU"][column])
    assert moves > 0 and healthz_rps > 0
    assert 0 < healthz_ms < move_ms < 50
    assert 0 < redis_ms < move_ms  # Redis is part of the server's share, and only part
    low, high = ratio_bounds(move_ms, healthz_ms, 0.005)
    assert low - 0.05 <= times <= high + 0.05


def test_the_api_bench_scales_over_process_counts_in_one_table(capsys):
    argv = ["--scale", "1,2", "--clients", "4", "--client-procs", "2", "--seconds", "1.5"]
    assert api.main(argv) == 0
    out = capsys.readouterr().out
    plan = scaling.plan_cpus(2)
    assert plan.line in out.splitlines()
    assert (plan.warning in out.splitlines()) if plan.warning else "warning:" not in out
    rows = table(out, [1, 2])
    assert set(rows) == {
        "healthz requests/s",
        "crowd-free moves/s",
        "move p99 ms",
        "server CPU ms per move (API processes + Redis)",
        "of which Redis",
        "healthz CPU ms per request (API processes + Redis)",
        "move CPU / healthz CPU",
    }
    for column in (0, 1):
        check_crowd_free(rows, column)
        assert 0 < number(rows["move p99 ms"][column]) < 10_000


def test_the_crowd_bench_scales_and_prints_the_per_event_figures(capsys):
    argv = ["--crowd", "100", "--scale", "1,2", "--clients", "2", "--client-procs", "1",
            "--waiter-procs", "1", "--seconds", "2"]  # fmt: skip
    assert api.main(argv) == 0
    out = capsys.readouterr().out
    assert "n/a: not in this server's /metrics" not in out  # the live readers' counters are all there
    floor = re.search(r"a bare loopback send of 300 bytes .* costs ([\d.]+) µs of CPU here", out)
    assert floor and 0.1 < float(floor.group(1)) < 1000, out
    rows = table(out, [1, 2])
    for column, processes in ((0, 1), (1, 2)):
        check_crowd_free(rows, column)
        free = number(rows["crowd-free moves/s"][column])
        with_crowd, share = re.fullmatch(
            rf"({NUMBER}) \(({NUMBER})%\)", rows["moves/s with the crowd (% of crowd-free)"][column]
        ).groups()
        low, high = ratio_bounds(number(with_crowd), free, 0.5)
        assert number(with_crowd) > 0 and 100 * low - 0.5 <= number(share) <= 100 * high + 0.5
        crowd_ms = number(rows["server CPU ms per move with the crowd (API processes + Redis)"][column])
        free_ms = number(rows["server CPU ms per move (API processes + Redis)"][column])
        assert 0 < number(rows["of which Redis, with the crowd"][column]) < crowd_ms < 1000
        gathered, refused = re.fullmatch(
            rf"({NUMBER}) \(({NUMBER})\)",
            rows["waiters gathered (refusals and failures over the run)"][column],
        ).groups()
        assert 0 < number(gathered) <= 100 and number(refused) >= 0
        events_row = "events received by the waiters (committed on followed matches, both crowd windows)"
        received, committed = re.fullmatch(rf"({NUMBER}) \(({NUMBER})\)", rows[events_row][column]).groups()
        assert number(received) > 0 and number(committed) > 0
        by_poll, polls = re.fullmatch(
            rf"({NUMBER}) \(({NUMBER})\)", rows["of which by long-poll (long-polls sent)"][column]
        ).groups()
        assert 0 <= number(by_poll) <= number(received) and number(polls) > 0  # a quarter long-poll
        # The crowd phase's server CPU less the crowd-free CPU per move for its moves (no paced moves
        # here), over the events received: recomputed from the printed figures, within their rounding.
        per_event = number(rows["server CPU µs per delivered event"][column])
        moves = number(with_crowd) * 2  # the phase's seconds
        spare = 0.01 * (moves + 1) + 1 * (crowd_ms + free_ms)  # ms: the rounding of each factor
        expected = (crowd_ms - free_ms) * moves / number(received) * 1000
        assert abs(per_event - expected) <= spare / number(received) * 1000 + 0.05
        assert abs(per_event) < 100_000
        # Measured over windows of paced moves only: none here (no --paced).
        assert rows["server CPU µs per delivered event, paced moves only (events)"][column] == "n/a"
        assert rows["the same, in bare loopback sends"][column] == "n/a"
        reads = re.fullmatch(
            rf"({NUMBER}) \(({NUMBER}) \+ ({NUMBER})\)",
            rows["Redis reads per committed event per process (topic + backlog)"][column],
        )
        assert reads, rows["Redis reads per committed event per process (topic + backlog)"][column]
        total, topic, backlog = (number(x) for x in reads.groups())
        # At most one read per topic per notification round, in each process that has its waiters (none
        # when the notification itself carries the events).
        assert abs(total - topic - backlog) <= 0.011 and 0 <= topic <= 1.0 + 0.2 * processes and backlog >= 0
        assert number(rows["events read per committed event per process"][column]) >= 0
        assert number(rows["encodings per committed event per process"][column]) > 0
        # The readers count what they hand out, not what a new stream's backlog carries: with matches
        # played at machine speed and followers moving to each new match, much arrives that way, so
        # the share varies widely (0.7 to 0.96 alone, 0.12 beside the rest of the suite; about 1.00
        # with paced matches, docs/benchmarks.md).
        counted = rows["deliveries counted by the server per event received (both crowd windows)"][column]
        assert 0 < number(counted) < 5
        # The spectators' long-polls that read no match (the first after each commit in a process
        # reads it), over every long-poll sent in the crowd's windows.
        spared = re.fullmatch(
            rf"({NUMBER})% \(({NUMBER}) of ({NUMBER})\)",
            rows["long-polls answered without reading the match (both crowd windows)"][column],
        )
        assert spared, rows["long-polls answered without reading the match (both crowd windows)"][column]
        share, some, polled = (number(x) for x in spared.groups())
        # (A poll sent before a window and answered in it counts on one side only: 25 long-poll here.)
        assert 0 <= some <= polled + 25 and abs(share - 100 * some / polled) <= 0.5


def test_the_live_counters_are_read_from_a_prometheus_text_summed_over_label_sets():
    text = "\n".join(
        [
            "# HELP tabletop_live_topic_reads_total Topics the live readers read on a notification",
            "# TYPE tabletop_live_topic_reads_total counter",
            "tabletop_live_topic_reads_total 12.0",
            "tabletop_live_topic_reads_created 1.7e+09",
            'tabletop_live_encodings_total{format="ndjson",seat="spectator"} 3.0',
            'tabletop_live_encodings_total{format="sse",seat="a } b \\" {c"} 4.0 1700000000000',
            "tabletop_live_events_read_total 1e3",
            "tabletop_live_deliveries 99.0",
            "tabletop_waiting_clients 5.0",
        ]
    )
    assert parse_counters(text) == {
        "tabletop_live_topic_reads_total": 12.0,
        "tabletop_live_encodings_total": 7.0,
        "tabletop_live_events_read_total": 1000.0,
    }
    assert set(LIVE_COUNTERS) >= set(parse_counters(text))


def test_server_and_load_generator_get_cpus_of_their_own_only_where_the_machine_has_them():
    big = scaling.plan_cpus(8, list(range(16)))
    assert (big.server, big.clients, big.warning) == (set(range(8)), set(range(8, 16)), None)
    assert big.line == "cpus: server (API processes and Redis) on 0-7, load generator on 8-15"
    small = scaling.plan_cpus(2, list(range(8)))  # half the machine for the server all the same
    assert (small.server, small.clients) == (set(range(4)), set(range(4, 8)))
    two = scaling.plan_cpus(2, [0, 1])
    assert (two.server, two.clients) == (None, None) and two.line.endswith("share 0-1")
    assert two.warning and "share" in two.warning and "among themselves" not in two.warning
    crowded = scaling.plan_cpus(8, [0, 1])
    assert crowded.warning and "8 server processes on 2 CPUs" in crowded.warning
    assert scaling.cpu_list([5, 0, 2, 1, 7, 8]) == "0-2,5,7-8"
    assert scaling.parse_counts("1,2,4,8") == [1, 2, 4, 8]


def test_the_paced_figure_is_also_given_in_bare_sends_measured_in_the_same_run():
    """``crowd_column`` on hand-made figures: the paced-only CPU per delivered event (the crowd window's
    server CPU per second less the crowd-free window's, over the events received then), and that as
    a multiple of the send floor."""
    cpu = {"server": 1.0, "redis": 0.1}
    phase = {"moves": 100, "cpu": cpu, "delivered": 50, "poll_events": 0, "polls": 0}
    held_free = {"cpu": 1.0, "events": 0, "seconds": 10.0}
    held_crowd = {"cpu": 1.5, "events": 1000, "seconds": 10.0}  # 0.5 s more for 1,000 events: 500 µs each
    fig = {
        "free": phase, "crowd": phase, "workers": 1, "healthz_cpu": {"server": 0.1, "redis": 0.0},
        "n_healthz": 100, "healthz_rps": 100.0, "paced_moves": (0, 0), "held": (held_free, held_crowd),
        "live": {}, "committed_followed": 0, "delays": [], "statuses": {}, "gathered": (10, 1.0),
    }  # fmt: skip
    column = scaling.crowd_column(fig, 10.0, floor_us=20.0)
    assert column["server CPU µs per delivered event, paced moves only (events)"] == "500.0 (1,000)"
    assert column["the same, in bare loopback sends"] == "25.0"
    assert scaling.crowd_column(fig, 10.0)["the same, in bare loopback sends"] == "n/a"
