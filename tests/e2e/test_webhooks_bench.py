"""bench/webhooks.py end to end at a tiny scale (``--quick``): it must keep running, and what it prints
must add up: every queued delivery arrived once, every paced move of a healthy app that passed the turn
was delivered in both phases, and the timing-out endpoints really held requests.  The issue's targets
(500 deliveries/s, p99 under 1 s) are the full run's, on a quiet machine (docs/benchmarks.md, "Webhook
benchmark"); here only sanity bounds hold, as the smoke run shares its cores with whatever else runs
(in CI a p99 of 7 s has been seen)."""

from __future__ import annotations

import re

import pytest

from bench import webhooks


def row(out: str, label: str) -> list[str]:
    found = re.search(rf"^{re.escape(label)}\s+(.*)$", out, re.M)
    assert found, f"no {label!r} row in:\n{out}"
    return found.group(1).split()


@pytest.mark.timeout(120)
def test_the_webhooks_bench_drains_a_backlog_and_times_paced_deliveries(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert webhooks.main(["--quick"]) == 0
    out = capsys.readouterr().out

    # (a) drain: every queued delivery arrived, each under its own webhook-id, none twice.
    queued = int(re.search(r"\(a\) drain: (\d+) deliveries queued", out).group(1))  # type: ignore[union-attr]
    received = re.search(r"^deliveries received\s+(\d+)\s+\(unique webhook-ids (\d+)\)", out, re.M)
    assert received and int(received.group(1)) == int(received.group(2)) == queued > 0
    rate, steady, baseline = (float(row(out, label)[0]) for label in (
        "deliveries/s first-last", "deliveries/s middle 80%", "plain client posts/s"))  # fmt: skip
    assert rate > 20 and steady > 20 and baseline > steady / 10
    assert float(row(out, "CPU ms per delivery")[1]) > 0  # the lane's own CPU was read

    # (b) and (c): none lost, latencies measured, the sick endpoints really hung.
    for phase, due_delivered in zip("bc", row(out, "your_turn due / delivered"), strict=True):
        due, delivered = (int(x) for x in due_delivered.split("/"))
        assert due == delivered > 0, f"phase ({phase}) lost webhooks: {due_delivered}"
    # Each delivery's latency from the send is its latency from the 200 plus the request's own time, so
    # every quantile is too.  The medians stay within seconds (the commit's own note reached the lane at
    # once); the tails are the full run's figures, as a shared machine stretches them by seconds.
    for q in ("p50", "p99"):
        ok, send = (
            [float(x) for x in row(out, f"{q} ms {start}")[:2]] for start in ("from 200", "from send")
        )
        assert all(0 < a <= b for a, b in zip(ok, send, strict=True)), (q, ok, send)
        assert q == "p99" or max(send) < 10_000, (q, send)
    moves = [int(x) for x in row(out, "moves (healthy apps)")]
    assert all(m > 20 for m in moves)
    held = re.search(r"^timing-out endpoints: (\d+) requests held \(after (\d+) moves", out, re.M)
    assert held, out
    # Each move of theirs in (c) that handed the turn on owed them a webhook, which they held (a loaded
    # machine may move their matches too rarely in (c) for one: then only (b)'s late ones may hang).
    assert int(held.group(2)) == 0 or int(held.group(1)) > 0, out
    assert re.search(r"^duplicate deliveries \(same webhook-id\) 0; move statuses \{'200': \d+\}$", out, re.M)


@pytest.mark.timeout(180)
def test_the_catch_up_bench_times_a_backlog_after_an_outage(capsys: pytest.CaptureFixture[str]) -> None:
    """Part (d) at a tiny scale (a 4-s outage): every note of the backlog arrived in both cases, the
    first success and the backlog's last note are timed from the receiver's return."""
    assert webhooks.main(["--only", "catch-up", "--quick"]) == 0
    out = capsys.readouterr().out
    rows = re.findall(r"^this\s+(busy|quiet)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", out, re.M)
    assert sorted(case for case, *_ in rows) == ["busy", "quiet"], out
    for _case, backlog, delivered, first, _p50, last, after_first in rows:
        assert int(backlog) == int(delivered) > 5, out
        # Sanity bounds only (the smoke run shares its cores): the catch-up follows the first success.
        assert float(first) < 10 and float(last) < 15 and float(after_first) < 10, out
