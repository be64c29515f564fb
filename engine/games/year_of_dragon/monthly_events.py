"""Phase 3: the month's event (R39-R48) and the decay that follows it (R49-R51).

``resolve`` applies everything an event does without a choice and records in ``state.owed`` the releases
each seat owes; the releases themselves are pending decisions (DP9-DP12) taken in turn order (R40).
Every quantity is read before any release, as R40 requires.
"""

from __future__ import annotations

from engine.core import Event, event

from .components import (
    CONTAGION,
    CONTAGION_BASE,
    DROUGHT,
    EVENT_IDS,
    FESTIVAL,
    FESTIVAL_FIRST,
    FESTIVAL_SECOND,
    HEALER,
    MONGOL_RELEASES,
    MONGOLS,
    SYMBOLS,
    TRIBUTE,
    TRIBUTE_DUE,
    WARRIOR,
)
from .palaces import decayed, person_count, symbols
from .state import Palace, State

#: The rule of each event that makes persons leave (R42-R46).
EVENT_RULES = {TRIBUTE: "R42", DROUGHT: "R43", MONGOLS: "R45", CONTAGION: "R46"}


def month_event(state: State) -> int:
    """R39: the event of month m is the tile in slot m of the row."""
    return state.row[state.round - 1]


def forecast(state: State) -> tuple[list[int], list[int]]:
    """(VP gained, persons to release) per seat for this month's event, read from the state before it
    strikes: R40 fixes every quantity at the start of the event.  Pure, so the bots can look ahead."""
    kind = month_event(state)
    n = state.n
    vp = [0] * n
    owed = [0] * n
    if kind == TRIBUTE:  # R42: one person per missing yuan
        owed = [max(0, TRIBUTE_DUE - y) for y in state.yuan]
    elif kind == DROUGHT:  # R43: one person per inhabited palace left without rice
        owed = [max(0, _inhabited(state.palaces[p]) - state.rice[p]) for p in range(n)]
    elif kind == FESTIVAL:  # R44: 6 VP for the most fireworks, 3 for the next count
        counts = sorted({f for f in state.fireworks if f > 0}, reverse=True)
        prizes = dict(zip(counts, (FESTIVAL_FIRST, FESTIVAL_SECOND), strict=False))
        vp = [prizes.get(f, 0) for f in state.fireworks]
    elif kind == MONGOLS:  # R45: 1 VP per helmet; the fewest helmets release one person
        vp = [symbols(palaces, SYMBOLS[WARRIOR]) for palaces in state.palaces]
        owed = [MONGOL_RELEASES if h == min(vp) else 0 for h in vp]
    elif kind == CONTAGION:  # R46: three persons, one fewer per mortar
        owed = [max(0, CONTAGION_BASE - symbols(palaces, SYMBOLS[HEALER])) for palaces in state.palaces]
    # R42, R46, R47: a player owing more persons than he has releases all of them (possibly none).
    return vp, [min(o, person_count(palaces)) for o, palaces in zip(owed, state.palaces, strict=True)]


def resolve(state: State) -> Event:
    """Apply the event of month ``state.round`` (payments and VP) and set ``state.owed``."""
    kind = month_event(state)
    vp, state.owed = forecast(state)
    paid = [0] * state.n  # yuan (Tribute), rice (Drought) or fireworks (Festival) returned
    for p in range(state.n):
        state.vp[p] += vp[p]
        if kind == TRIBUTE:  # R42, R56: what he has, at most 4
            paid[p] = min(TRIBUTE_DUE, state.yuan[p])
            state.yuan[p] -= paid[p]
        elif kind == DROUGHT:  # R43: one rice per inhabited palace, as far as it goes
            paid[p] = min(state.rice[p], _inhabited(state.palaces[p]))
            state.rice[p] -= paid[p]
        elif kind == FESTIVAL and vp[p]:  # R44: each scorer returns half, rounded up
            paid[p] = state.fireworks[p] - state.fireworks[p] // 2
            state.fireworks[p] -= paid[p]
    return event(
        "month_event", round=state.round, event=EVENT_IDS[kind], vp=vp, paid=paid, owed=state.owed[:]
    )


def _inhabited(palaces: list[Palace]) -> int:
    return sum(1 for _, persons in palaces if persons)


def decay(state: State) -> Event:
    """R49: after every event each uninhabited palace loses one floor (R51: also fresh or emptied ones)."""
    lost = [0] * state.n
    for p, palaces in enumerate(state.palaces):
        lost[p] = sum(1 for _, persons in palaces if not persons)
        if lost[p]:
            state.palaces[p] = decayed(palaces)
    return event("decay", round=state.round, floors_lost=lost)
