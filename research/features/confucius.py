"""Confucius's feature vector (see :mod:`research.features.spec` for the conventions).

Slices follow the view: the round and pending decision; each seat's score, action cubes, cards,
gifts, ships, armies and distant lands (its hand and rewards only for itself); the three ministries
space by space (tile cost, whose marker, secured); the candidate, the students, the foreign lands box by
box, the distant lands, the gift tracker and the public stacks.  Names and orders come from
:mod:`engine.games.confucius.components`.  ``_write`` fills the same vector straight from the engine
state (``FeatureSpec.encode_state``), several times faster than building the view first.
"""

from __future__ import annotations

from array import array
from typing import Any, cast

import numpy as np

from engine.games.confucius.components import (
    ACTION_SPACES,
    ARMIES,
    BOX_VP,
    CANDIDATE_NAMES,
    CUBES,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    FOREIGN_POSITIONS,
    INVASION_COST,
    JUNKS,
    MINISTRIES,
    REWARD_BOX,
    REWARDS,
    SPACES,
    WALL_SPACES,
)
from engine.games.confucius.state import FAILED, GIFT_STATE_NAMES, OVER, PHASE_NAMES, State
from research.features.spec import (
    Blocks,
    Cells,
    Feature,
    FeatureSpec,
    Scaled,
    Seats,
    View,
    counts,
    flag,
    onehot,
    per_player,
    scalar,
    seat_onehot,
)

MAX_PLAYERS = 5
_PHASES = (
    "action", "choose_chief_minister", "choose_distant_land", "give_influence", "imperial_favour",
    "keep_cards", "pay", "place_candidate", "tutor",
)  # fmt: skip
_CUBE_ACTIONS = (
    "army_invade", "bribe_secure", "buy_gift", "commercial_income", "force_examination", "give_gift",
    "junks_voyage", "no_action", "nominate_student", "petition_emperor", "tax_income",
)  # fmt: skip
_GIFTS = ("1", "2", "3", "4", "5", "6")
_GIFT_STATES = ("available", "active", "removed")
_CARD_KINDS = ("c1", "c2", "c3")
_MAX_BOXES = 4


def _me(v: View, s: Seats) -> dict[str, Any]:
    found: dict[str, Any] = v["players"][s.seat]
    return found


def _gifts(p: dict[str, Any], s: Seats) -> list[float]:
    out = [0.0] * (len(_GIFTS) * len(_GIFT_STATES))
    for g, gift in enumerate(_GIFTS):
        state = p["gifts"].get(gift)
        if state in _GIFT_STATES:
            out[g * len(_GIFT_STATES) + _GIFT_STATES.index(state)] = 1.0
    return out


def _ministries(v: View, s: Seats) -> list[float]:
    """Per ministry and space: tile cost / 8, a marker's relative seat one-hot, secured, transferred,
    the imperial candidate there; then the minister and secretary seats and their chits."""
    width = 4 + s.max_players
    out: list[float] = []
    by_name = {m["ministry"]: m for m in v["ministries"]}
    for name in MINISTRIES:
        m = by_name.get(name)
        block = [0.0] * (SPACES * width + 2 * s.max_players + 3)
        if m is not None:
            for i, space in enumerate(m["spaces"][:SPACES]):
                base = i * width
                tile = space["tile"]
                block[base] = min(tile / 8, 1.0) if isinstance(tile, int) else 0.0
                block[base + 3 + s.max_players] = 1.0 if tile == "candidate" else 0.0
                b = s.block(space["marker"])
                if b is not None:
                    block[base + 1 + b] = 1.0
                block[base + 1 + s.max_players] = 1.0 if space["secured"] else 0.0
                block[base + 2 + s.max_players] = 1.0 if space["transferred"] else 0.0
            tail = SPACES * width
            for k, who in enumerate((m["minister"], m["secretary"])):
                b = s.block(who)
                if b is not None:
                    block[tail + k * s.max_players + b] = 1.0
            block[tail + 2 * s.max_players] = min((m["minister_chit"] or 0) / 8, 1.0)
            block[tail + 2 * s.max_players + 1] = min((m["secretary_chit"] or 0) / 8, 1.0)
            block[tail + 2 * s.max_players + 2] = 1.0 if m["resolved"] else 0.0
        out.extend(block)
    return out


