"""The ``tabletop`` commands exit as docs/operating.md says (issue 42 point 10): 0 when the work is done, 1
when it failed at run time (a server or a Redis that refused or could not be reached: one line on stderr,
no traceback), 2 for a command line or setting that cannot work, before anything is done."""

from __future__ import annotations

import re
import socket

import pytest

from service import cli
from tests.docs.pages import section


def closed_port() -> int:
    """A local port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--game", "china", "--players", "9"],  # China takes 3-5
        ["match", "--game", "china", "--seats", "hard,bogus,easy"],  # no such level
        ["match", "--game", "china", "--seats", "hard,easy"],  # two seats of a 3-5 player game
        ["match", "--game", "china", "--seats", "easy,easy,easy", "--games", "0"],
    ],
)
def test_a_command_line_that_cannot_work_exits_2_saying_why(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(argv) == cli.USAGE == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"tabletop {argv[0]}: --") and "Traceback" not in err


@pytest.mark.parametrize("command", [["apps", "list"], ["webhooks", "list", "some-app"], ["sweep"]])
def test_redis_commands_without_a_redis_url_exit_2(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("TABLETOP_REDIS_URL", raising=False)
    assert cli.main(command) == 2
    assert "TABLETOP_REDIS_URL is not set" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["apps", "list"], ["webhooks", "list", "some-app"], ["sweep"]])
def test_an_unreachable_redis_exits_1_with_one_line(
    command: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLETOP_REDIS_URL", f"redis://127.0.0.1:{closed_port()}/0")
    assert cli.main(command) == cli.FAILED == 1
    err = capsys.readouterr().err
    assert "Redis at TABLETOP_REDIS_URL failed" in err and "Traceback" not in err and err.count("\n") == 1


def test_a_server_that_cannot_be_reached_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    argv = ["match", "--game", "china", "--seats", "random,random,random", "--games", "1", "--url", url]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tabletop match: {url}: ") and "Traceback" not in err


def test_an_unknown_app_exits_1(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLETOP_REDIS_URL", redis_url)
    assert cli.main(["apps", "rotate", "no-such-app"]) == 1


def test_the_readme_says_so() -> None:
    commands = section("Commands")  # docs/operating.md
    said = re.search(
        r"Every `tabletop` command exits 0 when it did its work, 1 when (.*?)\n\n", commands, re.S
    )
    assert said is not None, "docs/operating.md lost its sentence on exit codes"
    text = " ".join(said.group(1).split())
    assert "2 for a command line or setting that cannot work" in text
    for case in ("`demo --players`", "`match --seats`", "`TABLETOP_REDIS_URL`"):
        assert case in text, case
