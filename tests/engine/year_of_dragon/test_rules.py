"""Rules not pinned by examples.md: setup by player count, options, bad input, hidden information and the
invariants of R56a along random play."""

from __future__ import annotations

import json
import random
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import RULE_OVER, RULE_SCHEMA, RULE_TURN, IllegalAction, InvalidOptions, event_visible
from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.components import (
    CARD_IDS,
    GROUP_SIZES,
    HAND_SIZE,
    SUPPLY,
    TILE_IDS,
    TILE_VALUE,
)
from engine.games.year_of_dragon.scenario import build

from .helpers import act, pending, player, refused

A, B = range(2)
ALL_ACTIONS = [["taxes", "build", "harvest", "research"], ["fireworks", "military_parade", "privilege"]]

R10_SUPPLY = {  # RULES R10 table: split types young + old, young-only types
    5: ((6, 4), 10),
    4: ((5, 3), 8),
    3: ((4, 2), 6),
    2: ((3, 1), 4),
}


def random_game(players: int, seed: int, options: dict | None = None, on_step=None):
    """Random legal play to the end; ``on_step(state, events)`` after every action."""
    state = GAME.setup(players, options, seed=seed)
    rng = random.Random(seed)
    while GAME.to_move(state) is not None:
        events = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        if on_step is not None:
            on_step(state, events)
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_by_player_count(players):
    """R3, R10, R12, R13, R14: supply per the R10 table; 6 yuan, two empty 2-floor palaces, 11 cards, markers
    on 0; the court is chosen first, in seat order from the public first player."""
    state = GAME.setup(players, None, seed=7)
    view = GAME.view(state, 0)
    (young, old), young_only = R10_SUPPLY[players]
    for tile, count in view["supply"].items():
        if tile.endswith("_y"):
            assert count == young, tile
        elif tile.endswith("_o"):
            assert count == old, tile
        else:
            assert count == young_only, tile
    for p in view["players"]:
        assert (p["yuan"], p["rice"], p["fireworks"], p["vp"], p["person_pos"]) == (6, 0, 0, 0, 0)
        assert p["palaces"] == [{"floors": 2, "persons": []}, {"floors": 2, "persons": []}]
        assert p["hand_size"] == HAND_SIZE == 11
    assert view["players"][0]["hand"] == {card: 2 if card == "wild" else 1 for card in CARD_IDS}
    assert view["phase"] == "court" and view["round"] == 0
    first = view["first_player"]
    assert view["to_move"] == first and view["turn_order"] == [(first + i) % players for i in range(players)]


def test_first_player_option():
    """R13: a given first player starts the court; otherwise one is drawn from the seed."""
    state = GAME.setup(4, {"first_player": 2}, seed=1)
    assert GAME.to_move(state) == 2 and GAME.view(state, None)["turn_order"] == [2, 3, 0, 1]
    drawn = {GAME.view(GAME.setup(4, None, seed=s), None)["first_player"] for s in range(40)}
    assert drawn == {0, 1, 2, 3}


@pytest.mark.parametrize(
    ("players", "options", "field"),
    [
        (1, {}, "players"),
        (6, {}, "players"),
        (3, {"first_player": 3}, "first_player"),
        (3, {"large_privilege_cost": 8}, "large_privilege_cost"),
        (3, {"reveal_played_card": "no"}, "reveal_played_card"),
        (3, {"open_hands": True}, "open_hands"),
    ],
)
def test_invalid_options(players, options, field):
    """R10, R13, R58a, R65: bad player counts and options are refused naming the field."""
    with pytest.raises(InvalidOptions) as info:
        GAME.setup(players, options)
    assert info.value.field == field


@settings(max_examples=60, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**64 - 1), players=st.sampled_from([2, 3, 4, 5]))
def test_se_19c_event_row_property(seed, players):
    """SE-19 (c), R11, R5: for any seed slots 1-2 are Peace, the row holds the 12 tiles (2 of each), and no
    two adjacent slots of 3-12 are equal."""
    row = GAME.view(GAME.setup(players, None, seed=seed), None)["event_row"]
    assert row[:2] == ["peace", "peace"]
    assert sorted(row) == sorted(
        ["peace", "imperial_tribute", "drought", "dragon_festival", "mongol_invasion", "contagion"] * 2
    )
    assert all(a != b for a, b in pairwise(row[2:]))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_action_groups_by_player_count(players):
    """R4, R22: the 7 cards (one per action) are dealt into groups of 4/3, 3/2/2, 2/2/2/1 or 2/2/1/1/1, all
    revealed."""
    for seed in range(5):
        groups = GAME.view(build({"players": players, "seed": seed}), None)["groups"]
        assert [len(g["actions"]) for g in groups] == list(GROUP_SIZES[players])
        assert sorted(a for g in groups for a in g["actions"]) == sorted(
            ["taxes", "build", "harvest", "fireworks", "military_parade", "research", "privilege"]
        )


