"""Legal actions of every pending decision, as small dicts.

This is the bots' inner loop, so each generator reads the state once into locals and appends
ready-made dicts (prebuilt once, below ``box_actions`` and beside the petitions and reward cards: one
object per action, whoever lists it); the checks are exactly the preconditions of the rules cited
beside them, and ``apply`` (engine.core.GameBase) accepts an action only if it is in this list.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from engine.core import Action, ActionTable

from . import cards, exam
from .components import (
    ANY_MINISTRY,
    COMMERCIAL_MAX_COINS,
    DISTANT_LANDS,
    FORCE_COST,
    GIFT_PRICE,
    GIFT_VALUES,
    INVASION_COST,
    JUNK_PRICE,
    JUNKS_PER_VOYAGE,
    MAX_JUNKS_PER_BUY,
    MAX_PLAYERS,
    MINISTRIES,
    NOMINATE_COST,
    RECRUIT_LICENCES,
    REWARD_MINISTRY,
    REWARDS,
    SPACES,
)
from .cubes import (
    ARMY,
    BRIBE,
    BUY_GIFT,
    COMMERCIAL,
    FORCE,
    GIVE_GIFT,
    JUNKS,
    NOMINATE,
    NOTHING,
    PETITION,
    PETITION_TYPES,
    TAX,
    affordable,
)
from .gifts import GIFTS
from .ministries import (
    BINGBU,
    GONGBU,
    HUBU,
    SPACES_OF,
    bribe_allowed,
    candidate_spots,
    has_marker,
    influence_table,
)
from .rewards import CASH, EXTRA_ACTION, GIFT, INSULTED, RECRUIT
from .state import (
    ACTION,
    AVAILABLE,
    CHOOSE_CM,
    EMPTY,
    EXTRA,
    FAVOUR,
    GIVE,
    KEEP,
    LAND,
    NOT_AVAILABLE,
    OPEN,
    OVER,
    PAY,
    PLACE,
    TUTOR,
    State,
)
from .voyages import unreached

ALL_ALLOWED: Final = (True,) * len(MINISTRIES)
#: Official spaces on the board (``state.tile`` and ``state.owner`` index them).
_SPACE_COUNT: Final = len(MINISTRIES) * SPACES


def legal_actions(state: State) -> list[Action]:
    """The pending decision's actions, a new list (GameBase caches it on the state)."""
    return [] if state.phase == OVER else GENERATORS[state.phase](state, state.seat)


def _choose_cm(state: State, p: int) -> list[Action]:
    return [_CHOOSE_CM[q] for q in range(state.n) if q != p]  # R26


def _turn(state: State, p: int) -> list[Action]:
    """D2: box actions, reward cards (R69), and pass when no cube is left (R29)."""
    out = box_actions(state, p)
    _reward_actions(state, p, out)
    if not state.cubes[p]:
        out.append(_PASS)
    return out


