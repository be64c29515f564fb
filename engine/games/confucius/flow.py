"""Round structure (R23): Count Gifts, Chief Minister, the turn order of the Actions Phase, the Court
Phase and the End of Round, with the out-of-turn decisions that interrupt them.

The Court Phase and End of Round are a list of steps (STAGES).  ``state.court`` remembers the step a
round has reached, so when a step stops for a decision (tutoring, candidate placement, influence,
discards) the decision's handler simply resumes the list.  Steps that may stop more than once
(resolutions, discards, the game end) are written to be re-entered: they look at the board to see
what is left to do.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.core import Action, Event, event

from . import exam, ministries, scoring
from .cards import KINDS, card_set, hand_size
from .components import (
    CARDS_PER_KIND,
    CUBES_BY_COUNT,
    DISTANT_LANDS,
    HAND_LIMIT,
    MINISTRIES,
    REWARD_COUNTS,
    SPACES,
    WALL_SPACES,
)
from .cubes import SPACE_COUNT
from .gifts import active_cubes
from .military import resolve_invasions
from .state import ACTION, CHOOSE_CM, EMPTY, FAVOUR, KEEP, OVER, PLACE, TUTOR, State

# -- rounds and turns ---------------------------------------------------------------------------


def start_round(state: State, ev: list[Event]) -> None:
    """R99 (cubes back, spaces cleared), R24-R25 (Count Gifts), R26 (Chief Minister)."""
    n = state.n
    state.round += 1
    state.cubes = [active_cubes(state, p) for p in range(n)]
    state.placed = [0] * (n * SPACE_COUNT)
    state.commercial = [0] * n
    state.passed = [0] * n
    state.forced = 0
    state.court = 0
    state.transferred = 0  # R62a: every official may change hands once more this round
    ev.append(event("round_started", round=state.round, cubes=state.cubes[:]))
    if state.round == 1:
        state.cm = state.rng.below(n)  # R26: chosen at random in round 1
        begin_actions(state, ev)
    else:
        state.phase, state.seat, state.ctx = CHOOSE_CM, state.cm, None  # D1


def choose_chief_minister(state: State, p: int, action: Action, ev: list[Event]) -> None:
    state.cm = action["seat"]
    begin_actions(state, ev)


def begin_actions(state: State, ev: list[Event]) -> None:
    """R27: the CM's cube goes to the Imperial Favour space; R28: the player left of the CM starts."""
    state.cubes[state.cm] -= 1
    ev.append(event("chief_minister", seat=state.cm))
    state.turn = state.cm
    next_turn(state)


def next_turn(state: State) -> None:
    """R28, R30: the next seat clockwise that has not passed; when all have passed, Imperial Favour."""
    n, passed, t = state.n, state.passed, state.turn
    for i in range(1, n + 1):
        q = (t + i) % n
        if not passed[q]:
            state.turn = state.seat = q
            state.phase = state.mode = ACTION
            state.ctx = None
            return
    state.phase = state.mode = FAVOUR  # R31, R77
    state.seat, state.ctx = state.cm, None


def end_action(state: State, ev: list[Event]) -> None:
    """A turn's action is complete: the next turn, or after Imperial Favour the Court Phase (R77)."""
    if state.mode == FAVOUR:
        run_court(state, ev)
    else:
        next_turn(state)


def pass_turn(state: State, p: int, action: Action, ev: list[Event]) -> None:
    state.passed[p] = 1  # R29 (d), R30
    next_turn(state)


# -- the Court Phase and End of Round ----------------------------------------------------------------


def run_court(state: State, ev: list[Event]) -> None:
    """Run the steps from ``state.court`` on until one stops for a decision (the last always does)."""
    while not STAGES[state.court](state, ev):
        state.court += 1


def _finish_step(state: State, ev: list[Event]) -> None:
    state.court += 1
    run_court(state, ev)


def _wall(state: State, ev: list[Event]) -> bool:
    state.wall += 1  # R78
    ev.append(event("great_wall", pieces=state.wall))
    return False


