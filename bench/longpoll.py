"""What one long-poll answer costs the server, for spectators and for seats (issue 30).

    python -m bench.longpoll --matches 20 --pollers 10 --pace 0.5 --seconds 8 --rounds 2

One ``tabletop serve`` process and a private Redis.  A client moves each of ``--matches`` matches once
every ``--pace`` seconds, and ``--pollers`` clients per match long-poll its events (``wait=30``, polling
again at once with the last id, each on its own keep-alive connection).  A round measures three windows
of ``--seconds``, each on new matches: the moves alone, the moves with spectators polling (no
credential), and the moves with seat holders polling (seat 0's token).  The server's CPU in a window
with pollers, less the moves' own (the first window's CPU per move), over the answers they got, is the
CPU of one answer.  A spectator's poll that comes after the first of a commit is answered with the
match's meta as the process last read it (``service.live.cache.MetaCache.match_meta``); a seat's reads the
match every time, so the seats are the baseline in the same run.  Also the share of the spectators'
polls that read no match (``tabletop_live_metas_spared_total``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import threading
import time
import urllib.request
from typing import Any

import orjson

from bench.api import Client, free_port, start_server
from bench.crowd import parse_counters
from bench.procs import cpu_seconds, descendants
from devtools.private_redis import PrivateRedis
from engine.registry import get_game

GAME = "year_of_dragon"
SPARED = "tabletop_live_metas_spared_total"


class Table:
    """A match as its mover plays it: every seat's token and a local replay for the legal actions."""

    def __init__(self, client: Client, seed: int) -> None:
        status, match = client.call(
            "POST",
            "/v1/matches",
            {"game": GAME, "seats": [{"name": f"p{i}"} for i in range(3)], "seed": seed},
        )
        assert status == 201, match
        self.id: str = match["id"]
        self.tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        self.seat, self.version = match["to_move"], match["version"]
        self.shadow = get_game(GAME).setup(3, match["options"], seed=seed)


def move_until(port: int, tables: list[Table], pace: float, stop: threading.Event, moves: list[int]) -> None:
    """Move each match once per ``pace`` seconds until ``stop``; count the moves."""
    game, client, rng = get_game(GAME), Client(port, reconnect=0), random.Random(1)
    while not stop.is_set():
        began = time.monotonic()
        for t in tables:
            if t.seat is None:
                continue
            action = rng.choice(game.legal_actions(t.shadow))
            headers = {"Authorization": f"Bearer {t.tokens[t.seat]}", "If-Match": f'"{t.version}"'}
            status, moved = client.call("POST", f"/v1/matches/{t.id}/actions", {"action": action}, headers)
            assert status == 200, moved
            game.apply(t.shadow, action)
            t.seat, t.version = moved["to_move"], moved["version"]
            moves[0] += 1
        stop.wait(max(0.0, pace - (time.monotonic() - began)))


async def long_poll(
    port: int, match_id: str, token: str | None, answers: list[int], stop: threading.Event
) -> None:
    """Poll the match's events again at once after each answer; count the answers that waited."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    after = None
    while not stop.is_set():
        query = f"after={after}&wait=30" if after else "wait=0"
        writer.write(f"GET /v1/matches/{match_id}/events?{query} HTTP/1.1\r\nHost: b\r\n{auth}\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = next(
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        page = orjson.loads(await reader.readexactly(length))
        assert status == 200, page
        if after is not None:
            answers[0] += 1
        after = page["last_id"]
    writer.close()


def poll_until(
    port: int,
    polls: list[tuple[str, str | None]],
    answers: list[int],
    stop: threading.Event,
    ready: threading.Event,
) -> None:
    async def main() -> None:
        tasks = [asyncio.create_task(long_poll(port, m, token, answers, stop)) for m, token in polls]
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()

    asyncio.run(main())


def spared(port: int) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30).read().decode()
    return parse_counters(text, (SPARED,)).get(SPARED, 0.0)


def window(port: int, server: Any, args: Any, seed: int, who: str | None) -> dict[str, float]:
    """One window on new matches: the server's CPU, the moves, the answers (``who``: None for no
    pollers, ``"spectator"`` or ``"seat"``) and the spectators' polls that read no match."""
    client = Client(port, reconnect=0)
    tables = [Table(client, seed + i) for i in range(args.matches)]
    stop, ready, moves, answers = threading.Event(), threading.Event(), [0], [0]
    pollers = None
    if who is not None:
        polls = [(t.id, t.tokens[0] if who == "seat" else None) for t in tables for _ in range(args.pollers)]
        pollers = threading.Thread(target=poll_until, args=(port, polls, answers, stop, ready))
        pollers.start()
        assert ready.wait(30)
        time.sleep(1.0)  # every poller waiting
    mover = threading.Thread(target=move_until, args=(port, tables, args.pace, stop, moves))
    mover.start()
    time.sleep(args.pace * 2)
    pids = descendants(server.pid)
    cpu0, moves0, answers0, spared0 = cpu_seconds(pids), moves[0], answers[0], spared(port)
    time.sleep(args.seconds)
    cpu, n_moves, n_answers = cpu_seconds(pids) - cpu0, moves[0] - moves0, answers[0] - answers0
    n_spared = spared(port) - spared0
    stop.set()
    mover.join(30)
    if pollers is not None:
        pollers.join(30)
    return {"cpu": cpu, "moves": n_moves, "answers": n_answers, "spared": n_spared}


def measure(args: Any) -> dict[str, list[float]]:
    """Per round: CPU µs per answer for spectators and for seats, and the spectators' spared share."""
    found: dict[str, list[float]] = {"spectator": [], "seat": [], "spared": []}
    with PrivateRedis() as url:
        port = free_port()
        server = start_server(url, port, 1)
        try:
            for r in range(args.rounds):
                alone = window(port, server, args, 1000 * (3 * r), None)
                per_move = alone["cpu"] / max(1, alone["moves"])
                for k, who in enumerate(("spectator", "seat")):
                    got = window(port, server, args, 1000 * (3 * r + k + 1), who)
                    assert got["answers"] > 0, got
                    found[who].append((got["cpu"] - per_move * got["moves"]) / got["answers"] * 1e6)
                    if who == "spectator":
                        found["spared"].append(got["spared"] / got["answers"])
        finally:
            server.terminate()
            server.wait(30)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--pollers", type=int, default=10, help="long-polling clients per match")
    parser.add_argument("--pace", type=float, default=0.5, help="seconds between two moves of a match")
    parser.add_argument("--seconds", type=float, default=8.0, help="length of each window")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    found = measure(args)
    for who in ("spectator", "seat"):
        runs = ", ".join(f"{v:.0f}" for v in found[who])
        print(f"{who:9s} CPU µs per long-poll answer: mean {statistics.mean(found[who]):.0f} ({runs})")
    print(f"spectator polls that read no match: {100 * statistics.mean(found['spared']):.0f}%")
    print(
        f"ratio spectator / seat: {statistics.mean(found['spectator']) / statistics.mean(found['seat']):.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