def _foreign(v: View, s: Seats) -> list[float]:
    """Per position: the land one-hot, cost / 8, failed, and per box its VP / 4, reward card and the
    army's relative seat one-hot."""
    box_width = 2 + s.max_players
    width = len(FOREIGN_LANDS) + 2 + _MAX_BOXES * box_width
    out = [0.0] * (FOREIGN_POSITIONS * width)
    for i, land in enumerate(v["foreign_lands"][:FOREIGN_POSITIONS]):
        base = i * width
        if land["land"] in FOREIGN_LANDS:
            out[base + FOREIGN_LANDS.index(land["land"])] = 1.0
        out[base + len(FOREIGN_LANDS)] = min(land["cost_per_army"] / 8, 1.0)
        out[base + len(FOREIGN_LANDS) + 1] = 1.0 if land["state"] == "failed" else 0.0
        for j, box in enumerate(land["boxes"][:_MAX_BOXES]):
            at = base + len(FOREIGN_LANDS) + 2 + j * box_width
            out[at] = min(box["vp"] / 4, 1.0)
            out[at + 1] = 1.0 if box["reward_card"] else 0.0
            b = s.block(box["army"])
            if b is not None:
                out[at + 2 + b] = 1.0
    return out


def _distant(v: View, s: Seats) -> list[float]:
    """Per distant land: its VP chit / 4 and which relative seats reached it."""
    width = 1 + s.max_players
    out = [0.0] * (len(DISTANT_LANDS) * width)
    for land in v["distant_lands"]:
        if land["land"] not in DISTANT_LANDS:
            continue
        base = DISTANT_LANDS.index(land["land"]) * width
        out[base] = min((land["chit"] or 0) / 4, 1.0)
        for who in land["reached_by"]:
            b = s.block(who)
            if b is not None:
                out[base + 1 + b] = 1.0
    return out


def _gift_tracker(v: View, s: Seats) -> list[float]:
    """Entry giver × 5 + recipient (relative seats): the value of the gift between them / 6."""
    out = [0.0] * (s.max_players * s.max_players)
    for g in v["gift_tracker"]:
        a, b = s.block(g["giver"]), s.block(g["recipient"])
        if a is not None and b is not None:
            out[a * s.max_players + b] = min(g["value"] / 6, 1.0)
    return out


def _student(colour: str) -> Any:
    return lambda v, s: (v.get("students") or {}).get(colour)


# -- The writer: the same vector straight from the engine state ------------------------------------------
#
# An observation read every step through the view costs about eight engine steps (the view is a JSON
# document of every space, box and gift); the writer reads the state's int lists instead.  It writes only
# the nonzero entries (the caller zeroes ``out``) through a memoryview, whose item assignment costs half a
# numpy one, and computes each value with the feature's own arithmetic (``v / cap`` clipped, as ``_clip``
# does) so the float32 rounding is the same.  It reads only what ``view.py`` shows the seat: its own hand,
# rewards and set-aside cards, and for every other seat the public counts.


_SCORE_Q, _CUBES_Q, _CARDS_Q, _FOUR_Q = Scaled(40), Scaled(CUBES), Scaled(8), Scaled(4)
_JUNKS_Q, _ARMIES_Q, _SIX_Q, _DISCARD_Q = Scaled(JUNKS), Scaled(ARMIES), Scaled(6), Scaled(30)


def _write(state: State, seat: int, out: np.ndarray) -> None:
    """``SPEC.encode(view(state, seat), seat)`` from ``state``; tests/research/test_features_from_state.py
    holds the two equal."""
    mv = cast(Cells, out.data)
    n = state.n
    _write_game(state, seat, n, mv)
    _write_me(state, seat, mv)
    _write_players(state, seat, n, mv)
    _write_ministries(state, seat, n, mv)
    _write_board(state, seat, n, mv)


