"""Why an action is refused: the cold path of ``apply``, run only for actions not in the legal list.

It never decides legality (the legal list does) and sees only well-formed actions (``check_shape`` ran
first); it finds the rule to name, checking the most basic reasons first: the wrong kind of decision,
then its rules.
"""

from __future__ import annotations

from typing import Any

from engine.core import IllegalAction

from .components import (
    ACTION_IDS,
    ACTION_INDEX,
    CARD_INDEX,
    EVENT_IDS,
    GROUP_FEE,
    MAX_FLOORS,
    PRIVILEGE,
    SMALL_COST,
    TILE_IDS,
    TILE_INDEX,
    TILE_TYPE,
    TILE_YOUNG,
    WILD,
)
from .flow import decision_rule
from .legal import court_pair
from .monthly_events import EVENT_RULES, month_event
from .palaces import has_free_floor
from .state import ACTION, BUILD, COURT, FULL, PERSON, PHASE_NAMES, PLACE, RELEASE, State
from .state import PRIVILEGE as PRIVILEGE_PHASE

#: Action types each decision phase accepts.
PHASE_TYPES: dict[int, tuple[str, ...]] = {
    COURT: ("court",),
    PLACE: ("place",),
    ACTION: ("action", "refill"),
    BUILD: ("build_floor", "build_palace"),
    PRIVILEGE_PHASE: ("privilege",),
    PERSON: ("recruit", "spend"),
    FULL: ("replace", "release_newcomer"),
    RELEASE: ("release",),
}
#: The rule that says when each kind of release may happen, for refusing it at any other time.
_RELEASE_RULES = {
    "release": ("R17", "persons are never released voluntarily, only when an event demands it; "),
    "replace": ("R37", "a person is replaced only by a newcomer that finds no free floor; "),
    "release_newcomer": ("R37", "a newcomer is released only when it finds no free floor; "),
}


def explain(state: State, seat: int, action: dict[str, Any]) -> IllegalAction:
    kind = action["type"]
    rule = decision_rule(state)
    if kind not in PHASE_TYPES[state.phase]:
        # A person leaves only when a rule demands it (R17): name that rule, not the pending decision's.
        rule, when = _RELEASE_RULES.get(kind, (rule, ""))
        pending = f"the pending decision is {PHASE_NAMES[state.phase]!r}; it takes {PHASE_TYPES[state.phase]}"
        return IllegalAction(rule, when + pending, "type")
    palaces = state.palaces[seat]
    if "palace" in action and not 0 <= action["palace"] < len(palaces):
        return IllegalAction(
            rule, f"you have no palace {action['palace']} (you own {len(palaces)})", "palace"
        )
    why = _WHY.get(kind)
    reason = None if why is None else why(state, seat, action)
    if reason is not None:
        return IllegalAction(*reason)
    return IllegalAction(rule, f"{kind} is not one of the legal choices now")


Reason = tuple[str, str] | tuple[str, str, str] | None


def _court(state: State, seat: int, a: dict[str, Any]) -> Reason:
    first, second = TILE_INDEX[a["first"]], TILE_INDEX[a["second"]]
    for k in (first, second):
        if not TILE_YOUNG[k]:
            return ("R14", f"the initial court takes young tiles only, not {TILE_IDS[k]}")
    if TILE_TYPE[first] == TILE_TYPE[second]:
        return ("R14", "the two tiles must be of different types (R14a)")
    if court_pair(first, second) in state.pairs:
        return ("R14", "an earlier player took this pair of types (R14b)")
    for k in (first, second):
        if not state.supply[k]:
            return ("R14", f"no {TILE_IDS[k]} tile is left (R14c)")
    if first > second:
        return (
            "R14",
            f"name the pair in person order: first={TILE_IDS[second]!r}, second={TILE_IDS[first]!r}",
        )
    return None


def _place(state: State, seat: int, a: dict[str, Any]) -> Reason:
    floors, persons = state.palaces[seat][a["palace"]]
    if floors <= len(persons):
        return ("R15", f"palace {a['palace']} has no free floor (one person per floor)")
    return None


def _action(state: State, seat: int, a: dict[str, Any]) -> Reason:
    g, name = a["group"], a["action"]
    if not 0 <= g < len(state.groups):
        return ("R22", f"there is no group {g} (groups 0-{len(state.groups) - 1})", "group")
    if ACTION_INDEX[name] not in state.groups[g]:
        return ("R23", f"group {g} holds {[ACTION_IDS[x] for x in state.groups[g]]}, not {name}")
    fee = GROUP_FEE if state.dragons[g] else 0
    if state.yuan[seat] < fee:
        return ("R24", f"group {g} is occupied: it costs {fee} yuan, you have {state.yuan[seat]}")
    if ACTION_INDEX[name] == PRIVILEGE and state.yuan[seat] - fee < SMALL_COST:
        return ("R26", f"a privilege costs at least {SMALL_COST} yuan after the {fee}-yuan fee")
    return None


def _build_floor(state: State, seat: int, a: dict[str, Any]) -> Reason:
    if state.palaces[seat][a["palace"]][0] >= MAX_FLOORS:
        return ("R15", f"palace {a['palace']} already has {MAX_FLOORS} floors")
    return None


def _privilege(state: State, seat: int, a: dict[str, Any]) -> Reason:
    if a["size"] == "large":
        return ("R26", f"the large privilege costs {state.large_cost} yuan, you have {state.yuan[seat]}")
    return None


def _card(state: State, seat: int, a: dict[str, Any]) -> Reason:
    card = CARD_INDEX[a["card"]]
    if not state.hands[seat][card]:
        return ("R36", f"you hold no {a['card']} card")
    allowed = [k for k in range(len(TILE_IDS)) if state.supply[k] and (card == WILD or TILE_TYPE[k] == card)]
    if a["type"] == "spend":
        return (
            ("R36", f"the {a['card']} card can still take {[TILE_IDS[k] for k in allowed]}")
            if allowed
            else None
        )
    tile = TILE_INDEX[a["person"]]
    if card != WILD and TILE_TYPE[tile] != card:
        return ("R36", f"the {a['card']} card takes a {a['card']} tile only, not {a['person']}")
    if not state.supply[tile]:
        return ("R68", f"no {a['person']} tile is left")
    return None


def _replace(state: State, seat: int, a: dict[str, Any]) -> Reason:
    if has_free_floor(state.palaces[seat]):
        return ("R37", "replacing is allowed only when no palace has a free floor")
    if TILE_INDEX[a["person"]] not in state.palaces[seat][a["palace"]][1]:
        return ("R37", f"palace {a['palace']} holds no {a['person']}")
    return None


def _release(state: State, seat: int, a: dict[str, Any]) -> Reason:
    rule = EVENT_RULES[month_event(state)]
    persons = state.palaces[seat][a["palace"]][1]
    if TILE_INDEX[a["person"]] not in persons:
        return (rule, f"palace {a['palace']} holds no {a['person']}")
    event = EVENT_IDS[month_event(state)]
    if rule == "R43":
        after = f" after palace {state.last}" if state.last >= 0 else ""
        return (
            rule,
            f"{event}: one person from each unsupplied palace, named in palace order{after}, leaving "
            f"enough inhabited palaces for the {state.owed[seat]} still owed",
        )
    return (
        rule,
        f"{event}: releases are named in palace order, leaving enough persons for the "
        f"{state.owed[seat]} still owed",
    )


_WHY = {
    "court": _court,
    "place": _place,
    "action": _action,
    "build_floor": _build_floor,
    "privilege": _privilege,
    "recruit": _card,
    "spend": _card,
    "replace": _replace,
    "release": _release,
}
