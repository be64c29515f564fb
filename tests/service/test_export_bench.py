"""``bench/export.py`` runs (issue 45 point 2): a tiny export, its figures whole, read once with the
records built at the read and once as kept.  Its speed is the benchmark's to measure
(``python -m bench.export``), never asserted here."""

from __future__ import annotations

from bench import export


def test_the_export_benchmark_runs_and_reports_its_figures():
    figures = export.main(["--matches", "40", "--templates", "1", "--baseline", "5"])
    assert figures["records"] == 40
    assert figures["records_per_s"] > 0 and figures["baseline_records_per_s"] > 0
    assert figures["bytes_per_record"] > 100
    # The served match kept its record as it finished; the first export built the copies' and kept them.
    assert figures["templates_kept_at_finish"] == "1/1"
    assert figures["built_records_per_s"] > 0
