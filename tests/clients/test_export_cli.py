"""``tabletop export`` and the client's record calls against a real server (issue 45 point 2): an app's
all-bot matches, played by the development server's worker, exported to a file whose lines are the
records ``Client.record`` reads one at a time, and which replay through the engine."""

from __future__ import annotations

import json

from engine.records import replay
from service import cli
from tabletop_client import Client
from tests.clients.test_readme import ADMIN_TOKEN, api  # noqa: F401  (api: the served instance)


def test_export_writes_the_apps_finished_matches_following_cursors(api, tmp_path, capsys):  # noqa: F811
    client = Client(api)
    key = client.create_app(ADMIN_TOKEN, "exports")["key"]
    bots = [{"kind": "bot", "level": "random", "name": f"bot{i}"} for i in range(2)]
    ids = [client.create_match("year_of_dragon", bots, token=key)["id"] for _ in range(3)]
    for mid in ids:
        assert client.wait_finished(mid, 120, key)["status"] == "finished"
    out = tmp_path / "records.ndjson"
    assert cli.main(["export", "--url", api, "--app-key", key, "--out", str(out)]) == cli.DONE
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["header"]["match_id"] for r in records) == sorted(ids)
    assert "3 records" in capsys.readouterr().err
    assert client.record(ids[0], key) == next(r for r in records if r["header"]["match_id"] == ids[0])
    for record in records:
        replay(record)
    # The client follows the cursors itself: one record a call, the same three.
    paged = list(client.export_records(key, "app", limit=1))
    assert [r["header"]["match_id"] for r in paged] == [r["header"]["match_id"] for r in records]
    unfollowed = list(client.export_records(key, "app", limit=1, follow=False))
    assert len(unfollowed) == 2 and unfollowed[1]["type"] == "cursor"
    assert cli.main(["export", "--url", api, "--app-key", "ta.not-a-key", "-o", str(tmp_path / "x")]) == 1
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.part").exists()
