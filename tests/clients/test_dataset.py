"""``tabletop dataset`` (tabletop_client.datasets): bot matches played by the development server's
worker through the API with an app key, their full records written as NDJSON beside a datasheet; the
records replay through the engine and load as the research adapters' trajectories."""

from __future__ import annotations

import json

from engine.records import engine_version, replay, rules_version
from engine.registry import GAMES
from research.records import read_ndjson, to_arrays, trajectories
from service import cli
from tabletop_client import Client
from tests.clients.test_readme import ADMIN_TOKEN, api  # noqa: F401  (api: the served instance)
from tests.docs.pages import block


def test_a_dataset_of_bot_matches_replays_and_loads_as_trajectories(api, tmp_path, capsys, monkeypatch):  # noqa: F811
    key = Client(api).create_app(ADMIN_TOKEN, "datasets")["key"]
    out = tmp_path / "data" / "taj"  # where the docs' loading example reads it
    argv = ["dataset", "--game", "taj_mahal", "--levels", "random,random,easy", "--matches", "2"]
    argv += ["--out", str(out), "--url", api, "--app-key", key]
    assert cli.main(argv) == cli.DONE
    records = list(read_ndjson(out / "records.ndjson"))
    sheet = json.loads((out / "datasheet.json").read_text())
    seeds = [r["setup"]["seed"] for r in records]
    assert seeds == sheet["seeds"] and len(set(seeds)) == 2  # drawn by the server, one deal each
    assert [r["header"]["match_id"] for r in records] == sheet["match_ids"]
    assert sheet["engine_versions"] == [engine_version()]
    assert sheet["rules_versions"] == [rules_version(GAMES["taj_mahal"])]
    assert [s["level"] for s in sheet["seats"]] == ["random", "random", "easy"] and sheet["matches"] == 2
    assert sheet["decisions"]["total"] == sum(len(r["decisions"]) for r in records)
    for record in records:
        assert record["perspective"] == "full" and record["header"]["status"] == "finished"
        assert [s["level"] for s in record["header"]["seats"]] == ["random", "random", "easy"]
        replay(record)  # every decision and the result, checked against the engine
        trajs = trajectories(record)
        assert sum(len(t) for t in trajs) == len(record["decisions"])
        ranking = record["result"]["ranking"]
        assert trajs[ranking[0]].final_return == 1.0 and trajs[ranking[-1]].final_return == -1.0
    batch = to_arrays([t for r in records for t in trajectories(r)], masks=False)
    assert len(batch["action"]) == sheet["decisions"]["total"]
    text = (out / "datasheet.json").read_text() + (out / "datasheet.md").read_text()
    assert key not in text and "--app-key ***" in text  # the command line is noted, never the key
    assert (
        "taj_mahal" in (out / "datasheet.md").read_text()
        and f"{seeds[0]}, {seeds[1]}" in (out / "datasheet.md").read_text()
    )
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    exec(block("dataset-load", "python"), {})  # docs/research.md, "Datasets and trajectories"
    shown = capsys.readouterr().out.split()
    assert shown[:3] == ["6", f"({sheet['decisions']['total']},", "1030)"], shown


def test_a_lineup_that_cannot_play_is_refused_before_any_match(tmp_path, capsys):
    out = tmp_path / "never"
    base = ["dataset", "--game", "china", "--out", str(out), "--url", "http://127.0.0.1:9"]
    assert cli.main([*base, "--levels", "hard,grandmaster,easy"]) == cli.USAGE
    assert "--levels: unknown level(s) ['grandmaster']" in capsys.readouterr().err
    assert cli.main([*base, "--levels", "hard"]) == cli.USAGE  # China seats 3 to 5
    assert cli.main([*base, "--levels", "hard,hard,hard", "--matches", "0"]) == cli.USAGE
    assert cli.main([*base, "--levels", "hard,hard,hard", "--local"]) == cli.USAGE
    assert cli.main([*base, "--levels", "hard,hard,hard", "--parallel", "0"]) == cli.USAGE
    assert cli.main([*base, "--levels", "hard,hard,hard", "--options", "[1]"]) == cli.USAGE
    assert not out.exists()
    assert cli.main([*base, "--levels", "random,random,random"]) == cli.FAILED  # no server on port 9
    assert "tabletop dataset: http://127.0.0.1:9:" in capsys.readouterr().err and not out.exists()


def test_without_a_url_the_dataset_is_played_on_a_private_server_started_for_it(tmp_path, capsys):
    out = tmp_path / "local"
    argv = ["dataset", "--game", "year_of_dragon", "--levels", "random,random,random", "--matches", "2"]
    assert cli.main([*argv, "--out", str(out), "--seed", "5"]) == cli.DONE
    records = list(read_ndjson(out / "records.ndjson"))
    assert [r["setup"]["seed"] for r in records] == [5, 6]  # the private server takes the seeds it is sent
    sheet = json.loads((out / "datasheet.json").read_text())
    assert sheet["server"] == "a private development server" and sheet["seeds"] == [5, 6]
    for record in records:
        replay(record)
