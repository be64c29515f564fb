"""Every scenario of examples.md (shared/games/confucius), one test each, named after its id.

Five-player examples seat Black 0, Green 1, Purple 2, White 3, Yellow 4 (the order examples.md lists
them in).  States come from the scenario builder; actions go through ``GAME.apply``; results are read
through ``GAME.view`` and ``GAME.result``.
"""

from __future__ import annotations

from engine.games.confucius import GAME
from engine.games.confucius.gifts import active_cubes, gift_count
from engine.games.confucius.military import general_measure
from engine.games.confucius.scenario import build
from engine.games.confucius.scoring import chief_minister_measure, titles
from engine.games.confucius.voyages import admiral_measure

from .helpers import (
    BLACK,
    FIVE,
    GREEN,
    PURPLE,
    WHITE,
    YELLOW,
    act,
    events_of,
    gifts,
    legal,
    ministry,
    pay,
    pending,
    player,
    refused,
    space,
    view,
)

# -- Part A: worked examples of the seed ----------------------------------------------------------------


def test_ex_01_count_gifts_round_1():
    """EX-01 (R24, R25, R27): no gifts in round 1, so everybody has 3 cubes (the CM's third lies on
    the Imperial Favour space)."""
    state = GAME.setup(5, seed=11)
    v = view(state)
    cm = v["chief_minister"]
    assert [p["cubes"] + (p["seat"] == cm) for p in v["players"]] == [3] * 5
    assert all(active_cubes(state, p) == 3 for p in range(5))


EX_02_GIFTS = ["black>green:1", "yellow>green:2", "green>yellow:2", "green>purple:1", "purple>yellow:1"]
#: EX-02's start, which EX-03 continues: round 2 begins, White was Chief Minister.
EX_02 = {
    "players": FIVE,
    "round": 2,
    "phase": "choose_chief_minister",
    "chief_minister": "white",
    "gifts": EX_02_GIFTS,
}


def test_ex_02_count_gifts_with_a_network():
    """EX-02 (R24, R25, R64): given + held gifts give 1/4/2/0/3, hence 4/5/4/3/5 cubes; Green and
    Yellow hold equal gifts from each other (a legal mutual obligation)."""
    state = build(EX_02)
    assert [p["cubes"] for p in view(state)["players"]] == [4, 5, 4, 3, 5]
    assert (GREEN, YELLOW, 2) in gifts(state) and (YELLOW, GREEN, 2) in gifts(state)
    assert pending(state)["seat"] == WHITE and pending(state)["decision"] == "choose_chief_minister"


def test_ex_03_choose_chief_minister():
    """EX-03 (R26, R27, R28): White names Black; a Black cube goes to Imperial Favour, leaving 3;
    White may not name himself; Green, left of Black, starts."""
    state = build(EX_02)
    refused(state, {"type": "choose_chief_minister", "seat": WHITE}, "R26")
    act(state, WHITE, "choose_chief_minister", seat=BLACK)
    v = view(state)
    assert v["chief_minister"] == BLACK and v["players"][BLACK]["cubes"] == 3
    assert GAME.to_move(state) == GREEN and v["phase"] == "action"


def cubes(state, seat: int) -> int:
    return view(state)["players"][seat]["cubes"]


def test_ex_04_cube_costs_of_repeated_and_paired_actions():
    """EX-04 (R33, R34): Bribe then Secure share a space (1 + 2 cubes); Buy Gift, Give Gift, Buy Gift
    again cost 1, 1, 2 (only the repeated space costs 2)."""
    b, g, p = 0, 1, 2
    state = build(
        {
            "players": ["black", "green", "purple"],
            "chief_minister": "black",
            "cubes": {"green": 4, "purple": 4},
            "officials": {"bingbu#3": "3"},
            "hands": {"green": [3, 3], "purple": [2, 2, 2, 2, 2]},
        }
    )
    act(state, g, "bribe_official", ministry="bingbu", space=3)
    assert cubes(state, g) == 3
    pay(state, g, c3=1)
    act(state, p, "buy_gift", value=2)
    assert cubes(state, p) == 3
    pay(state, p, c2=1)
    act(state, b, "no_action")
    act(state, g, "secure_official", ministry="bingbu", space=3)
    assert cubes(state, g) == 1 and space(state, "bingbu", 3)["secured"]
    act(state, p, "give_gift", value=2, recipient=b)
    assert cubes(state, p) == 2
    act(state, b, "no_action")
    act(state, g, "no_action")
    act(state, p, "buy_gift", value=3)
    assert cubes(state, p) == 0
    pay(state, p, c2=2)
    assert view(state)["players"][p]["cubes_placed"] == {"buy_gift": 3, "give_gift": 1}


EX_05_GIFTS = [*EX_02_GIFTS, "purple>white:2"]


def ex_05_start():
    return build(
        {
            "players": FIVE,
            "round": 2,
            "chief_minister": "black",
            "gifts": EX_05_GIFTS,
            "hands": {"green": [3], "purple": [], "white": [2, 3], "yellow": [3, 3, 1], "black": [2, 2]},
            "officials": {
                "gongbu#4": "purple u",
                "gongbu#5": "white u",
                "bingbu#3": "2",
                "gongbu#3": "4",
                "gongbu#6": "3",
                "hubu#3": "5",
                "hubu#4": "5",
                "hubu#5": "6",
            },
            "junks": {"yellow": {"shipyard": 2}, "black": {"shipyard": 3}},
            "deck_top": [1, 1],
        }
    )


