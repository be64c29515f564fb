"""Records with takebacks (engine/records.py, docs/records.md "Takebacks"; issue 47 point 4): a record
keeps the taken-back decisions and the takebacks, says format ``tabletop-record/2`` (a ``/1`` reader
must not read it as played), replays them through the engine's takeback rules, and fits the schema.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from engine.record_schema import RECORD_SCHEMA
from engine.records import (
    FORMAT,
    FORMAT_TAKEBACKS,
    FORMATS,
    RecordError,
    RecordMismatch,
    format_for,
    record_of_play,
    replay,
    restrict,
)
from engine.registry import get_game
from engine.takeback import RANDOM, TakebackRefused, judge

VALIDATOR = Draft202012Validator(RECORD_SCHEMA)


def _play(game_id: str, players: int, seed: int) -> tuple[list[dict[str, Any]], list[int], list[bool]]:
    """A random game's actions, seats and whether each decision can be taken back on its own."""
    game = get_game(game_id)
    state = game.setup(players, None, seed)
    rng = random.Random(seed)
    actions, seats, free = [], [], []
    while (seat := game.to_move(state)) is not None:
        action = rng.choice(game.legal_actions(state))
        state, found = judge(game, state, action, seat)
        actions.append(action)
        seats.append(seat)
        free.append(found is None)
    return actions, seats, free


@pytest.fixture(scope="module")
def china() -> tuple[list[dict[str, Any]], list[int], list[bool]]:
    return _play("china", 3, 5)


def _with_takeback(china: Any, k: int) -> tuple[dict[str, Any], int]:
    """A record in which, after the first decision ``n`` whose mover's last ``k`` decisions are all its
    own and undoable, they are taken back and made again the same way."""
    actions, seats, free = china
    n = next(
        i
        for i in range(k, len(actions) - 1)
        if all(seats[j] == seats[i - 1] and free[j] for j in range(i - k, i))
    )
    again = actions[:n] + actions[n - k : n] + actions[n:]
    return record_of_play("china", 3, None, 5, again, takebacks={n: k}), n


@pytest.mark.parametrize("k", [1, 2])
def test_a_record_keeps_taken_back_decisions_and_replays_them(china: Any, k: int) -> None:
    record, n = _with_takeback(china, k)
    plain = record_of_play("china", 3, None, 5, china[0])
    assert plain["format"] == FORMAT and "takebacks" not in plain
    assert record["format"] == FORMAT_TAKEBACKS and FORMATS == (FORMAT, FORMAT_TAKEBACKS)
    assert record["takebacks"] == [
        {
            "seat": china[1][n - 1],
            "decisions": list(range(n - k + 1, n + 1)),
            "requested_at": None,
            "accepted_at": None,
        }
    ]
    undone = [d["n"] for d in record["decisions"] if d.get("taken_back")]
    assert undone == list(range(n - k + 1, n + 1))
    assert len(record["decisions"]) == len(plain["decisions"]) + k
    assert [d["n"] for d in record["decisions"]] == list(range(1, len(record["decisions"]) + 1))
    assert record["result"] == plain["result"], "the live line is the game without the takeback"
    done = replay(record, states=True)
    assert done.decisions == len(record["decisions"]) and done.result == plain["result"]
    assert done.states is not None and len(done.states) == len(record["decisions"]) + 1
    assert not list(VALIDATOR.iter_errors(record))
    for seat in (None, 0, 1, 2):
        mine = restrict(record, seat)
        assert mine["takebacks"] == record["takebacks"] and mine["format"] == FORMAT_TAKEBACKS
        assert [d["n"] for d in mine["decisions"] if d.get("taken_back")] == undone
        assert not list(VALIDATOR.iter_errors(mine))


def test_the_format_follows_the_takebacks() -> None:
    assert format_for([]) == FORMAT
    assert format_for([{"seat": 0, "decisions": [3]}]) == FORMAT_TAKEBACKS


def test_a_tampered_takeback_is_caught(china: Any) -> None:
    record, n = _with_takeback(china, 1)
    unmarked = copy.deepcopy(record)
    del unmarked["decisions"][n - 1]["taken_back"]
    with pytest.raises(RecordMismatch) as info:
        replay(unmarked)
    assert (info.value.n, info.value.what) == (n, "taken_back")

    as_v1 = {**copy.deepcopy(record), "format": FORMAT}
    with pytest.raises(RecordError, match="holds no takebacks"):
        replay(as_v1)
    assert list(VALIDATOR.iter_errors(as_v1)), "the schema refuses a /1 record with takebacks"
    bare = {k: v for k, v in copy.deepcopy(record).items() if k != "takebacks"}
    assert list(VALIDATOR.iter_errors(bare)), "the schema refuses a /2 record without takebacks"

    twice = copy.deepcopy(record)
    twice["takebacks"].append(copy.deepcopy(twice["takebacks"][0]))  # never in force again
    with pytest.raises(RecordMismatch) as info:
        replay(twice)
    assert info.value.what == "takebacks[1]"

    other = copy.deepcopy(record)
    other["takebacks"][0]["seat"] = (other["takebacks"][0]["seat"] + 1) % 3
    with pytest.raises(RecordMismatch) as info:
        replay(other)
    assert info.value.what == "takebacks[0]" and "a takeback allowed (" in str(info.value.expected)
    assert str(info.value.expected).split("(")[1].split(":")[0] in ("other_player", "nothing")


def test_a_takeback_the_rules_refuse_is_not_recorded(china: Any) -> None:
    actions, _, free = china
    n = next(i for i in range(1, len(actions)) if not free[i - 1] and actions[i - 1]["type"] == "draw_deck")
    with pytest.raises(TakebackRefused) as info:
        record_of_play("china", 3, None, 5, actions[:n] + actions[n - 1 :], takebacks={n: 1})
    assert info.value.reason == RANDOM and info.value.rule == "R45"
