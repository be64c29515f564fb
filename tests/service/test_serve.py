"""`tabletop serve` as the README's quick start runs it: no TABLETOP_REDIS_URL, so it starts a private
Redis."""

import email.utils
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from engine.registry import GAMES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_serve_without_redis_url_runs_on_a_private_redis(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    root = Path(__file__).resolve().parents[2]
    env["PYTHONPATH"] = str(root)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/readyz", timeout=2) as resp:
                    assert json.load(resp) == {"status": "ready"}
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
        game = GAMES[sorted(GAMES)[0]]
        seats = [{"name": f"p{i}"} for i in range(game.min_players)]
        body = json.dumps({"game": game.id, "seats": seats}).encode()
        req = urllib.request.Request(
            f"{base}/v1/matches", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=5) as resp:
            created = json.load(resp)
        assert resp.status == 201 and len(created["tokens"]) == game.min_players
        with urllib.request.urlopen(f"{base}/v1/matches/{created['id']}", timeout=5) as resp:
            assert json.load(resp)["version"] == 0
        # The Date header (formatted once a second, service/serving.py) is the time of the answer.
        served = email.utils.parsedate_to_datetime(resp.headers["Date"]).timestamp()
        assert abs(served - time.time()) < 5, resp.headers["Date"]
        assert (tmp_path / "var" / "redis").is_dir()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