def test_ex_05_a_sequence_of_actions():
    """EX-05 (R28, R40, R46, R51, R55, R65): cubes from the gift network; Green buys a gift, Purple
    taxes, White's Gongbu bribe is refused by Purple's gift (R65) so he bribes Bingbu#3, Yellow buys 3
    junks for 6 coins, Black bribes Gongbu#3 with two 2-coin cards; paid cards are discarded, no change."""
    state = ex_05_start()
    assert [cubes(state, s) for s in range(5)] == [3, 5, 5, 4, 5]
    assert GAME.to_move(state) == GREEN
    act(state, GREEN, "buy_gift", value=3)
    act(state, PURPLE, "tax_income")
    refused(state, {"type": "bribe_official", "ministry": "gongbu", "space": 6}, "R65")
    act(state, WHITE, "bribe_official", ministry="bingbu", space=3)
    assert pending(state)["decision"] == "pay" and pending(state)["price"] == 2
    assert legal(state) == [
        {"type": "pay", "c1": 0, "c2": 0, "c3": 1},
        {"type": "pay", "c1": 0, "c2": 1, "c3": 0},
        {"type": "pay", "c1": 0, "c2": 1, "c3": 1},
    ]
    pay(state, WHITE, c2=1)
    act(state, YELLOW, "buy_junks", count=3)
    pay(state, YELLOW, c3=2)
    act(state, BLACK, "bribe_official", ministry="gongbu", space=3)
    v = view(state)
    players = v["players"]
    assert player(state, GREEN)["gifts"]["3"] == "available" and players[GREEN]["cubes"] == 4
    assert players[PURPLE]["cards"] == 2 and players[PURPLE]["cubes"] == 4
    assert space(state, "bingbu", 3)["marker"] == WHITE and not space(state, "bingbu", 3)["secured"]
    assert players[WHITE]["cubes"] == 3
    assert players[YELLOW]["shipyard"] == 5 and v["junk_supply"] == 17 and players[YELLOW]["cubes"] == 4
    assert player(state, YELLOW)["hand"] == {"c1": 1, "c2": 0, "c3": 0}  # paid 3 + 3, no Gongbu discount
    assert space(state, "gongbu", 3)["marker"] == BLACK and players[BLACK]["cubes"] == 2
    assert v["discard_pile"] == {"c1": 0, "c2": 3, "c3": 3}  # c3, c2, c3 c3, c2 c2: no change given


def test_ex_06_later_in_the_same_actions_phase():
    """EX-06 (R34, R54, R62, R25): Purple's Commercial Income (c1 + c1: 2 coins, 3 cards, 1 cube) is
    once a round; White's Transfer Influence costs no cube, gives Purple an unsecured marker and
    cancels Purple's gift, which frees White to bribe in Gongbu; Yellow's voyage costs 2 cubes."""
    state = ex_05_start()
    for seat, action in [
        (GREEN, {"type": "buy_gift", "value": 3}),
        (PURPLE, {"type": "tax_income"}),
        (WHITE, {"type": "bribe_official", "ministry": "bingbu", "space": 3}),
        (WHITE, {"type": "pay", "c1": 0, "c2": 1, "c3": 0}),
        (YELLOW, {"type": "buy_junks", "count": 3}),
        (YELLOW, {"type": "pay", "c1": 0, "c2": 0, "c3": 2}),
        (BLACK, {"type": "bribe_official", "ministry": "gongbu", "space": 3}),
    ]:
        GAME.apply(state, action, seat)
    assert player(state, PURPLE)["hand"] == {"c1": 2, "c2": 0, "c3": 0}
    act(state, GREEN, "no_action")
    act(state, PURPLE, "commercial_income", c1=2, c2=0, c3=0)
    assert cubes(state, PURPLE) == 3 and view(state)["players"][PURPLE]["cards"] == 3
    assert {"type": "bribe_official", "ministry": "gongbu", "space": 6} not in legal(state)
    act(state, WHITE, "transfer_influence", ministry="bingbu", space=3, recipient=PURPLE)
    assert cubes(state, WHITE) == 3
    assert space(state, "bingbu", 3) == {
        "space": 3,
        "tile": 2,
        "marker": PURPLE,
        "secured": False,
        "transferred": True,  # R62a
    }
    assert (PURPLE, WHITE, 2) not in gifts(state)
    assert player(state, PURPLE)["gifts"]["2"] == "removed"
    act(state, YELLOW, "start_voyage", count=1)
    assert cubes(state, YELLOW) == 2
    act(state, BLACK, "no_action")
    act(state, GREEN, "no_action")
    refused(state, {"type": "commercial_income", "c1": 0, "c2": 0, "c3": 0}, "R54")
    act(state, PURPLE, "no_action")
    assert {"type": "bribe_official", "ministry": "gongbu", "space": 6} in legal(state)  # White, R65 lifted
    assert active_cubes(state, WHITE) == 3 and active_cubes(state, PURPLE) == 4


def test_ex_07_imperial_favour():
    """EX-07 (R77): after everybody passed, the CM's bribe costs no cube although he bribed already;
    he pays 5 coins; then the Court Phase starts (a wall piece)."""
    state = build(
        {
            "players": FIVE,
            "round": 3,
            "chief_minister": "black",
            "phase": "imperial_favour",
            "cubes_placed": {"black": {"bribe_secure": 1}},
            "cubes": {"black": 0},
            "officials": {"bingbu#2": "5"},
            "hands": {"black": [3, 2]},
        }
    )
    assert pending(state) == {"seat": BLACK, "decision": "imperial_favour", "rule": "R77"}
    act(state, BLACK, "bribe_official", ministry="bingbu", space=2)
    assert space(state, "bingbu", 2)["marker"] == BLACK and not space(state, "bingbu", 2)["secured"]
    assert player(state, BLACK)["hand"] == {"c1": 0, "c2": 0, "c3": 0}
    assert view(state)["great_wall"] == 3 and view(state)["round"] == 4


def test_ex_08_voyages():
    """EX-08 (R47, R76, R105, R108): 6 junks at sea make one voyage (5 back to the supply, 1 stays); Africa's
    chit (+4) and a reward card; later 1 + 4 junks reach India (+4, a second card); Admiral count 10."""
    state = build(
        {
            "players": FIVE,
            "round": 2,
            "chief_minister": "white",
            "to_move": "yellow",
            "junks": {"yellow": {"shipyard": 6}},
            "hands": {"yellow": [1, 1]},
            "land_chits": {"africa": 4, "india": 4},
        }
    )
    act(state, YELLOW, "start_voyage", count=6)
    assert pending(state)["decision"] == "choose_distant_land" and len(legal(state)) == 5
    events = act(state, YELLOW, "choose_distant_land", land="africa")
    me = player(state, YELLOW)
    assert me["score"] == 4 and me["distant_lands"] == ["africa"] and len(me["rewards"]) == 1
    assert me["ocean"] == 1 and me["shipyard"] == 0 and view(state)["junk_supply"] == 25 - 1
    assert events_of(events, "reward_drawn")
    state = build(
        {
            "players": FIVE,
            "round": 5,
            "chief_minister": "white",
            "to_move": "yellow",
            "junks": {"yellow": {"ocean": 1}},
            "reached": {"yellow": ["africa"]},
            "scores": {"yellow": 4},
            "land_chits": {"africa": 0, "india": 4},
            "hands": {"yellow": [3, 3, 3, 1, 1, 1]},
        }
    )
    act(state, YELLOW, "buy_junks", count=4)  # 10 coins (7 with a Gongbu official, below)
    assert pending(state)["price"] == 10
    pay(state, YELLOW, c1=1, c3=3)
    assert (
        player(state, YELLOW)["hand"] == {"c1": 2, "c2": 0, "c3": 0}
        and player(state, YELLOW)["shipyard"] == 4
    )
    for seat in (BLACK, GREEN, PURPLE):
        act(state, seat, "no_action")
    act(state, WHITE, "no_action")
    act(state, YELLOW, "start_voyage", count=4)  # pays c1 + c1 (4 licences needed, 6 paid)
    act(state, YELLOW, "choose_distant_land", land="india")
    me = player(state, YELLOW)
    assert me["score"] == 8 and me["ocean"] == 0 and len(me["rewards"]) == 1
    assert me["cubes"] == 3 - 1 - 2  # no gifts: 3 cubes; the voyage repeats the Junks space (R34)
    assert admiral_measure(state, YELLOW) == 10
    with_gongbu = build(
        {
            "players": 3,
            "round": 2,
            "to_move": "purple",
            "chief_minister": "yellow",
            "officials": {"gongbu#3": "purple u"},
            "hands": {"purple": [3, 3, 2, 1]},
        }
    )
    act(with_gongbu, 1, "buy_junks", count=4)
    assert pending(with_gongbu)["price"] == 7


