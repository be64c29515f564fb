"""``tabletop match``: all-bot matches played through the HTTP API, and their results table.

    tabletop match --game china --seats hard,normal,easy --games 20 --url http://127.0.0.1:8000

The API's workers play every seat; this side only creates the matches and watches them through the
spectator's NDJSON event stream.  Seats rotate with the match number, so each entry of ``--seats`` plays
from every seat equally often.  A move's time is the wall time between the previous move's event and
this one as the spectator stream delivers them: thinking plus queueing, what a human opponent waits.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

from tabletop_client import Client

#: Width of the progress bar, in characters.
BAR = 30


@dataclass
class Entry:
    """One entry of the lineup (a level) across all matches."""

    level: str
    wins: int = 0
    scores: list[float] = field(default_factory=list)
    move_seconds: list[float] = field(default_factory=list)


def watch(client: Client, match_id: str, timeout: float) -> tuple[dict[str, Any], dict[int, list[float]]]:
    """Follow a match to its end; its result and, per seat, the seconds each of its moves took."""
    times: dict[int, list[float]] = {}
    after = "0-1"  # past the creation event
    last = time.monotonic()
    deadline = last + timeout
    while time.monotonic() < deadline:
        for item in client.stream(match_id, after=after):  # reconnects if the server closes the stream
            if item["type"] == "snapshot":
                continue
            after = item["id"]
            if item["type"] == "action":
                now = time.monotonic()
                times.setdefault(item["seat"], []).append(now - last)
                last = now
            elif item["type"] == "match_over":
                return item["result"], times
    raise TimeoutError(f"match {match_id} did not finish within {timeout:.0f} s")


def play(
    client: Client,
    game: str,
    levels: list[str],
    games: int,
    think_ms: int | None = None,
    timeout: float = 3600.0,
    out: TextIO = sys.stderr,
) -> list[Entry]:
    """Play ``games`` all-bot matches of ``game``; the lineup's standings, in lineup order."""
    entries = [Entry(level) for level in levels]
    for number in range(games):
        order = [(number + s) % len(levels) for s in range(len(levels))]  # seat -> lineup entry
        seats: list[dict[str, Any]] = [
            {"name": f"{levels[i]}-{i}", "kind": "bot", "level": levels[i]} for i in order
        ]
        if think_ms is not None:
            for bot in seats:
                bot["think_ms"] = think_ms
        created = client.create_match(game, seats)
        result, times = watch(client, created["id"], timeout)
        for seat, i in enumerate(order):
            entries[i].scores.append(result["scores"][seat])
            entries[i].move_seconds.extend(times.get(seat, []))
        entries[order[result["ranking"][0]]].wins += 1
        done = BAR * (number + 1) // games
        print(
            f"\r[{'#' * done}{'.' * (BAR - done)}] {number + 1}/{games} matches", end="", file=out, flush=True
        )
    print(file=out)
    return entries


def table(entries: list[Entry]) -> str:
    """The results table: wins, win rate, mean score and mean move time of each lineup entry."""
    games = len(entries[0].scores) if entries else 0
    lines = [f"{'#':<6}{'level':<8}{'wins':>6}{'win %':>8}{'mean score':>12}{'mean move ms':>14}{'moves':>7}"]
    for i, e in enumerate(entries):
        score = sum(e.scores) / len(e.scores) if e.scores else 0.0
        move = 1000 * sum(e.move_seconds) / len(e.move_seconds) if e.move_seconds else 0.0
        rate = 100 * e.wins / games if games else 0.0
        lines.append(
            f"{i:<6}{e.level:<8}{e.wins:>6}{rate:>7.1f}%{score:>12.1f}{move:>14.0f}{len(e.move_seconds):>7}"
        )
    return "\n".join(lines)
