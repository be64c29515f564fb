"""A whole Year of the Dragon state rebuilt from one seat's view, the secrets then drawn by ``determinize``.

Everything but the hands, the hidden plays and the RNG is on the table (R57, R58), and the view
shows it; the arrival order on the person track (R19) is read off ``track_order``.  The one thing the
view does not carry is the per-play record of which cards public information allowed a hidden play to
be (``State.masks``, R58a): it comes from the history of recruits and spends.  Without it each hidden
play may have been any card, which every hand consistent with the view satisfies; a sample can then
hold a card the seat would know was already spent.  The hands themselves are drawn by
:func:`view.determinize` from those masks, so this module holds no sampler of its own.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Rng

from .components import (
    ACTION_INDEX,
    CARD_IDS,
    CARD_INDEX,
    EVENT_INDEX,
    HAND,
    HAND_SIZE,
    NUM_TILES,
    TILE_INDEX,
    TYPE_IDS,
)
from .state import BUILD, FULL, OVER, PHASE_NAMES, PLACE, RELEASE, Palace, State
from .view import determinize

#: The mask of a play about which nothing is known: any card (R58a).
_ANY_CARD = (1 << len(CARD_IDS)) - 1


def sample_from_view(view: dict[str, Any], seat: int, rng: random.Random, seen: Any = None) -> State:
    """A state whose ``view(state, seat)`` is ``view``, the other hands and the hidden plays drawn with
    ``rng`` (``seen`` is not used; see the module docstring for what it would refine)."""
    players = view["players"]
    n = len(players)
    options = view["options"]
    s = State.__new__(State)
    s._legal = None
    s.n = n
    s.large_cost = options["large_privilege_cost"]
    s.reveal = options["reveal_played_card"]
    s.first_player = view["first_player"]
    s.rng = Rng(0)
    s.round = view["round"]
    s.phase = PHASE_NAMES.index(view["phase"])
    s.order = view["turn_order"][:]
    s.turn = 0 if view["to_move"] is None else s.order.index(view["to_move"])
    s.row = [EVENT_INDEX[e] for e in view["event_row"]]
    s.supply = [0] * NUM_TILES
    for tile, count in view["supply"].items():
        s.supply[TILE_INDEX[tile]] = count
    s.groups = [tuple(ACTION_INDEX[a] for a in g["actions"]) for g in view["groups"]]
    s.dragons = [g["dragons"] for g in view["groups"]]
    s.pairs = [sum(1 << TYPE_IDS.index(t) for t in pair) for pair in view["court_pairs"]]
    s.yuan = [p["yuan"] for p in players]
    s.rice = [p["rice"] for p in players]
    s.fireworks = [p["fireworks"] for p in players]
    s.vp = [p["vp"] for p in players]
    s.pos = [p["person_pos"] for p in players]
    s.small = [p["privileges"]["small"] for p in players]
    s.large = [p["privileges"]["large"] for p in players]
    s.palaces = [[_palace(pal) for pal in p["palaces"]] for p in players]
    # R19: on one track space the later arrival stands on top; only the order of arrivals matters.
    s.arrival = [0] * n
    for rank, p in enumerate(reversed(view["track_order"])):
        s.arrival[p] = rank + 1
    s.clock = n
    s.owed = [p.get("owed", 0) for p in players]
    s.hands, s.played, s.masks = [], [], []
    for p in players:
        if "played" in p:
            played = [CARD_INDEX[c] for c in p["played"]]
            masks = [1 << c for c in played]
        else:  # R58a: a hidden play could have been any card (see the module docstring)
            played = _any_plays(HAND_SIZE - p["hand_size"])
            masks = [_ANY_CARD] * len(played)
        hand = list(HAND)
        for c in played:
            hand[c] -= 1
        s.hands.append(hand)
        s.played.append(played)
        s.masks.append(masks)
    _pending(s, view["pending"])
    s.final = _final(view["result"])
    return determinize(s, seat, rng)


def _palace(doc: dict[str, Any]) -> Palace:
    return doc["floors"], tuple(TILE_INDEX[t] for t in doc["persons"])


def _any_plays(count: int) -> list[int]:
    """``count`` cards a hand could have played (placeholders: determinize draws the real ones)."""
    cards = [c for c, k in enumerate(HAND) for _ in range(k)]
    return cards[:count]


def _pending(s: State, pending: dict[str, Any] | None) -> None:
    """The decision in progress: tiles to house (R14, R37), floors to build (R29), the last release
    named (R40)."""
    s.pending, s.build_left, s.last = [], 0, -1
    if pending is None or s.phase == OVER:
        return
    if s.phase in (PLACE, FULL):
        s.pending = [TILE_INDEX[t] for t in pending["tiles"]]
    elif s.phase == BUILD:
        s.build_left = pending["floors_left"]
    elif s.phase == RELEASE:
        after = pending.get("after")
        if after is not None:
            person = after.get("person")
            s.last = after["palace"] if person is None else after["palace"] * NUM_TILES + TILE_INDEX[person]


def _final(result: dict[str, Any] | None) -> list[list[int]] | None:
    if result is None:
        return None
    return [[part["persons"], part["monks"], part["money"]] for part in result["final_scoring"]] or None