def test_large_privilege_variant():
    """R65, R26, R34: with the 7-yuan variant 6 yuan buy only the small privilege, 7 the large one."""
    desc = {
        "players": 2,
        "options": {"large_privilege_cost": 7},
        "groups": [["privilege", "taxes", "build", "harvest"], ["fireworks", "military_parade", "research"]],
        "order": [0, 1],
        "stack": [1, 0],
    }
    state = build({**desc, "seats": [{"yuan": 6}, {}]})
    act(state, "action", group=0, action="privilege")  # small only: no question asked
    assert player(state, 0)["yuan"] == 4 and player(state, 0)["privileges"] == {"small": 1, "large": 0}
    state = build({**desc, "seats": [{"yuan": 7}, {}]})
    act(state, "action", group=0, action="privilege")
    act(state, "privilege", size="large")
    assert player(state, 0)["yuan"] == 0 and player(state, 0)["privileges"]["large"] == 1


def test_tribute_payer_releases_nobody():
    """R42: a player with 4 yuan or more pays 4 and keeps his persons."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 5,
            "event": "imperial_tribute",
            "seats": [{"yuan": 5, "palaces": [[2, "farmer_y", "monk_y"]]}, {"yuan": 4}],
        }
    )
    assert GAME.view(state, None)["round"] == 6
    assert player(state, 0)["yuan"] == 1 and len(player(state, 0)["palaces"][0]["persons"]) == 2
    assert player(state, 1)["yuan"] == 0


def test_festival_without_fireworks():
    """R44: only players with fireworks take part; with none, nobody scores."""
    state = build({"players": 3, "phase": "event", "round": 6, "event": "dragon_festival"})
    assert [player(state, p)["vp"] for p in range(3)] == [0, 0, 0]


def test_wild_card_with_empty_supply():
    """R36: with the whole supply empty every card, wild included, is spent for nothing."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "order": [0, 1],
            "stack": [1, 0],
            "seats": [{"palaces": [[2]]}, {}],
            "supply": dict.fromkeys(TILE_IDS, 0),
        }
    )
    legal = GAME.legal_actions(state)
    assert legal == [{"type": "spend", "card": card} for card in CARD_IDS]
    act(state, "spend", card="wild")
    assert player(state, 0, 0)["hand"]["wild"] == 1


def test_bad_input_is_refused_and_changes_nothing():
    """Bad input: unknown type, missing/extra/ill-typed fields, unknown values, the wrong seat and a
    finished game raise IllegalAction naming the rule or the field; the state is unchanged."""
    state = build(
        {
            "players": 3,
            "groups": [
                ["taxes", "build", "harvest"],
                ["fireworks", "research"],
                ["military_parade", "privilege"],
            ],
            "order": [0, 1, 2],
            "stack": [2, 1, 0],
        }
    )
    cases = [
        ({"type": "teleport"}, RULE_SCHEMA, "type"),
        ({"type": "action", "group": 0}, RULE_SCHEMA, "action"),
        ({"type": "action", "group": 0, "action": "taxes", "extra": 1}, RULE_SCHEMA, "extra"),
        ({"type": "action", "group": "0", "action": "taxes"}, RULE_SCHEMA, "group"),
        ({"type": "action", "group": True, "action": "taxes"}, RULE_SCHEMA, "group"),
        ({"type": "action", "group": 0.0, "action": "taxes"}, RULE_SCHEMA, "group"),
        ({"type": "action", "group": 0, "action": "juggling"}, RULE_SCHEMA, "action"),
        ({"type": "action", "group": 7, "action": "taxes"}, "R22", "group"),
        ({"type": "action", "group": 1, "action": "taxes"}, "R23", None),
        ({"type": "place", "palace": 0}, "R23", "type"),
        ({"type": "recruit", "card": "joker", "person": "monk_y"}, RULE_SCHEMA, "card"),
    ]
    for action, rule, field in cases:
        assert refused(state, action, rule).field == field, action
    refused(state, {"type": "refill"}, RULE_TURN, seat=1)
    over = build({"players": 2, "phase": "final"})
    with pytest.raises(IllegalAction) as info:
        GAME.apply(over, {"type": "refill"})
    assert info.value.rule == RULE_OVER


def test_view_shows_own_hand_only():
    """R58: each seat sees its own hand and the others' hand sizes; a spectator sees no hand."""
    state = build({"players": 3, "phase": "person", "round": 3})
    for seat in (None, 0, 1, 2):
        for p in GAME.view(state, seat)["players"]:
            assert ("hand" in p) == (p["seat"] == seat)
            assert p["hand_size"] == 9