def _write_game(state: State, seat: int, n: int, mv: Cells) -> None:
    """players, to_move, phase, round, turn, chief_minister and the options (view top level)."""
    if n in _PLAYERS_AT:
        mv[_PLAYERS_AT[n]] = 1.0
    phase = state.phase
    if phase != OVER and state.seat >= 0:  # to_move is None once the game is over
        mv[_TO_MOVE + (state.seat - seat) % n] = 1.0
    at = _PHASE_AT[phase]
    if at >= 0:
        mv[at] = 1.0
    if state.round > 0:
        mv[_ROUND] = min(state.round / 10, 1.0)
    if state.turn > 0:
        mv[_TURN] = min(state.turn / 5, 1.0)
    if state.cm >= 0:
        mv[_CM + (state.cm - seat) % n] = 1.0
    if state.advanced:
        mv[_ADVANCED] = 1.0
    if state.admiral_variant:
        mv[_ADMIRAL] = 1.0


def _write_me(state: State, seat: int, mv: Cells) -> None:
    """hand, rewards and set_aside_cards: the seat's own hidden cards (players[seat] of its view)."""
    h = 3 * seat
    for k in range(3):
        c = state.hands[h + k]
        if c > 0:
            mv[_HAND + k] = min(c / 8, 1.0)
        c = state.held[h + k]
        if c > 0:
            mv[_SET_ASIDE_CARDS + k] = min(c / 4, 1.0)
    for card in state.rewards[seat]:  # count / 1, clipped: 1 for each kind held
        mv[_REWARDS + card] = 1.0


def _write_players(state: State, seat: int, n: int, mv: Cells) -> None:
    """The per-player slices, block k = seat + k (view players[p]: its public fields only), and the
    relative seats of distant_land_chits (the lands' reached_by, the same bits).  The loop is the
    writer's main cost, so it reads each field list once, takes its offsets per block from
    ``_PLAYER_AT`` and its scaled values from tables (``Scaled``)."""
    score, cubes, placed, passed, commercial = (
        state.score,
        state.cubes,
        state.placed,
        state.passed,
        state.commercial,
    )
    hands, rewards, gift, shipyard, ocean = (
        state.hands,
        state.rewards,
        state.gift,
        state.shipyard,
        state.ocean,
    )
    reached, stock, colonies, tutor, held = (
        state.reached,
        state.stock,
        state.colonies,
        state.tutor,
        state.held,
    )
    for ats, p in zip(_PLAYER_AT, _SEATS_OF[n][seat], strict=False):
        a_score, a_cubes, a_placed, a_passed, a_comm, a_cards, a_rew, a_gifts, a_ship, a_ocean, k = ats
        v = score[p]
        if v > 0:
            mv[a_score] = _SCORE_Q[v]
        v = cubes[p]
        if v > 0:
            mv[a_cubes] = _CUBES_Q[v]
        row = placed[p * _SPACE_COUNT : (p + 1) * _SPACE_COUNT]
        if any(row):  # cubes_placed: the spaces named in _CUBE_ACTIONS, one block per row of counts
            mv[a_placed : a_placed + len(_CUBE_ACTIONS)] = _PLACED_BLOCKS[tuple(row)]
        if passed[p]:
            mv[a_passed] = 1.0
        if commercial[p]:
            mv[a_comm] = 1.0
        h = 3 * p
        v = hands[h] + hands[h + 1] + hands[h + 2]
        if v > 0:
            mv[a_cards] = _CARDS_Q[v]
        v = len(rewards[p])
        if v > 0:
            mv[a_rew] = _FOUR_Q[v]
        row = gift[p * _GIFT_COUNT : (p + 1) * _GIFT_COUNT]
        if any(row):  # gifts: one block per row of gift states (not_available, code 0, is all 0)
            mv[a_gifts : a_gifts + _GIFT_WIDTH] = _GIFT_BLOCKS[tuple(row)]
        v = shipyard[p]
        if v > 0:
            mv[a_ship] = _CARDS_Q[v]  # the same cap, 8
        v = ocean[p]
        if v > 0:
            mv[a_ocean] = _JUNKS_Q[v]
        v = reached[p]
        if v:
            for i in _BITS[v]:
                mv[_DISTANT + k * len(DISTANT_LANDS) + i] = 1.0
                mv[_DISTANT_CHITS + i * (1 + MAX_PLAYERS) + 1 + k] = 1.0
        v = stock[p]
        if v > 0:
            mv[_STOCK + k] = _ARMIES_Q[v]
        v = colonies[p]
        if v > 0:
            mv[_COLONIES + k] = _ARMIES_Q[v]
        v = tutor[4 * p]
        if v >= 0:  # tutoring: red, orange (STUDENTS order)
            mv[_TUTORING + 2 * k + v] = 1.0
        v = held[h] + held[h + 1] + held[h + 2]
        if v > 0:
            mv[_SET_ASIDE + k] = _FOUR_Q[v]


