"""bench/feeds.py end to end at a tiny scale: it must keep running, and what it prints must add up."""

from __future__ import annotations

import re

from bench import feeds


def test_the_feeds_bench_compares_a_feed_per_player_with_three_match_streams(capsys):
    # Confucius, not the bench's default Year of the Dragon: a feed hears of a move only when the turn
    # passes, and Year of the Dragon's first 8 decisions pass it only every third one.  The paced matches
    # move in step, so on a slow machine a short hold could see only decisions that keep the turn, in
    # every match at once: twice in CI, the feed condition got no delivery in the hold.  Confucius
    # passes the turn at 55-89% of its first 30 decisions (random play, 3 players): 60-62 feed
    # deliveries against 219-225 match-stream ones in a 3-s hold, and some 420 paced moves in all.
    argv = ["--game", "confucius", "--players", "30", "--pace", "1", "--seconds", "3", "--play-seconds",
            "1.5", "--clients", "2", "--client-procs", "1", "--waiter-procs", "1", "--pace-procs", "1",
            "--warmup", "0.5", "--settle", "0.3"]  # fmt: skip
    assert feeds.main(argv) == 0
    out = capsys.readouterr().out

    def row(label: str) -> list[str]:
        return re.search(rf"^{re.escape(label)}\s+(.*)$", out, re.M).group(1).split()

    # Every player's feed, and a stream for each of the 3 seats of every match, were open.
    assert row("streams held") == ["0/0", "30/30", "90/90"]
    made = int(re.search(r"(\d+) moves made", out).group(1))
    assert made > 30  # each match moved about once a second for the whole run
    # The paced moves, made with the players' tokens, all went through (but those the end cut short).
    assert re.search(r"^paced .* statuses {'200': \d+(, 'cut short by the end': \d+)?}$", out, re.M)
    deliveries = [int(x) for x in row("deliveries in hold")[1:]]
    # A move tells its 3 streams, and the feed only of a turn that passes: fewer deliveries, some.
    assert 0 < deliveries[0] < deliveries[1], out
    for label in ("delivery p99 ms from send", "delivery p99 ms from 200"):
        assert all(float(x) < 1000 for x in row(label)[1:])
    send_p50 = [float(x) for x in row("delivery p50 ms from send")[1:]]
    ok_p50 = [float(x) for x in row("delivery p50 ms from 200")[1:]]
    assert all(s > 0 for s in send_p50) and all(o <= s for o, s in zip(ok_p50, send_p50, strict=True))
    rates = [float(re.match(r"\d+", x).group()) for x in row("moves/s flat out") if x[0].isdigit()]
    assert len(rates) == 3 and all(r > 0 for r in rates)
    assert all(int(x) > 0 for x in row("redis connections"))
    # A share, or "n/a (...)" where the match crowd cost nothing measurable (a tiny crowd can).
    share = r"(\d+%|n/a \([^)]*\))"
    costs = (
        rf"feed crowd cost / match crowd cost: memory {share}\s+hold CPU {share}\s+"
        rf"CPU per move {share}\s+moves/s lost"
    )
    assert re.search(costs, out)
