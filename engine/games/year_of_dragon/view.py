"""What a seat may see (R57, R58, R58a), and ``determinize``, which resamples exactly what it may not.

The only secrets of this game are the hands, the cards played when ``reveal_played_card`` is off, and the
RNG (future action-card deals, R58b).  Everything else is on the table.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Action, Rng

from .components import ACTION_IDS, CARD_IDS, DROUGHT, EVENT_IDS, HAND, TILE_IDS, TYPE_IDS
from .flow import decision_rule
from .monthly_events import month_event
from .palaces import key_parts, track_order
from .scoring import result
from .state import BUILD, FULL, OVER, PHASE_NAMES, PLACE, RELEASE, State


def _pending(state: State) -> dict[str, Any] | None:
    """The pending decision, described so a client can render it."""
    if state.phase == OVER:
        return None
    out: dict[str, Any] = {
        "seat": state.order[state.turn],
        "decision": PHASE_NAMES[state.phase],
        "rule": decision_rule(state),
    }
    if state.phase in (PLACE, FULL):
        out["tiles"] = [TILE_IDS[k] for k in state.pending]
    elif state.phase == BUILD:
        out["floors_left"] = state.build_left
    elif state.phase == RELEASE:
        out["owed"] = state.owed[out["seat"]]
        out["event"] = EVENT_IDS[month_event(state)]
        if state.last >= 0:  # releases are named in palace order, after the last one named
            if month_event(state) == DROUGHT:
                out["after"] = {"palace": state.last}
            else:
                palace, tile = key_parts(state.last)
                out["after"] = {"palace": palace, "person": TILE_IDS[tile]}
    return out


def _player(state: State, p: int, seat: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": p,
        "yuan": state.yuan[p],
        "rice": state.rice[p],
        "fireworks": state.fireworks[p],
        "vp": state.vp[p],
        "person_pos": state.pos[p],
        "privileges": {"small": state.small[p], "large": state.large[p]},
        "palaces": [
            {"floors": f, "persons": [TILE_IDS[k] for k in persons]} for f, persons in state.palaces[p]
        ],
        "hand_size": sum(state.hands[p]),
    }
    if p == seat:  # R58a: a hand is shown to its owner only
        out["hand"] = {CARD_IDS[c]: n for c, n in enumerate(state.hands[p]) if n}
    if p == seat or state.reveal:  # R57/R58a: the discard pile, public unless the option hides it
        out["played"] = [CARD_IDS[c] for c in state.played[p]]
    if state.phase == RELEASE:  # R40: the month_event told everybody; sampling.py rebuilds from it
        out["owed"] = state.owed[p]
    return out


def view(state: State, seat: int | None) -> dict[str, Any]:
    return {
        "game": "year_of_dragon",
        "options": {"large_privilege_cost": state.large_cost, "reveal_played_card": state.reveal},
        "round": state.round,
        "phase": PHASE_NAMES[state.phase],
        "to_move": None if state.phase == OVER else state.order[state.turn],
        "pending": _pending(state),
        "first_player": state.first_player,
        "turn_order": state.order[:],
        "track_order": track_order(state),
        "event_row": [EVENT_IDS[e] for e in state.row],
        "supply": {TILE_IDS[k]: n for k, n in enumerate(state.supply)},
        "groups": [
            {"actions": [ACTION_IDS[a] for a in g], "dragons": d}
            for g, d in zip(state.groups, state.dragons, strict=True)
        ],
        "court_pairs": [[t for i, t in enumerate(TYPE_IDS) if pair >> i & 1] for pair in state.pairs],
        "players": [_player(state, p, seat) for p in range(state.n)],
        "result": result(state),
    }


# -- determinize ------------------------------------------------------------------------------------

_INSTANCES: tuple[int, ...] = tuple(c for c, count in enumerate(HAND) for _ in range(count))


def _matchable(masks: list[int], used: list[bool]) -> bool:
    """Whether every play in ``masks`` can get a distinct unused card instance it allows (Kuhn)."""
    owner: dict[int, int] = {}

    def augment(j: int, seen: set[int]) -> bool:
        for i, card in enumerate(_INSTANCES):
            if used[i] or i in seen or not masks[j] >> card & 1:
                continue
            seen.add(i)
            if i not in owner or augment(owner[i], seen):
                owner[i] = j
                return True
        return False

    return all(augment(j, set()) for j in range(len(masks)))


def sample_played(masks: list[int], rng: random.Random) -> list[int]:
    """Cards a seat may have played, one per play, each allowed by that play's public mask (R58a),
    drawn at random among the assignments that leave the rest consistent."""
    used = [False] * len(_INSTANCES)
    played = [0] * len(masks)
    todo = list(range(len(masks)))
    rng.shuffle(todo)
    for j, play in enumerate(todo):
        options = [i for i, card in enumerate(_INSTANCES) if not used[i] and masks[play] >> card & 1]
        rng.shuffle(options)
        for i in options:
            used[i] = True
            if _matchable([masks[q] for q in todo[j + 1 :]], used):
                played[play] = _INSTANCES[i]
                break
            used[i] = False
        else:
            raise AssertionError("the public record of played cards is inconsistent")
    return played


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A state ``seat`` cannot tell from ``state``: the RNG reseeded (future deals, R58b) and, when played
    cards are hidden, every other hand resampled from the public record of its plays (R58a)."""
    sample = state.clone()
    sample.rng = Rng.reseeded(rng)
    if not state.reveal:
        for p in range(state.n):
            if p != seat:
                played = sample_played(state.masks[p], rng)
                hand = list(HAND)
                for card in played:
                    hand[card] -= 1
                sample.played[p] = played
                sample.hands[p] = hand
    return sample


def public_action(state: State, action: Action) -> Action | None:
    """R58a: with ``reveal_played_card`` off, the other seats see that a card was played, not which
    (MASKED_ACTIONS of outputs.py); None when the whole action is public."""
    if not state.reveal and action["type"] in ("recruit", "spend"):
        return {**action, "card": "hidden"}
    return None