def test_future_deals_are_not_in_the_state():
    """R58b: the groups of a month are dealt at its start from the state's RNG, so copies that differ
    only in the RNG (determinize) deal different groups after the same action: no deal existed before."""
    # The last seat of month 2's Person phase owns no palace: its recruit ends the month (Peace).
    state = build(
        {"players": 3, "phase": "person", "round": 2, "order": [0, 1, 2], "stack": [2, 1, 0], "turn": 2}
    )
    action = GAME.legal_actions(state)[0]
    deals = set()
    for r in range(10):
        sample = GAME.determinize(state, 2, random.Random(r))
        GAME.apply(sample, action)
        view = GAME.view(sample, None)
        assert (view["round"], view["phase"]) == (3, "action")
        deals.add(json.dumps(view["groups"]))
    assert len(deals) > 1


def test_hidden_played_cards_are_resampled_consistently():
    """R58a: with reveal_played_card=false, determinize gives each other seat a hand and played cards
    consistent with the public record (a recruited tile of type t was paid with the t card or a wild card;
    a card that got nothing was of an exhausted type, or wild with an empty supply), and it does resample."""
    records: list[tuple[str, str | None, dict]] = []  # (seat 0's public plays as seat 1 sees them)
    differed = False

    def on_step(state, events):
        nonlocal differed
        for ev in events:
            if ev["type"] == "action" and ev["seat"] == 0 and event_visible(ev, 1):
                action = ev["action"]
                if action["type"] in ("recruit", "spend"):
                    assert action["card"] == "hidden"
                    records.append((action["type"], action.get("person"), supply_before))
        truth = GAME.view(state, 0)["players"][0]
        sample = GAME.determinize(state, 1, random.Random(len(records)))
        seen = GAME.view(sample, 0)["players"][0]  # seat 0's own view of the resampled seat 0
        assert len(seen["played"]) == len(records) and seen["hand_size"] == truth["hand_size"]
        for card, (kind, tile, supply) in zip(seen["played"], records, strict=True):
            if kind == "recruit":
                assert card in ("wild", tile.rsplit("_", 1)[0] if tile.endswith(("_y", "_o")) else tile)
            elif card == "wild":
                assert not any(supply.values())
            else:
                assert all(n == 0 for t, n in supply.items() if t == card or t.startswith(card + "_"))
        differed = differed or seen["played"] != truth["played"]

    for seed in range(3):
        records.clear()
        state = GAME.setup(3, {"reveal_played_card": False}, seed=seed)
        rng = random.Random(seed)
        while GAME.to_move(state) is not None:
            supply_before = dict(GAME.view(state, None)["supply"])
            events = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
            on_step(state, events)
    assert differed, "determinize never resampled a hidden hand"


@settings(max_examples=8, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32), players=st.sampled_from([2, 3, 4, 5]))
def test_invariants_along_random_play(seed, players):
    """R15, R17, R18, R21, R50, R56a and RULES section 15: along random play palaces have 1-3 floors and no
    more persons than floors, markers never move back and stay at or above the value of the persons held,
    held + supply never exceed R10, hands match the month, every pending decision is a real choice
    (forced ones are resolved by the engine), and the game ends after month 12 with empty hands."""
    limit = dict(zip(TILE_IDS, SUPPLY[players], strict=True))
    last_pos = [0] * players

    def on_step(state, events):
        view = GAME.view(state, None)
        held = dict.fromkeys(TILE_IDS, 0)
        for p in view["players"]:
            persons = [t for pal in p["palaces"] for t in pal["persons"]]
            assert all(
                1 <= pal["floors"] <= 3 and len(pal["persons"]) <= pal["floors"] for pal in p["palaces"]
            )
            assert p["person_pos"] >= last_pos[p["seat"]]
            assert p["person_pos"] >= sum(TILE_VALUE[TILE_IDS.index(t)] for t in persons)
            last_pos[p["seat"]] = p["person_pos"]
            for t in persons:
                held[t] += 1
            if view["phase"] in ("action", "build", "privilege"):
                assert p["hand_size"] == HAND_SIZE - (view["round"] - 1)
        assert all(held[t] + view["supply"][t] <= limit[t] for t in TILE_IDS)
        if view["to_move"] is not None:
            assert len(GAME.legal_actions(state)) >= 2, view["pending"]

    state = random_game(players, seed, None, on_step)
    view = GAME.view(state, None)
    assert view["round"] == 12 and view["phase"] == "over" and view["pending"] is None
    assert all(p["hand_size"] == 0 for p in view["players"])
    assert GAME.result(state)["scores"] == [p["vp"] for p in view["players"]]
    assert pending(state) is None