def _write_ministries(state: State, seat: int, n: int, mv: Cells) -> None:
    """ministries (view ministries[m], as ``_ministries`` lays it out) and resolving.  What no seat
    changes (tile costs, the candidate, secured, chits, resolved) is one block kept per content (it
    changes a few times a game: about 3% of steps); the markers and ministers (relative seats) and the
    transferred flags (their mask changes on a quarter of the steps) are written after it."""
    key = (*state.tile, *state.secured, *state.chits, *state.resolved)
    mv[_MINISTRIES : _MINISTRIES + _MINISTRIES_LEN] = _MINISTRY_BLOCKS[key]
    for ats, q in zip(_OWNER_AT[n][seat], state.owner, strict=True):
        if q >= 0:  # the marker's relative seat
            mv[ats[q]] = 1.0
    for ats, q in zip(_MINISTER_AT[n][seat], state.minister, strict=True):
        if q >= 0:
            mv[ats[q]] = 1.0
    for ats, q in zip(_SECRETARY_AT[n][seat], state.secretary, strict=True):
        if q >= 0:
            mv[ats[q]] = 1.0
    bits = state.transferred & _SPACES_MASK
    while bits:  # one pass per set bit (official space), lowest first
        low = bits & -bits
        mv[_SPACE_AT[low.bit_length() - 1] + 2 + MAX_PLAYERS] = 1.0
        bits ^= low
    if state.res_m >= 0:
        mv[_RESOLVING + state.res_m] = 1.0


def _ministry_block(key: tuple[int, ...], block: array[float]) -> None:
    """The seat-free part of "ministries" from ``_write_ministries``'s key: tile [21], secured [21],
    chits [6], resolved [3] (block offsets relative to the slice)."""
    spaces = len(_SPACE_AT)
    tiles, secured = key[:spaces], key[spaces : 2 * spaces]
    chits, resolved = key[2 * spaces :], key[-len(MINISTRIES) :]
    for at, t, sec in zip(_SPACE_AT, tiles, secured, strict=True):
        at -= _MINISTRIES
        if t > 0:  # an official: its cost
            block[at] = min(t / 8, 1.0)
        elif t == 0:  # the candidate (CANDIDATE)
            block[at + 3 + MAX_PLAYERS] = 1.0
        if sec:
            block[at + 1 + MAX_PLAYERS] = 1.0
    for m, tail in enumerate(_MINISTRY_TAIL):
        tail -= _MINISTRIES
        v = chits[2 * m]
        if v:
            block[tail + 2 * MAX_PLAYERS] = min(v / 8, 1.0)
        v = chits[2 * m + 1]
        if v:
            block[tail + 2 * MAX_PLAYERS + 1] = min(v / 8, 1.0)
        if resolved[m]:
            block[tail + 2 * MAX_PLAYERS + 2] = 1.0


def _placed_block(key: tuple[int, ...], block: array[float]) -> None:
    """cubes_placed of one seat from its row of state.placed (count / 3 per named action)."""
    for i, j in _CUBE_ACTION_AT:
        v = key[i]
        if v > 0:
            block[j] = min(v / 3, 1.0)


def _gift_block(key: tuple[int, ...], block: array[float]) -> None:
    """gifts of one seat from its row of state.gift: per value, its state one-hot (value × 3 + state)."""
    for value, code in enumerate(key):
        st = _GIFT_STATE_AT[code]
        if st >= 0:
            block[3 * value + st] = 1.0


