"""Streams written by the live reader itself (issue 30): against ``tabletop serve`` as production runs
it (gunicorn, gevent workers) over a real Redis, every NDJSON and SSE stream carries exactly what its
seat may see, in order, framed so that the connection stays usable after the stream ended; and the work
per committed event does not grow with the waiters.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.processes import ApiServer, RedisServer, bearer, call, create_match

CHINA = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    with RedisServer(tmp_path / "redis") as server:
        yield server


def read_stream(port: int, match_id: str, accept: str, token: str | None, out: dict[str, Any]) -> None:
    """Read a whole stream with http.client (which checks the chunked framing), then send a second
    request on the same connection: it answers only if the stream's last chunk was framed right."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Accept": accept, **(bearer(token) if token else {})}
    conn.request("GET", f"/v1/matches/{match_id}/events", headers=headers)
    resp = conn.getresponse()
    out["status"] = resp.status
    out["body"] = resp.read()  # to the end of the stream (match_over)
    conn.request("GET", "/healthz")
    again = conn.getresponse()
    out["after"] = again.status
    again.read()
    conn.close()


def stream_events(body: bytes, accept: str) -> list[dict[str, Any]]:
    if accept == "application/x-ndjson":
        docs = [json.loads(line) for line in body.splitlines() if line]
    else:
        docs = [
            json.loads(line[len(b"data: ") :]) for line in body.splitlines() if line.startswith(b"data: ")
        ]
    return [d for d in docs if d.get("type") not in ("snapshot", "heartbeat")]


def logged_events(api: ApiServer, match_id: str, token: str | None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = "0-0"
    while True:
        status, page = call(
            api.client(),
            "GET",
            f"/v1/matches/{match_id}/events?after={after}",
            **(bearer(token) if token else {}),
        )
        assert status == 200, page
        events += page["events"]
        if page["last_id"] == after:
            return events
        after = page["last_id"]


def test_every_seat_s_stream_carries_exactly_its_events_and_ends_framed(redis_server, tmp_path):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=2) as api:
        match = create_match(api.client(), "china", CHINA, seed=5)
        tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        readers: list[tuple[str, int | None, dict[str, Any], threading.Thread]] = []
        for accept in ("application/x-ndjson", "text/event-stream"):
            for seat in (None, 0, 1, 2):
                for _ in range(3):  # several per seat: they share one encoding in a process
                    out: dict[str, Any] = {}
                    token = tokens[seat] if seat is not None else None
                    args = (api.port, match["id"], accept, token, out)
                    thread = threading.Thread(target=read_stream, args=args, daemon=True)
                    thread.start()
                    readers.append((accept, seat, out, thread))
        time.sleep(1.0)  # the streams are open (a late one catches up from its backlog anyway)
        rng = random.Random(3)
        client = api.client()
        version, seat = match["version"], match["to_move"]
        while seat is not None:
            auth = bearer(tokens[seat])
            status, legal = call(client, "GET", f"/v1/matches/{match['id']}/legal-actions", **auth)
            assert status == 200, legal
            status, moved = call(
                client, "POST", f"/v1/matches/{match['id']}/actions",
                {"action": rng.choice(legal["actions"])}, **auth, **{"If-Match": f'"{version}"'},
            )  # fmt: skip
            assert status == 200, moved
            version, seat = moved["version"], moved["to_move"]
        expected = {
            s: logged_events(api, match["id"], tokens[s] if s is not None else None) for s in (None, 0, 1, 2)
        }
        assert expected[0] != expected[1]  # China's hands: each seat sees events the others do not
        for accept, seat, out, thread in readers:
            thread.join(30)
            assert not thread.is_alive(), f"the {accept} stream of seat {seat} did not end"
            assert out["status"] == 200 and out["after"] == 200, out.get("status")
            assert stream_events(out["body"], accept) == expected[seat], (accept, seat)


def move(api: ApiServer, match_id: str, token: str, version: int, rng: random.Random) -> dict[str, Any]:
    """One random legal move of the seat ``token`` holds, at ``version``; the answer."""
    auth = bearer(token)
    _, legal = call(api.client(), "GET", f"/v1/matches/{match_id}/legal-actions", **auth)
    status, moved = call(
        api.client(), "POST", f"/v1/matches/{match_id}/actions",
        {"action": rng.choice(legal["actions"])}, **auth, **{"If-Match": f'"{version}"'},
    )  # fmt: skip
    assert status == 200, moved
    return moved


def live_work(api: ApiServer) -> dict[str, float]:
    conn = api.client().conn
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    return {
        line.split()[0].removeprefix("tabletop_live_").removesuffix("_total"): float(line.split()[1])
        for line in text.splitlines()
        if line.startswith("tabletop_live_") and "_total " in line
    }


