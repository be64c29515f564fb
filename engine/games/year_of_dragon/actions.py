"""What each accepted action does to the state: one handler per action type, keyed in ``HANDLERS``.

Handlers run only after the action was found in the legal list, so they mutate without checking.
"""

from __future__ import annotations

from engine.core import Action, Event, Handler

from .components import (
    ACTION_BASE,
    ACTION_BONUS,
    ACTION_INDEX,
    BUILD,
    CARD_INDEX,
    DROUGHT,
    FIREWORKS,
    GROUP_FEE,
    HARVEST,
    PARADE,
    PRIVILEGE,
    REFILL_TO,
    RESEARCH,
    SMALL_COST,
    SYMBOLS,
    TAXES,
    TILE_INDEX,
    TILE_TYPE,
    TILE_VALUE,
    TYPE_TILES,
    WILD,
)
from .flow import next_action_seat, next_court_seat, next_person_seat, next_releaser
from .legal import court_pair
from .monthly_events import month_event
from .palaces import (
    add_floor,
    add_person,
    advance,
    has_free_floor,
    place,
    release_key,
    remove_person,
    symbols,
)
from .state import BUILD as BUILD_PHASE
from .state import FULL, PLACE, State
from .state import PRIVILEGE as PRIVILEGE_PHASE


def court(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R14: take both young tiles; they are placed one by one (DP2)."""
    first, second = TILE_INDEX[a["first"]], TILE_INDEX[a["second"]]
    state.supply[first] -= 1
    state.supply[second] -= 1
    state.pairs.append(court_pair(first, second))
    state.pending = [first, second]
    state.phase = PLACE


def place_pending(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R14/R37: the next pending tile moves in; the marker advances by its value."""
    place(state, seat, a["palace"], state.pending.pop(0))
    if state.pending:
        return
    if state.round == 0:
        next_court_seat(state, events)
    else:
        next_person_seat(state, events)


def choose_action(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R23, R24, R27-R34: pay the fee for an occupied group, then carry out the action."""
    g, act = a["group"], ACTION_INDEX[a["action"]]
    if state.dragons[g]:
        state.yuan[seat] -= GROUP_FEE
    state.dragons[g] += 1
    if act == PRIVILEGE:
        state.phase = PRIVILEGE_PHASE
        return
    gain = ACTION_BASE[act] + symbols(state.palaces[seat], SYMBOLS[ACTION_BONUS[act]])
    if act == BUILD:  # R29: the floors are placed one decision at a time
        state.build_left = gain
        state.phase = BUILD_PHASE
        return
    if act == TAXES:
        state.yuan[seat] += gain
    elif act == HARVEST:
        state.rice[seat] += gain
    elif act == FIREWORKS:
        state.fireworks[seat] += gain
    elif act == PARADE:
        advance(state, seat, gain)
    elif act == RESEARCH:
        state.vp[seat] += gain
    next_action_seat(state, events)


def refill(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R25: take yuan up to 3; no dragon is placed."""
    state.yuan[seat] = max(state.yuan[seat], REFILL_TO)
    next_action_seat(state, events)


def _floor_built(state: State, events: list[Event]) -> None:
    state.build_left -= 1
    if not state.build_left:
        next_action_seat(state, events)


def build_floor(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R29: one new floor onto an existing palace below 3 floors."""
    palaces = state.palaces[seat]
    palaces[a["palace"]] = add_floor(palaces[a["palace"]])
    _floor_built(state, events)


def build_palace(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R29: one new floor founds a new palace (later floors of this action may raise it)."""
    state.palaces[seat].append((1, ()))
    _floor_built(state, events)


def privilege(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R34: exactly one privilege, paid to the supply."""
    if a["size"] == "large":
        state.yuan[seat] -= state.large_cost
        state.large[seat] += 1
    else:
        state.yuan[seat] -= SMALL_COST
        state.small[seat] += 1
    next_action_seat(state, events)


def _play_card(state: State, seat: int, card: int, mask: int) -> None:
    """R36: the card goes from the hand to the discard pile; ``mask`` records which cards public
    information allows it to have been (R58a)."""
    state.hands[seat][card] -= 1
    state.played[seat].append(card)
    state.masks[seat].append(mask)


def recruit(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R36, R37: the tile leaves the supply at once; it is placed (DP7) or, with no free floor, replaces
    a person or is released (DP8)."""
    tile = TILE_INDEX[a["person"]]
    _play_card(state, seat, CARD_INDEX[a["card"]], 1 << TILE_TYPE[tile] | 1 << WILD)
    state.supply[tile] -= 1
    state.pending = [tile]
    state.phase = PLACE if has_free_floor(state.palaces[seat]) else FULL


def spend(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R36, R68: a card for which no tile is left gets nothing."""
    supply = state.supply
    exhausted = 0
    for t, tiles in enumerate(TYPE_TILES):
        if not any(supply[k] for k in tiles):
            exhausted |= 1 << t
    if not any(supply):
        exhausted |= 1 << WILD
    _play_card(state, seat, CARD_INDEX[a["card"]], exhausted)
    next_person_seat(state, events)


def replace(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R37(a): release one person; the newcomer takes its place and the marker advances."""
    tile = state.pending.pop()
    palaces = state.palaces[seat]
    i = a["palace"]
    palaces[i] = add_person(remove_person(palaces[i], TILE_INDEX[a["person"]]), tile)
    advance(state, seat, TILE_VALUE[tile])
    next_person_seat(state, events)


def release_newcomer(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R37(b): the newcomer leaves the game; the marker does not move."""
    state.pending.clear()
    next_person_seat(state, events)


def release(state: State, seat: int, a: Action, events: list[Event]) -> None:
    """R42-R46: one owed person leaves the game (R17); R40: the next seat follows when this one is done."""
    i, tile = a["palace"], TILE_INDEX[a["person"]]
    palaces = state.palaces[seat]
    palaces[i] = remove_person(palaces[i], tile)
    state.last = i if month_event(state) == DROUGHT else release_key(i, tile)
    state.owed[seat] -= 1
    if not state.owed[seat]:
        next_releaser(state, events)


HANDLERS: dict[str, Handler[State]] = {
    "court": court,
    "place": place_pending,
    "action": choose_action,
    "refill": refill,
    "build_floor": build_floor,
    "build_palace": build_palace,
    "privilege": privilege,
    "recruit": recruit,
    "spend": spend,
    "replace": replace,
    "release_newcomer": release_newcomer,
    "release": release,
}
