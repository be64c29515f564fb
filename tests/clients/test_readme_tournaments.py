"""The "Tournaments" page (docs/api/tournaments.md) works when copied (issue 31): its ``sh`` block runs with
bash, curl and jq against ``tabletop serve`` in development mode (private Redis, the bot worker beside
the API): three bots play a round robin to the end, the standings and the CSV export say what the matches
did, and a tournament set to start later is cancelled. The section documents every operation, the points
and the tie-breaks, and the command line."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess

import pytest

from tabletop_client import AppClient
from tests.clients.test_readme import api  # noqa: F401  (api: the fixture)
from tests.docs.pages import block, section, where

pytestmark = pytest.mark.timeout(300)
NAMES = {"Random A", "Random B", "Easy bot"}


def test_the_tournaments_walkthrough_plays_a_round_robin_and_cancels_one(
    api: str,  # noqa: F811  (the fixture imported above)
) -> None:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block("tournaments") + '\necho "KEY=$KEY"'],
        env={**os.environ, "API": api}, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    key = lines.pop().removeprefix("KEY=")
    created = json.loads(lines[0])
    # Round robin of 3, 2 seats a match: 3 groups, each meeting twice (once from each seat).
    assert created["status"] == "running" and (created["rounds"], created["matches_per_pairing"]) == (2, 2)
    assert (created["progress"]["done"], created["progress"]["total"]) == (0, 6)
    rows = [json.loads(line) for line in lines[1:4]]
    assert [r["rank"] for r in rows] == [1, 2, 3] and {r["name"] for r in rows} <= NAMES | {"easy"}
    assert all(r["played"] == 4 and r["seats"] == [2, 2] for r in rows), rows
    assert sum(r["points"] for r in rows) == 6  # one point a match between two
    keys = [(-r["points"], -r["wins"], -r["buchholz"]) for r in rows]
    assert keys == sorted(keys)  # points, then wins, then Buchholz
    table = list(csv.reader(io.StringIO("\n".join(lines[4:7]))))
    first = ["round", "match_id", "status", "seat", "entrant", "name", "place", "points", "score"]
    assert table[0][:9] == first
    assert table[0][9:] == ["stand_in", "decisions"]  # issue 42: appended, the columns before unmoved
    assert table[1][9] == "0" and int(table[1][10]) > 0  # bots from the start: no stand-in decision
    assert [r[3] for r in table[1:]] == ["0", "1"] and table[1][1] == table[2][1]  # a match's two seats
    cancelled = json.loads(lines[7])
    # Its matches were never made: all of them end aborted (done, with nobody any points).
    assert (
        cancelled["status"] == "cancelled"
        and cancelled["progress"]["done"] == cancelled["progress"]["total"] == 2
    )
    assert len(lines) == 8, lines
    # What the walkthrough read, the app reads the same way.
    app = AppClient(api, key)
    (ladder,) = app.tournaments(status="finished")["tournaments"]
    assert ladder["name"] == "Bot ladder" and [s["name"] for s in ladder["standings"]] == [
        r["name"] for r in rows
    ]
    export = app.tournament_results(ladder["id"])
    assert len(export["results"]) == 12 and export["standings"] == ladder["standings"]
    assert list(csv.reader(io.StringIO(app.tournament_results(ladder["id"], "csv"))))[1] == table[1]
    app.close()


def test_the_section_documents_every_operation_the_rules_and_the_command() -> None:
    text = " ".join(section("Tournaments").split())  # lines wrap anywhere
    for route in (
        "POST /v1/tournaments",
        "GET /v1/tournaments/{id}",
        "GET /v1/tournaments",
        "GET /v1/tournaments/{id}/results",
        "POST /v1/tournaments/{id}/cancel",
    ):
        assert f"`{route}" in text, route
    for word in (
        "round_robin",
        "swiss",
        "matches_per_pairing",
        "parallel",
        "starts_at",
        "buchholz",
        "wins",
        "tournament_match",
        "tournament_over",
        "tournament_not_found",
        "tournament_over",
        "?format=csv",
        "TABLETOP_TOURNAMENT_MAX_MATCHES",
        "tabletop tournament",
        "--follow ID",
        "--chart FILE.png",
        "pip install 'tabletop[charts]'",
        "think_ms",  # a level entrant's budget (follow-up of issue 31), and in the command line:
        "--entrant level:hard@100",
        "TABLETOP_RETENTION_SECONDS",  # a tournament over expires as a finished match does
    ):
        assert f"`{word}" in text, word
    assert "1 point per opponent who finished below it and 1/2 per opponent tied" in text
    assert "then `wins`" in text and "then `buchholz`" in text and "then entry order" in text
    assert where("tournament-cli") == where("tournaments")  # the command line beside the API's walkthrough
    marker = "<!-- tournament-cli: tests/e2e/test_tournament_cli.py runs this block -->"
    assert marker in section("Tournaments")
