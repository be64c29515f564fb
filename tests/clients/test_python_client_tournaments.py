"""The Python client (``tabletop_client``) for issue 31, against a real ``tabletop serve`` in
development mode (private Redis, the bot worker beside it): the app and a player's client create,
read, list, follow (``wait_tournament`` with its progress callback), export (JSON and CSV) and cancel
tournaments, and the refusals come back as :class:`ApiError` with the API's codes."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tabletop_client import ApiError, AppClient, Client, PlayerClient
from tests.clients.test_readme import ADMIN_TOKEN, api  # noqa: F401  (api: the fixture)

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def clients(api: str) -> Any:  # noqa: F811  (the fixture imported above)
    admin = Client(api)
    app = AppClient(api, admin.create_app(ADMIN_TOKEN, "client tests")["key"])
    admin.close()
    for pid in ("ann", "bob"):
        app.put_player(pid, pid.title())
    ann = PlayerClient(api, app.mint_token("ann")["token"])
    bob = PlayerClient(api, app.mint_token("bob")["token"])
    yield app, ann, bob
    for client in (app, ann, bob):
        client.close()


def test_a_player_follows_a_bots_round_robin_to_its_end_with_progress(clients: Any) -> None:
    app, ann, _ = clients
    entrants = [{"level": "random", "name": "R1"}, {"level": "random", "name": "R2"}, {"level": "easy"}]
    made = app.create_tournament("year_of_dragon", 2, entrants, name="Followed", parallel=2)
    assert made["status"] == "running" and made["parallel"] == 2 and made["progress"]["total"] == 6
    seen: list[tuple[int, int, str]] = []
    done = ann.wait_tournament(
        made["id"],
        timeout=240,
        interval=0.1,
        progress=lambda d: seen.append((d["progress"]["done"], d["progress"]["round"], d["status"])),
    )
    assert done["status"] == "finished" and done["progress"]["done"] == 6
    # The callback saw the progress as it went: never backwards, ending at the end, once per change.
    counts = [n for n, _, _ in seen]
    assert counts == sorted(counts) and seen[-1][::2] == (6, "finished") and len(set(seen)) == len(seen)
    # Read, listed, exported: the same standings everywhere; the CSV's rows are the JSON's.
    assert ann.tournament(made["id"]) == done
    assert [t["id"] for t in ann.tournaments(status="finished")["tournaments"]] == [made["id"]]
    export = ann.tournament_results(made["id"])
    assert export["standings"] == done["standings"] and len(export["results"]) == 12
    rows = list(csv.DictReader(io.StringIO(app.tournament_results(made["id"], "csv"))))
    assert [(r["match_id"], int(r["seat"]), r["name"]) for r in rows] == [
        (r["match_id"], r["seat"], r["name"]) for r in export["results"]
    ]


def test_cancel_by_its_creator_and_the_refusals(clients: Any) -> None:
    app, ann, bob = clients
    later = 4_000_000_000.0
    own = ann.create_tournament("year_of_dragon", 2, [{"player": "ann"}, {"level": "hard"}], starts_at=later)
    assert own["status"] == "scheduled" and own["starts_at"] == later
    with pytest.raises(ApiError) as refused:
        bob.cancel_tournament(own["id"])  # not its creator
    assert refused.value.status == 403
    assert ann.cancel_tournament(own["id"])["status"] == "cancelled"
    with pytest.raises(ApiError) as over:
        app.cancel_tournament(own["id"])
    assert over.value.status == 409 and over.value.code == "tournament_over"
    with pytest.raises(ApiError) as bad:
        app.create_tournament("year_of_dragon", 2, [{"level": "easy"}], format="swiss")
    assert bad.value.status == 422 and bad.value.body["details"]["field"] in ("entrants", "rounds")
    with pytest.raises(ApiError) as missing:
        ann.tournament_results("t000000000000deadbeef", "csv")
    assert missing.value.status == 404 and missing.value.code == "tournament_not_found"
    assert [t["id"] for t in app.tournaments(status="cancelled")["tournaments"]] == [own["id"]]