def _exam(state: State, ev: list[Event]) -> bool:
    """R79-R82: skip, an uncontested winner, or tutoring from the CM clockwise."""
    if not exam.triggered(state):
        return False
    red, orange = state.students
    if red < 0 and orange < 0:
        return False  # R80
    if red < 0 or orange < 0 or red == orange:
        return _award(state, max(red, orange), ev)  # R81
    n, cm = state.n, state.cm
    state.ctx = {"queue": [(cm + i) % n for i in range(n)]}
    return _next_tutor(state, ev)


def _next_tutor(state: State, ev: list[Event]) -> bool:
    """R83: the next player in the queue who holds cards tutors; after the last, R87 decides."""
    queue = state.ctx["queue"]
    for k, p in enumerate(queue):
        if hand_size(state.hands, p):
            state.phase, state.seat, state.ctx = TUTOR, p, {"queue": queue[k + 1 :]}
            return True
    return _award(state, exam.decide(state, ev), ev)


def _award(state: State, winner: int, ev: list[Event]) -> bool:
    """R88: the winner places the candidate (D6), or step 5 removes it; then R89."""
    if ministries.candidate_spots(state, state.candidate):
        state.phase, state.seat, state.ctx = PLACE, winner, None
        return True
    ev.append(event("candidate_unplaced", seat=winner, rule="R88"))
    exam.next_candidate(state, ev)
    return False


def tutor(state: State, p: int, action: Action, ev: list[Event]) -> None:
    exam.lay(state, p, exam.STUDENTS.index(action["student"]), action["coins"] - 1, ev)


def end_tutoring(state: State, p: int, action: Action, ev: list[Event]) -> None:
    if not _next_tutor(state, ev):
        _finish_step(state, ev)


def place_candidate(state: State, p: int, action: Action, ev: list[Event]) -> None:
    exam.place(state, p, ministries.space_of(action), ev)
    exam.next_candidate(state, ev)
    _finish_step(state, ev)


def _resolutions(state: State, ev: list[Event], pick: Callable[[State, int], bool]) -> bool:
    """Resolve, in Bingbu-Hubu-Gongbu order, every ministry ``pick`` selects; True when stopped on D7."""
    while True:
        if state.res_m < 0:
            m = next((m for m in range(len(MINISTRIES)) if pick(state, m)), -1)
            if m < 0:
                return False
            ministries.start_resolution(state, m, pick is _unresolved, ev)
        if ministries.continue_resolution(state, ev):
            return True


def _unresolved(state: State, m: int) -> bool:
    return not state.resolved[m]


def _ministries(state: State, ev: list[Event]) -> bool:
    return _resolutions(state, ev, ministries.ready)  # R90


def give_influence(state: State, p: int, action: Action, ev: list[Event]) -> None:
    ministries.give_influence(state, p, action["seat"], ev)
    run_court(state, ev)  # the resolution (mid-game or final) carries on


def _invasions(state: State, ev: list[Event]) -> bool:
    resolve_invasions(state, ev)  # R93-R96
    return False


def _new_officials(state: State, ev: list[Event]) -> bool:
    """R97: one tile from the stack on the lowest-numbered empty space of each ministry that has one."""
    tile = state.tile
    for spaces in ministries.SPACES_OF:
        empty = next((i for i in spaces if tile[i] == EMPTY), -1)
        if empty >= 0 and state.stack:
            tile[empty] = state.stack.pop()
            ev.append(event("official_placed", space=ministries.space_name(empty), cost=tile[empty]))
    return False


def _discards(state: State, ev: list[Event]) -> bool:
    """R98: from the CM clockwise, each player over the limit keeps 4 (D9); the discards are revealed
    together once everybody has chosen, as the rule makes the choice simultaneous."""
    n, cm, hands = state.n, state.cm, state.hands
    for i in range(n):
        p = (cm + i) % n
        if hand_size(hands, p) > HAND_LIMIT:
            state.phase, state.seat, state.ctx = KEEP, p, None
            return True
    held, pile = state.held, state.discard
    if any(held):
        for p in range(n):
            for k in KINDS:
                pile[k] += held[3 * p + k]
        ev.append(event("cards_discarded", cards=[held[3 * p : 3 * p + 3] for p in range(n)]))
        state.held = [0] * (3 * n)
    return False


