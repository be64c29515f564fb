"""Gift states and the obligations a held gift creates, where examples.md leaves cases open:
several givers at once (R61), gifts from both exam candidates (R66, R84), tied givers and givers
no longer taking part in a Ministry Resolution (R67, R91)."""

from __future__ import annotations

from engine.games.confucius.scenario import build

from .helpers import act, gifts, legal, ministry, pay, pending, player, refused, view

BLACK, WHITE, GREEN = range(3)
THREE = ["black", "white", "green"]


def test_a_gift_goes_from_not_available_to_available_to_active_to_removed_for_good():
    """Rule R53: White buys the ceramic tile (available), gives it to Green (active, in the tracker);
    Green's Transfer Influence to White cancels it (removed); a removed gift can never be bought or
    given again, and such a request is refused under R53."""
    state = build(
        {
            "players": THREE,
            "round": 2,
            "chief_minister": "black",
            "cubes": {"white": 5},
            "hands": {"white": [3, 3]},
            "officials": {"hubu#3": "green u"},
        }
    )
    assert player(state, WHITE)["gifts"]["2"] == "not_available"
    act(state, WHITE, "buy_gift", value=2)
    pay(state, WHITE, c3=1)
    assert player(state, WHITE)["gifts"]["2"] == "available"
    act(state, GREEN, "no_action")
    act(state, BLACK, "no_action")
    act(state, WHITE, "give_gift", value=2, recipient=GREEN)
    assert player(state, WHITE)["gifts"]["2"] == "active" and gifts(state) == {(WHITE, GREEN, 2)}
    act(state, GREEN, "transfer_influence", ministry="hubu", space=3, recipient=WHITE)
    assert player(state, WHITE)["gifts"]["2"] == "removed" and gifts(state) == set()
    act(state, BLACK, "no_action")
    refused(state, {"type": "buy_gift", "value": 2}, "R53")
    refused(state, {"type": "give_gift", "value": 2, "recipient": BLACK}, "R53")


def test_gifts_from_several_givers_oblige_separately():
    """Rules R61, R65: Green holds White's and Black's gifts and is level with White in Hubu (1 : 1) and with
    Black in Gongbu (1 : 1), so he may bribe only in Bingbu.  R59, R62: his Transfer Influence in Hubu
    to White costs no cube and cancels White's gift alone: Hubu opens (Green holds no gift from anyone
    there any more), while Gongbu, bound by Black's gift, stays closed."""
    state = build(
        {
            "players": THREE,
            "round": 3,
            "chief_minister": "white",
            "gifts": ["white>green:1", "black>green:2"],
            "officials": {
                "hubu#3": "white u",
                "hubu#4": "green u",
                "gongbu#3": "black u",
                "gongbu#4": "green u",
            },
            "hands": {"green": [3, 3, 3]},
        }
    )

    def bribe_ministries() -> set[str]:
        return {a["ministry"] for a in legal(state, "bribe_official")}

    assert bribe_ministries() == {"bingbu"}
    cubes = view(state)["players"][GREEN]["cubes"]
    act(state, GREEN, "transfer_influence", ministry="hubu", space=4, recipient=WHITE)
    assert view(state)["players"][GREEN]["cubes"] == cubes
    assert gifts(state) == {(BLACK, GREEN, 2)}
    act(state, BLACK, "no_action")
    act(state, WHITE, "no_action")
    assert bribe_ministries() == {"bingbu", "hubu"}
    refused(state, {"type": "bribe_official", "ministry": "gongbu", "space": 5}, "R65")


def exam_with_gifts(gift_list: list[str]):
    return build(
        {
            "players": THREE,
            "round": 3,
            "phase": "court",
            "chief_minister": "green",
            "students": {"red": "black", "orange": "white"},
            "gifts": gift_list,
            "hands": {"green": [1, 2], "black": [], "white": []},
        }
    )


def test_a_tutor_holding_gifts_from_both_candidates_supports_the_higher_giver():
    """Rules R66, R84: Green holds Black's 1 and White's 2, so he must tutor White's student (refused under
    R84 otherwise); with gifts of equal value he chooses freely."""
    higher = exam_with_gifts(["black>green:1", "white>green:2"])
    assert pending(higher)["seat"] == GREEN
    assert {a["student"] for a in legal(higher)} == {"orange"}
    refused(higher, {"type": "tutor", "student": "red", "coins": 1}, "R84")
    equal = exam_with_gifts(["black>green:2", "white>green:2"])
    assert {a["student"] for a in legal(equal)} == {"red", "orange"}


def test_tied_givers_let_the_weakest_choose_and_only_the_chosen_gift_is_cancelled():
    """Rules R67, R91 step 5: Purple, weakest in Bingbu, holds gifts of 3 from Black and from White, who
    both take part, and a 4 from Green, who does not: the 4 is ignored, Purple chooses between Black
    and White (D7), and only the chosen giver's gift is cancelled."""
    board = {f"bingbu#{s}": "black u" for s in (1, 2, 3)}
    board |= {f"bingbu#{s}": "white u" for s in (4, 5, 6)} | {"bingbu#7": "purple u"}
    state = build(
        {
            "players": ["black", "white", "purple", "green"],
            "round": 4,
            "phase": "court",
            "court_step": "ministries",
            "chief_minister": "green",
            "officials": board,
            "chits": {"bingbu": [8, 5]},
            "gifts": ["black>purple:3", "white>purple:3", "green>purple:4"],
        }
    )
    purple = 2
    p = pending(state)
    assert (p["seat"], p["decision"], p["receivers"]) == (purple, "give_influence", [BLACK, WHITE])
    refused(state, {"type": "give_influence", "seat": 3}, "R91")
    act(state, purple, "give_influence", seat=WHITE)
    b = ministry(state, "bingbu")
    assert (b["minister"], b["secretary"]) == (WHITE, BLACK)
    assert gifts(state) == {(BLACK, purple, 3), (3, purple, 4)}
