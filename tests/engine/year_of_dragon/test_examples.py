"""Every scenario of examples.md (shared/games/year_of_dragon), one test each, named after its id.

Seats: Anna 0, Ben 1, Clara 2, David 3, Emil 4 (part B: A 0, B 1, C 2).  States come from the scenario
builder; actions go through ``GAME.apply``; results are read through ``GAME.view`` / ``GAME.result``.
"""

from __future__ import annotations

from engine.core import event_visible
from engine.games.year_of_dragon import GAME
from engine.games.year_of_dragon.components import EVENT_INDEX
from engine.games.year_of_dragon.scenario import build
from engine.games.year_of_dragon.setup import event_row

from .helpers import act, norm, palaces, pending, player, refused

ANNA, BEN, CLARA, DAVID, EMIL = range(5)
A, B, C = range(3)


def court(first: str, second: str) -> dict[str, str]:
    return {"type": "court", "first": first, "second": second}


# -- Part A: seed examples ----------------------------------------------------------------------------


def test_se_01_initial_court_and_stacking():
    """SE-01 (R14, R18, R19): the court draft refuses repeated pairs, equal types and old tiles; the
    markers stack; round-1 order follows the track."""
    state = build({"players": 4, "phase": "court", "options": {"first_player": ANNA}})
    for first, second in (
        ("tax_collector", "scholar_y"),
        ("tax_collector", "farmer_y"),
        ("farmer_y", "scholar_y"),
    ):
        act(state, "court", first=first, second=second)
        act(state, "place", palace=0)  # one tile in each palace
        act(state, "place", palace=1)
    assert GAME.to_move(state) == DAVID
    for pair in (("tax_collector", "scholar_y"), ("tax_collector", "farmer_y"), ("farmer_y", "scholar_y")):
        assert "R14b" in refused(state, court(*pair), "R14").message  # pair taken
    assert "R14b" in refused(state, court("farmer_y", "tax_collector"), "R14").message  # order irrelevant
    assert "R14a" in refused(state, court("tax_collector", "tax_collector"), "R14").message  # same type
    assert "young" in refused(state, court("warrior_y", "monk_o"), "R14").message  # old tile
    act(state, "court", first="warrior_y", second="monk_y")
    act(state, "place", palace=0)
    act(state, "place", palace=1)
    view = GAME.view(state, None)
    assert [p["person_pos"] for p in view["players"]] == [7, 7, 8, 11]
    assert view["track_order"].index(BEN) < view["track_order"].index(ANNA)  # Ben on top of Anna
    assert view["round"] == 1 and view["phase"] == "action"
    assert view["turn_order"] == [DAVID, CLARA, BEN, ANNA]
    supply = view["supply"]
    assert (supply["tax_collector"], supply["scholar_y"], supply["farmer_y"]) == (6, 3, 3)
    assert (supply["monk_y"], supply["warrior_y"]) == (4, 4)
    assert supply["monk_o"] == supply["warrior_o"] == supply["scholar_o"] == supply["farmer_o"] == 3


GROUPS_4 = [["taxes", "research"], ["build", "harvest"], ["fireworks", "military_parade"], ["privilege"]]


def test_se_02_occupied_group_fee():
    """SE-02 (R24): a group with dragons costs a flat 3 yuan; without 3 yuan it cannot be chosen."""
    desc = {
        "players": 4,
        "round": 3,
        "groups": GROUPS_4,
        "dragons": [2, 0, 0, 0],
        "order": [ANNA, BEN, DAVID, CLARA],
        "stack": [CLARA, DAVID, BEN, ANNA],  # all on 0, Anna on top (R19)
        "turn": 2,
        "seats": [{}, {}, {}, {"yuan": 7}],
    }
    state = build(desc)
    act(state, "action", group=0, action="research")
    david = player(state, DAVID)
    assert (david["yuan"], david["vp"]) == (4, 1)
    assert GAME.view(state, None)["groups"][0]["dragons"] == 3

    state = build({**desc, "seats": [{}, {}, {}, {"yuan": 2}]})
    legal = GAME.legal_actions(state)
    assert not [a for a in legal if a.get("group") == 0]
    refused(state, {"type": "action", "group": 0, "action": "research"}, "R24")
    assert {"type": "action", "group": 1, "action": "build"} in legal
    assert {"type": "refill"} in legal


def test_se_03_refill():
    """SE-03 (R25): refilling raises the yuan to 3, places no dragon and ends Emil's turn."""
    state = build(
        {
            "players": 5,
            "round": 2,
            "order": [EMIL, ANNA, BEN, CLARA, DAVID],
            "stack": [DAVID, CLARA, BEN, ANNA, EMIL],
            "seats": [{}] * 4 + [{"yuan": 1}],
        }
    )
    act(state, "refill")
    view = GAME.view(state, None)
    assert view["players"][EMIL]["yuan"] == 3
    assert all(g["dragons"] == 0 for g in view["groups"])
    assert view["to_move"] == ANNA


