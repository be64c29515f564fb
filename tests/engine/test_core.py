"""Unit tests of the shared core helpers (engine/core.py)."""

import random

import pytest

from engine.core import (
    RULE_OVER,
    RULE_SCHEMA,
    RULE_TURN,
    IllegalAction,
    InvalidOptions,
    Rng,
    action_events,
    action_schema,
    check_shape,
    check_turn,
    event_visible,
    pack,
    resolve_options,
    unpack,
)

ACTIONS = {
    "take": action_schema("take", "take a thing", index={"type": "integer"}, name={"type": "string"}),
    "pass": action_schema("pass", "do nothing"),
}


def test_rng_is_deterministic_and_copyable():
    a, b = Rng(42), Rng(42)
    assert [a.next64() for _ in range(5)] == [b.next64() for _ in range(5)]
    c = a.copy()
    assert a.below(1000) == c.below(1000)
    assert Rng(1).next64() != Rng(2).next64()


def test_rng_below_is_in_range_and_covers_it():
    r = Rng(3)
    seen = {r.below(6) for _ in range(600)}
    assert seen == set(range(6))


def test_rng_shuffle_is_a_permutation():
    r = Rng(5)
    items = list(range(20))
    r.shuffle(items)
    assert sorted(items) == list(range(20)) and items != list(range(20))


def test_reseeded_draws_from_the_bot_rng():
    assert Rng.reseeded(random.Random(1)).s == Rng.reseeded(random.Random(1)).s
    assert Rng.reseeded(random.Random(1)).s != Rng.reseeded(random.Random(2)).s


def test_event_visibility():
    private, public = action_events(1, {"type": "play", "card": "x"}, public={"type": "play"})
    assert event_visible(private, 1) and not event_visible(private, 0) and not event_visible(private, None)
    assert event_visible(public, 0) and event_visible(public, None) and not event_visible(public, 1)
    (only,) = action_events(2, {"type": "pass"})
    assert all(event_visible(only, s) for s in (None, 0, 1, 2))


def test_resolve_options_defaults_and_errors():
    schema = {
        "properties": {
            "flag": {"type": "boolean", "default": True},
            "cost": {"type": "integer", "enum": [6, 7], "default": 6},
        }
    }
    assert resolve_options(schema, None) == {"flag": True, "cost": 6}
    assert resolve_options(schema, {"cost": 7}) == {"flag": True, "cost": 7}
    with pytest.raises(InvalidOptions) as e:
        resolve_options(schema, {"cost": 8})
    assert e.value.field == "cost"
    with pytest.raises(InvalidOptions) as e:
        resolve_options(schema, {"flag": 1})
    assert e.value.field == "flag"
    with pytest.raises(InvalidOptions) as e:
        resolve_options(schema, {"bogus": 1})
    assert e.value.field == "bogus"


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ({"type": "nope"}, "type"),
        ({"index": 1}, "type"),
        ({"type": "take", "index": 1}, "name"),
        ({"type": "take", "index": 1, "name": "a", "x": 0}, "x"),
        ({"type": "take", "index": "1", "name": "a"}, "index"),
        ({"type": "take", "index": True, "name": "a"}, "index"),
        ({"type": "take", "index": 1, "name": 5}, "name"),
    ],
)
def test_check_shape_names_the_field(action, field):
    with pytest.raises(IllegalAction) as e:
        check_shape(ACTIONS, action)
    assert e.value.rule == RULE_SCHEMA and e.value.field == field


def test_check_shape_accepts_well_formed():
    assert check_shape(ACTIONS, {"type": "take", "index": 0, "name": "a"}) == "take"
    assert check_shape(ACTIONS, {"type": "pass"}) == "pass"
    with pytest.raises(IllegalAction):
        check_shape(ACTIONS, ["pass"])


def test_check_turn():
    assert check_turn(2, None) == 2 and check_turn(2, 2) == 2
    with pytest.raises(IllegalAction) as e:
        check_turn(2, 1)
    assert e.value.rule == RULE_TURN
    with pytest.raises(IllegalAction) as e:
        check_turn(None, 1)
    assert e.value.rule == RULE_OVER


def test_pack_roundtrip_and_refusals():
    data = pack("g", 1, {"a": [1, 2]})
    assert unpack("g", {1}, data) == (1, {"a": [1, 2]})
    with pytest.raises(ValueError, match="not 'h'"):
        unpack("h", {1}, data)
    with pytest.raises(ValueError, match="version"):
        unpack("g", {2}, data)
    with pytest.raises(ValueError):
        unpack("g", {1}, b"garbage")