def box_actions(state: State, p: int) -> list[Action]:
    """D2 / D8 / D10: every Actions Box action open to ``p`` (cube costs per ``state.mode``).

    The hottest generator of the game: the action objects are prebuilt (:data:`_BRIBE` and its
    neighbours; legal actions are shared and never mutated, engine.core.GameBase), and the list's own
    scans (``count``, ``index``) find the officials ``p`` holds, which give the ministries ``p`` has a
    marker in (R43) and the officials ``p`` may transfer (R62).  Plain loops over the state's lists,
    no exception for control flow: both the interpreter and the optional mypyc build run them fast.
    """
    n, hands, resolved, tile, owner, secured = (
        state.n,
        state.hands,
        state.resolved,
        state.tile,
        state.owner,
        state.secured,
    )
    coins = cards.coins(hands, p)
    afford = affordable(state, p)
    # the officials p holds (R62), and as bits the ministries p has a marker in, any marker state (R43)
    mine: list[int] = []
    held = 0
    i = -1
    for _ in range(owner.count(p)):
        i = owner.index(p, i + 1)
        mine.append(i)
        held |= 1 << i // SPACES
    hubu = held >> HUBU & 1  # R43
    out: list[Action] = []
    if afford[BRIBE]:
        # R65 asks for the influence table; built only once an official could be bribed at all
        allowed: list[bool] | tuple[bool, ...] | None = None if any(state.given[p::n]) else ALL_ALLOWED
        limit = coins + hubu
        for i, t in enumerate(tile):
            if 0 < t <= limit:
                m = i // SPACES
                if resolved[m]:
                    continue
                o = owner[i]
                if o < 0:
                    if allowed is None:
                        allowed = bribe_allowed(state, p, influence_table(state))
                    if allowed[m]:  # R40, R65
                        out.append(_BRIBE[i])
                elif o == p and not secured[i]:  # R41
                    out.append(_SECURE[i])
    if state.round > 1:  # R44, R45: not in round 1
        if coins >= NOMINATE_COST and afford[NOMINATE] and p not in state.students:
            for s, o in enumerate(state.students):
                if o < 0:
                    out.append(_NOMINATE[s])
        if coins >= FORCE_COST and afford[FORCE]:
            out.append(_FORCE)
    if afford[JUNKS]:
        gongbu = held >> GONGBU & 1
        for count in range(1, min(MAX_JUNKS_PER_BUY, state.supply) + 1):  # R46, R48
            if JUNK_PRICE[count][gongbu] > coins:
                break
            out.append(_BUY_JUNKS[count])
        left = len(DISTANT_LANDS) - state.reached[p].bit_count()
        if left:  # R47: each voyage needs a land not reached before
            ocean = state.ocean[p]
            for count in range(1, min(state.shipyard[p], cards.licences(hands, p)) + 1):
                if (ocean + count) // JUNKS_PER_VOYAGE > left:
                    break
                out.append(_START_VOYAGE[count])
    if afford[ARMY]:
        licences_needed = RECRUIT_LICENCES[held >> BINGBU & 1]
        if state.stock[p] and cards.licences(hands, p) >= licences_needed:  # R49
            out.append(_RECRUIT)
        if state.colonies[p]:  # R50
            for pos, land in enumerate(state.foreign):
                if state.land_state[pos] == OPEN and INVASION_COST[land] <= coins:
                    for box, o in enumerate(state.boxes[pos]):
                        if o < 0:
                            out.append(_INVADE[pos << 8 | box])
    g = p * GIFTS
    gifts = state.gift[g : g + GIFTS]
    if afford[BUY_GIFT] and NOT_AVAILABLE in gifts:  # R51
        for k, price in enumerate(GIFT_PRICE):  # gift value k + 1; the dearer the value, the dearer
            if price > coins:
                break
            if gifts[k] == NOT_AVAILABLE:
                out.append(_BUY_GIFT[k + 1])
    if afford[GIVE_GIFT] and AVAILABLE in gifts:  # R52, R64: not below a gift held from the recipient
        given = state.given
        for v in GIFT_VALUES:
            if gifts[v - 1] == AVAILABLE:
                gift_to = _GIVE_GIFT[v]
                for r in range(n):
                    if r != p and given[r * n + p] <= v:
                        out.append(gift_to[r])
    if mine:  # R62: costs no cube; R62a: each official once per round
        transferred, to_others = state.transferred, _transfers(n, p)
        for i in mine:
            if not resolved[i // SPACES] and not transferred >> i & 1:
                out += to_others[i]
    if state.advanced and afford[PETITION]:  # R56
        unresolved = [m for m in range(len(MINISTRIES)) if not resolved[m]]
        for v in GIFT_VALUES:
            if gifts[v - 1] == AVAILABLE and v in PETITION_TYPES:
                _PETITIONS[v](state, p, unresolved, out)
    if not state.commercial[p] and afford[COMMERCIAL]:  # R54: once per round
        h = 3 * p
        out += _commercial(hands[h], hands[h + 1], hands[h + 2])
    if afford[TAX]:  # R55
        out.append(_TAX)
    if afford[NOTHING]:  # R60
        out.append(_NO_ACTION)
    return out


# -- prebuilt action objects of box_actions ---------------------------------------------------------

#: The Bribe Official and Secure Official action of each official space (index as ``state.tile``).
_BRIBE: Final = tuple(
    {"type": "bribe_official", "ministry": MINISTRIES[i // SPACES], "space": i % SPACES + 1}
    for i in range(_SPACE_COUNT)
)
_SECURE: Final = tuple(
    {"type": "secure_official", "ministry": MINISTRIES[i // SPACES], "space": i % SPACES + 1}
    for i in range(_SPACE_COUNT)
)
_NOMINATE: Final = tuple({"type": "nominate_student", "student": name} for name in exam.STUDENTS)
_FORCE: Final[Action] = {"type": "force_examination"}
_BUY_JUNKS: Final = tuple({"type": "buy_junks", "count": count} for count in range(MAX_JUNKS_PER_BUY + 1))
_RECRUIT: Final[Action] = {"type": "recruit_army"}
_BUY_GIFT: Final = {v: {"type": "buy_gift", "value": v} for v in GIFT_VALUES}
_TAX: Final[Action] = {"type": "tax_income"}
_NO_ACTION: Final[Action] = {"type": "no_action"}


#: ``_GIVE_GIFT[value][recipient]``.
_GIVE_GIFT: Final = {
    v: tuple({"type": "give_gift", "value": v, "recipient": r} for r in range(MAX_PLAYERS))
    for v in GIFT_VALUES
}


#: ``_TRANSFER[space][recipient]``: one object per action whoever gives it, so a legal list holds
#: the same object for the same action at every seat (what research.openspiel_game.LegalIds keys on).
_TRANSFER: Final = tuple(
    tuple(
        {
            "type": "transfer_influence",
            "ministry": MINISTRIES[i // SPACES],
            "space": i % SPACES + 1,
            "recipient": r,
        }
        for r in range(MAX_PLAYERS)
    )
    for i in range(_SPACE_COUNT)
)


@cache
def _transfers(n: int, p: int) -> tuple[list[Action], ...]:
    """Per official space, the Transfer Influence actions of ``p`` to each other seat (R62)."""
    return tuple([to[r] for r in range(n) if r != p] for to in _TRANSFER)


def _card_actions(kind: str) -> ActionTable[int]:
    """The ``kind`` actions naming a card set (``c1``, ``c2``, ``c3``), keyed by :func:`_set_key`."""
    return ActionTable(lambda key: {"type": kind, "c1": key >> 16, "c2": key >> 8 & 0xFF, "c3": key & 0xFF})


def _set_key(x: int, y: int, z: int) -> int:
    return x << 16 | y << 8 | z  # card counts: far below 256 each


_COMMERCIAL: Final = _card_actions("commercial_income")
_PAY: Final = _card_actions("pay")
_PASS: Final[Action] = {"type": "pass"}
_CHOOSE_CM: Final = tuple({"type": "choose_chief_minister", "seat": q} for q in range(MAX_PLAYERS))
_START_VOYAGE: Final[ActionTable[int]] = ActionTable(lambda count: {"type": "start_voyage", "count": count})
#: Keyed ``position index << 8 | box``.
_INVADE: Final[ActionTable[int]] = ActionTable(
    lambda key: {"type": "invade_foreign_land", "position": (key >> 8) + 1, "box": key & 0xFF}
)
_PLACE: Final = tuple(
    {"type": "place_candidate", "ministry": MINISTRIES[i // SPACES], "space": i % SPACES + 1}
    for i in range(_SPACE_COUNT)
)
_LAND: Final = tuple({"type": "choose_distant_land", "land": land} for land in DISTANT_LANDS)
#: ``_TUTOR[student][coins - 1]``.
_TUTOR: Final = tuple(
    tuple({"type": "tutor", "student": student, "coins": k + 1} for k in range(3))
    for student in exam.STUDENTS
)
_END_TUTORING: Final[Action] = {"type": "end_tutoring"}
_GIVE_INFLUENCE: Final = tuple({"type": "give_influence", "seat": q} for q in range(MAX_PLAYERS))
_KEEP: Final = _card_actions("keep_cards")


@cache
def _commercial(c1: int, c2: int, c3: int) -> list[Action]:
    """The Commercial Income actions of a hand of these card counts (R54)."""
    return [
        _COMMERCIAL[_set_key(x, y, z)]
        for x, y, z in cards.commercial_sets([c1, c2, c3], 0, COMMERCIAL_MAX_COINS)
    ]


# -- petitions (R57, R58): their targets ------------------------------------------------------------


def _reassign_junks(state: State, p: int, unresolved: list[int], out: list[Action]) -> None:
    n = state.n
    for src in range(n):
        if state.shipyard[src]:
            for dst in range(n):
                if dst != src:
                    out.append(_REASSIGN_JUNKS[src * MAX_PLAYERS + dst])


def _replace_student(state: State, p: int, unresolved: list[int], out: list[Action]) -> None:
    for s, o in enumerate(state.students):
        if o >= 0 and o != p:
            out.append(_REPLACE_STUDENT[s])


def _swap_officials(state: State, p: int, unresolved: list[int], out: list[Action]) -> None:
    tile, owner = state.tile, state.owner
    tiles = [i for m in unresolved for i in SPACES_OF[m] if tile[i] != EMPTY]
    for i in tiles:
        if owner[i] == p:
            for j in tiles:
                if j != i and j % SPACES >= i % SPACES:
                    out.append(_SWAP_OFFICIALS[i * _SPACE_COUNT + j])


def _redeploy_army(state: State, p: int, unresolved: list[int], out: list[Action]) -> None:
    open_ = [pos for pos in range(len(state.foreign)) if state.land_state[pos] == OPEN]
    armies = [(pos, b) for pos in open_ for b, o in enumerate(state.boxes[pos]) if o >= 0]
    empty = [(pos, b) for pos in open_ for b, o in enumerate(state.boxes[pos]) if o < 0]
    for pos, box in armies:
        for to_pos, to_box in empty:
            out.append(_REDEPLOY_ARMY[pos << 24 | box << 16 | to_pos << 8 | to_box])


def _replace_influence(state: State, p: int, unresolved: list[int], out: list[Action]) -> None:
    owner, secured = state.owner, state.secured
    for m in unresolved:
        for i in SPACES_OF[m]:
            if owner[i] >= 0 and not secured[i]:
                for q in range(state.n):
                    out.append(_REPLACE_INFLUENCE[i * MAX_PLAYERS + q])


# The petitions' targets, one object per action like the rest, keyed as their generators count them.


def _reassign_junks_action(key: int) -> Action:
    source, destination = divmod(key, MAX_PLAYERS)
    return {"type": "petition_reassign_junks", "source": source, "destination": destination}


def _swap_officials_action(key: int) -> Action:
    i, j = divmod(key, _SPACE_COUNT)
    return {
        "type": "petition_swap_officials",
        "ministry": MINISTRIES[i // SPACES],
        "space": i % SPACES + 1,
        "other_ministry": MINISTRIES[j // SPACES],
        "other_space": j % SPACES + 1,
    }


def _redeploy_army_action(key: int) -> Action:
    return {
        "type": "petition_redeploy_army",
        "position": (key >> 24) + 1,
        "box": key >> 16 & 0xFF,
        "to_position": (key >> 8 & 0xFF) + 1,
        "to_box": key & 0xFF,
    }


def _replace_influence_action(key: int) -> Action:
    i, seat = divmod(key, MAX_PLAYERS)
    return {
        "type": "petition_replace_influence",
        "ministry": MINISTRIES[i // SPACES],
        "space": i % SPACES + 1,
        "seat": seat,
    }


#: Keyed ``source * MAX_PLAYERS + destination``.
_REASSIGN_JUNKS: Final[ActionTable[int]] = ActionTable(_reassign_junks_action)
_REPLACE_STUDENT: Final = tuple({"type": "petition_replace_student", "student": s} for s in exam.STUDENTS)
#: Keyed ``space * official spaces + other space``.
_SWAP_OFFICIALS: Final[ActionTable[int]] = ActionTable(_swap_officials_action)
#: Keyed ``position << 24 | box << 16 | to position << 8 | to box`` (position indexes).
_REDEPLOY_ARMY: Final[ActionTable[int]] = ActionTable(_redeploy_army_action)
#: Keyed ``space * MAX_PLAYERS + seat``.
_REPLACE_INFLUENCE: Final[ActionTable[int]] = ActionTable(_replace_influence_action)


_PETITION_TARGETS = {
    "petition_reassign_junks": _reassign_junks,
    "petition_replace_student": _replace_student,
    "petition_swap_officials": _swap_officials,
    "petition_redeploy_army": _redeploy_army,
    "petition_replace_influence": _replace_influence,
}
_PETITIONS: Final = {v: _PETITION_TARGETS[kind] for v, kind in PETITION_TYPES.items()}


# -- reward cards (R69-R75) -------------------------------------------------------------------------


def _reward_actions(state: State, p: int, out: list[Action]) -> None:
    held = state.rewards[p]
    if not held:
        return
    last = -1
    for card in held:
        if card == last:
            continue
        last = card
        if card == CASH:
            out.append(_REWARD_CASH)
        elif card == GIFT:
            for v in GIFT_VALUES:
                if state.gift[p * GIFTS + v - 1] == NOT_AVAILABLE:
                    out.append(_REWARD_GIFT[v])
        elif card == EXTRA_ACTION:
            out.append(_REWARD_EXTRA_ACTION)
        elif card == RECRUIT:
            if state.stock[p]:
                out.append(_REWARD_RECRUIT)
        elif card == INSULTED:
            if state.colonies[p]:
                out.append(_REWARD_INSULTED)
        else:
            _bribery_targets(state, p, card, out)


_REWARD_CASH: Final[Action] = {"type": "reward_cash"}
_REWARD_GIFT: Final = {v: {"type": "reward_gift", "value": v} for v in GIFT_VALUES}
_REWARD_EXTRA_ACTION: Final[Action] = {"type": "reward_extra_action"}
_REWARD_RECRUIT: Final[Action] = {"type": "reward_recruit_army"}
_REWARD_INSULTED: Final[Action] = {"type": "reward_emperor_insulted"}


def _reward_bribery(key: int) -> Action:
    card, i = divmod(key, _SPACE_COUNT)
    return {
        "type": "reward_bribery",
        "card": REWARDS[card],
        "ministry": MINISTRIES[i // SPACES],
        "space": i % SPACES + 1,
    }


#: Keyed ``reward card * official spaces + space index``.
_REWARD_BRIBERY: Final[ActionTable[int]] = ActionTable(_reward_bribery)


def bribery_ministries(state: State, card: int) -> list[int]:
    """R73: the named ministry, or any unresolved one if it is resolved (or the card says Any)."""
    named = REWARD_MINISTRY[card]
    if named is not None and named != ANY_MINISTRY and not state.resolved[named]:
        return [named]
    return [m for m in range(len(MINISTRIES)) if not state.resolved[m]]


def _bribery_targets(state: State, p: int, card: int, out: list[Action]) -> None:
    """R73: (i) an unbribed official for free, or (ii) another player's unsecured marker, paying."""
    tile, owner, secured = state.tile, state.owner, state.secured
    coins = cards.coins(state.hands, p)
    hubu = 1 if has_marker(state, HUBU, p) else 0
    key = card * _SPACE_COUNT
    for m in bribery_ministries(state, card):
        for i in SPACES_OF[m]:
            t, o = tile[i], owner[i]
            if t > 0 and (o < 0 or (o != p and not secured[i] and t - hubu <= coins)):
                out.append(_REWARD_BRIBERY[key + i])


# -- the other decisions ----------------------------------------------------------------------------


def _pay(state: State, p: int) -> list[Action]:
    ctx, hands, h = state.ctx, state.hands, 3 * p
    return _payments(hands[h], hands[h + 1], hands[h + 2], ctx["price"], ctx["currency"])[:]


@cache
def _payments(c1: int, c2: int, c3: int, price: int, currency: int) -> list[Action]:
    """The Pay actions of a hand of these card counts for ``price`` in ``currency`` (R37); callers copy."""
    return [_PAY[_set_key(x, y, z)] for x, y, z in cards.payments([c1, c2, c3], 0, price, currency)]


def _land(state: State, p: int) -> list[Action]:
    return [_LAND[d] for d in unreached(state, p)]  # D4


def _tutor(state: State, p: int) -> list[Action]:
    """D5, R83-R85: a card at a time at one student; ``end_tutoring`` once at least one is laid."""
    chosen = state.tutor[4 * p]
    students = exam.allowed_students(state, p) if chosen < 0 else [chosen]
    h, hands = 3 * p, state.hands
    out = [_TUTOR[s][k] for s in students for k in range(3) if hands[h + k]]
    if chosen >= 0:
        out.append(_END_TUTORING)
    return out


def _place(state: State, p: int) -> list[Action]:
    return [_PLACE[i] for i in candidate_spots(state, state.candidate)]  # D6, R88


def _give(state: State, p: int) -> list[Action]:
    return [_GIVE_INFLUENCE[q] for q in state.ctx["receivers"]]  # D7


def _keep(state: State, p: int) -> list[Action]:
    return [_KEEP[_set_key(x, y, z)] for x, y, z in cards.keep_sets(state.hands, p)]  # R98


GENERATORS: Final = {
    CHOOSE_CM: _choose_cm,
    ACTION: _turn,
    EXTRA: box_actions,
    FAVOUR: box_actions,
    PAY: _pay,
    LAND: _land,
    TUTOR: _tutor,
    PLACE: _place,
    GIVE: _give,
    KEEP: _keep,
}