def test_se_04_taxes():
    """SE-04 (R24, R28): 2 yuan from the card; David pays the fee, then 2 + 3 + 3."""
    state = build(
        {
            "players": 4,
            "round": 2,
            "groups": GROUPS_4,
            "order": [CLARA, DAVID, ANNA, BEN],
            "stack": [BEN, ANNA, CLARA, DAVID],
            "seats": [
                {},
                {},
                {"yuan": 0, "pos": 10},
                {"yuan": 5, "palaces": [[2, "tax_collector", "tax_collector"]]},
            ],
        }
    )
    act(state, "action", group=0, action="taxes")
    act(state, "action", group=0, action="taxes")
    assert player(state, CLARA)["yuan"] == 2
    assert player(state, DAVID)["yuan"] == 10


def test_se_05_build():
    """SE-05 (R29, R66): 1 + 2 hammers = 3 floors, placed as +2 on B and a new 1-floor palace C, which may
    stand empty."""
    state = build(
        {
            "players": 5,
            "round": 2,
            "order": [EMIL, ANNA, BEN, CLARA, DAVID],
            "stack": [DAVID, CLARA, BEN, ANNA, EMIL],
            "groups": [
                ["build", "taxes"],
                ["harvest", "research"],
                ["fireworks"],
                ["military_parade"],
                ["privilege"],
            ],
            "seats": [{}] * 4 + [{"palaces": [[2, "craftsman", "craftsman"], [1, "healer_y"]]}],
        }
    )
    act(state, "action", group=0, action="build")
    assert pending(state)["floors_left"] == 3
    act(state, "build_floor", palace=1)
    act(state, "build_floor", palace=1)
    assert pending(state) == {"seat": EMIL, "decision": "build", "rule": "R29", "floors_left": 1}
    act(state, "build_palace")
    assert palaces(state, EMIL) == norm([[2, "craftsman", "craftsman"], [3, "healer_y"], [1]])
    assert GAME.to_move(state) == ANNA


def test_se_06_harvest():
    """SE-06 (R30): 1 + 1 (young farmer) + 2 (old farmer) rice."""
    state = build(
        {
            "players": 3,
            "seats": [{"palaces": [[2, "farmer_y", "farmer_o"]]}, {}, {}],
            "order": [0, 1, 2],
            "stack": [2, 1, 0],
        }
    )
    group = next(i for i, g in enumerate(GAME.view(state, None)["groups"]) if "harvest" in g["actions"])
    act(state, "action", group=group, action="harvest")
    assert player(state, ANNA)["rice"] == 4


def test_se_07_military_parade():
    """SE-07 (R32, R18, R20): Ben moves 1 + 2 + 2 = 5 onto Clara's space, on top of her; the running
    phase keeps its order, the next phase has Ben before Clara."""
    state = build(
        {
            "players": 3,
            "round": 4,
            "seats": [{"pos": 3}, {"pos": 10, "palaces": [[2, "warrior_o", "warrior_o"]]}, {"pos": 15}],
            "groups": [
                ["military_parade", "taxes", "build"],
                ["harvest", "research"],
                ["fireworks", "privilege"],
            ],
        }
    )
    assert GAME.view(state, None)["turn_order"] == [CLARA, BEN, ANNA]
    act(state, "refill")  # Clara
    act(state, "action", group=0, action="military_parade")
    view = GAME.view(state, None)
    assert view["players"][BEN]["person_pos"] == 15
    assert view["turn_order"] == [CLARA, BEN, ANNA] and view["to_move"] == ANNA
    assert view["track_order"] == [BEN, CLARA, ANNA]
    act(state, "refill")  # Anna ends Phase 1
    assert GAME.view(state, None)["turn_order"] == [BEN, CLARA, ANNA]


def test_se_08_research():
    """SE-08 (R33, R61): one young (2 books) and one old scholar (3 books): 20 + 1 + 2 + 3 = 26."""
    state = build(
        {
            "players": 4,
            "order": [DAVID, ANNA, BEN, CLARA],
            "stack": [CLARA, BEN, ANNA, DAVID],
            "groups": GROUPS_4,
            "seats": [{}, {}, {}, {"vp": 20, "palaces": [[2, "scholar_y", "scholar_o"]]}],
        }
    )
    act(state, "action", group=0, action="research")
    assert player(state, DAVID)["vp"] == 26


def test_se_09_imperial_tribute():
    """SE-09 (R42, R49, R56): Anna pays 4; Clara pays the 2 she has (never below 0) and releases 2 persons
    of her choice; the palace she empties decays."""
    state = build(
        {
            "players": 3,
            "phase": "event",
            "round": 5,
            "event": "imperial_tribute",
            "seats": [
                {"yuan": 9, "palaces": [[2, "farmer_o"]]},
                {"yuan": 4},
                {"yuan": 2, "palaces": [[2, "farmer_y", "healer_y"], [2, "monk_y", "scholar_y"]]},
            ],
        }
    )
    assert player(state, ANNA)["yuan"] == 5
    assert player(state, CLARA)["yuan"] == 0
    assert pending(state) == {
        "seat": CLARA,
        "decision": "release",
        "rule": "R42",
        "owed": 2,
        "event": "imperial_tribute",
    }
    act(state, "release", palace=1, person="monk_y")
    # The second release (the scholar, the only person left after the monk in palace order) was forced.
    assert palaces(state, CLARA) == norm([[2, "farmer_y", "healer_y"], [1]])
    assert GAME.view(state, None)["round"] == 6


