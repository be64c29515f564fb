"""What may happen to an official in each marker state (R42), and where petitions may reach (R57,
R125): the checks every taking action shares."""

from __future__ import annotations

from engine.games.confucius.scenario import build

from .helpers import act, legal, pay, refused, space

BLACK, WHITE, GREEN = range(3)
THREE = ["black", "white", "green"]

BOARD = {
    "players": THREE,
    "round": 3,
    "chief_minister": "black",
    "advanced": True,
    "officials": {"hubu#2": "white u", "hubu#3": "black s", "hubu#4": "black u", "hubu#5": "4"},
    "rewards": {"white": ["bribery_hubu"]},
    "gift_states": {"white": {"4": "available", "6": "available"}},
    "hands": {"white": [3, 3, 3]},
}


def test_unsecured_markers_can_be_taken_secured_ones_only_swapped():
    """Rule R42: a Bribery card takes the unbribed #5 or Black's unsecured #4 (paying), never the secured
    #3 nor White's own #2; the junk petition likewise replaces unsecured markers only; the coat
    petition may still move the secured tile; a player transfers only his own markers."""
    state = build(BOARD)
    bribery = {a["space"] for a in legal(state, "reward_bribery")}
    assert 4 in bribery and 5 in bribery and not {2, 3} & bribery
    assert {a["space"] for a in legal(state, "petition_replace_influence")} >= {2, 4}
    assert 3 not in {a["space"] for a in legal(state, "petition_replace_influence")}
    swap = {"ministry": "hubu", "space": 2, "other_ministry": "hubu", "other_space": 3}
    assert {"type": "petition_swap_officials", **swap} in legal(state)
    assert {(a["ministry"], a["space"]) for a in legal(state, "transfer_influence")} == {("hubu", 2)}
    refused(state, {"type": "reward_bribery", "card": "bribery_hubu", "ministry": "hubu", "space": 3}, "R73")


def test_an_official_holds_one_marker_the_taken_one_goes_home():
    """Rules R42, R73 (ii): White's paid Bribery on Black's unsecured #4 replaces Black's marker (it goes
    back to Black) with White's unsecured one: one marker per official, Black's influence drops."""
    state = build(BOARD)
    act(state, WHITE, "reward_bribery", card="bribery_hubu", ministry="hubu", space=4)
    pay(state, WHITE, c3=1)  # cost 4 - 1 (White has a Hubu official, R43) = 3
    assert space(state, "hubu", 4)["marker"] == WHITE and not space(state, "hubu", 4)["secured"]
    assert [space(state, "hubu", s)["marker"] for s in range(1, 8)].count(BLACK) == 1


def petition_board():
    """Bingbu resolved; Annam (position 1) has failed with an empty box, Mongolia (3) was conquered,
    Korea (2) is open."""
    board = {f"bingbu#{s}": "black s" for s in range(1, 7)} | {"bingbu#7": "white s"}
    return build(
        {
            "players": THREE,
            "round": 5,
            "chief_minister": "black",
            "advanced": True,
            "officials": {**board, "hubu#5": "white u"},
            "resolved": {"bingbu": ["black", "white"]},
            "gift_states": {"white": {"4": "available", "5": "available"}},
            "foreign_lands": {
                "1": {"land": "annam", "boxes": ["black", None], "state": "failed"},
                "2": {"land": "korea", "boxes": ["green", None, None]},
                "3": {"land": "mongolia", "boxes": ["black", "white", "green"], "state": "success"},
            },
        }
    )


def test_petitions_reach_unresolved_ministries_and_foreign_lands_only():
    """Rules R57, R58.3, R125: no swap touches the resolved Bingbu (neither White's #7 there nor a Bingbu
    tile as the other one); armies move only from and to unresolved tiles (not the failed Annam nor
    the conquered Mongolia); such requests are refused under R57."""
    state = petition_board()
    assert not [
        a for a in legal(state, "petition_swap_officials") if "bingbu" in (a["ministry"], a["other_ministry"])
    ]
    assert legal(state, "petition_swap_officials")  # Hubu#5 still swaps with Gongbu#5
    moves = {
        (a["position"], a["box"], a["to_position"], a["to_box"])
        for a in legal(state, "petition_redeploy_army")
    }
    assert moves == {(2, 0, 2, 1), (2, 0, 2, 2)}
    swap = {"ministry": "hubu", "space": 5, "other_ministry": "bingbu", "other_space": 6}
    refused(state, {"type": "petition_swap_officials", **swap}, "R57")
    refused(
        state,
        {"type": "petition_redeploy_army", "position": 1, "box": 0, "to_position": 2, "to_box": 1},
        "R57",
    )
    refused(
        state,
        {"type": "petition_redeploy_army", "position": 2, "box": 0, "to_position": 1, "to_box": 1},
        "R57",
    )