EX_09 = {
    "players": FIVE,
    "round": 4,
    "chief_minister": "black",
    "phase": "court",
    "candidate": "gongbu",
    "students": {"red": "yellow", "orange": "white"},
    "gifts": ["white>black:2", "white>yellow:3", "green>white:1"],
    "hands": {"black": [1, 2], "green": [], "purple": [3], "white": [2], "yellow": [1, 2]},
}


def test_ex_09_imperial_examination():
    """EX-09 (R82, R83, R84, R86, R87, R88, R89): tutoring from the CM; Black and Yellow must tutor White's
    student (gifts), Green has no cards, Purple and White choose freely; White 4 : Yellow 3; no gift is
    cancelled; the cards are discarded, Yellow's student returns; the Gongbu candidate must go on an empty
    Gongbu space, with a secured White marker; the next candidate is revealed."""
    state = build(EX_09)
    assert pending(state)["seat"] == BLACK and pending(state)["decision"] == "tutor"
    assert {a["student"] for a in legal(state)} == {"orange"}  # obliged to White (R84)
    act(state, BLACK, "tutor", student="orange", coins=1)
    act(state, BLACK, "end_tutoring")
    assert GAME.to_move(state) == PURPLE  # Green holds no card (R83)
    assert {a["student"] for a in legal(state)} == {"red", "orange"}
    act(state, PURPLE, "tutor", student="red", coins=3)  # his only card: the turn ends by itself
    assert {a["student"] for a in legal(state)} == {"red", "orange"}  # White: Green is no student owner
    others_see = view(state, YELLOW)["players"][PURPLE]["tutoring"]
    assert others_see == {"student": "red", "cards": 1}  # face down (R116)
    act(state, WHITE, "tutor", student="orange", coins=2)
    assert {a["student"] for a in legal(state)} == {"orange"}  # Yellow must tutor White, not herself
    act(state, YELLOW, "tutor", student="orange", coins=1)
    events = act(state, YELLOW, "end_tutoring")
    (decided,) = events_of(events, "exam_decided")
    assert (decided["red"], decided["orange"], decided["winner"]) == (3, 4, WHITE)
    assert not events_of(events, "gift_cancelled") and len(gifts(state)) == 3
    assert view(state)["discard_pile"] == {"c1": 2, "c2": 1, "c3": 1}
    assert view(state)["students"] == {"red": None, "orange": WHITE}  # Yellow's student went home
    assert pending(state)["decision"] == "place_candidate" and pending(state)["seat"] == WHITE
    assert {(a["ministry"], a["space"]) for a in legal(state)} == {("gongbu", s) for s in (1, 2, 6, 7)}
    act(state, WHITE, "place_candidate", ministry="gongbu", space=2)
    assert space(state, "gongbu", 2) == {
        "space": 2,
        "tile": "candidate",
        "marker": WHITE,
        "secured": True,
        "transferred": False,
    }
    assert view(state)["candidate"] is not None and view(state)["candidate"] != "gongbu"
    assert view(state)["students"] == {"red": None, "orange": None}


def test_ex_09_variant_full_gongbu():
    """EX-09 variant (R88 step 3): with no empty Gongbu space the winner replaces an unbribed or
    unsecured Gongbu official; the tile leaves the game and its marker goes home."""
    full = {f"gongbu#{s}": "black s" for s in (3, 4, 6, 7)}
    state = build(
        {**EX_09, "officials": {**full, "gongbu#1": "green u", "gongbu#2": "4", "gongbu#5": "purple s"}}
    )
    for seat, coins in ((BLACK, 1), (PURPLE, 3), (WHITE, 2), (YELLOW, 1)):
        act(state, seat, "tutor", student="orange" if seat != PURPLE else "red", coins=coins)
        if seat in (BLACK, YELLOW):
            act(state, seat, "end_tutoring")
    assert {(a["ministry"], a["space"]) for a in legal(state)} == {("gongbu", 1), ("gongbu", 2)}
    act(state, WHITE, "place_candidate", ministry="gongbu", space=1)
    assert space(state, "gongbu", 1) == {
        "space": 1,
        "tile": "candidate",
        "marker": WHITE,
        "secured": True,
        "transferred": False,
    }


def at_resolution(board: dict, chits: dict, gift_list: list[str]):
    """Five players at the Ministry Resolution step of a round-5 Court Phase (White is CM)."""
    return build(
        {
            "players": FIVE,
            "round": 5,
            "chief_minister": "white",
            "phase": "court",
            "court_step": "ministries",
            "officials": board,
            "chits": chits,
            "gifts": gift_list,
        }
    )