def test_se_10_drought():
    """SE-10 (R43, R49, R69): Anna feeds her 3 inhabited palaces (4 - 3 = 1 rice left), her empty palace
    decays; Ben has no rice and releases one person of his choice from each of his 3 palaces."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 6,
            "event": "drought",
            "seats": [
                {"rice": 4, "pos": 30, "palaces": [[1, "farmer_y"], [1, "monk_y"], [1, "healer_y"], [2]]},
                {
                    "rice": 0,
                    "palaces": [[2, "farmer_y", "monk_y"], [2, "healer_y", "warrior_y"], [1, "scholar_y"]],
                },
            ],
        }
    )
    assert player(state, ANNA)["rice"] == 1
    assert pending(state)["seat"] == BEN and pending(state)["owed"] == 3
    refused(state, {"type": "release", "palace": 1, "person": "healer_y"}, "R43")  # palace 0 would stay fed
    act(state, "release", palace=0, person="monk_y")
    assert pending(state)["owed"] == 2 and pending(state)["after"] == {"palace": 0}
    refused(state, {"type": "release", "palace": 0, "person": "farmer_y"}, "R43")  # two from one palace
    act(state, "release", palace=1, person="healer_y")
    # palace 2's only person was released automatically; the emptied 1-floor palace decayed away
    assert palaces(state, BEN) == norm([[2, "farmer_y"], [2, "warrior_y"]])
    assert palaces(state, ANNA) == norm([[1, "farmer_y"], [1, "monk_y"], [1, "healer_y"], [1]])


def festival(fireworks: list[int], round: int = 4):
    """A Dragon Festival month; the seats own nothing else, so every VP comes from the festival."""
    return build(
        {
            "players": len(fireworks),
            "phase": "event",
            "round": round,
            "event": "dragon_festival",
            "seats": [{"fireworks": f} for f in fireworks],
        }
    )


def test_se_11_dragon_festival():
    """SE-11 (R44): Clara and Emil tie first (+6), Anna has the next count (+3); scorers return half,
    rounded up."""
    state = festival([2, 1, 3, 0, 3])
    assert [player(state, p)["vp"] for p in range(5)] == [3, 0, 6, 0, 6]
    assert [player(state, p)["fireworks"] for p in range(5)] == [1, 1, 1, 0, 1]


def test_se_12_mongol_invasion():
    """SE-12 (R45, R60): 1 VP per helmet; David and Emil (fewest helmets) release one person each, in
    turn order."""
    state = build(
        {
            "players": 5,
            "phase": "event",
            "round": 7,
            "event": "mongol_invasion",
            "seats": [
                {"palaces": [[2, "warrior_o", "warrior_y"]]},
                {"palaces": [[2, "warrior_o", "warrior_y"]]},
                {"palaces": [[1, "warrior_o"]]},
                {"pos": 40, "palaces": [[2, "warrior_y", "farmer_y"]]},
                {"palaces": [[2, "warrior_y", "monk_y"]]},
            ],
        }
    )
    assert [player(state, p)["vp"] for p in range(5)] == [3, 3, 2, 1, 1]
    assert pending(state)["seat"] == DAVID and pending(state)["owed"] == 1
    act(state, "release", palace=0, person="farmer_y")
    assert pending(state)["seat"] == EMIL
    act(state, "release", palace=0, person="warrior_y")
    assert palaces(state, DAVID) == norm([[2, "warrior_y"]]) and palaces(state, EMIL) == norm([[2, "monk_y"]])
    assert [len(p["persons"]) for p in (player(state, s)["palaces"][0] for s in range(3))] == [2, 2, 1]


def test_se_13_contagion():
    """SE-13 (R46): Clara's 2 mortars save 2 of 3 releases (a healer may go); Ben releases 3."""
    state = build(
        {
            "players": 3,
            "phase": "event",
            "round": 8,
            "event": "contagion",
            "seats": [
                {"palaces": [[2, "healer_o", "healer_y"]]},
                {"palaces": [[2, "farmer_o", "scholar_o"], [2, "monk_o", "warrior_o"]]},
                {"pos": 40, "palaces": [[3, "healer_y", "healer_y", "farmer_y"], [2, "monk_y", "scholar_y"]]},
            ],
        }
    )
    assert pending(state)["seat"] == CLARA and pending(state)["owed"] == 1
    act(state, "release", palace=0, person="healer_y")
    assert pending(state)["seat"] == BEN and pending(state)["owed"] == 3
    act(state, "release", palace=0, person="farmer_o")
    assert pending(state)["after"] == {"palace": 0, "person": "farmer_o"}
    refused(
        state, {"type": "release", "palace": 1, "person": "monk_o"}, "R46"
    )  # would leave too few after it
    act(state, "release", palace=1, person="warrior_o")
    # the third release (the monk, the only person left after the warrior in palace order) was forced
    assert palaces(state, CLARA) == norm([[3, "healer_y", "farmer_y"], [2, "monk_y", "scholar_y"]])
    assert palaces(state, BEN) == norm([[2, "scholar_o"], [1]])
    assert palaces(state, ANNA) == norm([[2, "healer_y", "healer_o"]])


