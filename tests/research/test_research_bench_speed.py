"""Smoke test of ``python -m bench.research`` (issue 46): its loops run and it prints every target.
The speeds themselves are measured by running the benchmark, never asserted here."""

from __future__ import annotations

from bench.research import LOOPS, TARGETS, measure, report


def test_the_benchmark_measures_every_loop_and_prints_every_target():
    rates = measure("china", players=3, seconds=0.25, rounds=1)
    assert set(rates) == {*LOOPS, "liars_poker_steps", "adapter ceiling"}
    assert rates["liars_poker_steps"] > rates["liars_poker"]  # its deals are steps too
    # no adapter outruns the engine it wraps, nor a game that does nothing the loop that steps it
    assert rates["adapter ceiling"] < rates["engine"] and rates["null_game"] < rates["bare_loop"]
    assert all(rate > 0 for rate in rates.values())
    lines = report("china", rates)
    for label, *_ in TARGETS:
        assert any(label in line for line in lines)