def test_ex_10_simple_ministry_resolution():
    """EX-10 (R90, R91, R121): Green (1) must give his influence to Black (gift 4 beats 3); Black 4 :
    Purple 3; Black Minister +7, Purple Secretary +5; Black's gift to Green is cancelled, Purple's
    stays; Green keeps his secured marker on #5."""
    board = {
        "gongbu#1": "black u",
        "gongbu#4": "black s",
        "gongbu#6": "black u",
        "gongbu#2": "purple u",
        "gongbu#3": "purple s",
        "gongbu#7": "purple u",
        "gongbu#5": "green u",
    }
    state = at_resolution(board, {"gongbu": [7, 5]}, ["purple>green:3", "black>green:4"])
    g = ministry(state, "gongbu")
    assert g["resolved"] and g["minister"] == BLACK and g["secretary"] == PURPLE
    assert all(s["secured"] for s in g["spaces"])
    assert [s["marker"] for s in g["spaces"]] == [BLACK, PURPLE, PURPLE, BLACK, GREEN, BLACK, PURPLE]
    assert view(state)["players"][BLACK]["score"] == 7 and view(state)["players"][PURPLE]["score"] == 5
    assert gifts(state) == {(PURPLE, GREEN, 3)}


def test_ex_11_complex_ministry_resolution():
    """EX-11 (R91 steps 4-6): Purple (least; best #7) must give to Green; Black (least) chooses Yellow
    freely (D7); Green (least: best #4 is more junior than White's #2) must give to White, whose temp
    markers replace Green's; White 4 : Yellow 3 -> White Minister +8, Yellow Secretary +6."""
    board = {
        "bingbu#1": "yellow u",
        "bingbu#2": "white u",
        "bingbu#3": "black u",
        "bingbu#4": "green u",
        "bingbu#5": "white u",
        "bingbu#6": "yellow u",
        "bingbu#7": "purple u",
    }
    state = at_resolution(
        board, {"bingbu": [8, 6]}, ["white>green:2", "white>yellow:3", "purple>yellow:2", "green>purple:1"]
    )
    assert (GREEN, PURPLE, 1) not in gifts(state)  # step 1: Purple gave to Green
    p = pending(state)
    assert (p["seat"], p["decision"], p["ministry"], p["receivers"]) == (
        BLACK,
        "give_influence",
        "bingbu",
        [GREEN, WHITE, YELLOW],
    )
    held = [s["influence_held_by"] for s in ministry(state, "bingbu")["spaces"]]
    assert held == [YELLOW, WHITE, BLACK, GREEN, WHITE, YELLOW, GREEN]
    events = act(state, BLACK, "give_influence", seat=YELLOW)
    assert [(e["seat"], e["receiver"]) for e in events_of(events, "influence_given")] == [
        (BLACK, YELLOW),
        (GREEN, WHITE),
    ]
    b = ministry(state, "bingbu")
    assert (b["minister"], b["secretary"]) == (WHITE, YELLOW)
    assert view(state)["players"][WHITE]["score"] == 8 and view(state)["players"][YELLOW]["score"] == 6
    assert gifts(state) == {(WHITE, YELLOW, 3), (PURPLE, YELLOW, 2)}
    assert [s["marker"] for s in b["spaces"]] == [YELLOW, WHITE, BLACK, GREEN, WHITE, YELLOW, PURPLE]
    assert all(s["secured"] for s in b["spaces"])


def ex_12_end(white_insulted: bool = True, admiral_variant: bool = False):
    """EX-12's final position: all ministries resolved, the 9th wall piece placed, scores from play."""
    board = {f"bingbu#{s}": "white s" for s in (1, 2, 3, 4)}
    board |= {f"bingbu#{s}": "purple s" for s in (5, 6, 7)}
    board |= {f"hubu#{s}": "green s" for s in (1, 2, 3, 4)} | {f"hubu#{s}": "black s" for s in (5, 6, 7)}
    board |= {f"gongbu#{s}": "black s" for s in (1, 2, 3, 4)} | {f"gongbu#{s}": "yellow s" for s in (5, 6, 7)}
    desc = {
        "players": FIVE,
        "round": 9,
        "wall": 9,
        "phase": "court",
        "court_step": "round_end",
        "admiral_variant": admiral_variant,
        "officials": board,
        "resolved": {
            "bingbu": ["white", "purple"],
            "hubu": ["green", "black"],
            "gongbu": ["black", "yellow"],
        },
        "chits": {"bingbu": [7, 5], "hubu": [7, 4], "gongbu": [6, 4]},
        "foreign_lands": {
            "1": {"land": "annam", "boxes": ["black", "white"], "state": "success"},
            "2": {"land": "mongolia", "boxes": ["white", "black", "purple"], "state": "success"},
            "3": {"land": "korea", "boxes": ["green", "green", None], "state": "failed"},
        },
        "reached": {"yellow": ["africa", "india"], "white": ["arabia"], "green": ["spice_islands"]},
        "land_chits": {"africa": 0, "india": 0, "arabia": 0, "spice_islands": 0, "americas": 3},
        "scores": {"yellow": 12, "black": 16, "green": 9, "purple": 9, "white": 18 if white_insulted else 16},
    }
    if white_insulted:
        desc["emperor_insulted"] = "white"
    else:
        desc["armies"] = {"white": {"colonies": 1}}
    return build(desc)


def test_ex_12_final_scoring():
    """EX-12 (R103, R104, R105, R106, R109, R110, R111, R122): Yellow Admiral, Black Chief Minister, White
    General, 1 VP each; 13, 17, 9, 9, 19: White wins (his 8 foreign-land points include the Emperor Insulted!
    2)."""
    state = ex_12_end()
    result = GAME.result(state)
    assert result["titles"] == {"chief_minister": BLACK, "admiral": YELLOW, "general": WHITE}
    assert result["scores"] == [17, 9, 9, 19, 13]
    assert result["ranking"][0] == WHITE and result["tiebreak"] is None and result["winners"] == [WHITE]


def test_ex_12_alternative_tie_break():
    """EX-12 alternative (R111): without the Emperor Insulted! card White has 17 like Black; the
    Admiral (Yellow) is not tied, so the Chief Minister among the tied wins: Black."""
    result = GAME.result(ex_12_end(white_insulted=False))
    assert result["scores"][WHITE] == result["scores"][BLACK] == 17
    assert result["titles"]["general"] == WHITE
    assert result["ranking"][:2] == [BLACK, WHITE] and result["tiebreak"] == "R111 chief minister"
    assert result["winners"] == [BLACK]