def test_se_14_round_scoring():
    """SE-14 (R52): 3 palaces + 2 court ladies + 1 large privilege (2) = 7 VP."""
    state = build(
        {
            "players": 3,
            "phase": "decay",
            "round": 5,
            "seats": [
                {"vp": 30, "large": 1, "palaces": [[1, "court_lady"], [1, "court_lady"], [2, "farmer_y"]]},
                {},
                {},
            ],
        }
    )
    assert player(state, ANNA)["vp"] == 37


def test_se_15_final_scoring():
    """SE-15 (R54, R59): 7 persons x 2 + monks 1x2 + 2x3 + floor((4 + 3 x 2) / 3) = 25."""
    state = build(
        {
            "players": 3,
            "phase": "final",
            "seats": [
                {},
                {
                    "vp": 70,
                    "rice": 1,
                    "fireworks": 2,
                    "yuan": 4,
                    "palaces": [
                        [2, "monk_y", "farmer_y"],
                        [3, "monk_o", "healer_y", "scholar_y"],
                        [2, "warrior_y", "court_lady"],
                    ],
                },
                {},
            ],
        }
    )
    result = GAME.result(state)
    assert result["scores"][BEN] == 95
    assert result["final_scoring"][BEN] == {"persons": 14, "monks": 8, "money": 3}
    assert GAME.to_move(state) is None


def test_se_16_decay_of_fresh_palace():
    """SE-16 (R29, R49, R51): the empty 1-floor palace built this month vanishes; 2 palaces score."""
    state = build(
        {
            "players": 3,
            "phase": "decay",
            "round": 3,
            "seats": [{}, {}, {"palaces": [[2, "farmer_y"], [2, "monk_y", "healer_y"], [1]]}],
        }
    )
    assert palaces(state, CLARA) == norm([[2, "farmer_y"], [2, "healer_y", "monk_y"]])
    assert player(state, CLARA)["vp"] == 2


def test_se_17_exhausted_type():
    """SE-17 (R36, R68): the Monk card with no monk left gets nothing; it cannot take another type."""
    state = build(
        {
            "players": 3,
            "phase": "person",
            "order": [ANNA, BEN, CLARA],
            "stack": [CLARA, BEN, ANNA],
            "seats": [{"pos": 12, "palaces": [[2, "farmer_y"]]}, {}, {}],
            "supply": {"monk_y": 0, "monk_o": 0},
        }
    )
    legal = GAME.legal_actions(state)
    assert {"type": "spend", "card": "monk"} in legal
    refused(state, {"type": "recruit", "card": "monk", "person": "farmer_y"}, "R36")
    act(state, "spend", card="monk")
    anna = player(state, ANNA, ANNA)
    assert "monk" not in anna["hand"] and anna["hand_size"] == 10
    assert anna["person_pos"] == 12 and palaces(state, ANNA) == norm([[2, "farmer_y"]])
    assert GAME.to_move(state) == BEN


def test_se_18_privilege():
    """SE-18 (R34): Anna buys one large privilege for 6 and cannot buy a second with the same action."""
    state = build(
        {
            "players": 4,
            "groups": GROUPS_4,
            "order": [ANNA, BEN, CLARA, DAVID],
            "stack": [DAVID, CLARA, BEN, ANNA],
            "seats": [{"yuan": 13}, {}, {}, {}],
        }
    )
    act(state, "action", group=3, action="privilege")
    assert GAME.legal_actions(state) == [
        {"type": "privilege", "size": "small"},
        {"type": "privilege", "size": "large"},
    ]
    act(state, "privilege", size="large")
    anna = player(state, ANNA)
    assert (anna["yuan"], anna["privileges"]) == (7, {"small": 0, "large": 1})
    assert GAME.to_move(state) == BEN


def _names(*events: str) -> list[int]:
    return [EVENT_INDEX[e] for e in events]


def test_se_19_event_row():
    """SE-19 (R11, R64): (a) a repeated tile skips a slot and the next fills the gap; (b) the last-slot
    fallback swaps slots 10 and 11.  (c), the property over seeds, is in test_rules.py."""
    d, t, c, m, f = "drought", "imperial_tribute", "contagion", "mongol_invasion", "dragon_festival"
    assert event_row(_names(d, d, t, c, m, f, c, t, m, f)) == _names(
        "peace", "peace", d, t, d, c, m, f, c, t, m, f
    )
    assert event_row(_names(d, t, c, m, d, t, c, m, f, f)) == _names(
        "peace", "peace", d, t, c, m, d, t, c, f, m, f
    )


# -- Part B: constructed edge cases -------------------------------------------------------------------


def test_ec_01_festival_ties():
    """EC-01 (R44): two tie first (+6), two tie for the next count (+3)."""
    state = festival([4, 4, 2, 2, 0])
    assert [player(state, p)["vp"] for p in range(5)] == [6, 6, 3, 3, 0]
    assert [player(state, p)["fireworks"] for p in range(5)] == [2, 2, 1, 1, 0]


def test_ec_02_festival_single_participant():
    """EC-02 (R44): the only participant gets 6 and returns ceil(1/2) = 1; nobody gets 3."""
    state = festival([1, 0, 0])
    assert [player(state, p)["vp"] for p in range(3)] == [6, 0, 0]
    assert player(state, A)["fireworks"] == 0