def keep_cards(state: State, p: int, action: Action, ev: list[Event]) -> None:
    h = 3 * p
    for k, keep in enumerate(card_set(action)):
        state.held[h + k] += state.hands[h + k] - keep
        state.hands[h + k] = keep
    run_court(state, ev)


def _round_end(state: State, ev: list[Event]) -> bool:
    """R99-R101: the next round, or the final resolutions, titles and scores."""
    if not (all(state.resolved) or state.candidate < 0 or state.wall >= WALL_SPACES):
        start_round(state, ev)
        return True
    if _resolutions(state, ev, _unresolved):
        return True
    scoring.finish(state, ev)
    return True


STAGES: tuple[Callable[[State, list[Event]], bool], ...] = (
    _wall,
    _exam,
    _ministries,
    _invasions,
    _new_officials,
    _discards,
    _round_end,
)
#: Names of the steps, as the scenario builder and the view call them.
STAGE_NAMES: tuple[str, ...] = tuple(step.__name__.lstrip("_") for step in STAGES)


def to_move(state: State) -> int | None:
    """The seat of the pending decision, ``None`` once over."""
    return None if state.phase == OVER else state.seat


#: Decisions whose having a single option follows from public information: a lone payment is the
#: whole hand (which the payment shows anyway), lands, candidate spaces and receivers are public, and
#: ``end_tutoring`` is alone only once the hand is empty.
_PUBLIC_LONE_OPTIONS = frozenset(
    {"pay", "choose_distant_land", "place_candidate", "give_influence", "end_tutoring"}
)


def max_decisions(players: int) -> int:
    """A proven bound on the decisions of a game (engine.core.Game.max_decisions).

    The game lasts at most 9 rounds (R100: one Great Wall piece per round, R78).  In one round:
    one Chief Minister choice (R26); at most ``5n - 1`` paid box actions, since each costs at least one
    active cube (R33, R34: only Transfer Influence costs none), a player has at most 5 (R25) and the
    Chief Minister's fifth is on Imperial Favour (R27), each with at most one payment (D3); at most 21
    transfers (R62a: each official once per round); a pass per player (R30); the Imperial Favour
    action and its payment (R77); tutoring, one card per decision plus one ``end_tutoring`` per player,
    at most the 66 cards of the deck plus ``n`` (R83); one candidate placement (R88); a discard per
    player (R98).  Over the game: each of the 10 reward cards is played once (R69) with at most two more
    decisions (the Extra Action's box action, a payment); each player reaches each of the 5 Distant
    Lands once (R47, D4); each of the 3 ministries is resolved once with at most ``n - 2`` influence
    choices (R91, D7).  Loose (real games are a fifth of it), but it holds for any play.
    """
    n = players
    paid = n * max(CUBES_BY_COUNT) - 1
    per_round = (
        1  # D1
        + 2 * paid  # D2 box actions and their D3 payments
        + len(MINISTRIES) * SPACES  # R62a
        + n  # passes
        + 2  # D8 Imperial Favour and its payment
        + (sum(CARDS_PER_KIND) + n)  # D5 tutoring
        + 1  # D6
        + n  # D9
    )
    per_game = 3 * sum(REWARD_COUNTS) + n * len(DISTANT_LANDS) + len(MINISTRIES) * (n - 2)
    return WALL_SPACES * per_round + per_game


def forced(state: State, only: Action) -> bool:
    """Whether the engine plays ``only``, the single legal action, itself without telling the others
    anything.

    Skipping a decision is visible, so a lone option that hidden cards made lone must still be asked
    for: a uniform hand would show through a lone card to lay (R116) or to keep (R98), an unplayable
    reward card through a lone pass (R114), a hand too poor for any bribe through a lone No Action.
    R32 allows the automatic pass exactly for a player holding no reward card.
    """
    kind = only["type"]
    return kind in _PUBLIC_LONE_OPTIONS or (kind == "pass" and not state.rewards[state.seat])
