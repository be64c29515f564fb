"""The board and its pieces as setup lays them out and the view shows them (R1-R8, R15, R18, R120),
and the absence of any trading between players (R32a)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.games.confucius import GAME
from engine.games.confucius.components import GIFT_PRICE, GIFT_VALUES
from engine.games.confucius.scenario import build

from .helpers import act, events_of, view

#: R7, copied from the RULES.md table: cost per army and the boxes (VP, reward icon) of each tile.
FOREIGN_LANDS = {
    "annam": (8, [(4, False), (3, True)]),
    "yunnan": (4, [(4, False), (2, True)]),
    "mongolia": (6, [(3, True), (2, False), (4, False)]),
    "korea": (7, [(4, False), (3, True), (4, False)]),
    "manchuria": (5, [(3, False), (2, False), (5, False), (3, True)]),
}
GREEN_CHITS = Counter([4, 4, 5, 5, 6, 6, 7, 7, 8, 8])  # R5
BLUE_CHITS = Counter([2, 2, 3, 3, 4, 4, 4])
OFFICIAL_COSTS = Counter({2: 3, 3: 4, 4: 5, 5: 5, 6: 4, 7: 3})  # R3


def test_the_view_shows_every_board_area():
    """Rule R1: examination box (candidate, red and orange student spaces), score track, Gift Tracker,
    three ministries, foreign lands with the Great Wall, Distant Lands with each player's shipyard
    and ocean, and the Actions Box, whose spaces show the cubes placed on them."""
    state = GAME.setup(3, seed=2)
    v = view(state)
    assert v["candidate"] and v["students"] == {"red": None, "orange": None}
    assert [p["score"] for p in v["players"]] == [0, 0, 0] and v["gift_tracker"] == []
    assert len(v["ministries"]) == 3 and len(v["foreign_lands"]) == 3 and v["great_wall"] == 0
    assert len(v["distant_lands"]) == 5
    assert all(p["shipyard"] == 0 and p["ocean"] == 0 for p in v["players"])
    mover = GAME.to_move(state)
    act(state, mover, "tax_income")
    assert view(state)["players"][mover]["cubes_placed"] == {"tax_income": 1}


def test_ministries_spaces_and_starting_officials():
    """Rules R2, R3, R15, R129: Bingbu, Hubu, Gongbu in that order, seven numbered spaces each, three
    unbribed officials from the 24 tiles on spaces 3-5 and the other 15 in the stack; which tile lands
    where is random."""
    layouts = set()
    for seed in range(6):
        v = view(GAME.setup(4, seed=seed))
        assert [m["ministry"] for m in v["ministries"]] == ["bingbu", "hubu", "gongbu"]
        costs = Counter()
        for m in v["ministries"]:
            assert [s["space"] for s in m["spaces"]] == [1, 2, 3, 4, 5, 6, 7]
            assert [s["space"] for s in m["spaces"] if s["tile"] is not None] == [3, 4, 5]
            assert m["minister"] is None and m["secretary"] is None
            costs.update(s["tile"] for s in m["spaces"] if s["tile"] is not None)
        assert not costs - OFFICIAL_COSTS and v["official_stack"] == 24 - 9
        layouts.add(tuple(s["tile"] for m in v["ministries"] for s in m["spaces"]))
    assert len(layouts) > 1


def test_victory_point_chits_and_distant_lands():
    """Rules R5, R6, R14: six of the ten green chits (the higher of each pair for the Minister) and five of
    the seven blue ones, one on each of the five named Distant Lands."""
    for seed in range(6):
        v = view(GAME.setup(3, seed=seed))
        green = Counter(c for m in v["ministries"] for c in (m["minister_chit"], m["secretary_chit"]))
        assert sum(green.values()) == 6 and not green - GREEN_CHITS
        lands = v["distant_lands"]
        assert [d["land"] for d in lands] == ["spice_islands", "india", "arabia", "africa", "americas"]
        blue = Counter(d["chit"] for d in lands)
        assert sum(blue.values()) == 5 and not blue - BLUE_CHITS
        assert all(d["reached_by"] == [] for d in lands)


def test_a_gift_costs_its_value():
    """Rule R51 (R11: values 1-6): buying a gift costs its value in coins (the value-1 gift is available
    from the start, R20, and never bought).  So the dearer the value the dearer the gift, which the legal
    actions rely on: they offer gifts by value and stop at the first the buyer cannot pay."""
    assert GIFT_VALUES == (1, 2, 3, 4, 5, 6)
    assert [GIFT_PRICE[v - 1] for v in GIFT_VALUES[1:]] == list(GIFT_VALUES[1:])
    assert list(GIFT_PRICE) == sorted(GIFT_PRICE)


def test_foreign_land_tiles_match_the_table():
    """Rules R7, R16: three of the five tiles, each with its cost per army and boxes as printed; over a few
    seeds every tile turns up."""
    seen = set()
    for seed in range(12):
        tiles = view(GAME.setup(3, seed=seed))["foreign_lands"]
        assert [t["position"] for t in tiles] == [1, 2, 3] and len({t["land"] for t in tiles}) == 3
        for t in tiles:
            cost, boxes = FOREIGN_LANDS[t["land"]]
            assert t["cost_per_army"] == cost and t["state"] == "unresolved"
            assert [(b["vp"], b["reward_card"]) for b in t["boxes"]] == boxes
            seen.add(t["land"])
    assert seen == set(FOREIGN_LANDS)


@pytest.mark.parametrize(("position", "deadline"), [(1, 4), (2, 6), (3, 8)])
def test_each_position_fails_at_its_own_wall_piece(position, deadline):
    """Rules R8, R93: an unfinished tile on position 1, 2, 3 fails when the 4th, 6th, 8th wall piece is
    placed, not a round earlier."""

    def after_court(round_: int) -> str:
        desc = {
            "players": 3,
            "round": round_,
            "phase": "court",
            "foreign_lands": {str(position): {"land": "yunnan", "boxes": ["yellow", None]}},
        }
        return view(build(desc))["foreign_lands"][position - 1]["state"]

    assert after_court(deadline - 1) == "unresolved"
    assert after_court(deadline) == "failed"


def test_the_reward_stack_is_ten_shuffled_face_down_cards():
    """Rules R10, R18: ten cards whose order only the seed decides: the card a first voyage earns differs
    from game to game, and the view shows the stack as a count."""
    drawn = set()
    for seed in range(8):
        state = build(
            {
                "players": ["yellow", "purple", "green"],
                "seed": seed,
                "round": 2,
                "chief_minister": "green",
                "junks": {"yellow": {"ocean": 4, "shipyard": 1}},
                "hands": {"yellow": [1]},
            }
        )
        assert view(state)["reward_stack"] == 10
        act(state, 0, "start_voyage", count=1)
        act(state, 0, "choose_distant_land", land="india")
        (card,) = view(state, 0)["players"][0]["rewards"]
        drawn.add(card)
    assert len(drawn) > 1


def test_candidates_bingbu_hubu_gongbu_come_first_in_random_order():
    """Rules R17, R120: the three specific candidates are shuffled on top of the three Any ones: each of
    them is the first candidate in some game, and the stack below holds the other two and 3 Any."""
    first = set()
    for seed in range(12):
        v = view(GAME.setup(3, seed=seed))
        first.add(v["candidate"])
        rest = {"bingbu", "hubu", "gongbu"} - {v["candidate"]}
        assert sorted(v["candidate_stack"]["ministries"]) == sorted(rest)
        assert v["candidate_stack"]["any"] == 3
    assert first == {"bingbu", "hubu", "gongbu"}


def test_no_action_hands_anything_to_another_player():
    """Rule R32a: only Give Gift and Transfer Influence hand something to another player; along a random
    advanced game no Confucius card ever reaches a hand except by being drawn."""
    assert {k for k, s in GAME.actions.items() if "recipient" in s["properties"]} == {
        "give_gift",
        "transfer_influence",
    }
    state = GAME.setup(4, {"advanced": True}, seed=7)
    rng = random.Random(7)
    while GAME.to_move(state) is not None:
        before = [p["cards"] for p in view(state)["players"]]
        events = GAME.apply(state, rng.choice(GAME.legal_actions(state)))
        drawn = Counter()
        for e in events_of(events, "drew"):
            if e["visible_to"] == "others":
                drawn[e["seat"]] += e["count"]
        after = [p["cards"] for p in view(state)["players"]]
        assert all(after[p] <= before[p] + drawn[p] for p in range(4))
