"""A server told to stop (SIGTERM, as a rolling deploy does) answers what it is answering and stops at
once: its waiting clients are sent away with their answer and its idle keep-alive connections are
closed, where an idle connection held the process for the whole keep-alive time (10 s) before."""

from __future__ import annotations

import http.client
import json
import time
from pathlib import Path

from tests.reliability.processes import ApiServer

#: What "at once" allows on a loaded 2-core machine: far below the 10-s keep-alive time it replaces.
STOP_WITHIN = 6.0


def test_sigterm_answers_a_long_poll_closes_an_idle_connection_and_stops_at_once(
    redis_url: str, tmp_path: Path
) -> None:
    server = ApiServer(redis_url, tmp_path / "serve.log", workers=1).start()
    try:
        port = server.port
        idle = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        body = json.dumps({"game": "china", "seats": [{"name": "a"}, {"name": "b"}, {"name": "c"}]})
        idle.request("POST", "/v1/matches", body, {"Content-Type": "application/json"})
        created = idle.getresponse()
        match = json.loads(created.read())
        assert created.status == 201 and not created.will_close  # the connection stays open, idle
        idle.request("GET", f"/v1/matches/{match['id']}/events")
        seen = json.loads(idle.getresponse().read())["last_id"]
        polling = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        polling.request("GET", f"/v1/matches/{match['id']}/events?after={seen}&wait=25")
        time.sleep(0.5)  # the long-poll is waiting in the server
        assert server.proc is not None
        started = time.monotonic()
        server.proc.terminate()
        answer = polling.getresponse()  # sent away with an answer, not cut off
        assert answer.status == 200 and json.loads(answer.read())["events"] == []
        server.proc.wait(timeout=30)
        stopped = time.monotonic() - started
        assert stopped < STOP_WITHIN, f"stopped {stopped:.1f} s after SIGTERM"
        assert idle.sock is not None and idle.sock.recv(1) == b""  # closed by the server, not reset
        errors = [line for line in server.log_path.read_text().splitlines() if '"level": "ERROR"' in line]
        assert errors == []  # closed quietly, as its keep-alive timer would have
    finally:
        server.stop()