def test_ec_03_festival_all_tied():
    """EC-03 (R44): all participants tie: each +6 and keeps 1; nobody gets 3."""
    state = festival([2, 2, 2])
    assert [player(state, p)["vp"] for p in range(3)] == [6, 6, 6]
    assert [player(state, p)["fireworks"] for p in range(3)] == [1, 1, 1]


def test_ec_04_mongols_without_warriors():
    """EC-04 (R45, R40, R69): nobody has a warrior, so all are fewest: each releases 1 of his choice, asked
    in turn order."""
    state = build(
        {
            "players": 3,
            "phase": "event",
            "round": 9,
            "event": "mongol_invasion",
            "seats": [
                {"pos": 10, "palaces": [[2, "farmer_y", "monk_y"]]},
                {"pos": 30, "palaces": [[2, "farmer_y", "monk_y"]]},
                {"pos": 20, "palaces": [[2, "farmer_y", "monk_y"]]},
            ],
        }
    )
    asked = []
    while GAME.view(state, None)["round"] == 9:
        asked.append(pending(state)["seat"])
        assert player(state, asked[-1])["vp"] == 0
        act(state, "release", palace=0, person="farmer_y")
    assert asked == [B, C, A]


def test_ec_05_tribute_fewer_persons_than_owed():
    """EC-05 (R42, R47, R49, R52): A pays 1, owes 3, has 2: both go without a question; both palaces
    decay to 1 floor and still score."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 4,
            "event": "imperial_tribute",
            "seats": [{"yuan": 1, "vp": 15, "palaces": [[2, "farmer_y"], [2, "scholar_y"]]}, {"yuan": 10}],
        }
    )
    assert GAME.view(state, None)["round"] == 5  # no decision was needed
    a = player(state, A)
    assert (a["yuan"], a["vp"]) == (0, 17)
    assert palaces(state, A) == norm([[1], [1]])


def test_ec_06_drought_choice_of_palace():
    """EC-06 (R43, R49, R52): 2 rice for 3 inhabited palaces; which palace goes unfed changes the score."""
    state = build(
        {
            "players": 2,
            "phase": "event",
            "round": 3,
            "event": "drought",
            "seats": [
                {
                    "rice": 2,
                    "palaces": [
                        [3, "farmer_y", "farmer_o", "healer_y"],
                        [2, "monk_y"],
                        [1, "scholar_y"],
                        [2],
                    ],
                },
                {},
            ],
        }
    )
    assert player(state, A)["rice"] == 0 and pending(state)["owed"] == 1
    refused(state, {"type": "release", "palace": 3, "person": "farmer_y"}, "R43")  # uninhabited
    option_a = GAME.clone(state)
    act(option_a, "release", palace=2, person="scholar_y")
    assert palaces(option_a, A) == norm([[3, "farmer_y", "farmer_o", "healer_y"], [2, "monk_y"], [1]])
    assert player(option_a, A)["vp"] == 3
    option_b = GAME.clone(state)
    act(option_b, "release", palace=0, person="healer_y")
    assert palaces(option_b, A) == norm([[3, "farmer_y", "farmer_o"], [2, "monk_y"], [1, "scholar_y"], [1]])
    assert player(option_b, A)["vp"] == 4


def test_ec_07_contagion_more_mortars_than_needed():
    """EC-07 (R46): 4 mortars: A releases nobody (never negative)."""
    state = build(
        {
            "players": 3,
            "phase": "event",
            "round": 5,
            "event": "contagion",
            "seats": [{"palaces": [[2, "healer_o", "healer_o"]]}, {}, {}],
        }
    )
    assert GAME.view(state, None)["round"] == 6
    assert palaces(state, A) == norm([[2, "healer_o", "healer_o"]])


def test_ec_08_full_palaces():
    """EC-08 (R37, R63, R67): with no free floor A may choose to replace a person or to release the newcomer
    (R63: a choice, not a must-replace); both cost the supply a tile; the newcomer cannot simply move in."""
    state = build(
        {
            "players": 4,
            "phase": "person",
            "order": [A, B, C, 3],
            "stack": [3, C, B, A],
            "seats": [{"pos": 10, "palaces": [[2, "farmer_y", "healer_y"], [1, "court_lady"]]}, {}, {}, {}],
            "supply": {"monk_y": 3},
        }
    )
    act(state, "recruit", card="monk", person="monk_y")
    assert pending(state) == {"seat": A, "decision": "full", "rule": "R37", "tiles": ["monk_y"]}
    refused(state, {"type": "place", "palace": 0}, "R37")
    option_a = GAME.clone(state)
    act(option_a, "replace", palace=1, person="court_lady")
    assert palaces(option_a, A) == norm([[2, "healer_y", "farmer_y"], [1, "monk_y"]])
    assert player(option_a, A)["person_pos"] == 16
    assert GAME.view(option_a, None)["supply"]["monk_y"] == 2
    option_b = GAME.clone(state)
    act(option_b, "release_newcomer")
    assert palaces(option_b, A) == norm([[2, "healer_y", "farmer_y"], [1, "court_lady"]])
    assert player(option_b, A)["person_pos"] == 10
    assert GAME.view(option_b, None)["supply"]["monk_y"] == 2


def test_ec_09_one_age_exhausted():
    """EC-09 (R36, R68): the Healer card must take the old healer when no young one is left; the next
    Healer card gets nothing."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "order": [A, B],
            "seats": [{"pos": 8, "palaces": [[2, "farmer_y"]]}, {}],
            "supply": {"healer_y": 0, "healer_o": 1},
        }
    )
    healer = [a for a in GAME.legal_actions(state) if a.get("card") == "healer"]
    assert healer == [{"type": "recruit", "card": "healer", "person": "healer_o"}]
    act(state, "recruit", card="healer", person="healer_o")  # the only free palace: placed at once
    assert player(state, A)["person_pos"] == 9
    assert GAME.view(state, None)["supply"]["healer_o"] == 0
    assert [a for a in GAME.legal_actions(state) if a.get("card") == "healer"] == [
        {"type": "spend", "card": "healer"}
    ]


