"""``tabletop tournament`` end to end (issue 31 point 3): a real ``tabletop serve`` in development mode
(its private Redis and the bot worker beside it) and the command as a user runs it, in a process of
its own.

The example of docs/api/tournaments.md (its ``tournament-cli`` block) runs a round robin of built-in
bots to the end: exit 0, the standings printed, the CSV export written (the server's rows), and a PNG
chart that matplotlib's own reader opens.  ``--follow`` picks up a tournament made elsewhere, with the
server and credential from the environment; a cancelled tournament exits 1; a command line that cannot work
exits 2 before anything is made, and so does ``--chart`` without matplotlib, saying how to get it."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop_client import AppClient, Client
from tests.clients.test_readme import ADMIN_TOKEN, ROOT, api  # noqa: F401  (api: the fixture)
from tests.docs.pages import block
from tests.service.test_tournaments_api import CSV_HEADER

pytestmark = pytest.mark.timeout(300)
#: A new tournament's command line, complete but for what a case adds.
NEW = ["--app-key", "k", "--game", "china", "--players", "3", "--entrant", "level:easy"]


def tabletop(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``tabletop ARGS`` as a shell runs it (the same interpreter's ``service.cli``)."""
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=cwd, env={**_clean_env(), "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True, text=True, timeout=240,
    )  # fmt: skip


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}


@pytest.fixture(scope="module")
def key(api: str) -> str:  # noqa: F811  (the fixture imported above)
    admin = Client(api)
    made = admin.create_app(ADMIN_TOKEN, "cli")["key"]
    admin.close()
    return str(made)


def test_the_readme_example_runs_a_round_robin_of_bots_to_the_end(
    api: str,  # noqa: F811
    key: str,
    tmp_path: Path,
) -> None:
    # The page's block, as a reader pastes it (`tabletop` on the PATH: the venv's bin).
    env = {**_clean_env(), "API": api, "KEY": key, "PYTHONPATH": str(ROOT)}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block("tournament-cli")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    app = AppClient(api, key)
    (doc,) = [t for t in app.tournaments()["tournaments"] if t["name"] == "Seat test"]
    assert doc["status"] == "finished" and doc["progress"]["done"] == doc["progress"]["total"] == 6
    # The standings table: every entrant, in the server's order, with its points.
    printed = [line for line in done.stdout.splitlines() if any(r["name"] in line for r in doc["standings"])]
    assert len(printed) == 3, done.stdout
    for line, row in zip(printed, doc["standings"], strict=True):
        cells = [c.strip() for c in line.strip("│┃| ").replace("┃", "│").split("│")]
        assert cells[:3] == [str(row["rank"]), row["name"], f"{row['points']:g}"], (cells, row)
        assert cells[6] == "2/2", cells  # every seat position equally often
    assert "Seat test" in done.stdout and "6 of 6 matches" in done.stdout
    assert f"--follow {doc['id']}" in done.stderr  # how to watch it again
    # The export: the server's CSV as it is.
    with (tmp_path / "ladder.csv").open(newline="", encoding="utf-8") as f:
        table = list(csv.reader(f))
    assert table[0] == CSV_HEADER and len(table) == 1 + 12
    assert (tmp_path / "ladder.csv").read_bytes().decode("utf-8") == app.tournament_results(doc["id"], "csv")
    # The chart: a PNG that matplotlib's reader opens, of the size the command draws (8 x 5 in at 100 dpi).
    import matplotlib.image

    png = tmp_path / "ladder.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = matplotlib.image.imread(png)
    assert pixels.shape[:2] == (500, 800) and pixels.std() > 0  # not a blank image
    app.close()


def test_follow_takes_the_server_and_key_from_the_environment(
    api: str,  # noqa: F811
    key: str,
    tmp_path: Path,
) -> None:
    app = AppClient(api, key)
    doc = app.create_tournament(
        "year_of_dragon", 2, [{"level": "random"}, {"level": "easy"}], name="Followed", matches_per_pairing=2
    )
    done = tabletop(
        "tournament", "--follow", doc["id"], "--results", "out.json", "--interval", "0.2",
        cwd=tmp_path, env={"TABLETOP_URL": api, "TABLETOP_APP_KEY": key},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    final = app.tournament(doc["id"])
    assert final["status"] == "finished"
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8")) == app.tournament_results(
        doc["id"]
    )
    assert all(row["name"] in done.stdout for row in final["standings"])
    app.close()


