"""Setup (R14-R22), the pending decision, and ``apply``: the game's entry points behind the contract.

``apply`` accepts exactly the actions ``legal_actions`` lists (the list is cached on the state until
the next change), dispatches to the handler of the action type, and then plays a decision that has a
single legal option itself when that option is forced by public information alone (the lone payment,
the forced influence receiver, the pass of a player with nothing left to do, R32).
"""

from __future__ import annotations

from typing import Any

from engine.core import Action, Rng, action_events, check_shape, check_turn

from . import actions, flow, moves
from .components import (
    ANY_MINISTRY,
    ARMIES,
    BLUE_CHITS,
    BOX_VP,
    CANDIDATE_KINDS,
    CARDS_PER_KIND,
    COIN_VALUES,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    FOREIGN_POSITIONS,
    GIFT_START_AVAILABLE,
    GREEN_CHITS,
    JUNKS,
    MINISTRIES,
    OFFICIAL_COSTS,
    OPENING_HAND,
    REWARD_COUNTS,
    SPACES,
    START_SPACES,
)
from .explain import explain
from .schemas import ACTIONS
from .state import AVAILABLE, EMPTY, NOT_AVAILABLE, OPEN, OVER, State

#: The handler of each action type: (state, seat, action, events) -> None.
HANDLERS = {
    **{
        kind: actions.play_reward if kind in actions.REWARD_TYPES else actions.box_action
        for kind in actions.EFFECTS
    },
    "pay": actions.pay,
    "choose_distant_land": actions.choose_distant_land,
    "choose_chief_minister": flow.choose_chief_minister,
    "pass": flow.pass_turn,
    "tutor": flow.tutor,
    "end_tutoring": flow.end_tutoring,
    "place_candidate": flow.place_candidate,
    "give_influence": flow.give_influence,
    "keep_cards": flow.keep_cards,
}


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """R14-R21 in order, then round 1 starts (R23)."""
    s = State.__new__(State)
    rng = s.rng = Rng(seed)
    s.n, s.advanced, s.admiral_variant = players, options["advanced"], options["admiral_variant"]
    green = list(GREEN_CHITS)  # R14: two chits per ministry, the higher for the Minister
    rng.shuffle(green)
    s.chits = []
    for _ in MINISTRIES:
        a, b = green.pop(), green.pop()
        s.chits += [max(a, b), min(a, b)]
    blue = list(BLUE_CHITS)
    rng.shuffle(blue)
    s.land_chit = blue[: len(DISTANT_LANDS)]
    officials = list(OFFICIAL_COSTS)  # R15
    rng.shuffle(officials)
    s.tile = [EMPTY] * (len(MINISTRIES) * SPACES)
    for m in range(len(MINISTRIES)):
        for space in START_SPACES:
            s.tile[m * SPACES + space - 1] = officials.pop()
    s.stack = officials
    s.owner = [-1] * len(s.tile)
    s.secured = [0] * len(s.tile)
    s.resolved, s.minister, s.secretary = [0, 0, 0], [-1, -1, -1], [-1, -1, -1]
    lands = list(range(len(FOREIGN_LANDS)))  # R16
    rng.shuffle(lands)
    s.foreign = lands[:FOREIGN_POSITIONS]
    s.boxes = [[-1] * len(BOX_VP[land]) for land in s.foreign]
    s.land_state = [OPEN] * FOREIGN_POSITIONS
    specific = [k for k in CANDIDATE_KINDS if k != ANY_MINISTRY]  # R17
    rng.shuffle(specific)
    s.candidates = [k for k in CANDIDATE_KINDS if k == ANY_MINISTRY] + specific
    s.candidate = s.candidates.pop()
    s.students = [-1, -1]
    s.reward_deck = [k for k, count in enumerate(REWARD_COUNTS) for _ in range(count)]  # R18
    rng.shuffle(s.reward_deck)
    s.rewards = [[] for _ in range(players)]
    opening = [OPENING_HAND.count(v) for v in COIN_VALUES]  # R19
    s.hands = opening * players
    s.deck = [k for k, count in enumerate(CARDS_PER_KIND) for _ in range(count - opening[k] * players)]
    rng.shuffle(s.deck)
    s.discard = [0, 0, 0]
    s.held = [0] * (3 * players)
    s.tutor = [-1, 0, 0, 0] * players
    s.gift = [AVAILABLE if start else NOT_AVAILABLE for start in GIFT_START_AVAILABLE] * players  # R20
    s.given = [0] * (players * players)
    s.score = [0] * players
    s.stock, s.colonies = [ARMIES] * players, [0] * players
    s.shipyard, s.ocean, s.reached = [0] * players, [0] * players, [0] * players
    s.supply, s.wall, s.insulted = JUNKS, 0, -1  # R21
    s.round = s.turn = s.cm = s.mode = 0
    s.res_m, s.res_hold, s.outcome, s._legal = -1, [], None, None
    flow.start_round(s, [])
    return s


def to_move(state: State) -> int | None:
    return None if state.phase == OVER else state.seat


def legal_actions(state: State) -> list[Action]:
    """The cached list of the pending decision (a copy: a caller may reorder it freely)."""
    return _legal(state)[:]


def _legal(state: State) -> list[Action]:
    if state.phase == OVER:
        return []
    legal = state._legal
    if legal is None:
        legal = state._legal = moves.legal(state)
    return legal


def apply(state: State, action: Action, seat: int | None = None) -> list[dict[str, Any]]:
    p = check_turn(to_move(state), seat)
    kind = check_shape(ACTIONS, action)
    if action not in _legal(state):
        raise explain(state, p, action)
    ev = _events(p, action)
    HANDLERS[kind](state, p, action, ev)
    state._legal = None
    while state.phase != OVER:
        legal = _legal(state)
        if len(legal) != 1 or not _forced_in_public(state, legal[0]):
            break
        only, p = legal[0], state.seat
        ev += _events(p, only)
        HANDLERS[only["type"]](state, p, only, ev)
        state._legal = None
    return ev


#: Decisions whose having a single option follows from public information: a lone payment is the
#: whole hand (which the payment shows anyway), lands, candidate spaces and receivers are public, and
#: ``end_tutoring`` is alone only once the hand is empty.
_PUBLIC_LONE_OPTIONS = frozenset(
    {"pay", "choose_distant_land", "place_candidate", "give_influence", "end_tutoring"}
)


def _forced_in_public(state: State, only: Action) -> bool:
    """Whether the engine may play ``only`` itself without telling the others anything.

    Skipping a decision is visible, so a lone option that hidden cards made lone must still be asked
    for: a uniform hand would show through a lone card to lay (R116) or to keep (R98), an unplayable
    reward card through a lone pass (R114), a hand too poor for any bribe through a lone No Action.
    R32 allows the automatic pass exactly for a player holding no reward card.
    """
    kind = only["type"]
    return kind in _PUBLIC_LONE_OPTIONS or (kind == "pass" and not state.rewards[state.seat])


def _events(p: int, action: Action) -> list[dict[str, Any]]:
    """The action event; the card of a tutoring play and a hand kept are face down for others (R116,
    R98)."""
    kind = action["type"]
    if kind == "tutor":
        return action_events(p, action, public={"type": kind, "student": action["student"]})
    if kind == "keep_cards":
        return action_events(p, action, public={"type": kind})
    return action_events(p, action)