def _foreign_block(key: tuple[Any, ...], block: array[float]) -> None:
    """foreign_lands as ``_foreign`` lays it out, from ``_write_board``'s key: the seat, the player
    count, the tiles (land one-hot, cost, box VP, reward card), the land states (failed) and per
    position its boxes' armies (relative seats).  Armies move a few times a game, so the whole slice
    is one block kept per content."""
    seat, n, foreign, land_state, *boxes = key
    for pos, land in enumerate(foreign[:FOREIGN_POSITIONS]):
        at = pos * _FOREIGN_WIDTH
        block[at + land] = 1.0
        block[at + len(FOREIGN_LANDS)] = min(INVASION_COST[land] / 8, 1.0)
        if land_state[pos] == FAILED:
            block[at + len(FOREIGN_LANDS) + 1] = 1.0
        for j, vp in enumerate(BOX_VP[land][:_MAX_BOXES]):
            box = at + len(FOREIGN_LANDS) + 2 + j * _BOX_WIDTH
            block[box] = min(vp / 4, 1.0)
            block[box + 1] = 1.0 if j == REWARD_BOX[land] else 0.0
    for pos, armies in enumerate(boxes[:FOREIGN_POSITIONS]):
        at = pos * _FOREIGN_WIDTH + len(FOREIGN_LANDS) + 4
        for q in armies[:_MAX_BOXES]:
            if q >= 0:  # the army's relative seat
                block[at + (q - seat) % n] = 1.0
            at += _BOX_WIDTH


def _write_board(state: State, seat: int, n: int, mv: Cells) -> None:
    """The rest of the view's top level: candidate, students, foreign lands, distant land chits, the
    gift tracker, the wall, the supplies and the public stacks."""
    if state.candidate >= 0:
        mv[_CANDIDATE + state.candidate] = 1.0
    v = len(state.candidates)
    if v:
        mv[_CANDIDATE_STACK] = min(v / 12, 1.0)
    q = state.students[0]
    if q >= 0:
        mv[_STUDENT_RED + (q - seat) % n] = 1.0
    q = state.students[1]
    if q >= 0:
        mv[_STUDENT_ORANGE + (q - seat) % n] = 1.0
    if state.forced:
        mv[_FORCED] = 1.0
    key = (seat, n, tuple(state.foreign), tuple(state.land_state), *map(tuple, state.boxes))
    mv[_FOREIGN : _FOREIGN + _FOREIGN_LEN] = _FOREIGN_BLOCKS[key]
    for i, v in enumerate(state.land_chit):
        if v:
            mv[_DISTANT_CHITS + i * (1 + MAX_PLAYERS)] = _FOUR_Q[v]
    for at, v in zip(_GIVEN_AT[n][seat], state.given, strict=True):  # given[giver * n + recipient]
        if v:
            mv[at] = _SIX_Q[v]
    if state.wall > 0:
        mv[_WALL] = min(state.wall / WALL_SPACES, 1.0)
    if state.supply > 0:
        mv[_SUPPLY] = min(state.supply / JUNKS, 1.0)
    if state.insulted >= 0:
        mv[_INSULTED + (state.insulted - seat) % n] = 1.0
    v = len(state.deck)
    if v:
        mv[_DECK] = min(v / 70, 1.0)
    for k, v in enumerate(state.discard):
        if v > 0:
            mv[_DISCARD + k] = _DISCARD_Q[v]
    v = len(state.stack)
    if v:
        mv[_OFFICIAL_STACK] = min(v / 20, 1.0)
    v = len(state.reward_deck)
    if v:
        mv[_REWARD_STACK] = min(v / 12, 1.0)


_W = SPACES * (4 + MAX_PLAYERS) + 2 * MAX_PLAYERS + 3