@pytest.mark.parametrize("reveal", [True, False])
def test_forced_person_play_is_asked_when_cards_are_hidden(reveal):
    """R58a (regression): in month 11 B holds only the Healer card and one healer tile is left, so the play
    is forced.  With played cards public the engine plays it during A's move; with them hidden it must ask
    B, because an automatic play would tell A that B's last card was not the wild one."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "round": 11,
            "event": "dragon_festival",  # nobody has fireworks: nothing happens
            "options": {"reveal_played_card": reveal},
            "stack": [1, 0],
            "seats": [{"palaces": [[2]]}, {"palaces": [[2]], "hand": ["healer"]}],
            "supply": {"healer_y": 0, "healer_o": 1},
        }
    )
    events = act(state, "recruit", card="wild", person="monk_y")  # A
    seen_by_a = [e for e in events if e["type"] == "action" and event_visible(e, 0) and e["seat"] == 1]
    if reveal:
        assert [e["action"] for e in seen_by_a] == [
            {"type": "recruit", "card": "healer", "person": "healer_o"},
            {"type": "place", "palace": 0},
        ]
    else:
        assert seen_by_a == [] and pending(state) == {"seat": 1, "decision": "person", "rule": "R36"}
        assert GAME.legal_actions(state) == [{"type": "recruit", "card": "healer", "person": "healer_o"}]
        events = act(state, "recruit", card="healer", person="healer_o")
        assert next(e["action"] for e in events if e["type"] == "action" and event_visible(e, 0)) == {
            "type": "recruit",
            "card": "hidden",
            "person": "healer_o",
        }


def test_releases_outside_their_rule_are_refused_naming_it():
    """R17, R37, R67 (regression): a release when no event demands one names R17 (no voluntary release),
    a replacement or a released newcomer while a floor is free names R37 (R67), not the rule of whatever
    decision happens to be pending."""
    state = build({"players": 2, "round": 4, "stack": [1, 0], "seats": [{"palaces": [[2, "monk_y"]]}, {}]})
    refused(state, {"type": "release", "palace": 0, "person": "monk_y"}, "R17")
    refused(state, {"type": "replace", "palace": 0, "person": "monk_y"}, "R37")
    state = build(
        {
            "players": 2,
            "phase": "person",
            "round": 4,
            "stack": [1, 0],
            "seats": [{"palaces": [[2, "monk_y"], [1]]}, {}],
        }
    )
    act(state, "recruit", card="farmer", person="farmer_y")
    assert pending(state)["decision"] == "place"  # two palaces have a free floor
    refused(state, {"type": "release_newcomer"}, "R37")
    refused(state, {"type": "replace", "palace": 0, "person": "monk_y"}, "R37")
    refused(state, {"type": "release", "palace": 0, "person": "monk_y"}, "R17")


def test_everything_on_the_table_is_public():
    """R57: a spectator sees the event row, the person supply, the dealt groups with their dragons, every
    seat's palaces and persons, yuan, rice, fireworks, privileges, both tracks and the played cards."""
    state = build(
        {
            "players": 2,
            "round": 3,
            "groups": ALL_ACTIONS,
            "dragons": [1, 0],
            "stack": [0, 1],
            "turn": 1,
            "seats": [
                {"yuan": 2, "rice": 3, "fireworks": 4, "vp": 17, "small": 1, "palaces": [[2, "monk_y"]]},
                {"yuan": 9, "large": 2, "pos": 30, "palaces": [[3, "farmer_o", "court_lady"], [1]]},
            ],
            "supply": {"monk_y": 1},
        }
    )
    view = GAME.view(state, None)
    assert len(view["event_row"]) == 12 and view["supply"]["monk_y"] == 1
    assert view["groups"] == [
        {"actions": ALL_ACTIONS[0], "dragons": 1},
        {"actions": ALL_ACTIONS[1], "dragons": 0},
    ]
    a, b = view["players"]
    assert (a["yuan"], a["rice"], a["fireworks"], a["vp"], a["person_pos"]) == (2, 3, 4, 17, 6)
    assert a["privileges"] == {"small": 1, "large": 0} and b["privileges"] == {"small": 0, "large": 2}
    assert b["palaces"] == [
        {"floors": 3, "persons": ["court_lady", "farmer_o"]},
        {"floors": 1, "persons": []},
    ]
    assert (b["yuan"], b["person_pos"]) == (9, 30)
    assert a["played"] == b["played"] == ["craftsman", "court_lady"]  # the discard pile
    assert view["track_order"] == [B, A]
