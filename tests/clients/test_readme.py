"""The README's client examples work when copied: each marked ``sh`` block runs with bash against
``tabletop serve`` in development mode (private Redis, a bot worker beside the API), as a reader
following the README would run it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.api import free_port
from tabletop_client import ApiError, Client

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def block(marker: str) -> str:
    """The ``sh`` block that follows ``<!-- marker: ... -->`` in the README."""
    found = re.search(rf"<!-- {marker}:[^>]*-->\n```sh\n(.*?)\n```", README, re.S)
    assert found, f"no {marker} block in README.md"
    return found.group(1)


@pytest.fixture(scope="module")
def api(tmp_path_factory) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(PYTHONPATH=str(ROOT))
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
        proc.terminate()
        proc.wait(timeout=60)


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
