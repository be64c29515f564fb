"""The three ministries: influence, discounts, the bribery obligation, candidate placement and the
Ministry Resolution procedure (R40-R43, R65, R88, R90-R92, R101, R102).

Space ``s`` (1..7) of ministry ``m`` is index ``m * 7 + s - 1`` of ``state.tile/owner/secured``.
During a resolution ``state.res_hold`` says who holds each space's influence: the marker's owner or,
after a weaker participant gave it away, the receiver of the temporary marker.  The owners themselves
never change, which is R91 step 8 for free.
"""

from __future__ import annotations

from typing import Final

from engine.core import Action, Event, event

from .components import ANY_MINISTRY, MINISTRIES, MINISTRY_INDEX, SPACES
from .gifts import cancel
from .state import EMPTY, GIVE, State

BINGBU: Final[int] = MINISTRY_INDEX["bingbu"]
HUBU: Final[int] = MINISTRY_INDEX["hubu"]
GONGBU: Final[int] = MINISTRY_INDEX["gongbu"]
SPACES_OF: Final = tuple(range(m * SPACES, (m + 1) * SPACES) for m in range(len(MINISTRIES)))
_SLICES: Final = tuple(slice(spaces.start, spaces.stop) for spaces in SPACES_OF)


def influence_table(state: State) -> list[list[int]]:
    """``table[m][p]``: officials (candidates included) carrying ``p``'s marker in ministry ``m`` (R42)."""
    n, owner = state.n, state.owner
    table = [[0] * n for _ in MINISTRIES]
    for m, spaces in enumerate(SPACES_OF):
        row = table[m]
        for i in spaces:
            o = owner[i]
            if o >= 0:
                row[o] += 1
    return table


def has_marker(state: State, m: int, p: int) -> bool:
    """R43: ``p`` has an official in ``m`` (any marker state, candidate included, resolved or not)."""
    return p in state.owner[_SLICES[m]]


def bribe_allowed(state: State, p: int, table: list[list[int]]) -> list[bool]:
    """R65 (O2): per ministry, whether the Bribe Official action is open to ``p`` given held gifts."""
    n, given = state.n, state.given
    allowed = [True] * len(MINISTRIES)
    for g in range(n):
        if given[g * n + p]:
            for m, row in enumerate(table):
                if row[g] and row[p] >= row[g]:
                    allowed[m] = False
    return allowed


def transfer(state: State, i: int, p: int, receiver: int, ev: list[Event]) -> None:
    """R62: ``p``'s marker on space ``i`` becomes ``receiver``'s in the same state; a gift ``p`` holds
    from the receiver is cancelled.  R62a: the official is marked, so it cannot change hands again by
    Transfer Influence this round (the receiver cannot hand it back and forth for ever)."""
    state.owner[i] = receiver
    state.transferred |= 1 << i
    ev.append(event("influence_transferred", seat=p, receiver=receiver, space=space_name(i)))
    if state.given[receiver * state.n + p]:
        cancel(state, receiver, p, "R62", ev)


def space_index(ministry: str, space: int) -> int:
    """Index of official space ``space`` (1..7) of the named ministry."""
    return MINISTRY_INDEX[ministry] * SPACES + space - 1


def space_of(action: Action) -> int:
    """The official space an action names with its ``ministry`` and ``space`` fields."""
    return space_index(action["ministry"], action["space"])


def space_name(i: int) -> str:
    """``ministry#space`` as examples.md writes it."""
    return f"{MINISTRIES[i // SPACES]}#{i % SPACES + 1}"


# -- R88: where the Imperial Examination winner may put the candidate ------------------------------


def candidate_spots(state: State, kind: int) -> list[int]:
    """Spaces the candidate of ``kind`` may go to, following R88 steps 1-5 (empty: removed unplaced)."""
    resolved, tile, secured = state.resolved, state.tile, state.secured
    unresolved = [m for m in range(len(MINISTRIES)) if not resolved[m]]
    # step 1: the indicated ministries (none when the named one is resolved)
    indicated = unresolved if kind == ANY_MINISTRY else [] if resolved[kind] else [kind]
    for ministries in (indicated, unresolved):  # steps 2-3 on the indicated ministry, then step 4
        empty = [i for m in ministries for i in SPACES_OF[m] if tile[i] == EMPTY]
        if empty:
            return empty
        open_ = [i for m in ministries for i in SPACES_OF[m] if tile[i] != EMPTY and not secured[i]]
        if open_:
            return open_
    return []