def test_ec_10_privilege_affordability():
    """EC-10 (R24, R26, R34, R56): Privilege on an occupied group needs 3 + 2 yuan; large needs 3 + 6
    (voluntary payments need the full amount)."""
    groups = [["privilege", "harvest"], ["taxes", "build"], ["fireworks", "military_parade", "research"]]

    def state_with(yuan: int, dragons: list[int]):
        return build(
            {
                "players": 3,
                "groups": groups,
                "dragons": dragons,
                "order": [B, A, C],
                "stack": [C, A, B],
                "turn": 1,
                "seats": [{"yuan": yuan}, {}, {}],
            }
        )

    state = state_with(4, [1, 0, 0])
    refused(state, {"type": "action", "group": 0, "action": "privilege"}, "R26")
    act(state, "action", group=0, action="harvest")
    assert player(state, A)["yuan"] == 1

    state = state_with(5, [1, 0, 0])
    act(state, "action", group=0, action="privilege")  # only the small one is affordable: no question
    assert (player(state, A)["yuan"], player(state, A)["privileges"]) == (0, {"small": 1, "large": 0})

    for size, left in (("large", 0), ("small", 4)):
        state = state_with(9, [1, 0, 0])
        act(state, "action", group=0, action="privilege")
        act(state, "privilege", size=size)
        assert player(state, A)["yuan"] == left

    state = state_with(6, [0, 0, 0])
    act(state, "action", group=0, action="privilege")
    act(state, "privilege", size="large")
    assert (player(state, A)["yuan"], player(state, A)["privileges"]["large"]) == (0, 1)


def test_ec_11_refill_leaves_group_free():
    """EC-11 (R25, R24): A's refill places no dragon, so B pays no fee for H."""
    state = build(
        {
            "players": 2,
            "groups": [
                ["taxes", "build", "harvest", "research"],
                ["fireworks", "military_parade", "privilege"],
            ],
            "order": [A, B],
            "stack": [B, A],
            "seats": [{"yuan": 5}, {"yuan": 6}],
        }
    )
    act(state, "refill")
    assert player(state, A)["yuan"] == 5
    act(state, "action", group=0, action="build")
    assert player(state, B)["yuan"] == 6


def test_ec_12_month_12():
    """EC-12 (R21, R46, R49, R52, R53, R54): Taxes, no Person phase, Contagion, decay, scoring, final."""
    state = build(
        {
            "players": 2,
            "round": 12,
            "event": "contagion",
            "order": [A, B],
            "groups": [
                ["taxes", "build", "harvest", "research"],
                ["fireworks", "military_parade", "privilege"],
            ],
            "seats": [
                {"vp": 50, "yuan": 4, "small": 1, "palaces": [[2, "monk_y", "healer_y"], [1, "court_lady"]]},
                {},
            ],
        }
    )
    assert player(state, A, A)["hand_size"] == 0
    act(state, "action", group=0, action="taxes")
    assert player(state, A)["yuan"] == 6
    act(state, "refill")  # B
    assert pending(state) == {
        "seat": A,
        "decision": "release",
        "rule": "R46",
        "owed": 2,
        "event": "contagion",
    }
    act(state, "release", palace=0, person="healer_y")  # then the court lady, the only one left in order
    assert GAME.to_move(state) is None
    result = GAME.result(state)
    assert result["final_scoring"][A] == {"persons": 2, "monks": 2, "money": 2}
    assert result["scores"][A] == 58
    assert palaces(state, A) == norm([[2, "monk_y"]])


def final_state(seats: list[dict], stack: list[int] | None = None):
    desc = {"players": len(seats), "phase": "final", "seats": seats}
    if stack is not None:
        desc["stack"] = stack
    return build(desc)


def test_ec_13_tiebreak_by_stack():
    """EC-13 (R55, R18): equal VP on the same space: the marker on top wins; else the one ahead."""
    result = GAME.result(
        final_state([{"vp": 80, "pos": 30, "yuan": 0}, {"vp": 80, "pos": 30, "yuan": 0}], [A, B])
    )
    assert result["ranking"] == [B, A] and result["tiebreak"] == "person_track"
    result = GAME.result(
        final_state([{"vp": 80, "pos": 31, "yuan": 0}, {"vp": 80, "pos": 30, "yuan": 0}], [A, B])
    )
    assert result["ranking"] == [A, B] and result["tiebreak"] == "person_track"


