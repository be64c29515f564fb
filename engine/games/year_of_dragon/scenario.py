"""Scenario builder: a valid State from a compact description, refusing impossible states (R56a).

Tests and bug reports describe only what matters; everything else takes the defaults below.  Example::

    build({
        "players": 3,
        "phase": "person",              # court | action | person | event | decay | final
        "round": 4,                     # month 1-12 (court: not given; final: 12)
        "seats": [
            {"yuan": 5, "pos": 12, "palaces": [[2, "farmer_y", "healer_y"], [1, "court_lady"]]},
            {},
            {"palaces": [[3]], "hand": ["monk", "wild", "wild", "farmer", "healer", "scholar", "warrior",
                                        "pyrotechnist"]},
        ],
        "supply": {"monk_y": 0, "monk_o": 0},
    })

:func:`build_with_events` also returns the events of the engine steps the builder ran (``event``,
``decay``, ``final``), e.g. the month's event with its figures.

Keys (all optional except ``players``):

``options``  game options (R13, R58a, R65; ``first_player`` defaults to seat 0 here).  ``seed``  seeds the
RNG (the default event row and future deals).
``phase``  where the state stands:

* ``court``: the fresh game (R14), only ``players``/``options``/``seed`` are allowed;
* ``action`` / ``person``: Phase 1 / Phase 2 of ``round``, ``order[turn]`` to move;
* ``event``: Phase 2 of ``round`` has just ended; the builder resolves the month's event with the
  engine's own code and returns the state at the first release owed (or, if none is owed, after decay
  and scoring, at the next decision);
* ``decay``: the event and its releases are done; decay and scoring follow likewise;
* ``final``: round 12's scoring is done; the final scoring (R54) is applied and the game is over.

``event``  the month's event id: the rest of the row is filled in a fixed valid way; or ``events``, the
whole 12-slot row; default: the row R11 builds from ``seed``.
``seats``  one dict per seat: ``yuan`` (6), ``rice``, ``fireworks``, ``vp``, ``small``, ``large`` (0),
``palaces`` (``[[floors, tile, ...], ...]``, default none), ``pos`` (default: the sum of the values of
the seat's persons, the least R56a allows), ``hand`` (card ids; default: the cards are taken to have
been played in person-type order, wild cards last).
``stack``  seats in the order their markers arrived on their spaces, earliest first (R18); default seat order.
``supply``  ``{tile: count}`` for the tiles left; other kinds: the R10 count minus the tiles held.
``groups``  action phase: the dealt groups as lists of action ids (R22); default dealt from the RNG.
``dragons``  action phase: dragons on each group (default none).
``order``  the phase order (default the R19 order); ``turn``  index in it of the seat to move (default 0).
The order must be one the track can have produced (R20): the seats still to act follow the current R19
order, behind the seats that acted (which may have moved since); arrange it with ``pos``/``stack``.
"""

from __future__ import annotations

from typing import Any

from engine.core import Event, play_forced, resolve_options

from .components import (
    ACTION_IDS,
    ACTION_INDEX,
    CARD_IDS,
    CARD_INDEX,
    EVENT_COUNTS,
    EVENT_INDEX,
    GROUP_SIZES,
    HAND,
    HAND_SIZE,
    MAX_FLOORS,
    NO_PERSON_ROUND,
    NUM_TILES,
    ROUNDS,
    ROW_FIXED,
    ROW_SLOTS,
    SUPPLY,
    TILE_IDS,
    TILE_INDEX,
    TILE_VALUE,
    WILD,
)
from .flow import begin_event, deal, end_month, finish
from .game import YearOfDragon
from .inputs import OPTIONS
from .palaces import track_order
from .setup import row_is_valid, setup
from .state import ACTION, PERSON, State