SPEC = FeatureSpec(
    "confucius",
    MAX_PLAYERS,
    [
        onehot("players", "number of players", (3, 4, 5), lambda v, s: len(v["players"])),
        seat_onehot("to_move", "the seat to move (all 0 once the game is over)", lambda v, s: v["to_move"]),
        onehot("phase", "the pending decision", _PHASES, lambda v, s: v["phase"]),
        scalar("round", "the round", 10, lambda v, s: v["round"]),
        scalar("turn", "the turn within the round", 5, lambda v, s: v["turn"]),
        seat_onehot("chief_minister", "the Chief Minister", lambda v, s: v["chief_minister"]),
        flag("advanced", "advanced game option (R22)", lambda v, s: v["options"]["advanced"]),
        flag(
            "admiral_variant", "Admiral variant option (R112)", lambda v, s: v["options"]["admiral_variant"]
        ),
        counts("hand", "my Confucius cards by kind", _CARD_KINDS, 8, lambda v, s: _me(v, s).get("hand")),
        counts("rewards", "my Emperor reward cards", REWARDS, 1, lambda v, s: _me(v, s).get("rewards")),
        counts(
            "set_aside_cards",
            "my cards set aside for tutoring",
            _CARD_KINDS,
            4,
            lambda v, s: _me(v, s).get("set_aside_cards"),
        ),
        per_player(scalar("score", "victory points", 40, lambda p, s: p["score"])),
        per_player(scalar("cubes", "action cubes left", CUBES, lambda p, s: p["cubes"])),
        per_player(
            counts(
                "cubes_placed",
                "cubes on each action this round",
                _CUBE_ACTIONS,
                3,
                lambda p, s: p["cubes_placed"],
            )
        ),
        per_player(flag("passed", "has passed this round", lambda p, s: p["passed"])),
        per_player(
            flag(
                "commercial_income_used",
                "took Commercial Income this round",
                lambda p, s: p["commercial_income_used"],
            )
        ),
        per_player(scalar("cards", "Confucius cards in hand", 8, lambda p, s: p["cards"])),
        per_player(scalar("reward_cards", "Emperor reward cards held", 4, lambda p, s: p["reward_cards"])),
        Feature(
            "gifts",
            -len(_GIFTS) * len(_GIFT_STATES),
            "per seat (relative blocks): per gift value 1-6, its state: entry gift × 3 + state",
            "one-hot per gift over: available, active, removed; all 0 if not available",
            lambda v, s: [
                x for a in s.relative() for x in (_gifts(v["players"][a], s) if a is not None else [0.0] * 18)
            ],
        ),
        per_player(scalar("shipyard", "junks in the shipyard", 8, lambda p, s: p["shipyard"])),
        per_player(scalar("ocean", "junks at sea", JUNKS, lambda p, s: p["ocean"])),
        per_player(
            counts(
                "distant_lands", "distant lands reached", DISTANT_LANDS, 1, lambda p, s: p["distant_lands"]
            )
        ),
        per_player(scalar("armies_in_stock", "armies in stock", ARMIES, lambda p, s: p["armies_in_stock"])),
        per_player(
            scalar(
                "armies_in_colonies", "armies in foreign lands", ARMIES, lambda p, s: p["armies_in_colonies"]
            )
        ),
        per_player(
            onehot(
                "tutoring",
                "the student this seat is tutoring",
                ("red", "orange"),
                lambda p, s: (p["tutoring"] or {}).get("student"),
            )
        ),
        per_player(scalar("set_aside", "cards set aside for tutoring", 4, lambda p, s: p["set_aside"])),
        Feature(
            "ministries",
            len(MINISTRIES) * _W,
            "per ministry ("
            + ", ".join(MINISTRIES)
            + f"), {_W} entries: per official space (7) the tile cost, "
            "the marker's relative seat one-hot (5), secured, transferred, the candidate is there; "
            "then the minister's and the "
            "secretary's relative seats (5 each), their chits, resolved",
            "cost and chits / 8; the rest 0 or 1",
            _ministries,
        ),
        onehot(
            "candidate", "the imperial candidate's ministry", CANDIDATE_NAMES, lambda v, s: v["candidate"]
        ),
        scalar(
            "candidate_stack",
            "candidates left in the stack",
            12,
            lambda v, s: (v["candidate_stack"] or {}).get("count"),
        ),
        seat_onehot("student_red", "the seat tutoring the red student", _student("red")),
        seat_onehot("student_orange", "the seat tutoring the orange student", _student("orange")),
        flag(
            "examination_forced", "an examination was forced this round", lambda v, s: v["examination_forced"]
        ),
        Feature(
            "foreign_lands",
            FOREIGN_POSITIONS * (len(FOREIGN_LANDS) + 2 + _MAX_BOXES * (2 + MAX_PLAYERS)),
            "per position: the land one-hot ("
            + ", ".join(FOREIGN_LANDS)
            + "), cost per army, failed; per box "
            "(up to 4) its VP, reward card, the army's relative seat one-hot (5)",
            "cost / 8, VP / 4; the rest 0 or 1",
            _foreign,
        ),
        Feature(
            "distant_land_chits",
            len(DISTANT_LANDS) * (1 + MAX_PLAYERS),
            "per distant land ("
            + ", ".join(DISTANT_LANDS)
            + "): its VP chit, then which relative seats reached it",
            "chit / 4; the rest 0 or 1",
            _distant,
        ),
        Feature(
            "gift_tracker",
            MAX_PLAYERS * MAX_PLAYERS,
            "value of the gift each relative seat gave each other: entry giver × 5 + recipient",
            "value / 6",
            _gift_tracker,
        ),
        scalar("great_wall", "Great Wall sections built", WALL_SPACES, lambda v, s: v["great_wall"]),
        scalar("junk_supply", "junks in the common supply", JUNKS, lambda v, s: v["junk_supply"]),
        seat_onehot(
            "emperor_insulted", "the seat that insulted the Emperor", lambda v, s: v["emperor_insulted"]
        ),
        scalar("deck", "cards in the Confucius deck", 70, lambda v, s: v["deck"]),
        counts("discard_pile", "discarded cards by kind", _CARD_KINDS, 30, lambda v, s: v["discard_pile"]),
        scalar("official_stack", "official tiles left", 20, lambda v, s: v["official_stack"]),
        scalar("reward_stack", "Emperor reward cards left", 12, lambda v, s: v["reward_stack"]),
        onehot("resolving", "the ministry being resolved", MINISTRIES, lambda v, s: v["resolving"]),
    ],
    writer=_write,
)