def test_ec_14_money_rounding():
    """EC-14 (R54): (a) 2 yuan: 0 VP; (b) 1 yuan + 1 rice = 3: 1 VP; (c) 4 fireworks = 8: 2 VP."""
    state = final_state([{"yuan": 2}, {"yuan": 1, "rice": 1}, {"yuan": 0, "fireworks": 4}])
    assert [parts["money"] for parts in GAME.result(state)["final_scoring"]] == [0, 1, 2]


def test_ec_15_tall_empty_palace_decays_and_scores():
    """EC-15 (R49, R52): an empty 3-floor palace loses one floor a month and keeps scoring."""
    state = build(
        {"players": 2, "phase": "decay", "round": 6, "seats": [{"palaces": [[3], [1, "farmer_y"]]}, {}]}
    )
    assert palaces(state, A) == norm([[2], [1, "farmer_y"]]) and player(state, A)["vp"] == 2
    state = build(
        {"players": 2, "phase": "decay", "round": 7, "seats": [{"palaces": [[2], [1, "farmer_y"]]}, {}]}
    )
    assert palaces(state, A) == norm([[1], [1, "farmer_y"]])


def test_ec_16_build_limits():
    """EC-16 (R29, R15): 4 floors (3 craftsmen) must all be placed, no palace above 3 floors."""
    desc = {
        "players": 2,
        "groups": [["build", "taxes", "harvest", "research"], ["fireworks", "military_parade", "privilege"]],
        "order": [A, B],
        "seats": [{"palaces": [[3, "craftsman", "craftsman", "craftsman"], [2]]}, {}],
    }
    # Once A1 and A2 both have 3 floors a new palace is the only place for the next floor: the engine
    # founds it without asking (RULES section 15), so those sequences have one step fewer.
    splits = {
        "A2 +1, new 3": (["f1", "f2", "f2"], [[3, "craftsman", "craftsman", "craftsman"], [3], [3]]),
        "A2 +1, new 2, new 1": (["f1", "f2", "new"], [[3, *["craftsman"] * 3], [3], [2], [1]]),
        "new 3 + new 1": (["new", "f2", "f2", "new"], [[3, *["craftsman"] * 3], [2], [3], [1]]),
        "four new 1-floor": (["new"] * 4, [[3, *["craftsman"] * 3], [2], [1], [1], [1], [1]]),
    }
    for steps, expected in splits.values():
        state = build(desc)
        act(state, "action", group=0, action="build")
        for step in steps:
            if step == "new":
                act(state, "build_palace")
            else:
                act(state, "build_floor", palace=int(step[1]))
        assert palaces(state, A) == expected
        assert GAME.to_move(state) == B
    state = build(desc)
    act(state, "action", group=0, action="build")
    refused(state, {"type": "build_floor", "palace": 0}, "R15")  # A1 already has 3 floors
    act(state, "build_palace")
    act(state, "build_floor", palace=2)
    act(state, "build_floor", palace=2)
    refused(state, {"type": "build_floor", "palace": 2}, "R15")  # a new palace of 4 floors
    act(state, "build_floor", palace=1)
    assert GAME.to_move(state) == B  # all 4 floors placed
    state = build(desc)
    act(state, "action", group=0, action="build")
    act(state, "build_floor", palace=1)
    refused(state, {"type": "build_floor", "palace": 1}, "R15")  # A2 +2 would be 4 floors
    state = build(desc)
    act(state, "action", group=0, action="build")
    for _ in range(3):
        act(state, "build_palace")
    assert pending(state)["floors_left"] == 1  # placing only 3 floors is not possible
    refused(state, {"type": "refill"}, "R29")
    refused(state, {"type": "move_floor", "palace": 0}, "schema")