def test_an_entrant_may_carry_its_bots_think_ms(api: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    """``level:LEVEL@MS`` sends the entrant's ``think_ms``; the server keeps it and seats each of its
    bots with it.  A name after it may be anything (digits too), a player id keeps its ``@``."""
    from tabletop_client.tournament_cli import UsageError, parse_entrant

    assert parse_entrant("level:hard@3:2024") == {"level": "hard", "think_ms": 3, "name": "2024"}
    assert parse_entrant("player:ann@example.org") == {"player": "ann@example.org"}
    with pytest.raises(UsageError, match="whole milliseconds"):
        parse_entrant("level:hard@²")  # "²": a digit to str.isdigit, not to int
    done = tabletop(
        "tournament", "--url", api, "--app-key", key, "--game", "year_of_dragon", "--players", "2",
        "--entrant", "level:hard@3:Quick hard", "--entrant", "level:normal@2", "--entrant", "level:random",
        "--matches-per-pairing", "2", "--interval", "0.2", "--name", "Budgets",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    app = AppClient(api, key)
    [made] = [t for t in app.tournaments()["tournaments"] if t["name"] == "Budgets"]
    doc = app.tournament(made["id"])
    assert [(e["name"], e["think_ms"]) for e in doc["entrants"]] == [
        ("Quick hard", 3),
        ("Normal bot", 2),
        ("Random bot", 0),
    ]
    for m in doc["matches"]:
        seats = app.match(m["match_id"])["seats"]
        assert [s["think_ms"] for s in seats] == [doc["entrants"][e]["think_ms"] for e in m["entrants"]]
    app.close()


def test_a_cancelled_tournament_exits_1(api: str, key: str, tmp_path: Path) -> None:  # noqa: F811
    app = AppClient(api, key)
    doc = app.create_tournament("year_of_dragon", 2, [{"level": "easy"}, {"level": "hard"}], starts_at=4e9)
    assert app.cancel_tournament(doc["id"])["status"] == "cancelled"
    done = tabletop("tournament", "--url", api, "--app-key", key, "--follow", doc["id"], cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "cancelled" in done.stderr
    # And one the server refuses (another app's id: not found) is 1 too, saying why.
    stranger = tabletop("tournament", "--url", api, "--app-key", key, "--follow", "nope", cwd=tmp_path)
    assert stranger.returncode == 1 and "tournament_not_found" in stranger.stderr, stranger.stderr
    app.close()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--game", "china", "--players", "3", "--entrant", "level:easy"], "--app-key or --token"),
        (["--app-key", "k", "--game", "china", "--players", "3", "--entrant", "bot:easy"], "level:LEVEL"),
        (["--app-key", "k", "--game", "china", "--players", "3", "--entrant", "level:expert"], "levels are"),
        (["--app-key", "k", "--players", "3", "--entrant", "level:easy"], "--game, --players and --entrant"),
        (["--app-key", "k", "--follow", "x", "--results", "out.txt"], ".csv or a .json"),
        (["--app-key", "k", "--game", "china", "--players", "3", "--entrant", "level:hard@9s"], "@THINK_MS"),
        # issue 42: a Swiss without its rounds cannot be made (the server would answer 422 after a call)
        ([*NEW, "--format", "swiss"], "--format swiss needs --rounds"),
        ([*NEW, "--rounds", "0"], "--rounds 0: at least 1"),
        (
            [
                "--app-key",
                "k",
                "--game",
                "china",
                "--players",
                "3",
                "--entrant",
                "level:easy",
                "--time-control",
                "30",
            ],
            "key=value",
        ),
    ],
)
def test_a_command_line_that_cannot_work_exits_2_before_calling_the_server(
    tmp_path: Path, args: list[str], says: str
) -> None:
    # No server at this address: a call would fail differently (and exit 1).
    done = tabletop("tournament", "--url", "http://127.0.0.1:9", *args, cwd=tmp_path)
    assert done.returncode == 2 and says in done.stderr, done.stdout + done.stderr


def test_chart_without_matplotlib_says_how_to_install_it(tmp_path: Path) -> None:
    blocked = (
        "import sys; sys.modules['matplotlib'] = None\n"  # an import of it now fails, as if not installed
        "from service.cli import main\n"
        "sys.exit(main(['tournament', '--url', 'http://127.0.0.1:9', '--app-key', 'k', '--follow', 'x', "
        "'--chart', 'c.png']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", blocked], cwd=tmp_path, env={**_clean_env(), "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pip install 'tabletop[charts]'" in " ".join(done.stderr.split()), done.stderr
    assert not (tmp_path / "c.png").exists()
