"""High Card: a small, complete hidden-information game implementing the engine contract.

A documented test fixture (rules in RULES.md beside this file): the service tests use it so they can
run before any real game is registered, and so they always exercise a secret hand (R2), a private
event (R4's draw) and a redacted action (R3's face-down play).

It is built exactly as docs/adding-a-game.md says, in one file: each section below is the role module
of that name in a real game package, and ``HighCard`` declares them in a ``GameRules`` like every
game's ``game.py``.  Being a fixture and never registered, it publishes no view or result schemas; it
publishes its events' (``EVENTS``), which the contract tests hold its move answers to.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import (
    Action,
    Event,
    GameBase,
    GameRules,
    Handler,
    IllegalAction,
    Result,
    Rng,
    action_schema,
    event,
    event_schema,
)

# -- inputs: the option and action schemas ------------------------------------------------------------

ACTIONS = {
    "play": action_schema("play", "R3: play a hand card face down", card={"type": "integer", "minimum": 1}),
    "swap": action_schema("swap", "R4: discard a hand card and draw", card={"type": "integer", "minimum": 1}),
}
OPTIONS = {
    "type": "object",
    "properties": {
        "rounds": {
            "type": "integer",
            "enum": [1, 2, 3, 4],
            "default": 3,
            "description": "R1: cards and rounds",
        },
        "swaps": {"type": "boolean", "default": True, "description": "R1: allow the R4 swap"},
    },
}


# -- state ----------------------------------------------------------------------------------------------


class State:
    """Everything about one game; ``_legal`` is the legal-list cache of engine.core.GameBase."""

    __slots__ = (
        "_legal",
        "deck",
        "discarded",
        "hands",
        "last_won",
        "played",
        "rng",
        "round",
        "rounds",
        "scores",
        "swapped",
        "swaps",
        "turn",
    )

    def __init__(self, players: int, rounds: int, swaps: bool, rng: Rng) -> None:
        self.rounds, self.swaps, self.rng = rounds, swaps, rng
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.deck: list[int] = []
        self.played: list[int | None] = [None] * players
        self.discarded: list[int | None] = [None] * players
        self.swapped = [False] * players
        self.scores = [0] * players
        self.last_won = [0] * players
        self.round = 1
        self.turn = 0  # how many seats have played this round
        self._legal: list[Action] | None = None

    def clone(self) -> State:
        copy = State.from_json(
            [
                self.rounds,
                self.swaps,
                self.rng.s,
                [list(h) for h in self.hands],
                list(self.deck),
                list(self.played),
                list(self.discarded),
                list(self.swapped),
                list(self.scores),
                list(self.last_won),
                self.round,
                self.turn,
            ]
        )
        copy._legal = self._legal  # shared: replaced, never mutated in place (engine.core.GameBase)
        return copy

    def to_json(self) -> list[Any]:
        return [
            self.rounds,
            self.swaps,
            self.rng.s,
            self.hands,
            self.deck,
            self.played,
            self.discarded,
            self.swapped,
            self.scores,
            self.last_won,
            self.round,
            self.turn,
        ]

    @classmethod
    def from_json(cls, doc: list[Any]) -> State:
        (rounds, swaps, rng, hands, deck, played, discarded, swapped, scores, last_won, rnd, turn) = doc
        st = cls(len(hands), rounds, swaps, Rng(rng))
        st.hands, st.deck, st.played, st.discarded = hands, deck, played, discarded
        st.swapped, st.scores, st.last_won, st.round, st.turn = swapped, scores, last_won, rnd, turn
        return st


# -- setup ----------------------------------------------------------------------------------------------


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """R2: deal ``rounds`` cards to each seat; the rest is the pile."""
    st = State(players, options["rounds"], options["swaps"], Rng(seed))
    cards = list(range(1, players * options["rounds"] + 5))
    st.rng.shuffle(cards)
    for seat in range(players):
        st.hands[seat] = sorted(cards[seat * st.rounds : (seat + 1) * st.rounds])
    st.deck = cards[players * st.rounds :]
    return st


# -- flow -----------------------------------------------------------------------------------------------


def to_move(st: State) -> int | None:
    if st.round > st.rounds:  # R6
        return None
    return (st.round - 1 + st.turn) % len(st.hands)  # R3


def reveal(st: State, events: list[Event]) -> None:
    """R5: once everyone has played, the highest card takes the sum of the round."""
    cards = list(st.played)
    winner = max(range(len(cards)), key=lambda s: cards[s] or 0)
    points = sum(c or 0 for c in cards)
    st.scores[winner] += points
    st.last_won[winner] = st.round
    events.append(event("reveal", round=st.round, cards=cards, winner=winner, points=points))
    st.played = [None] * len(st.hands)
    st.round += 1
    st.turn = 0


# -- legal ----------------------------------------------------------------------------------------------


def legal_actions(st: State) -> list[Action]:
    seat = to_move(st)
    if seat is None:
        return []
    hand = st.hands[seat]
    out: list[Action] = [{"type": "play", "card": c} for c in hand]
    if st.swaps and not st.swapped[seat] and st.deck:  # R4
        out += [{"type": "swap", "card": c} for c in hand]
    return out


# -- actions --------------------------------------------------------------------------------------------


def play(st: State, seat: int, action: Action, events: list[Event]) -> None:
    """R3: the card goes face down; the last card of a round reveals them all (R5)."""
    st.hands[seat].remove(action["card"])
    st.played[seat] = action["card"]
    st.turn += 1
    if st.turn == len(st.hands):
        reveal(st, events)


def swap(st: State, seat: int, action: Action, events: list[Event]) -> None:
    """R4: discard face down and draw the top card (only the drawer sees it); still this seat's turn."""
    st.hands[seat].remove(action["card"])
    st.swapped[seat] = True
    st.discarded[seat] = action["card"]
    drawn = st.deck.pop(0)
    st.hands[seat] = sorted([*st.hands[seat], drawn])
    events.append(event("drew", [seat], seat=seat, card=drawn))