def test_ec_17_no_palaces():
    """EC-17 (R37, R52): with no palace the newcomer is released at once; no palace VP."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "round": 9,
            "order": [A, B],
            "seats": [{"pos": 20, "hand": ["farmer", "scholar", "wild"]}, {}],
            "supply": {"farmer_y": 2},
        }
    )
    act(state, "recruit", card="farmer", person="farmer_y")
    assert GAME.view(state, None)["supply"]["farmer_y"] == 1
    assert player(state, A)["person_pos"] == 20 and player(state, A)["palaces"] == []
    assert GAME.to_move(state) == B
    state = build({"players": 2, "phase": "decay", "round": 9, "seats": [{"vp": 5}, {}]})
    assert player(state, A)["vp"] == 5


def test_ec_18_fewest_fixed_before_releases():
    """EC-18 (R40, R45): A releasing his warrior does not free B, nor make C the fewest."""
    state = build(
        {
            "players": 3,
            "phase": "event",
            "round": 10,
            "event": "mongol_invasion",
            "seats": [
                {"pos": 30, "palaces": [[2, "warrior_y", "farmer_y"]]},
                {"pos": 20, "palaces": [[2, "warrior_y", "monk_y"]]},
                {"pos": 15, "palaces": [[2, "warrior_o", "healer_y"]]},
            ],
        }
    )
    assert [player(state, p)["vp"] for p in range(3)] == [1, 1, 2]
    assert pending(state)["seat"] == A
    act(state, "release", palace=0, person="warrior_y")
    assert pending(state)["seat"] == B and pending(state)["owed"] == 1
    act(state, "release", palace=0, person="monk_y")
    assert GAME.view(state, None)["round"] == 11
    assert palaces(state, C) == norm([[2, "warrior_o", "healer_y"]])


def test_ec_19_court_two_players():
    """EC-19 (R10, R14): 2-player supply; the same pair in the other order is still the same pair."""
    state = build({"players": 2, "phase": "court", "options": {"first_player": A}})
    act(state, "court", first="craftsman", second="court_lady")
    act(state, "place", palace=0)
    act(state, "place", palace=1)
    assert "R14b" in refused(state, court("craftsman", "court_lady"), "R14").message
    assert "R14b" in refused(state, court("court_lady", "craftsman"), "R14").message
    act(state, "court", first="court_lady", second="monk_y")
    act(state, "place", palace=0)
    act(state, "place", palace=1)
    view = GAME.view(state, None)
    assert [p["person_pos"] for p in view["players"]] == [3, 7]
    assert view["turn_order"] == [B, A]
    assert (view["supply"]["court_lady"], view["supply"]["craftsman"], view["supply"]["monk_y"]) == (2, 3, 2)


def test_ec_20_wild_card_old_tile():
    """EC-20 (R36, R37, R31): a wild card takes an old pyrotechnist (value 3, 2 rockets)."""
    state = build(
        {
            "players": 3,
            "phase": "person",
            "order": [A, B, C],
            "stack": [C, B, A],
            "seats": [{"pos": 14, "palaces": [[2, "farmer_y"]]}, {}, {}],
            "supply": {"pyrotechnist_o": 1},
        }
    )
    act(state, "recruit", card="wild", person="pyrotechnist_o")
    assert player(state, A)["person_pos"] == 17
    assert GAME.view(state, None)["supply"]["pyrotechnist_o"] == 0
    assert palaces(state, A) == norm([[2, "pyrotechnist_o", "farmer_y"]])
    state = build(
        {
            "players": 3,
            "round": 2,
            "order": [A, B, C],
            "stack": [C, B, A],
            "groups": [
                ["fireworks", "taxes", "build"],
                ["harvest", "research"],
                ["military_parade", "privilege"],
            ],
            "seats": [{"palaces": [[2, "pyrotechnist_o", "farmer_y"]]}, {}, {}],
        }
    )
    act(state, "action", group=0, action="fireworks")
    assert player(state, A)["fireworks"] == 3


def test_ec_21_person_phase_order_fixed():
    """EC-21 (R20, R37): B passes A during the Person phase but still acts second; the Event phase
    order is then B, A."""
    state = build(
        {
            "players": 2,
            "phase": "person",
            "round": 3,
            "event": "mongol_invasion",
            "seats": [
                {
                    "pos": 9,
                    "palaces": [[3, "farmer_y"]],
                    "hand": [
                        *["craftsman", "court_lady", "tax_collector"],
                        *["pyrotechnist", "healer", "farmer", "scholar", "wild", "wild"],
                    ],
                },
                {"pos": 8, "palaces": [[3, "healer_y"]]},
            ],
        }
    )
    assert GAME.view(state, None)["turn_order"] == [A, B]
    act(state, "recruit", card="court_lady", person="court_lady")
    assert player(state, A)["person_pos"] == 10 and GAME.to_move(state) == B
    act(state, "recruit", card="monk", person="monk_y")
    assert player(state, B)["person_pos"] == 14
    view = GAME.view(state, None)
    assert view["turn_order"] == [B, A] and view["pending"]["seat"] == B  # Mongols: both release, B first


def test_ec_22_full_ranking():
    """EC-22 (R55, R55a, R19): B and A tie on VP (B further on the track); C has fewer VP."""
    state = final_state(
        [{"vp": 80, "pos": 25, "yuan": 0}, {"vp": 80, "pos": 30, "yuan": 0}, {"vp": 75, "pos": 40, "yuan": 0}]
    )
    result = GAME.result(state)
    assert result["ranking"] == [B, A, C] and result["tiebreak"] == "person_track"


def test_ec_23_played_card_visibility():
    """EC-23 (R58, R58a): the wild card played is public by default; with reveal_played_card=false
    only A sees it, the others see the hand shrink and the monk arrive.  No view holds A's hand but A's."""
    for reveal in (True, False):
        state = build(
            {
                "players": 3,
                "phase": "person",
                "order": [A, B, C],
                "stack": [C, B, A],
                "options": {"reveal_played_card": reveal},
                "seats": [{"palaces": [[2]]}, {}, {}],
                "supply": {"monk_y": 2},
            }
        )
        events = act(state, "recruit", card="wild", person="monk_y")
        for seat in (None, A, B, C):
            view = GAME.view(state, seat)
            a = view["players"][A]
            assert a["hand_size"] == 10 and a["palaces"][0]["persons"] == ["monk_y"]
            assert view["supply"]["monk_y"] == 1
            assert ("hand" in a) == (seat == A)
            if reveal or seat == A:
                assert a["played"] == ["wild"]
            else:
                assert "played" not in a
            seen = [
                e["action"]
                for e in events
                if e["type"] == "action" and event_visible(e, seat) and not e.get("auto")
            ]
            assert seen == [
                {"type": "recruit", "card": "wild" if reveal or seat == A else "hidden", "person": "monk_y"}
            ]