def test_ex_13_new_officials_at_the_end_of_a_round():
    """EX-13 (R97, R117): new tiles go on the lowest-numbered empty space: Bingbu#1 and Hubu#2;
    full Gongbu gets none; the stack shrinks by 2."""
    board = {"hubu#1": "green s cand"} | {f"gongbu#{s}": str(c) for s, c in ((1, 2), (2, 3), (6, 4), (7, 5))}
    state = build(
        {
            "players": 3,
            "round": 3,
            "phase": "court",
            "court_step": "new_officials",
            "officials": board,
            "chief_minister": "green",
            "candidate": "bingbu",
            "candidate_stack": ["gongbu", "any", "any", "any"],
        }
    )
    v = view(state)
    assert space(state, "bingbu", 1)["tile"] is not None and space(state, "bingbu", 1)["marker"] is None
    assert [space(state, "bingbu", s)["tile"] is None for s in (2, 6, 7)] == [True] * 3
    assert space(state, "hubu", 2)["tile"] is not None and space(state, "hubu", 6)["tile"] is None
    assert v["official_stack"] == 24 - 9 - 4 - 2


def test_ex_14_successful_invasion():
    """EX-14 (R93, R94, R95, R96, R108): a full Annam succeeds before its deadline (wall 3 < 4): Black +4,
    White +3 and White, in the reward box, draws a card; the armies stay on the tile and count for the
    General."""
    state = build(
        {
            "players": FIVE,
            "round": 3,
            "phase": "court",
            "chief_minister": "green",
            "foreign_lands": {"1": {"land": "annam", "boxes": ["black", "white"]}},
        }
    )
    v = view(state)
    assert v["great_wall"] == 3 and v["foreign_lands"][0]["state"] == "success"
    assert v["players"][BLACK]["score"] == 4 and v["players"][WHITE]["score"] == 3
    assert v["players"][WHITE]["reward_cards"] == 1 and v["reward_stack"] == 9
    assert general_measure(state, BLACK) == general_measure(state, WHITE) == 1


def test_ex_15_failed_invasion():
    """EX-15 (R93, R95, R96): at the 6th wall piece Korea (position 2) still has an empty box: no VP,
    but Green, in the reward box, draws a card; his two armies stay and count for the General."""
    state = build(
        {
            "players": FIVE,
            "round": 6,
            "phase": "court",
            "chief_minister": "green",
            "foreign_lands": {
                "1": {"land": "annam", "state": "failed"},
                "2": {"land": "korea", "boxes": ["green", "green", None]},
            },
        }
    )
    v = view(state)
    assert v["great_wall"] == 6 and v["foreign_lands"][1]["state"] == "failed"
    assert v["players"][GREEN]["score"] == 0 and v["players"][GREEN]["reward_cards"] == 1
    assert general_measure(state, GREEN) == 2


# -- Part B: edge cases ----------------------------------------------------------------------------------


def test_e_01_exam_tie_goes_to_red():
    """E-01 (R87): 5 : 5 goes to the red student (Purple); so does 0 : 0 when nobody has cards."""
    purple, black = range(2)
    desc = {
        "players": ["purple", "black", "green"],
        "round": 3,
        "phase": "court",
        "chief_minister": "purple",
        "students": {"red": "purple", "orange": "black"},
        "hands": {"purple": [3, 2], "black": [2, 3], "green": []},
    }
    state = build(desc)
    for seat in (purple, black):
        act(state, seat, "tutor", student="red" if seat == purple else "orange", coins=3)
        act(state, seat, "tutor", student="red" if seat == purple else "orange", coins=2)
    assert pending(state)["decision"] == "place_candidate" and pending(state)["seat"] == purple
    nobody = build({**desc, "hands": {"purple": [], "black": [], "green": []}})
    assert pending(nobody)["seat"] == purple and pending(nobody)["decision"] == "place_candidate"


def test_e_02_bribery_obligation_details():
    """E-02 (R65, R73, R41): Green, holding White's gift, may bribe in Hubu (1 < 2) but not again
    once level (2 = 2); may bribe in Bingbu (White has none); may not bribe in Gongbu (1 >= 1) but
    may play Bribery in Gongbu there and may secure his Gongbu official."""
    green, white, black = range(3)
    state = build(
        {
            "players": ["green", "white", "black"],
            "round": 2,
            "chief_minister": "black",
            "gifts": ["white>green:1"],
            "cubes": {"green": 5},
            "hands": {"green": [3, 3, 3]},
            "rewards": {"green": ["bribery_gongbu"]},
            "officials": {
                "hubu#3": "white u",
                "hubu#4": "white u",
                "hubu#5": "green u",
                "hubu#1": "2",
                "hubu#2": "2",
                "bingbu#3": "green u",
                "bingbu#4": "green u",
                "bingbu#5": "3",
                "gongbu#3": "white u",
                "gongbu#4": "green u",
                "gongbu#5": "3",
            },
        }
    )
    bribes = {(a["ministry"], a["space"]) for a in legal(state, "bribe_official")}
    assert bribes == {("hubu", 1), ("hubu", 2), ("bingbu", 5)}
    assert {"type": "reward_bribery", "card": "bribery_gongbu", "ministry": "gongbu", "space": 5} in legal(
        state
    )
    assert {"type": "secure_official", "ministry": "gongbu", "space": 4} in legal(state)
    refused(state, {"type": "bribe_official", "ministry": "gongbu", "space": 5}, "R65")
    act(state, green, "bribe_official", ministry="hubu", space=1)
    assert pending(state)["price"] == 2 - 1  # Green has a Hubu official (R43)
    pay(state, green, c3=1)
    act(state, white, "no_action")
    act(state, black, "no_action")
    refused(state, {"type": "bribe_official", "ministry": "hubu", "space": 2}, "R65")
    act(state, green, "reward_bribery", card="bribery_gongbu", ministry="gongbu", space=5)
    assert space(state, "gongbu", 5)["marker"] == green


def test_e_03_giving_gifts_back_and_regifting():
    """E-03 (R52, R64, R68): Purple may not answer Black's 3 with a 1; a 3 makes a mutual obligation (counts 2
    and 2); a later 5 replaces Purple's own 3 and cancels Black's inferior 3 (counts 1, 1)."""
    black, purple, green = range(3)
    state = build(
        {
            "players": ["black", "purple", "green"],
            "round": 2,
            "chief_minister": "green",
            "to_move": "purple",
            "gifts": ["black>purple:3"],
            "cubes": {"purple": 5},
            "gift_states": {"purple": {"3": "available", "5": "available"}},
        }
    )
    refused(state, {"type": "give_gift", "value": 1, "recipient": black}, "R64")
    act(state, purple, "give_gift", value=3, recipient=black)
    assert gifts(state) == {(black, purple, 3), (purple, black, 3)}
    assert gift_count(state, black) == gift_count(state, purple) == 2
    act(state, green, "no_action")
    act(state, black, "no_action")
    act(state, purple, "give_gift", value=5, recipient=black)
    assert gifts(state) == {(purple, black, 5)}
    assert (
        player(state, purple)["gifts"]["3"] == "removed" and player(state, black)["gifts"]["3"] == "removed"
    )
    assert gift_count(state, black) == gift_count(state, purple) == 1


