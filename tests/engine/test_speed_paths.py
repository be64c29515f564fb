"""The fast paths of the engine's inner loop keep the contract: prebuilt action objects are shared yet
never corrupted, a listed object skips the shape check without letting a look-alike through, and the
engine benchmark against python_liars_poker runs (its numbers are bench output, never asserted)."""

from __future__ import annotations

import random

import pytest

from bench.engine import versus_liars_poker
from engine.core import RULE_SCHEMA, ActionTable, IllegalAction
from engine.registry import GAMES


def test_action_table_builds_each_action_once() -> None:
    built: list[int] = []

    def build(key: int) -> dict[str, object]:
        built.append(key)
        return {"type": "place", "palace": key}

    table: ActionTable[int] = ActionTable(build)
    first = table[3]
    assert first == {"type": "place", "palace": 3}
    assert table[3] is first
    assert table[4] == {"type": "place", "palace": 4}
    assert built == [3, 4]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_prebuilt_actions_survive_a_caller_changing_its_list(game_id: str) -> None:
    """Random play where the caller reorders and cuts every list it gets: the shared action objects
    and the cached list stay intact, so a second identical game replays to the same bytes."""
    game = GAMES[game_id]

    def play(mangle: bool) -> bytes:
        rng = random.Random(5)
        state = game.setup(game.min_players, None, seed=11)
        for _ in range(120):
            if game.to_move(state) is None:
                break
            legal = game.legal_actions(state)
            action = rng.choice(legal)
            if mangle:
                legal.reverse()
                del legal[: len(legal) // 2]
            game.apply(state, action)
        return game.encode(state)

    assert play(mangle=True) == play(mangle=False)


#: Games with integer action fields: only an integer has look-alikes of another type (True, 1.0).
_WITH_INTEGERS = sorted(
    gid
    for gid, game in GAMES.items()
    if any(
        f.get("type") == "integer" for schema in game.actions.values() for f in schema["properties"].values()
    )
)


@pytest.mark.parametrize("game_id", _WITH_INTEGERS)
def test_an_equal_copy_is_accepted_and_a_look_alike_is_refused(game_id: str) -> None:
    """The identity fast path of ``apply``: a copy of a listed action (what HTTP clients send) is
    accepted; one with a value equal to but not of the declared type (``1.0`` for ``1``) is refused
    by the shape check (RULE_SCHEMA) and changes nothing."""
    game = GAMES[game_id]
    rng = random.Random(2)
    state = game.setup(game.min_players, None, seed=3)
    refused_look_alike = False
    while game.to_move(state) is not None and not refused_look_alike:
        for action in game.legal_actions(state):
            field = next((k for k, v in action.items() if type(v) is int), None)
            if field is not None:
                before = game.encode(state)
                with pytest.raises(IllegalAction) as refused:
                    game.apply(state, {**action, field: float(action[field])})
                assert refused.value.rule == RULE_SCHEMA
                assert refused.value.field == field
                assert game.encode(state) == before
                refused_look_alike = True
                break
        game.apply(state, dict(rng.choice(game.legal_actions(state))))
    assert refused_look_alike, "no action with an integer field came up"


def test_versus_liars_poker_benchmark_runs() -> None:
    rates = versus_liars_poker("taj_mahal", 3, seconds=0.06, seed=1, rounds=1)
    assert set(rates) == {"engine", "clone", "liars_poker", "liars_poker_steps"}
    assert all(rate > 0 for rate in rates.values())
    assert rates["liars_poker_steps"] > rates["liars_poker"]  # deals are steps but not decisions
