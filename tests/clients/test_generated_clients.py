"""The clients integrators generate from the committed spec work (issue 15, point 4).

- openapi-python-client generates ``tabletop_client``; ``play_typed.py``, written against it alone,
  passes ``mypy --strict`` and plays one full match of every game against a real server as an
  integration does (issue 25): an app registered through the admin API names three players and mints
  their tokens, creates each match seating them, and every seat is played with its player's token,
  which then lists the player's matches and reads its feed; it reads typed views and results;
- openapi-typescript generates the TypeScript types; ``clients/typescript/example.ts`` compiles
  with ``tsc --strict`` (narrowing match documents by ``game``, events and feed entries by
  ``type``), and an action with a field its schema lacks does not.

Both play issue 27 against a real server (its point 6, "both generated clients in CI"): in each, two
players' rated seeks pair into a match and an accepted challenge makes another, both are played to
the end through the players' tokens, and the results export, the leaderboards and a player's ratings
are read typed (``play_typed.py``'s last line; ``clients/typescript/matchmaking.ts``, compiled with
``tsc --strict`` and run with node).

Both run a tournament (issue 31): the app's round robin of two players, each told of its matches on
its feed, played out through their tokens, its standings and export read typed, and one made and
cancelled with a player's token (``play_typed.py``'s last line; ``clients/typescript/tournament.ts``).

The generator versions are pinned: openapi-python-client in the ``dev`` extra, the npm packages by
``clients/typescript/package-lock.json`` (``npm ci`` when ``node_modules`` is missing).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.registry import GAMES
from tests.reliability.processes import ApiServer, WorkerProcess

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi" / "openapi.json"
SCRIPT = Path(__file__).with_name("play_typed.py")
TYPESCRIPT = ROOT / "clients" / "typescript"
BIN = Path(sys.executable).parent
#: The operator's token of the test server: play_typed.py registers its app with it.
ADMIN = "admin-token-of-the-generated-clients-test"
BUILTINS = ["builtin:easy", "builtin:hard", "builtin:normal", "builtin:random"]


def run(
    *args: str | Path, cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def python_client(tmp_path_factory) -> Path:
    """The generated Python client: a directory holding the ``tabletop_client`` package."""
    out = tmp_path_factory.mktemp("python-client")
    done = run(
        BIN / "openapi-python-client", "generate", "--path", SPEC, "--meta", "none",
        "--output-path", out / "tabletop_client",
        "--config", ROOT / "clients" / "python" / "openapi-python-client.yaml",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stdout + done.stderr, done.stdout + done.stderr
    return out


def test_the_typed_script_passes_mypy_strict(python_client):
    env = {**os.environ, "MYPYPATH": str(python_client)}
    # An integrator's settings (--strict), not the project's [tool.mypy] (made for `mypy engine`: its
    # warn_unreachable flags code the generator writes, which no integrator edits).
    done = run(
        BIN / "mypy", "--config-file", os.devnull, "--strict", "--no-incremental", "--cache-dir", os.devnull,
        SCRIPT, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_the_generated_python_client_plays_every_game_through_player_tokens(
    python_client, redis_url, tmp_path
):
    # A worker beside the API: its clock keeper schedules the tournament's matches (issue 42).
    with (
        ApiServer(redis_url, tmp_path / "api.log", workers=1, admin_token=ADMIN) as api,
        WorkerProcess(redis_url, tmp_path / "worker.log"),
    ):
        env = {**os.environ, "PYTHONPATH": str(python_client)}
        done = run(sys.executable, SCRIPT, api.base, ADMIN, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    games, players, (rated, cup) = lines[: len(GAMES)], lines[len(GAMES) : -2], lines[-2:]
    assert [line.split()[0] for line in games] == ["china", "confucius", "taj_mahal", "year_of_dragon"]
    assert sorted(line.split()[0] for line in games) == sorted(GAMES)
    moves = [int(line.split()[1].removeprefix("moves=")) for line in games]
    assert all(n > 10 for n in moves), games
    # ann and bob sat in every match, cy in the three-seat ones; a your_turn entry is a pending decision
    # (consecutive decisions of one seat may share one), so there are no more of them than moves.
    assert [line.split()[:2] for line in players] == [
        ["ann", "matches=4"],
        ["bob", "matches=4"],
        ["cy", "matches=3"],
    ]
    turns = [int(line.split()[3].removeprefix("your_turn=")) for line in players]
    assert all(t > 0 for t in turns) and sum(turns) <= sum(moves), (turns, moves)
    # Issue 27: a seek pairing and a challenge, both rated and played out; ann played both, bob and
    # cy one each, everyone on the people's board; the four built-in levels on the bots' board.
    words = dict(word.split("=", 1) for word in rated.split()[1:])
    assert rated.startswith("rated ") and words["matches"] == "2" and int(words["moves"]) > 10, rated
    rows = [row.split(":") for row in words["leaderboard"].split(",")]
    played = sorted((player, matches) for _, player, matches in rows)
    assert played == [("ann", "2"), ("bob", "1"), ("cy", "1")], rated
    assert rows[0][0] == "1" and words["bots"] == "4", rated
    # Issue 31: the app's rated round robin of ann and bob, one match from each seat, played out (its
    # standings one point in all, ranked), and ann's own tournament, cancelled.
    words = dict(word.split("=", 1) for word in cup.split()[1:])
    assert cup.startswith("tournament ") and words["matches"] == "2" and int(words["moves"]) > 10, cup
    standings = [row.split(":") for row in words["standings"].split(",")]
    assert [r[0] for r in standings] == ["1", "2"] and sorted(r[1] for r in standings) == ["ann", "bob"], cup
    assert sum(float(r[2]) for r in standings) == 2.0 and words["cancelled"].startswith("t"), cup


@pytest.fixture(scope="module")
def typescript_types(tmp_path_factory) -> Path:
    """A directory with the generated ``tabletop.d.ts`` and the example beside it."""
    if not (TYPESCRIPT / "node_modules" / ".bin" / "tsc").exists():
        done = run("npm", "ci", "--no-audit", "--no-fund", cwd=TYPESCRIPT)
        assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path_factory.mktemp("typescript")
    done = run(TYPESCRIPT / "node_modules" / ".bin" / "openapi-typescript", SPEC, "-o", out / "tabletop.d.ts")
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.copy(TYPESCRIPT / "example.ts", out / "example.ts")
    return out


def tsc(directory: Path, source: str) -> subprocess.CompletedProcess[str]:
    return run(
        TYPESCRIPT / "node_modules" / ".bin" / "tsc", "--strict", "--noEmit", "--target", "es2022",
        "--module", "nodenext", "--moduleResolution", "nodenext", source, cwd=directory,
    )  # fmt: skip


def test_the_typescript_example_compiles_strictly_and_narrows_per_game(typescript_types):
    done = tsc(typescript_types, "example.ts")
    assert done.returncode == 0, done.stdout + done.stderr
    types = (typescript_types / "tabletop.d.ts").read_text(encoding="utf-8")
    assert "unknown" not in types.split("ChinaView: {")[1].split("\n        };")[0]


def test_the_typescript_matchmaking_client_pairs_seeks_plays_a_challenge_and_reads_the_ladder(
    typescript_types, redis_url
):
    """``clients/typescript/matchmaking.ts`` typed by the generated operations, compiled strictly and
    run with node against a real server (node's own ``fetch``)."""
    shutil.copy(TYPESCRIPT / "matchmaking.ts", typescript_types / "matchmaking.ts")
    out = typescript_types / "matchmaking-js"
    built = run(
        TYPESCRIPT / "node_modules" / ".bin" / "tsc", "--strict", "--target", "es2022",
        "--module", "nodenext", "--moduleResolution", "nodenext", "--lib", "es2022,dom",
        "--outDir", out, "matchmaking.ts",
        cwd=typescript_types,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    with ApiServer(redis_url, typescript_types / "api.log", workers=1, admin_token=ADMIN) as api:
        done = run("node", out / "matchmaking.js", api.base, ADMIN)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = done.stdout.splitlines()
    seen = json.loads(line)
    match_ids = [m["id"] for m in seen["matches"]]
    assert len(set(match_ids)) == 2 and all(m["status"] == "finished" and m["rated"] for m in seen["matches"])
    assert sorted(r["id"] for r in seen["results"] if r["rated"]) == sorted(match_ids)
    assert all(r["scores"] is not None for r in seen["results"])
    board = seen["leaderboard"]
    assert sorted((r["player"], r["matches"]) for r in board) == [("ann", 2), ("bob", 2)]
    assert [r["ordinal"] for r in board] == sorted((r["ordinal"] for r in board), reverse=True)
    assert board[0]["rank"] == 1 and sorted(seen["bots"]) == BUILTINS
    assert seen["ann"]["matches"] == 2 and sorted(seen["ann"]["history"]) == sorted(match_ids)
    assert seen["ann"]["ordinal"] == next(r["ordinal"] for r in board if r["player"] == "ann")


def test_the_typescript_tournament_client_runs_a_round_robin_and_reads_its_standings(
    typescript_types, redis_url
):
    """``clients/typescript/tournament.ts`` (issue 31), typed by the generated operations, compiled
    strictly and run with node against a real server."""
    shutil.copy(TYPESCRIPT / "tournament.ts", typescript_types / "tournament.ts")
    out = typescript_types / "tournament-js"
    built = run(
        TYPESCRIPT / "node_modules" / ".bin" / "tsc", "--strict", "--target", "es2022",
        "--module", "nodenext", "--moduleResolution", "nodenext", "--lib", "es2022,dom",
        "--outDir", out, "tournament.ts",
        cwd=typescript_types,
    )  # fmt: skip
    assert built.returncode == 0, built.stdout + built.stderr
    with (
        ApiServer(redis_url, typescript_types / "api.log", workers=1, admin_token=ADMIN) as api,
        WorkerProcess(redis_url, typescript_types / "worker.log"),  # the tournaments' scheduler
    ):
        done = run("node", out / "tournament.js", api.base, ADMIN)
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = done.stdout.splitlines()
    seen = json.loads(line)
    assert seen["status"] == "finished" and seen["moves"] > 10, seen
    assert sorted(seen["told"]) == sorted(seen["matches"]) and len(seen["matches"]) == 2
    standings = seen["standings"]
    assert [r["rank"] for r in standings] == [1, 2] and sorted(r["player"] for r in standings) == [
        "ann",
        "bob",
    ]
    assert all(r["seats"] == [1, 1] for r in standings) and sum(r["points"] for r in standings) == 2
    # The export: a row per seat of both matches; the CSV is the same rows under its header.
    rows = seen["rows"]
    assert len(rows) == 4 and sorted({r[0] for r in rows}) == sorted(seen["matches"])
    header, *lines = seen["csv"]
    assert header == "round,match_id,status,seat,entrant,name,place,points,score,stand_in,decisions"
    cells = [line.split(",") for line in lines]
    assert [(c[1], int(c[3]), int(c[4]), int(c[6]), float(c[7])) for c in cells] == [tuple(r) for r in rows]
    assert {c[2] for c in cells} == {"finished"} and {c[5] for c in cells} == {"ANN", "BOB"}
    assert seen["listed"] == [seen["id"]]
    ann = next(r for r in standings if r["player"] == "ann")
    assert seen["over"] == {"status": "finished", "rank": ann["rank"], "points": ann["points"]}
    assert seen["cancelled"] == {"status": "cancelled", "matches": ["aborted"], "bot": "Easy bot"}


def test_an_action_with_a_field_its_schema_lacks_does_not_compile(typescript_types):
    (typescript_types / "bad.ts").write_text(
        'import type { components } from "./tabletop.js";\n'
        'export const bad: components["schemas"]["ChinaAction"] = { type: "place", bogus: 1 };\n',
        encoding="utf-8",
    )
    done = tsc(typescript_types, "bad.ts")
    assert done.returncode != 0 and "'bogus' does not exist" in done.stdout, done.stdout + done.stderr