HANDLERS: dict[str, Handler[State]] = {"play": play, "swap": swap}

#: The game's own events as a client receives them (the service adds ``id``).
_CARD = {"type": "integer", "minimum": 1}
_SEAT = {"type": "integer", "minimum": 0}
EVENTS: dict[str, dict[str, Any]] = {
    "drew": event_schema("drew", "R4: the card this seat drew (only it sees this)", seat=_SEAT, card=_CARD),
    "reveal": event_schema(
        "reveal",
        "R5: the round's cards, each seat's, face up; the highest takes the points",
        round={"type": "integer", "minimum": 1},
        cards={"type": "array", "items": _CARD},
        winner=_SEAT,
        points={"type": "integer", "minimum": 0},
    ),
}


# -- explain --------------------------------------------------------------------------------------------


def explain(st: State, seat: int, action: Action) -> IllegalAction:
    if action["card"] not in st.hands[seat]:
        rule = "R3" if action["type"] == "play" else "R4"
        return IllegalAction(rule, f"card {action['card']} is not in your hand", "card")
    reason = (
        "swaps are off"
        if not st.swaps
        else "you swapped already"
        if st.swapped[seat]
        else "the pile is empty"
    )
    return IllegalAction("R4", f"no swap: {reason}", "type")


# -- scoring --------------------------------------------------------------------------------------------


def result(st: State) -> Result | None:
    if to_move(st) is not None:
        return None
    n = len(st.hands)
    ranking = sorted(range(n), key=lambda s: (-st.scores[s], -st.last_won[s], s))  # R6
    tied = len(set(st.scores)) < n
    # R6 orders every tie, so the first seat of the ranking is the one winner.
    return {
        "scores": list(st.scores),
        "ranking": ranking,
        "winners": ranking[:1],
        "tiebreak": "R6" if tied else None,
    }


# -- view -----------------------------------------------------------------------------------------------


def view(st: State, seat: int | None) -> dict[str, Any]:
    players = []
    for s, hand in enumerate(st.hands):
        entry: dict[str, Any] = {
            "seat": s,
            "score": st.scores[s],
            "hand_size": len(hand),
            "swapped": st.swapped[s],
            "has_played": st.played[s] is not None,
        }
        if s == seat:  # R2: only the owner sees a hand, R3/R4: and their own face-down cards
            entry["hand"] = list(hand)
            entry["played"] = st.played[s]
            entry["discarded"] = st.discarded[s]
        players.append(entry)
    mover = to_move(st)
    return {
        "players": players,
        "to_move": mover,
        "round": min(st.round, st.rounds),
        "rounds": st.rounds,
        "phase": "over" if mover is None else "play",
        "deck_size": len(st.deck),
        "pending": None if mover is None else {"seat": mover, "decision": "play", "rule": "R3"},
    }


def public_action(st: State, action: Action) -> Action:
    """R3, R4: the others see that a card was played or swapped, not which."""
    return {"type": action["type"]}


def determinize(st: State, seat: int, rng: random.Random) -> State:
    out = st.clone()
    others = [s for s in range(len(st.hands)) if s != seat]
    pool = list(out.deck)
    for s in others:
        pool += out.hands[s]
        pool += [c for c in (out.played[s], out.discarded[s]) if c is not None]
    pool.sort()  # a function of what `seat` knows, never of the true hidden order
    rng.shuffle(pool)
    for s in others:
        k = len(out.hands[s])
        out.hands[s], pool = sorted(pool[:k]), pool[k:]
        for face_down in (out.played, out.discarded):
            if face_down[s] is not None:
                face_down[s] = pool.pop()
    out.deck = pool
    out.rng = Rng.reseeded(rng)
    return out


# -- heuristic ------------------------------------------------------------------------------------------


def heuristic(st: State, seat: int) -> float:
    best_other = max(sc for s, sc in enumerate(st.scores) if s != seat)
    return float(st.scores[seat] - best_other)


# -- game -----------------------------------------------------------------------------------------------


class HighCard(GameBase[State]):
    id = "high_card"
    title = "High Card"
    min_players = 2
    max_players = 4
    rules_file = str(Path(__file__).with_name("RULES.md"))
    options = OPTIONS
    actions = ACTIONS
    # R3, R4: the action as the other seats see it (public_action): its type, not the card.
    masked_actions: ClassVar[dict[str, dict[str, Any]]] = {
        kind: {
            "type": "object",
            "description": f"{schema['description']} (as the others see it: the card is hidden)",
            "properties": {"type": {"const": kind}},
            "required": ["type"],
            "additionalProperties": False,
        }
        for kind, schema in ACTIONS.items()
    }
    event_schemas: ClassVar[dict[str, dict[str, Any]]] = EVENTS
    state_class = State
    rules = GameRules(
        setup=setup,
        to_move=to_move,
        legal=legal_actions,
        handlers=HANDLERS,
        explain=explain,
        view=view,
        determinize=determinize,
        result=result,
        heuristic=heuristic,
        public_action=public_action,
    )


GAME = HighCard()
