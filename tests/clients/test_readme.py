"""The README's client examples (and the marked ones of the guides in docs/) work when copied: each
marked ``sh`` block runs with bash against ``tabletop serve`` in development mode (private Redis, a bot
worker beside the API), as a reader following the README would run it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.api import free_port
from bench.procs import descendants
from tabletop_client import ApiError, Client
from tests.docs.pages import ALL, block

ROOT = Path(__file__).resolve().parents[2]
#: The admin token "Apps and players" (docs/api/apps-and-players.md) starts the development server with.
ADMIN_TOKEN = "dev-admin-secret"


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(PYTHONPATH=str(ROOT), TABLETOP_ADMIN_TOKEN=ADMIN_TOKEN)  # as "Apps and players" starts it
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        cwd=tmp_path_factory.mktemp("serve"), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        client, deadline = Client(f"http://127.0.0.1:{port}"), time.monotonic() + 60
        while True:  # ready once the API answers and its worker has sent a heartbeat
            try:
                client.request("GET", "/readyz")
                break
            except (OSError, ApiError):
                assert proc.poll() is None and time.monotonic() < deadline, "tabletop serve did not come up"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}"
    finally:
        kill_bot_worker(proc)
        proc.terminate()
        proc.wait(timeout=60)


def kill_bot_worker(serve: subprocess.Popen[bytes]) -> None:
    """SIGKILL the bot worker below ``tabletop serve`` with its lanes: its warm stop takes seconds even
    when idle, and nothing here checks it.  ``serve`` itself is left to stop with SIGTERM, so that it
    removes its private Redis."""
    worker = [b"-m", b"service.cli", b"worker"]
    for pid in descendants(serve.pid)[1:]:
        with contextlib.suppress(OSError):  # gone meanwhile
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[1:4] == worker:
                for below in descendants(pid):
                    os.kill(below, signal.SIGKILL)


def run(script: str, api: str) -> list[str]:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        env={**os.environ, "API": api}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_the_complete_client_loop_plays_a_match_to_its_result(api):
    lines = run(block("client-loop"), api)
    moves = [json.loads(line) for line in lines[:-1]]
    assert len(moves) > 5 and all(set(m) == {"version", "to_move"} for m in moves), lines
    versions = [m["version"] for m in moves]
    assert versions == sorted(versions)  # each move based on the version it saw
    result = json.loads(lines[-1])
    assert len(result["scores"]) == 3 and result["winners"], result


def test_the_bot_hint_example_waits_for_the_turn_and_reads_the_hint(api):
    (line,) = run(block("bot-hint"), api)
    hint = json.loads(line)
    assert hint["status"] == "finished" and isinstance(hint["action"], dict) and "type" in hint["action"]


def test_the_apps_and_players_walkthrough_plays_through_player_tokens_and_the_feed(api):
    assert f"TABLETOP_ADMIN_TOKEN={ADMIN_TOKEN} ./dev.sh serve" in ALL
    lines = run(block("apps-and-players"), api)
    app, ann, bob, token, match, mine = (json.loads(line) for line in lines[:6])
    assert (
        app["status"] == "active" and app["key"].startswith(f"ta.{app['id']}.") and app["key"].endswith("…")
    )
    assert len(app["key"]) < 30  # the example shows only the key's start
    assert (ann, bob) == ({"id": "ann", "name": "Ann"}, {"id": "bob", "name": "Bob"})
    assert set(token) == {"id", "scopes"} and token["scopes"] == ["play", "read"]
    first = match["to_move"]
    assert match == {"status": "active", "visibility": "private", "seats": ["Ann", "Bob"], "tokens": [],
                     "to_move": first}  # fmt: skip
    assert mine == {"game": "year_of_dragon", "status": "active", "seat": 0, "to_move": first,
                    "my_turn": first == 0}  # fmt: skip
    rest = lines[6:]
    feed = [json.loads(line) for line in rest[: 3 if first == 1 else 2]]
    assert [e["type"] for e in feed] == ["invited", "match_started", "your_turn"][: len(feed)]
    assert all(e["my_turn"] == (first == 1) for e in feed)
    rest = rest[len(feed) :]
    moves = [json.loads(line) for line in rest if line.startswith('{"version"')]
    assert [m["version"] for m in moves] == list(range(1, len(moves) + 1)) and moves
    assert all(m["to_move"] == first for m in moves[:-1]) and moves[-1]["to_move"] == 1 - first
    polled = json.loads(rest[len(moves)])
    assert polled == {"type": "your_turn", "version": moves[-1]["version"], "my_turn": True}
    sse = rest[len(moves) + 1 :]
    assert sse[0] == ": heartbeat" and sse[2].startswith("id: ") and sse[3] == "event: your_turn", sse
    entry = json.loads(sse[4].removeprefix("data: "))
    assert entry["id"] == sse[2].removeprefix("id: ") and entry["version"] == polled["version"]
    assert entry["seat"] == 1 - first and entry["to_move"] == 1 - first


def test_the_research_example_trains_then_plays_against_easy_offline_and_over_http(api):
    """docs/research.md's worked example (examples/research/train_reinforce.py), cut to seconds: a tiny
    training, two offline matches against ``easy`` through ``bench.strength``, one over this server's API
    against two ``easy`` bot seats, played on the observation rebuilt from the match document."""
    done = subprocess.run(
        [sys.executable, "examples/research/train_reinforce.py", "--minutes", "0.03", "--eval-matches", "2",
         "--http", api, "--http-matches", "1"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "episodes in 2 s against easy,random" in out
    assert "offline: reinforce vs easy,easy in year_of_dragon (2 matches, seats rotated): first " in out
    played = [line for line in out.splitlines() if line.startswith("  HTTP match ")]
    assert len(played) == 1 and played[0].endswith(("place 1", "place 2", "place 3"))
    assert "over HTTP: reinforce vs easy,easy in year_of_dragon (1 matches): first " in out


def test_the_readmes_bot_loop_plays_a_match_through_the_runner_one_request_a_decision(api):
    done = subprocess.run(
        [sys.executable, "-c", block("bot-runner", "python")],
        env={**os.environ, "API": api, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    scores, decisions, requests = done.stdout.rsplit(" ", 2)
    assert len(json.loads(scores)) == 3 and int(decisions) > 5, done.stdout
    assert int(requests) <= int(decisions) + 10, done.stdout  # catch-up and the stream; then a move each