class InvalidScenario(ValueError):
    """A description no real game can reach; ``rule`` names the rule it breaks (or the key)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule


_KEYS = {"players", "options", "seed", "phase", "round", "event", "events", "seats", "stack", "supply"}
_PHASE_KEYS = {
    "court": {"players", "options", "seed", "phase"},
    "action": _KEYS | {"groups", "dragons", "order", "turn"},
    "person": _KEYS | {"order", "turn"},
    "event": _KEYS,
    "decay": _KEYS,
    "final": _KEYS - {"round", "event", "events"},
}
_SEAT_KEYS = {"yuan", "rice", "fireworks", "vp", "small", "large", "palaces", "pos", "hand"}
_ALL_CARDS = (1 << len(CARD_IDS)) - 1


def build(desc: dict[str, Any]) -> State:
    """The state described by ``desc`` (see the module docstring); InvalidScenario if it is impossible."""
    return build_with_events(desc)[0]


def build_with_events(desc: dict[str, Any]) -> tuple[State, list[Event]]:
    """:func:`build`, and the events of the engine steps the builder ran to get there (the ``event``,
    ``decay`` and ``final`` phases run the month's event, decay, scoring or the final scoring with the
    engine's own code): a test reads the event's own figures (``month_event``: VP, what was paid,
    persons owed) without playing up to it.  Other phases run no step and have none."""
    phase = desc.get("phase", "action")
    if phase not in _PHASE_KEYS:
        raise InvalidScenario("phase", f"unknown phase {phase!r}; known: {sorted(_PHASE_KEYS)}")
    unknown = set(desc) - _PHASE_KEYS[phase]
    if unknown:
        raise InvalidScenario(sorted(unknown)[0], f"not a key of a {phase!r} scenario")
    n = desc.get("players")
    if n not in SUPPLY:
        raise InvalidScenario("R10", f"players must be one of {sorted(SUPPLY)}, got {n!r}")
    options = resolve_options(OPTIONS, {"first_player": 0, **desc.get("options", {})})
    state = setup(n, options, desc.get("seed", 0))
    if phase == "court":
        return state, []
    rnd = ROUNDS if phase == "final" else desc.get("round", 1)
    if rnd not in range(1, ROUNDS + 1) or (phase == "person" and rnd == NO_PERSON_ROUND):
        raise InvalidScenario("R21", f"no {phase} phase in month {rnd!r}")
    state.round = rnd
    state.row = _row(desc, rnd, state.row)
    seats = desc.get("seats", [{}] * n)
    if len(seats) != n:
        raise InvalidScenario("seats", f"{len(seats)} seat descriptions for {n} players")
    for p, seat in enumerate(seats):
        _seat(state, p, seat)
    _stack(state, desc.get("stack", list(range(n))))
    _supply(state, desc.get("supply", {}))
    if phase in ("action", "person"):
        _phase_order(state, desc, ACTION if phase == "action" else PERSON)
    _hands(state, seats, phase)
    events: list[Event] = []
    if phase == "event":
        begin_event(state, events)
        play_forced(YearOfDragon.rules, state, events)
    elif phase == "decay":
        end_month(state, events)
        play_forced(YearOfDragon.rules, state, events)
    elif phase == "final":
        finish(state, events)
    return state, events


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidScenario("R56", f"{what} must be a non-negative integer, got {value!r}")
    return value


def _tile(tile_id: Any) -> int:
    if tile_id not in TILE_INDEX:
        raise InvalidScenario("R1", f"unknown person tile {tile_id!r}")
    return TILE_INDEX[tile_id]


def _row(desc: dict[str, Any], rnd: int, seeded: list[int]) -> list[int]:
    """R11: the whole row given, or the month's event placed into a fixed valid row, or the seed's row."""
    if "events" in desc:
        try:
            row = [EVENT_INDEX[e] for e in desc["events"]]
        except (KeyError, TypeError):
            raise InvalidScenario("R5", f"unknown event in {desc['events']!r}") from None
        if not row_is_valid(row):
            raise InvalidScenario("R11", f"not a possible event row: {desc['events']!r}")
        return row
    if "event" in desc:
        if desc["event"] not in EVENT_INDEX:
            raise InvalidScenario("R5", f"unknown event {desc['event']!r}")
        found = _row_with(rnd, EVENT_INDEX[desc["event"]])
        if found is None:
            raise InvalidScenario("R11", f"month {rnd} cannot hold {desc['event']}")
        return found
    return seeded


def _row_with(month: int, kind: int) -> list[int] | None:
    """The first valid row (in event order) with ``kind`` in slot ``month`` (R11 constraint)."""
    left = list(EVENT_COUNTS)
    for e in ROW_FIXED:
        left[e] -= 1
    row = list(ROW_FIXED)
    if month <= len(ROW_FIXED):
        return None if row[month - 1] != kind else _fill(row, left, None)
    return _fill(row, left, (month - 1, kind))


def _fill(row: list[int], left: list[int], fixed: tuple[int, int] | None) -> list[int] | None:
    if len(row) == ROW_SLOTS:
        return row
    slot = len(row)
    for e in range(len(left)):
        if left[e] and row[-1] != e and (fixed is None or fixed[0] != slot or fixed[1] == e):
            left[e] -= 1
            done = _fill([*row, e], left, fixed)
            left[e] += 1
            if done is not None:
                return done
    return None


def _seat(state: State, p: int, seat: dict[str, Any]) -> None:
    unknown = set(seat) - _SEAT_KEYS
    if unknown:
        raise InvalidScenario(sorted(unknown)[0], f"not a key of seat {p}")
    for name in ("yuan", "rice", "fireworks", "vp", "small", "large"):
        getattr(state, name)[p] = _count(seat.get(name, getattr(state, name)[p]), f"seat {p} {name}")
    palaces = []
    for spec in seat.get("palaces", []):
        if not isinstance(spec, list) or not spec:
            raise InvalidScenario("R15", f"seat {p}: a palace is [floors, tile, ...], not {spec!r}")
        floors, persons = spec[0], tuple(sorted(_tile(t) for t in spec[1:]))
        if not isinstance(floors, int) or not 1 <= floors <= MAX_FLOORS:
            raise InvalidScenario("R15", f"seat {p}: a palace has 1-{MAX_FLOORS} floors, not {floors!r}")
        if len(persons) > floors:
            raise InvalidScenario("R50", f"seat {p}: {len(persons)} persons in a {floors}-floor palace")
        palaces.append((floors, persons))
    state.palaces[p] = palaces
    least = sum(TILE_VALUE[k] for _, persons in palaces for k in persons)
    state.pos[p] = _count(seat.get("pos", least), f"seat {p} pos")
    if state.pos[p] < least:
        raise InvalidScenario(
            "R56a", f"seat {p}: pos {state.pos[p]} is below the {least} its persons moved it"
        )


def _stack(state: State, stack: list[int]) -> None:
    if sorted(stack) != list(range(state.n)):
        raise InvalidScenario("R18", f"stack must list every seat once, got {stack!r}")
    for rank, p in enumerate(stack, 1):
        state.arrival[p] = rank
    state.clock = state.n


def _supply(state: State, given: dict[str, int]) -> None:
    """R10, R56a: held tiles plus the supply never exceed the R10 numbers."""
    held = [0] * NUM_TILES
    for palaces in state.palaces:
        for _, persons in palaces:
            for k in persons:
                held[k] += 1
    limit = SUPPLY[state.n]
    for k in range(NUM_TILES):
        left = _count(given.get(TILE_IDS[k], max(0, limit[k] - held[k])), f"supply of {TILE_IDS[k]}")
        if held[k] + left > limit[k]:
            raise InvalidScenario(
                "R56a", f"{held[k]} {TILE_IDS[k]} held + {left} left exceed the {limit[k]} of R10"
            )
        state.supply[k] = left
    for tile_id in given:
        _tile(tile_id)


def _phase_order(state: State, desc: dict[str, Any], phase: int) -> None:
    """R19, R20: the order fixed at the phase start; R22-R24: the groups and the dragons on them."""
    track = track_order(state)
    order = list(desc.get("order", track))
    if sorted(order) != list(range(state.n)):
        raise InvalidScenario("R19", f"order must list every seat once, got {order!r}")
    turn = desc.get("turn", 0)
    if not isinstance(turn, int) or not 0 <= turn < state.n:
        raise InvalidScenario("turn", f"turn must index the order (0-{state.n - 1}), got {turn!r}")
    # R20: the order was the track order when the phase began, and only the seats that have acted can have
    # moved since, forward: the seats still to act follow the track, behind every seat that acted.
    if order[turn:] != track[turn:] or sorted(order[:turn]) != sorted(track[:turn]):
        raise InvalidScenario(
            "R20", f"order {order!r} at turn {turn} contradicts the person track {track!r} (set pos/stack)"
        )
    state.order, state.turn, state.phase = order, turn, phase
    if phase != ACTION:
        return
    if "groups" in desc:
        try:
            groups = [tuple(ACTION_INDEX[a] for a in g) for g in desc["groups"]]
        except (KeyError, TypeError):
            raise InvalidScenario("R4", f"unknown action in {desc['groups']!r}") from None
        if sorted(a for g in groups for a in g) != list(range(len(ACTION_IDS))) or sorted(
            map(len, groups)
        ) != sorted(GROUP_SIZES[state.n]):
            raise InvalidScenario("R22", f"groups must deal all 7 actions in sizes {GROUP_SIZES[state.n]}")
        state.groups, state.dragons = groups, [0] * len(groups)
    else:
        deal(state)
    dragons = desc.get("dragons", state.dragons)
    if len(dragons) != len(state.groups) or sum(_count(d, "dragons") for d in dragons) > turn:
        raise InvalidScenario(
            "R23", f"dragons {dragons!r}: one count per group, at most one per seat that acted"
        )
    state.dragons = list(dragons)


def _hands(state: State, seats: list[dict[str, Any]], phase: str) -> None:
    """R56a: after the Person phase of month r every player holds 11 - r cards."""
    done = min(state.round, NO_PERSON_ROUND - 1)
    for p, seat in enumerate(seats):
        if phase == "action":
            played = state.round - 1
        elif phase == "person":
            played = state.round - 1 + (p in state.order[: state.turn])
        else:
            played = done
        if "hand" in seat:
            hand = [0] * len(CARD_IDS)
            for card in seat["hand"]:
                if card not in CARD_INDEX:
                    raise InvalidScenario("R3", f"seat {p}: unknown person card {card!r}")
                hand[CARD_INDEX[card]] += 1
            if any(h > full for h, full in zip(hand, HAND, strict=True)) or sum(hand) != HAND_SIZE - played:
                raise InvalidScenario(
                    "R56a", f"seat {p}: a hand of {HAND_SIZE - played} cards of R3 expected"
                )
        else:
            hand = list(HAND)
            for card in [*range(WILD), *[WILD] * HAND[WILD]][:played]:
                hand[card] -= 1
        state.hands[p] = hand
        state.played[p] = [c for c in range(len(CARD_IDS)) for _ in range(HAND[c] - hand[c])]
        state.masks[p] = [_ALL_CARDS] * len(state.played[p])