def test_the_work_per_commit_grows_with_the_seats_watched_not_the_waiters(redis_server, tmp_path):
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=1) as api:
        match = create_match(api.client(), "year_of_dragon", [{"name": "a"}, {"name": "b"}], seed=8)
        tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        state = {"version": match["version"], "seat": match["to_move"]}
        rng = random.Random(1)

        def play(moves: int) -> None:
            for _ in range(moves):
                moved = move(api, match["id"], tokens[state["seat"]], state["version"], rng)
                state["version"], state["seat"] = moved["version"], moved["to_move"]
                time.sleep(0.15)  # a batch each: the same work whatever the waiters

        def phase(waiters: int) -> dict[str, float]:
            import socket

            socks = []
            for _ in range(waiters):
                sock = socket.create_connection(("127.0.0.1", api.port))
                sock.sendall(
                    f"GET /v1/matches/{match['id']}/events HTTP/1.1\r\nHost: t\r\n"
                    "Accept: application/x-ndjson\r\n\r\n".encode()
                )
                socks.append(sock)
            deadline = time.monotonic() + 20
            while live_work(api).get("deliveries", 0) < 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(1.0)  # every stream has read its backlog and waits
            before = live_work(api)
            play(8)
            time.sleep(0.5)
            after = live_work(api)
            for sock in socks:
                sock.close()
            return {k: after[k] - before.get(k, 0.0) for k in after}

        few, many = phase(5), phase(50)
        # A commit's events come with its notification: no read of the match in either phase.
        assert few["topic_reads"] == many["topic_reads"] == 0, (few, many)
        assert few["events_read"] == many["events_read"] == 0
        # One encoding per batch for the one seat watched (spectators), whatever the waiters.
        assert 1 <= many["encodings"] <= 8 and few["encodings"] <= 8, (few, many)
        # What grows is the deliveries: each waiter got the events.
        assert many["deliveries"] >= 9 * few["deliveries"] > 0, (few, many)


def timed_lines(sock: Any, out: list[tuple[float, bytes]], stop: threading.Event) -> None:
    """Every line of a raw HTTP response (head, chunk sizes, data) with the time it arrived."""
    sock.settimeout(0.2)
    pending = b""
    while not stop.is_set():
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            return
        if not data:
            return
        at = time.monotonic()
        *lines, pending = (pending + data).split(b"\n")
        out.extend((at, line) for line in lines)


def beats(lines: list[tuple[float, bytes]], start: float, end: float) -> list[float]:
    """When the heartbeats of an NDJSON or SSE stream arrived within [start, end)."""
    marks = (b'{"type":"heartbeat"}', b": heartbeat")
    return [at for at, line in lines if start <= at < end and line.startswith(marks)]


def test_one_sweep_sends_the_heartbeats_of_every_direct_stream_and_none_while_events_flow(
    redis_server, tmp_path
):
    """Direct streams get their heartbeats from one sweep per process (no timer per stream): at least
    every ``heartbeat_seconds`` while the match is quiet, also while Redis is away (the reader
    cannot feed them then; a proxy would cut a silent stream), and none while events come more often
    than that (the events keep the connection busy)."""
    import socket

    beat = 2.0
    with ApiServer(redis_server.url, tmp_path / "api.log", workers=1, heartbeat_seconds=beat) as api:
        match = create_match(api.client(), "year_of_dragon", [{"name": "a"}, {"name": "b"}], seed=4)
        tokens = {t["seat"]: t["token"] for t in match["tokens"]}
        stop = threading.Event()
        streams: list[tuple[str, list[tuple[float, bytes]]]] = []
        threads = []
        for accept in ("application/x-ndjson", "text/event-stream") * 3:
            sock = socket.create_connection(("127.0.0.1", api.port))
            path = f"/v1/matches/{match['id']}/events"
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nAccept: {accept}\r\n\r\n".encode())
            lines: list[tuple[float, bytes]] = []
            streams.append((accept, lines))
            threads.append(threading.Thread(target=timed_lines, args=(sock, lines, stop), daemon=True))
            threads[-1].start()
        opened = time.monotonic()
        time.sleep(3 * beat + 0.5)  # quiet: only heartbeats
        quiet_end = time.monotonic()
        redis_server.stop()  # away: the reader retries, the heartbeats go on
        time.sleep(3 * beat + 0.5)
        away_end = time.monotonic()
        redis_server.start()
        deadline = time.monotonic() + 30
        while call(api.client(), "GET", f"/v1/matches/{match['id']}")[0] != 200:
            assert time.monotonic() < deadline, "the API did not come back with Redis"
            time.sleep(0.2)
        time.sleep(1.0)  # the reader has resubscribed
        version, seat = match["version"], match["to_move"]
        rng = random.Random(5)
        moving_start = time.monotonic()
        moves = 0
        while time.monotonic() < moving_start + 2 * beat + 1 and seat is not None:
            moved = move(api, match["id"], tokens[seat], version, rng)
            version, seat, moves = moved["version"], moved["to_move"], moves + 1
            time.sleep(0.2)
        moving_end = time.monotonic()
        time.sleep(0.5)
        stop.set()
        for thread in threads:
            thread.join(5)
        assert moves >= 10
        for accept, lines in streams:
            quiet = beats(lines, opened, quiet_end)
            # Due at most ``beat`` after the last write, the first one counted from the stream's head.
            assert len(quiet) >= 3, (accept, quiet)
            gaps = [b - a for a, b in zip([opened, *quiet], quiet, strict=False)]
            assert max(gaps) < beat + 1.5, (accept, gaps)  # a sweep a half second, and slack
            away = beats(lines, quiet_end, away_end)
            assert len(away) >= 2, (accept, "heartbeats while Redis was away", away)
            events = [at for at, line in lines if line.startswith((b'{"id":"', b"id: "))]
            flowing = [at for at in events if at >= moving_start]
            assert len(flowing) >= 10, (accept, len(flowing))
            # While events flow, a heartbeat only after a silence of ``beat - sweep`` (0.5 s here; a
            # move may stall on a loaded machine): never right after an event.
            written = sorted([*events, *beats(lines, opened, moving_end + 1)])
            for at in beats(lines, flowing[0] + 0.01, moving_end):
                silence = at - max(w for w in written if w < at)
                assert silence > beat - 0.5 - 0.3, (accept, "a heartbeat", silence, "s after a write")
