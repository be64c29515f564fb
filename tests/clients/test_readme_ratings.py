"""The "Ratings, leaderboards and challenges" page (docs/api/ratings.md) works when copied (issue 27 point
8): its ``sh`` block runs with bash, curl and jq against ``tabletop serve`` in development mode, with the
app key and the players' tokens of "Apps and players" (``$APP``, ``$ANN``, ``$BOB``): Ann challenges Bob
to a rated match, Bob accepts, they play it out, and the results export, Ann's ratings and both
leaderboards say what the match did. The section documents every operation of issue 27's ratings and
names the challenge operations, linking to "Finding a match" for them rather than repeating it."""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

import pytest

from tabletop_client import AppClient, Client
from tests.clients.test_readme import ADMIN_TOKEN, api  # noqa: F401  (api: the fixture)
from tests.docs.pages import block, section

pytestmark = pytest.mark.timeout(300)
BUILTINS = ["builtin:easy", "builtin:hard", "builtin:normal", "builtin:random"]


def run_block(base: str, env: dict[str, str]) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", block("ratings")],
        env={**os.environ, "API": base, **env}, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_ratings_walkthrough_rates_a_challenge_and_shows_it_on_the_boards(
    api: str,  # noqa: F811  (the fixture imported above)
) -> None:
    admin = Client(api)
    key = admin.create_app(ADMIN_TOKEN, "ladder")["key"]
    app = AppClient(api, key)
    tokens = {}
    for pid in ("ann", "bob"):
        app.put_player(pid, pid.title())
        tokens[pid] = app.mint_token(pid, expires_in=86400)["token"]
    env = {"APP": f"Authorization: Bearer {key}"}
    env.update({pid.upper(): f"Authorization: Bearer {token}" for pid, token in tokens.items()})
    challenge, heard, result, rating, *rows, bots = run_block(api, env)

    assert challenge == {"status": "open", "rated": True, "challenged": [{"id": "bob", "answer": "pending"}]}
    assert heard == {"type": "challenge_received", "game": "year_of_dragon", "challenger": "Ann"}
    # The match was rated and finished; Ann's place in her ratings is the one her seat's result gives.
    assert result["rated"] is True and sorted(result["ranking"]) == [0, 1] and len(result["scores"]) == 2
    seat = result["seat"]
    assert rating["game"] == "year_of_dragon" and rating["matches"] == 1
    # Each of the three printed with two decimals.
    assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"], abs=0.03)
    if result["ranking"][0] == seat:
        assert rating["last"] == 1
    else:  # second, or first equal on a tie
        assert rating["last"] in (1, 2)
    # The people's board: both, best first; Ann's row is her ratings' (rank and ordinal).
    assert sorted(r["player"] for r in rows) == ["ann", "bob"] and all(r["matches"] == 1 for r in rows)
    assert [r["ordinal"] for r in rows] == sorted((r["ordinal"] for r in rows), reverse=True)
    (ann,) = [r for r in rows if r["player"] == "ann"]
    assert (ann["rank"], ann["ordinal"]) == (rating["rank"], rating["ordinal"])
    if rating["last"] == 2:
        assert ann["rank"] == 2 and ann["ordinal"] < 0 < rows[0]["ordinal"]
    # The bots' board: the built-in levels, there from the start.
    assert sorted(bots) == BUILTINS
    # What the walkthrough fetched, the app reads the same way.
    (standing,) = app.ratings("ann")["ratings"]
    assert standing["ordinal"] == pytest.approx(rating["ordinal"], abs=0.005)
    app.close()
    admin.close()


def test_the_section_documents_ratings_and_leaderboards_and_links_finding_a_match() -> None:
    text = " ".join(section("Ratings, leaderboards and challenges").split())  # lines wrap anywhere
    for route in (
        "GET /v1/games/{game_id}/leaderboard",
        "GET /v1/players/{id}/ratings",
        "GET /v1/me/matches?game=…&status=finished",
        "POST /v1/challenges",
        "POST /v1/challenges/{id}/accept",
        "DELETE /v1/challenges/{id}",
    ):
        assert f"`{route}" in text, route
    for word in ("mu", "sigma", "ordinal", "rank", "history", "next_cursor", "builtin:<level>", "?pool=bots"):
        assert f"`{word}" in text, word
    assert text.count("[Finding a match](matchmaking.md)") >= 2
    assert "/v1/seeks" in section("Finding a match"), "the page it links to"
    # Seeks are documented there, not here: no seek request in this section's walkthrough.
    assert "/v1/seeks" not in block("ratings")