# The writer's tables: where each slice starts, and each state code's entry in its feature's order.
_O = {s.name: s.offset for s in SPEC.slices}
_PLAYERS_AT = {3: _O["players"], 4: _O["players"] + 1, 5: _O["players"] + 2}
_TO_MOVE, _ROUND, _TURN, _CM = _O["to_move"], _O["round"], _O["turn"], _O["chief_minister"]
_ADVANCED, _ADMIRAL = _O["advanced"], _O["admiral_variant"]
_PHASE_AT = tuple(_O["phase"] + _PHASES.index(name) if name in _PHASES else -1 for name in PHASE_NAMES)
_HAND, _REWARDS, _SET_ASIDE_CARDS = _O["hand"], _O["rewards"], _O["set_aside_cards"]
_SCORE, _CUBES, _CUBES_PLACED = _O["score"], _O["cubes"], _O["cubes_placed"]
_SPACE_COUNT = len(ACTION_SPACES)
#: (action space, its entry in _CUBE_ACTIONS) for the spaces the feature names.
_CUBE_ACTION_AT = tuple(
    (i, _CUBE_ACTIONS.index(a)) for i, a in enumerate(ACTION_SPACES) if a in _CUBE_ACTIONS
)
_PASSED, _COMMERCIAL, _CARDS, _REWARD_CARDS = (
    _O["passed"], _O["commercial_income_used"], _O["cards"], _O["reward_cards"]
)  # fmt: skip
_GIFTS_AT, _GIFT_COUNT, _GIFT_WIDTH = _O["gifts"], len(_GIFTS), len(_GIFTS) * len(_GIFT_STATES)
_GIFT_STATE_AT = tuple(_GIFT_STATES.index(s) if s in _GIFT_STATES else -1 for s in GIFT_STATE_NAMES)
_SHIPYARD, _OCEAN, _DISTANT = _O["shipyard"], _O["ocean"], _O["distant_lands"]
_STOCK, _COLONIES, _TUTORING, _SET_ASIDE = (
    _O["armies_in_stock"], _O["armies_in_colonies"], _O["tutoring"], _O["set_aside"]
)  # fmt: skip
_MINISTRIES, _SPACE_WIDTH, _RESOLVING = _O["ministries"], 4 + MAX_PLAYERS, _O["resolving"]
#: Each official space's entries (state.tile order: ministry * 7 + space - 1), each ministry's tail.
_SPACE_AT = tuple(
    _MINISTRIES + m * _W + k * _SPACE_WIDTH for m in range(len(MINISTRIES)) for k in range(SPACES)
)
_MINISTRY_TAIL = tuple(_MINISTRIES + m * _W + SPACES * _SPACE_WIDTH for m in range(len(MINISTRIES)))
_CANDIDATE, _CANDIDATE_STACK = _O["candidate"], _O["candidate_stack"]
_STUDENT_RED, _STUDENT_ORANGE, _FORCED = _O["student_red"], _O["student_orange"], _O["examination_forced"]
_FOREIGN, _FOREIGN_LEN, _BOX_WIDTH = (
    _O["foreign_lands"],
    SPEC.slice("foreign_lands").stop - _O["foreign_lands"],
    2 + MAX_PLAYERS,
)
_FOREIGN_WIDTH = len(FOREIGN_LANDS) + 2 + _MAX_BOXES * _BOX_WIDTH
_DISTANT_CHITS, _GIFT_TRACKER = _O["distant_land_chits"], _O["gift_tracker"]
_WALL, _SUPPLY, _INSULTED, _DECK = _O["great_wall"], _O["junk_supply"], _O["emperor_insulted"], _O["deck"]
_DISCARD, _OFFICIAL_STACK, _REWARD_STACK = _O["discard_pile"], _O["official_stack"], _O["reward_stack"]
#: Per player count and seat, per official space (state.tile order), the entry of each owner's marker;
#: per ministry, the entry of each seat as minister and as secretary.
_OWNER_AT = {
    n: tuple(tuple(tuple(at + 1 + (q - seat) % n for q in range(n)) for at in _SPACE_AT) for seat in range(n))
    for n in range(1, MAX_PLAYERS + 1)
}
_MINISTER_AT = {
    n: tuple(tuple(tuple(t + (q - seat) % n for q in range(n)) for t in _MINISTRY_TAIL) for seat in range(n))
    for n in range(1, MAX_PLAYERS + 1)
}
_SECRETARY_AT = {
    n: tuple(
        tuple(tuple(t + MAX_PLAYERS + (q - seat) % n for q in range(n)) for t in _MINISTRY_TAIL)
        for seat in range(n)
    )
    for n in range(1, MAX_PLAYERS + 1)
}
_MINISTRIES_LEN = len(MINISTRIES) * _W
#: state.transferred's bits that name an official space.
_SPACES_MASK = (1 << len(_SPACE_AT)) - 1
#: A bit mask of distant lands -> the indices of its set bits.
_BITS = tuple(
    tuple(i for i in range(len(DISTANT_LANDS)) if mask >> i & 1) for mask in range(1 << len(DISTANT_LANDS))
)
_BLOCKS_KEPT = 4096
_MINISTRY_BLOCKS = Blocks(_MINISTRIES_LEN, _ministry_block, kept=_BLOCKS_KEPT)
_PLACED_BLOCKS = Blocks(len(_CUBE_ACTIONS), _placed_block, kept=_BLOCKS_KEPT)
_GIFT_BLOCKS = Blocks(_GIFT_WIDTH, _gift_block, kept=_BLOCKS_KEPT)
#: Per relative block k: the entries of score, cubes, cubes_placed (start), passed,
#: commercial_income_used, cards, reward_cards, gifts (start), shipyard, ocean; then k itself.
_PLAYER_AT = tuple(
    (
        _SCORE + k,
        _CUBES + k,
        _CUBES_PLACED + k * len(_CUBE_ACTIONS),
        _PASSED + k,
        _COMMERCIAL + k,
        _CARDS + k,
        _REWARD_CARDS + k,
        _GIFTS_AT + k * _GIFT_WIDTH,
        _SHIPYARD + k,
        _OCEAN + k,
        k,
    )
    for k in range(MAX_PLAYERS)
)
#: _SEATS_OF[n][seat]: the absolute seat of each relative block.
_SEATS_OF = {
    n: tuple(tuple((seat + b) % n for b in range(n)) for seat in range(n)) for n in range(1, MAX_PLAYERS + 1)
}
_FOREIGN_BLOCKS = Blocks(_FOREIGN_LEN, _foreign_block, kept=_BLOCKS_KEPT)
#: Per player count and seat, the gift_tracker entry of each given[giver * n + recipient].
_GIVEN_AT = {
    n: tuple(
        tuple(
            _GIFT_TRACKER + (g - seat) % n * MAX_PLAYERS + (r - seat) % n for g in range(n) for r in range(n)
        )
        for seat in range(n)
    )
    for n in range(1, MAX_PLAYERS + 1)
}
