"""The Imperial Examination: trigger, tutoring, the winner and the candidate (R79-R89).

Tutoring is a sequence of small decisions of each tutor (one card at a time, then ``end_tutoring``),
so the list of legal actions stays a handful instead of every subset of a hand.  The cards lie face
down in ``state.tutor`` until the exam is decided (R116).
"""

from __future__ import annotations

from engine.core import Event, event

from .cards import KINDS, card_fields
from .components import ANY_MINISTRY, CANDIDATE_NAMES, COIN_VALUES
from .gifts import cancel
from .ministries import space_name
from .state import CANDIDATE, State

RED, ORANGE = 0, 1
STUDENTS = ("red", "orange")
CANCEL_AT = 3  # R86: the third card for a giver's student cancels the gift


def triggered(state: State) -> bool:
    """R79: both student spaces taken, or Force Imperial Examination taken this round."""
    red, orange = state.students
    return (red >= 0 and orange >= 0) or bool(state.forced)


def allowed_students(state: State, p: int) -> list[int]:
    """R84: the student(s) ``p`` may tutor, given the gifts ``p`` holds from the two owners."""
    n, given = state.n, state.given
    red, orange = state.students
    from_red, from_orange = given[red * n + p], given[orange * n + p]
    if from_red > from_orange:
        return [RED]
    if from_orange > from_red:
        return [ORANGE]
    return [RED, ORANGE]


def lay(state: State, p: int, student: int, kind: int, ev: list[Event]) -> None:
    """R83, R85: one more card face down at ``student``; R86: the third card for the student of a
    player whose gift ``p`` holds cancels that gift."""
    t = 4 * p
    tutor = state.tutor
    tutor[t] = student
    tutor[t + 1 + kind] += 1
    state.hands[3 * p + kind] -= 1
    owner = state.students[student]
    laid = tutor[t + 1] + tutor[t + 2] + tutor[t + 3]
    if laid == CANCEL_AT and owner != p and state.given[owner * state.n + p]:
        cancel(state, owner, p, "R86", ev)


def decide(state: State, ev: list[Event]) -> int:
    """R87: reveal, total the coins, red wins ties; the cards go to the discard pile; the loser's
    student leaves.  Returns the winner."""
    totals = [0, 0]
    laid = []
    tutor, pile = state.tutor, state.discard
    for p in range(state.n):
        t = 4 * p
        if tutor[t] >= 0:
            totals[tutor[t]] += sum(tutor[t + 1 + k] * COIN_VALUES[k] for k in KINDS)
            laid.append({"seat": p, "student": STUDENTS[tutor[t]], **card_fields(tutor[t + 1 : t + 4])})
            for k in KINDS:
                pile[k] += tutor[t + 1 + k]
            tutor[t : t + 4] = [-1, 0, 0, 0]
    won = ORANGE if totals[ORANGE] > totals[RED] else RED
    winner = state.students[won]
    state.students[1 - won] = -1  # the loser's marker returns to its owner
    ev.append(event("exam_decided", red=totals[RED], orange=totals[ORANGE], winner=winner, cards=laid))
    return winner


def place(state: State, winner: int, i: int, ev: list[Event]) -> None:
    """R88: the candidate goes on space ``i`` with the winner's secured marker; a tile it replaces
    leaves the game and its marker returns to its owner."""
    replaced = state.tile[i]
    state.tile[i], state.owner[i], state.secured[i] = CANDIDATE, winner, 1
    ev.append(
        event(
            "candidate_placed",
            seat=winner,
            candidate=CANDIDATE_NAMES[state.candidate],
            space=space_name(i),
            replaced=replaced,
        )
    )


def next_candidate(state: State, ev: list[Event]) -> None:
    """R89: turn up the next candidate, removing those whose ministry is resolved; -1 = exhausted."""
    state.students = [-1, -1]
    stack = state.candidates
    while stack:
        kind = stack.pop()
        if kind != ANY_MINISTRY and state.resolved[kind]:
            ev.append(event("candidate_removed", candidate=CANDIDATE_NAMES[kind], rule="R89"))
            continue
        state.candidate = kind
        ev.append(event("candidate_revealed", candidate=CANDIDATE_NAMES[kind]))
        return
    state.candidate = -1
    ev.append(event("candidates_exhausted", rule="R100"))