def test_e_04_tutoring_with_three_cards_cancels_the_gift():
    """E-04 (R86, R126, R25, R68): Green must tutor Yellow's student (her gift); the third card cancels the
    gift whatever the result, so next round Green has 3 cubes, not 4; with two cards it would stay."""
    green, yellow = 0, 2
    desc = {
        "players": ["green", "white", "yellow"],
        "round": 3,
        "phase": "court",
        "chief_minister": "green",
        "students": {"red": "white", "orange": "yellow"},
        "gifts": ["yellow>green:2"],
        "hands": {"green": [1, 1, 1], "white": [], "yellow": []},
    }
    state = build(desc)
    assert active_cubes(state, green) == 4
    act(state, green, "tutor", student="orange", coins=1)
    act(state, green, "tutor", student="orange", coins=1)
    assert gifts(state) == {(yellow, green, 2)}
    events = act(state, green, "tutor", student="orange", coins=1)
    assert events_of(events, "gift_cancelled")[0]["rule"] == "R86"
    assert gifts(state) == set() and active_cubes(state, green) == 3
    two = build(desc)
    act(two, green, "tutor", student="orange", coins=1)
    act(two, green, "tutor", student="orange", coins=1)
    act(two, green, "end_tutoring")
    assert gifts(two) == {(yellow, green, 2)}


def test_e_05_reward_stack_empty():
    """E-05 (R47, R76, R95): with the reward stack empty a voyage still scores Arabia's 3 and places
    the marker, but no card; a conquered reward box still scores its VP."""
    state = build(
        {
            "players": 3,
            "round": 2,
            "chief_minister": "yellow",
            "to_move": "purple",
            "reward_stack": [],
            "junks": {"purple": {"ocean": 4, "shipyard": 1}},
            "hands": {"purple": [3]},
            "land_chits": {"arabia": 3},
        }
    )
    act(state, 1, "start_voyage", count=1)
    events = act(state, 1, "choose_distant_land", land="arabia")
    me = player(state, 1)
    assert me["score"] == 3 and me["distant_lands"] == ["arabia"] and me["rewards"] == []
    assert events_of(events, "reward_stack_empty")
    court = build(
        {
            "players": 3,
            "round": 2,
            "phase": "court",
            "reward_stack": [],
            "foreign_lands": {"1": {"land": "yunnan", "boxes": ["yellow", "purple"]}},
        }
    )
    v = view(court)
    assert v["foreign_lands"][0]["state"] == "success"
    assert [p["score"] for p in v["players"][:2]] == [4, 2] and v["players"][1]["reward_cards"] == 0


def test_e_06_final_resolution_tie():
    """E-06 (R101, R102): at game end Hubu resolves with its markers only: Black 2 : White 2, and the
    most senior marked official (#2) is Black's: Black Minister +8, White Secretary +4."""
    black, white = range(2)
    state = build(
        {
            "players": ["black", "white", "green"],
            "round": 9,
            "phase": "court",
            "court_step": "round_end",
            "officials": {
                "hubu#1": "3",
                "hubu#2": "black u",
                "hubu#3": "white s",
                "hubu#4": "black s",
                "hubu#5": "white u",
                "hubu#6": "empty",
                "hubu#7": "empty",
            },
            "chits": {"hubu": [8, 4]},
        }
    )
    h = ministry(state, "hubu")
    assert (h["minister"], h["secretary"]) == (black, white)
    assert GAME.result(state)["scores"][black] >= 8 and view(state)["players"][white]["score"] >= 4
    assert ministry(state, "bingbu")["minister"] is None  # no markers: no Minister (R101)


def test_e_07_chief_minister_tie_goes_to_the_hubu_minister():
    """E-07 (R104): Green 6 and Purple 6 markers tie; White (4) is Minister of Hubu and becomes Chief
    Minister although not tied."""
    white = 2
    board = {f"bingbu#{s}": "green s" for s in range(1, 6)} | {"bingbu#6": "purple s", "bingbu#7": "purple s"}
    board |= {f"hubu#{s}": "white u" for s in (1, 2, 3)} | {"hubu#4": "purple u", "hubu#5": "purple s"}
    state = build(
        {
            "players": ["green", "purple", "white"],
            "round": 9,
            "phase": "court",
            "court_step": "round_end",
            "officials": board,
            "resolved": {"bingbu": ["green", "purple"]},
        }
    )
    result = GAME.result(state)
    assert result["measures"]["chief_minister"] == [6, 6, 4]
    assert result["titles"]["chief_minister"] == white


def test_e_08_admiral_variant():
    """E-08 (R112): in EX-12's alternative (White 17 = Black 17) the Admiral variant makes Yellow win
    though she is not tied; without it Black wins (EX-12)."""
    result = GAME.result(ex_12_end(white_insulted=False, admiral_variant=True))
    assert result["ranking"][0] == YELLOW and result["tiebreak"] == "R112 admiral variant"
    assert result["winners"] == [YELLOW]


def test_e_09_commercial_income_limits():
    """E-09 (R54, R72, R77): c3 + c1 (4 coins) draws 5; a second Commercial Income is refused, also
    through an Extra Action card or Imperial Favour; c3 + c2 (5 coins) is never allowed."""
    purple = 1
    desc = {
        "players": ["green", "purple", "white"],
        "round": 4,
        "chief_minister": "green",
        "hands": {"purple": [3, 2, 1]},
        "rewards": {"purple": ["extra_action"]},
    }
    state = build(desc)
    assert {"type": "commercial_income", "c1": 0, "c2": 1, "c3": 1} not in legal(state)
    refused(state, {"type": "commercial_income", "c1": 0, "c2": 1, "c3": 1}, "R54")
    act(state, purple, "commercial_income", c1=1, c2=0, c3=1)
    assert player(state, purple)["cards"] == 1 + 5
    act(state, 2, "no_action")
    act(state, 0, "no_action")
    refused(state, {"type": "commercial_income", "c1": 0, "c2": 0, "c3": 0}, "R54")
    act(state, purple, "reward_extra_action")
    assert pending(state)["decision"] == "extra_action" and not legal(state, "commercial_income")
    favour = build(
        {**desc, "chief_minister": "purple", "phase": "imperial_favour", "commercial_used": ["purple"]}
    )
    assert pending(favour)["decision"] == "imperial_favour" and not legal(favour, "commercial_income")
    refused(favour, {"type": "commercial_income", "c1": 0, "c2": 0, "c3": 0}, "R54")


