"""``tabletop replay FILE`` (issue 45 point 3, service/replay_cli.py): one record or NDJSON of many, one
line per record (OK, or the first mismatch with its decision number), exit 1 when any record does not
replay, 2 when the file cannot be read."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.records import record_of_play
from engine.registry import get_game
from engine.takeback import judge
from service import cli


def records(count: int) -> list[dict]:
    rng = random.Random(0)
    return [
        record_of_play("year_of_dragon", 2, None, seed, policy=lambda s, legal: rng.choice(legal))
        for seed in range(count)
    ]


def test_one_pretty_printed_record_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (record,) = records(1)
    path = tmp_path / "one.json"
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")
    assert cli.main(["replay", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == f"record offline-year_of_dragon-0: OK, {len(record['decisions'])} decisions\n"
    assert err == "1 replayed, 0 failed\n"


def test_an_export_with_a_tampered_record_names_its_line_and_decision_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad, also_good = records(3)
    bad["decisions"][4]["events"][0]["seat"] = 1 - bad["decisions"][4]["events"][0]["seat"]
    lines = [json.dumps(r) for r in (good, bad, also_good)] + [
        "not json",
        json.dumps({**good, "setup": None, "perspective": "spectator"}),
        json.dumps({"type": "cursor", "cursor": "c"}),
    ]
    path = tmp_path / "export.ndjson"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli.main(["replay", str(path)]) == cli.FAILED == 1
    out, err = capsys.readouterr()
    said = out.splitlines()
    assert said[0] == f"line 1 offline-year_of_dragon-0: OK, {len(good['decisions'])} decisions"
    assert said[1].startswith(
        "line 2 offline-year_of_dragon-1: MISMATCH decision 5: events[0]: the record has "
    )
    assert said[2].startswith("line 3 offline-year_of_dragon-2: OK")
    assert said[3].startswith("line 4: not a record: Expecting value")
    assert (
        said[4] == "line 5 offline-year_of_dragon-0: CANNOT REPLAY: only a full record (its seed included) "
        "can be replayed, not a 'spectator' one"
    )
    assert len(said) == 5  # the cursor line is no record
    assert err == "2 replayed, 3 failed\n"


def test_a_record_with_a_takeback_replays_and_a_wrong_mark_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``tabletop-record/2`` record (issue 47) replays, its takeback checked; one whose taken-back
    decision lost its mark does not."""
    (played,) = records(1)
    actions = [d["action"] for d in played["decisions"]]
    game = get_game("year_of_dragon")
    state, free = game.setup(2, None, 0), []
    for decision in played["decisions"]:
        state, blocker = judge(game, state, decision["action"], decision["seat"])
        free.append(blocker is None)
    n = free.index(True) + 1  # the first decision that can be taken back on its own
    record = record_of_play("year_of_dragon", 2, None, 0, actions[:n] + actions[n - 1 :], takebacks={n: 1})
    assert record["format"] == "tabletop-record/2"
    unmarked = json.loads(json.dumps(record))
    del unmarked["decisions"][n - 1]["taken_back"]
    path = tmp_path / "takeback.ndjson"
    path.write_text(f"{json.dumps(record)}\n{json.dumps(unmarked)}\n", encoding="utf-8")
    assert cli.main(["replay", str(path)]) == cli.FAILED
    out, err = capsys.readouterr()
    said = out.splitlines()
    assert said[0] == f"line 1 offline-year_of_dragon-0: OK, {len(actions) + 1} decisions (1 taken back)"
    assert said[1].startswith(f"line 2 offline-year_of_dragon-0: MISMATCH decision {n}: taken_back")
    assert err == "1 replayed, 1 failed\n"


def test_a_file_that_cannot_be_read_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["replay", str(tmp_path / "missing.ndjson")]) == cli.USAGE == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("tabletop replay: ") and "No such file" in err
