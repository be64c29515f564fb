"""High Card: a small, complete hidden-information game implementing the engine contract.

A documented test fixture (rules in RULES.md beside this file): the service tests use it so they can
run before any real game is registered, and so they always exercise a secret hand (R2), a private
event (R4's draw) and a redacted action (R3's face-down play).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, ClassVar

from engine.core import (
    Action,
    Event,
    IllegalAction,
    Rng,
    action_events,
    action_schema,
    check_players,
    check_shape,
    check_turn,
    event,
    pack,
    resolve_options,
    unpack,
)

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


class State:
    __slots__ = (
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


class HighCard:
    id = "high_card"
    title = "High Card"
    min_players = 2
    max_players = 4
    options = OPTIONS
    actions = ACTIONS
    rules_file = str(Path(__file__).with_name("RULES.md"))
    search_options: ClassVar[dict[str, Any]] = {}

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> State:
        check_players(self, players)
        opts = resolve_options(OPTIONS, options)
        st = State(players, opts["rounds"], opts["swaps"], Rng(seed))
        cards = list(range(1, players * opts["rounds"] + 5))  # R2
        st.rng.shuffle(cards)
        for seat in range(players):
            st.hands[seat] = sorted(cards[seat * st.rounds : (seat + 1) * st.rounds])
        st.deck = cards[players * st.rounds :]
        return st

    def to_move(self, st: State) -> int | None:
        if st.round > st.rounds:  # R6
            return None
        return (st.round - 1 + st.turn) % len(st.hands)  # R3

    def legal_actions(self, st: State) -> list[Action]:
        seat = self.to_move(st)
        if seat is None:
            return []
        hand = st.hands[seat]
        out = [{"type": "play", "card": c} for c in hand]
        if st.swaps and not st.swapped[seat] and st.deck:  # R4
            out += [{"type": "swap", "card": c} for c in hand]
        return out

    def apply(self, st: State, action: Action, seat: int | None = None) -> list[Event]:
        mover = check_turn(self.to_move(st), seat)
        kind = check_shape(ACTIONS, action)
        if action not in self.legal_actions(st):
            raise self._explain(st, mover, action)
        card = action["card"]
        st.hands[mover].remove(card)
        if kind == "swap":  # R4
            st.swapped[mover] = True
            st.discarded[mover] = card
            drawn = st.deck.pop(0)
            st.hands[mover] = sorted([*st.hands[mover], drawn])
            return [
                *action_events(mover, action, public={"type": "swap"}),
                event("drew", [mover], seat=mover, card=drawn),
            ]
        st.played[mover] = card  # R3
        events = action_events(mover, action, public={"type": "play"})
        st.turn += 1
        if st.turn == len(st.hands):  # R5
            cards = list(st.played)
            winner = max(range(len(cards)), key=lambda s: cards[s])
            points = sum(cards)
            st.scores[winner] += points
            st.last_won[winner] = st.round
            events.append(event("reveal", round=st.round, cards=cards, winner=winner, points=points))
            st.played = [None] * len(st.hands)
            st.round += 1
            st.turn = 0
        return events

    def _explain(self, st: State, seat: int, action: Action) -> IllegalAction:
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

    def clone(self, st: State) -> State:
        return State.from_json(
            [
                st.rounds,
                st.swaps,
                st.rng.s,
                [list(h) for h in st.hands],
                list(st.deck),
                list(st.played),
                list(st.discarded),
                list(st.swapped),
                list(st.scores),
                list(st.last_won),
                st.round,
                st.turn,
            ]
        )

    def view(self, st: State, seat: int | None) -> dict[str, Any]:
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
        to_move = self.to_move(st)
        return {
            "players": players,
            "to_move": to_move,
            "round": min(st.round, st.rounds),
            "rounds": st.rounds,
            "phase": "over" if to_move is None else "play",
            "deck_size": len(st.deck),
            "pending": None if to_move is None else {"seat": to_move, "decision": "play", "rule": "R3"},
        }

    def result(self, st: State) -> dict[str, Any] | None:
        if self.to_move(st) is not None:
            return None
        n = len(st.hands)
        ranking = sorted(range(n), key=lambda s: (-st.scores[s], -st.last_won[s], s))  # R6
        tied = len(set(st.scores)) < n
        return {"scores": list(st.scores), "ranking": ranking, "tiebreak": "R6" if tied else None}

    def determinize(self, st: State, seat: int, rng: random.Random) -> State:
        out = self.clone(st)
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
            for name in ("played", "discarded"):
                if getattr(out, name)[s] is not None:
                    getattr(out, name)[s] = pool.pop()
        out.deck = pool
        out.rng = Rng.reseeded(rng)
        return out

    def heuristic(self, st: State, seat: int) -> float:
        best_other = max(sc for s, sc in enumerate(st.scores) if s != seat)
        return float(st.scores[seat] - best_other)

    def encode(self, st: State) -> bytes:
        return pack(self.id, 1, st.to_json())

    def decode(self, data: bytes) -> State:
        return State.from_json(unpack(self.id, {1}, data)[1])


GAME = HighCard()