def test_e_10_candidate_into_a_full_ministry_then_a_dead_candidate():
    """E-10 (R88, R89, R90): Hubu is full, so Green must replace an unbribed/unsecured Hubu official
    (#1 Yellow's or his own #3); #1 leaves the game with Yellow's marker; the revealed Bingbu candidate
    is removed at once (Bingbu resolved) and Any becomes current; Hubu then resolves this Court Phase."""
    board = {f"bingbu#{s}": "black s" for s in range(1, 8)}
    board |= {
        "hubu#1": "yellow u",
        "hubu#2": "black s",
        "hubu#3": "green u",
        "hubu#4": "green s",
        "hubu#5": "white s",
        "hubu#6": "purple s",
        "hubu#7": "yellow s",
    }
    state = build(
        {
            "players": FIVE,
            "round": 5,
            "phase": "court",
            "chief_minister": "green",
            "officials": board,
            "resolved": {"bingbu": ["black", "black"]},
            "candidate": "hubu",
            "candidate_stack": ["bingbu", "any"],
            "students": {"red": "green"},
            "forced": True,
        }
    )
    assert {(a["ministry"], a["space"]) for a in legal(state)} == {("hubu", 1), ("hubu", 3)}
    events = act(state, GREEN, "place_candidate", ministry="hubu", space=1)
    assert space(state, "hubu", 1) == {
        "space": 1,
        "tile": "candidate",
        "marker": GREEN,
        "secured": True,
        "transferred": False,
        "influence_held_by": GREEN,
    }
    assert [e["candidate"] for e in events_of(events, "candidate_removed")] == ["bingbu"]
    assert view(state)["candidate"] == "any" and view(state)["candidate_stack"]["count"] == 0
    assert events_of(events, "ministry_resolution")[0]["ministry"] == "hubu"
    p = pending(state)  # Yellow, Black, White, Purple hold 1 each; Yellow's #7 is the most junior
    assert (p["decision"], p["seat"], p["ministry"]) == ("give_influence", YELLOW, "hubu")


def test_e_11_several_voyages_in_one_action():
    """E-11 (R47): 3 at sea + 7 make two voyages to two different lands (chits, up to two cards, 10
    junks home); with one land left, a sail completing two voyages is refused, 1-5 junks are fine;
    with all five lands reached there is no voyage any more."""
    black = 0
    state = build(
        {
            "players": ["black", "purple", "white"],
            "round": 2,
            "chief_minister": "white",
            "to_move": "black",
            "junks": {"black": {"ocean": 3, "shipyard": 7}},
            "hands": {"black": [1, 1, 3]},
            "land_chits": {"india": 4, "africa": 2},
        }
    )
    act(state, black, "start_voyage", count=7)
    assert pending(state)["voyages"] == 2
    act(state, black, "choose_distant_land", land="india")
    assert {a["land"] for a in legal(state)} == {"spice_islands", "arabia", "africa", "americas"}
    act(state, black, "choose_distant_land", land="africa")
    me = player(state, black)
    assert (
        me["score"] == 6 and me["ocean"] == 0 and len(me["rewards"]) == 2 and view(state)["junk_supply"] == 25
    )
    white = 2
    four = ["spice_islands", "india", "arabia", "africa"]
    b = build(
        {
            "players": ["black", "purple", "white"],
            "round": 2,
            "chief_minister": "purple",
            "to_move": "white",
            "junks": {"white": {"ocean": 4, "shipyard": 6}},
            "hands": {"white": [1, 1]},
            "reached": {"white": four},
        }
    )
    assert [a["count"] for a in legal(b, "start_voyage")] == [1, 2, 3, 4, 5]
    refused(b, {"type": "start_voyage", "count": 6}, "R47")
    act(b, white, "start_voyage", count=1)
    pay(b, white, c1=1)
    assert player(b, white)["distant_lands"] == [*four, "americas"]
    act(b, black, "no_action")
    act(b, 1, "no_action")
    assert not legal(b, "start_voyage") and player(b, white)["shipyard"] == 5


def test_e_12_hand_limit():
    """E-12 (R98, R39): Yellow keeps 4 of her 7 Confucius cards (D9) and all 3 reward cards; Green, with
    4, discards nothing; the discarded cards are revealed once everybody has chosen."""
    yellow, green = 0, 1
    state = build(
        {
            "players": ["yellow", "green", "black"],
            "round": 3,
            "phase": "court",
            "court_step": "discards",
            "chief_minister": "black",
            "hands": {"yellow": [1, 1, 2, 2, 3, 3, 3], "green": [1, 2, 3, 3], "black": []},
            "rewards": {"yellow": ["cash", "gift", "recruit_army"]},
        }
    )
    p = pending(state)
    assert (p["seat"], p["decision"]) == (yellow, "keep_cards")
    assert len(legal(state)) == 8  # the 4-card sub-hands of {1, 1, 2, 2, 3, 3, 3}
    act(state, yellow, "keep_cards", c1=0, c2=1, c3=3)
    me = player(state, yellow)
    assert me["hand"] == {"c1": 0, "c2": 1, "c3": 3} and len(me["rewards"]) == 3
    assert player(state, green)["cards"] == 4
    assert view(state)["discard_pile"] == {"c1": 2, "c2": 1, "c3": 0}
    assert view(state)["phase"] == "choose_chief_minister"


