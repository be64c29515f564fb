"""Which steps of The Year of the Dragon can be taken back (engine/takeback.py).

Nearly everything is on the table (R57, R58c: the event row is public from setup).  Hidden are the
action-card deals of the coming rounds (the RNG, R58b) and, with ``reveal_played_card`` off, which card
paid for each recruit (R58a).  So a step blocks a takeback when it

- reaches the start of a round, whose action cards are shuffled into groups and shown (R22, R58b):
  random;
- with played cards hidden (R58a), plays a card (recruit or spend, R36) whose public meaning ("a card of
  type t or a wild card", "a card of an exhausted type") tells the others something about the hand they
  could not deduce before: some history of hidden plays consistent with everything public would have
  left the hand without such a card.  With played cards shown (the default), all hands can be deduced
  at every moment (R58a), so a card played reveals nothing.

Everything else (the court, placing, action choices, building, privileges, releases) is public and
deterministic, and can be taken back.
"""

from __future__ import annotations

from engine.core import Action, Event
from engine.takeback import RANDOM, REVEAL, Blocker

from .components import HAND
from .state import State

_ROUND = Blocker(RANDOM, "R22", "a new round's action cards were shuffled into groups")
_PLAYS = ("recruit", "spend")

_PUBLIC = (frozenset({RANDOM}), "R22 when the round ends with it (directly or through forced steps)")
#: Per action type, the reasons its step may be refused for and when (docs/api/takebacks.md); the
#: tests check every step against it.
BY_ACTION: dict[str, tuple[frozenset[str], str]] = {
    **{
        kind: _PUBLIC
        for kind in (
            "court",
            "place",
            "action",
            "refill",
            "build_floor",
            "build_palace",
            "privilege",
            "replace",
            "release_newcomer",
            "release",
        )
    },
    "recruit": (
        frozenset({RANDOM, REVEAL}),
        "R22 as the others; with reveal_played_card off, R58a when the card's public meaning narrows "
        "what the hand can hold",
    ),
    "spend": (frozenset({RANDOM, REVEAL}), "as recruit (R22, R58a)"),
}


def _hands_after(masks: list[int]) -> set[tuple[int, ...]]:
    """Every count of cards used up (per card kind) that the public masks of a seat's plays allow: each
    play used one card its mask allows (R58a).  At most 2**9 * 3 vectors: cheap."""
    reachable = {tuple(0 for _ in HAND)}
    for mask in masks:
        step: set[tuple[int, ...]] = set()
        for used in reachable:
            for card, limit in enumerate(HAND):
                if mask >> card & 1 and used[card] < limit:
                    step.add((*used[:card], used[card] + 1, *used[card + 1 :]))
        reachable = step
    return reachable


def play_reveals(masks: list[int], mask: int) -> bool:
    """Whether a hidden play with public ``mask`` after plays with public ``masks`` tells the others
    something: some history consistent with ``masks`` leaves no card that ``mask`` allows."""
    return any(
        all(used[card] == limit for card, limit in enumerate(HAND) if mask >> card & 1)
        for used in _hands_after(masks)
    )


def blocker(before: State, seat: int, action: Action, after: State, events: list[Event]) -> Blocker | None:
    """What ``seat``'s ``action`` on ``before`` (and the forced steps after it) drew or revealed."""
    if any(ev["type"] == "round" for ev in events):
        return _ROUND
    if action["type"] in _PLAYS and not before.reveal:
        masks = before.masks[seat]
        if play_reveals(masks, after.masks[seat][len(masks)]):
            return Blocker(REVEAL, "R58a", "the hidden card played told the others something about the hand")
    return None