# -- R90-R92, R101, R102: Ministry Resolution -------------------------------------------------------


def ready(state: State, m: int) -> bool:
    """R90: unresolved, all 7 spaces hold a tile and every tile carries a marker."""
    owner = state.owner
    return not state.resolved[m] and all(owner[i] >= 0 for i in SPACES_OF[m])


def start_resolution(state: State, m: int, final: bool, ev: list[Event]) -> None:
    """R91 step 1: every marker stands up; each marker is one influence for its owner."""
    spaces = SPACES_OF[m]
    for i in spaces:
        if state.owner[i] >= 0:
            state.secured[i] = 1
    state.res_m = m
    state.res_hold = [state.owner[i] for i in spaces]
    ev.append(event("ministry_resolution", ministry=MINISTRIES[m], final=final))


def continue_resolution(state: State, ev: list[Event]) -> bool:
    """R91 steps 4-6 until two participants remain, then steps 3 and 7; True when paused on D7."""
    hold, n = state.res_hold, state.n
    while True:
        counts = [0] * n
        best = [len(hold)] * n  # most senior space whose influence the player holds now
        for s, h in enumerate(hold):
            if h >= 0:
                counts[h] += 1
                if s < best[h]:
                    best[h] = s
        parts = [p for p in range(n) if counts[p]]
        if len(parts) <= 2:
            _appoint(state, parts, counts, ev)
            return False
        # step 4: least influence; ties go to the player whose best official is the most junior
        giver = min(parts, key=lambda p: (counts[p], -best[p]))
        receivers = receivers_for(state, giver, [p for p in parts if p != giver])
        if len(receivers) > 1:
            state.phase, state.seat, state.ctx = GIVE, giver, {"receivers": receivers}
            return True
        give_influence(state, giver, receivers[0], ev)


def receivers_for(state: State, giver: int, others: list[int]) -> list[int]:
    """R91 step 5 (and O4, R67): the participant(s) the weakest must give influence to."""
    n, given = state.n, state.given
    top = max(given[q * n + giver] for q in others)
    if not top:
        return others  # no gift from a participant: free choice
    return [q for q in others if given[q * n + giver] == top]


def give_influence(state: State, giver: int, receiver: int, ev: list[Event]) -> None:
    """R91 step 5: all the giver's influence (own and temporary) goes to ``receiver``, whose gift to
    the giver, if any, is cancelled; the giver leaves this resolution."""
    hold = state.res_hold
    for s, h in enumerate(hold):
        if h == giver:
            hold[s] = receiver
    ev.append(event("influence_given", seat=giver, receiver=receiver, ministry=MINISTRIES[state.res_m]))
    if state.given[receiver * state.n + giver]:
        cancel(state, receiver, giver, "R67", ev)


def _appoint(state: State, parts: list[int], counts: list[int], ev: list[Event]) -> None:
    """R91 steps 3, 7, 8 (R102 for a final tie; R101: no marker, no Minister)."""
    m = state.res_m
    if len(parts) == 2:
        a, b = parts
        if counts[a] == counts[b]:  # R102: only possible in a final resolution
            first = next(h for h in state.res_hold if h in parts)
            minister, secretary = first, b if first == a else a
        else:
            minister, secretary = (a, b) if counts[a] > counts[b] else (b, a)
    elif parts:
        minister = secretary = parts[0]
    else:
        minister = secretary = -1
    state.minister[m], state.secretary[m] = minister, secretary
    if minister >= 0:
        state.score[minister] += state.chits[2 * m]
        state.score[secretary] += state.chits[2 * m + 1]
    state.resolved[m] = 1
    state.res_m, state.res_hold = -1, []
    ev.append(
        event(
            "ministry_resolved",
            ministry=MINISTRIES[m],
            minister=minister,
            secretary=secretary,
            minister_vp=state.chits[2 * m] if minister >= 0 else 0,
            secretary_vp=state.chits[2 * m + 1] if minister >= 0 else 0,
        )
    )