def test_e_13_passing_and_zero_cube_turns():
    """E-13 (R29, R62): Black may not pass with a cube left; White, with no cube, transfers Gongbu#6
    to Black at no cost (unsecured; Black's gift to White cancelled) and may still play reward cards
    or pass later."""
    black, white, green = range(3)
    state = build(
        {
            "players": ["black", "white", "green"],
            "round": 3,
            "chief_minister": "green",
            "to_move": "black",
            "cubes": {"black": 1, "white": 0},
            "gifts": ["black>white:4"],
            "officials": {"gongbu#6": "white u"},
            "rewards": {"white": ["cash"]},
        }
    )
    refused(state, {"type": "pass"}, "R29")
    act(state, black, "no_action")
    assert {"type": "pass"} in legal(state) and {"type": "reward_cash"} in legal(state)
    act(state, white, "transfer_influence", ministry="gongbu", space=6, recipient=black)
    assert space(state, "gongbu", 6)["marker"] == black and not space(state, "gongbu", 6)["secured"]
    assert gifts(state) == set() and view(state)["players"][white]["cubes"] == 0
    assert space(state, "gongbu", 6)["transferred"]  # R62a: Black cannot hand it on this round
    act(state, green, "no_action")
    # Black, with no cube, no reward card and no marker he may transfer, passes automatically (R32).
    assert view(state)["players"][black]["passed"] and pending(state)["seat"] == white
    assert set(map(str, legal(state))) == {str({"type": "reward_cash"}), str({"type": "pass"})}


def test_e_14_paired_action_with_too_few_cubes():
    """E-14 (R34, R35, R50, R72): after recruiting, invading costs 2 cubes, more than Purple's 1: refused;
    through an Extra Action card it costs none and she pays 7+ coins for Korea."""
    purple = 1
    state = build(
        {
            "players": ["black", "purple", "white"],
            "round": 3,
            "chief_minister": "black",
            "cubes": {"purple": 1},
            "cubes_placed": {"purple": {"army_invade": 1}},
            "armies": {"purple": {"colonies": 1}},
            "hands": {"purple": [3, 3, 2]},
            "rewards": {"purple": ["extra_action"]},
            "foreign_lands": {"1": {"land": "korea", "boxes": ["black", None, None]}},
        }
    )
    refused(state, {"type": "invade_foreign_land", "position": 1, "box": 1}, "R35")
    act(state, purple, "reward_extra_action")
    act(state, purple, "invade_foreign_land", position=1, box=1)
    v = view(state)
    assert v["foreign_lands"][0]["boxes"][1]["army"] == purple and v["players"][purple]["cubes"] == 1
    assert player(state, purple)["hand"] == {"c1": 0, "c2": 0, "c3": 0}  # 8 coins paid for 7


def test_e_15_emperor_insulted_and_the_general():
    """E-15 (R75, R106, R108): Green plays the card: +2 VP at once, the army leaves the colonies; General
    count Green 1 + 1 = 2, White 2: tied, so the Minister of Bingbu (Black) is General. No army in the
    colonies, no card."""
    green, black = 0, 2
    desc = {
        "players": ["green", "white", "black"],
        "round": 3,
        "chief_minister": "black",
        "rewards": {"green": ["emperor_insulted"]},
        "armies": {"green": {"colonies": 1, "stock": 4}},
        "officials": {f"bingbu#{s}": "black s" for s in range(1, 8)},
        "resolved": {"bingbu": ["black", "black"]},
        "foreign_lands": {
            "1": {"land": "annam", "boxes": ["green", "white"], "state": "success"},
            "2": {"land": "yunnan", "boxes": ["white", None]},
        },
    }
    state = build(desc)
    act(state, green, "reward_emperor_insulted")
    v = view(state)
    assert v["players"][green]["score"] == 2 and v["emperor_insulted"] == green
    assert v["players"][green]["armies_in_colonies"] == 0
    info = titles(state)
    assert info["measures"]["general"][:2] == [2, 2] and info["holders"]["general"] == black
    none = build({**desc, "armies": {"green": {"colonies": 0}}})
    refused(none, {"type": "reward_emperor_insulted"}, "R75")


def test_e_16_a_ministry_with_a_single_participant():
    """E-16 (R91 step 3, R104): Yellow, alone in Gongbu, is Minister and Secretary (+11) and her two
    markers count for the Chief Minister."""
    yellow = 0
    state = build(
        {
            "players": 3,
            "round": 4,
            "phase": "court",
            "court_step": "ministries",
            "officials": {f"gongbu#{s}": "yellow u" for s in range(1, 8)},
            "chits": {"gongbu": [6, 5]},
        }
    )
    g = ministry(state, "gongbu")
    assert (g["minister"], g["secretary"]) == (yellow, yellow) and view(state)["players"][yellow][
        "score"
    ] == 11
    assert chief_minister_measure(state, yellow) == 9


def test_e_17_extra_action_does_not_raise_later_cube_costs():
    """E-17 (R36, R72): Buy Gift through Extra Action puts no cube on the space, so the next Buy Gift
    costs 1 cube, not 2."""
    black = 0
    state = build(
        {
            "players": ["black", "green", "white"],
            "round": 2,
            "chief_minister": "white",
            "to_move": "black",
            "cubes": {"black": 2},
            "hands": {"black": [3, 3]},
            "rewards": {"black": ["extra_action"]},
        }
    )
    act(state, black, "reward_extra_action")
    act(state, black, "buy_gift", value=2)
    pay(state, black, c3=1)
    assert view(state)["players"][black]["cubes"] == 2
    act(state, 1, "no_action")
    act(state, 2, "no_action")
    act(state, black, "buy_gift", value=3)
    assert view(state)["players"][black]["cubes"] == 1


def test_e_18_game_end_by_exhausted_candidates():
    """E-18 (R89, R100, R101, R97): the last candidate is placed, Gongbu is not full so it does not
    resolve; the round finishes (a new tile on Gongbu#6 only), then the game ends and Gongbu's final
    resolution makes Green (3) Minister and Purple (2) Secretary."""
    green, purple = range(2)
    board = {f"bingbu#{s}": "black s" for s in range(1, 8)} | {f"hubu#{s}": "black s" for s in range(1, 8)}
    board |= {
        "gongbu#1": "green s cand",
        "gongbu#2": "green u",
        "gongbu#3": "green u",
        "gongbu#4": "purple u",
        "gongbu#5": "purple u",
        "gongbu#6": "empty",
        "gongbu#7": "empty",
    }
    state = build(
        {
            "players": ["green", "purple", "black"],
            "round": 7,
            "phase": "court",
            "court_step": "ministries",
            "officials": board,
            "candidate": None,
            "candidate_stack": [],
            "resolved": {"bingbu": ["black", "black"], "hubu": ["black", "black"]},
        }
    )
    assert GAME.to_move(state) is None
    g = ministry(state, "gongbu")
    assert (g["minister"], g["secretary"]) == (green, purple)
    assert g["spaces"][5]["tile"] is not None and g["spaces"][5]["marker"] is None
    assert g["spaces"][6]["tile"] is None
    assert view(state)["round"] == 7 and GAME.result(state) is not None
