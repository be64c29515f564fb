"""What a seat may see (R113-R116), and determinization from exactly that knowledge.

The only door out of the state.  Public: the whole board, gifts and the Gift Tracker, scores, cubes,
the size of every hand, deck and stack, the discard pile.  Private to the owner: the Confucius cards
in hand, the reward cards in hand, the cards laid face down at a student, the cards set aside at the
End of Round discard until all are revealed.  Hidden from all: deck and stack orders and the RNG.
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Action, Rng

from .cards import CURRENCY_NAMES, KINDS, card_fields, hand_size
from .components import (
    ACTION_SPACES,
    ANY_MINISTRY,
    BOX_VP,
    CANDIDATE_NAMES,
    COLOURS,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    HAND_LIMIT,
    INVASION_COST,
    MINISTRIES,
    REWARD_BOX,
    REWARD_COUNTS,
    REWARDS,
)
from .cubes import SPACE_COUNT
from .exam import STUDENTS, allowed_students
from .flow import STAGE_NAMES
from .gifts import GIFTS
from .ministries import SPACES_OF
from .state import (
    CANDIDATE,
    GIFT_STATE_NAMES,
    KEEP,
    LAND_STATE_NAMES,
    OVER,
    PHASE_NAMES,
    PHASE_RULES,
    PLACE,
    TUTOR,
    State,
)

#: The step of the End of Round that runs the final resolutions (R101; flow.STAGES).
FINAL_STEP = STAGE_NAMES.index("round_end")


def _player(state: State, p: int, seat: int | None) -> dict[str, Any]:
    own = p == seat
    h, t = 3 * p, 4 * p
    placed = state.placed[p * SPACE_COUNT : (p + 1) * SPACE_COUNT]
    laid = state.tutor[t + 1 : t + 4]
    doc: dict[str, Any] = {
        "seat": p,
        "colour": COLOURS[state.colours[p]],
        "score": state.score[p],
        "cubes": state.cubes[p],
        "cubes_placed": {ACTION_SPACES[i]: c for i, c in enumerate(placed) if c},
        "passed": bool(state.passed[p]),
        "commercial_income_used": bool(state.commercial[p]),
        "cards": hand_size(state.hands, p),
        "reward_cards": len(state.rewards[p]),
        "gifts": {str(v + 1): GIFT_STATE_NAMES[state.gift[p * GIFTS + v]] for v in range(GIFTS)},
        "shipyard": state.shipyard[p],
        "ocean": state.ocean[p],
        "distant_lands": [d for i, d in enumerate(DISTANT_LANDS) if state.reached[p] >> i & 1],
        "armies_in_stock": state.stock[p],
        "armies_in_colonies": state.colonies[p],
        "tutoring": None
        if state.tutor[t] < 0
        else {"student": STUDENTS[state.tutor[t]], "cards": sum(laid), **(card_fields(laid) if own else {})},
        "set_aside": sum(state.held[h : h + 3]),
    }
    if own:
        doc["hand"] = card_fields(state.hands[h : h + 3])
        doc["rewards"] = [REWARDS[c] for c in state.rewards[p]]
        doc["set_aside_cards"] = card_fields(state.held[h : h + 3])
    return doc


def _ministry(state: State, m: int) -> dict[str, Any]:
    resolving = state.res_m == m
    spaces = []
    for k, i in enumerate(SPACES_OF[m]):
        tile = state.tile[i]
        space: dict[str, Any] = {
            "space": k + 1,
            "tile": None if tile < 0 else "candidate" if tile == CANDIDATE else tile,
            "marker": state.owner[i] if state.owner[i] >= 0 else None,
            "secured": bool(state.secured[i]),
            "transferred": bool(state.transferred >> i & 1),  # R62a
        }
        if resolving:
            space["influence_held_by"] = state.res_hold[k]
        spaces.append(space)
    return {
        "ministry": MINISTRIES[m],
        "resolved": bool(state.resolved[m]),
        "minister": state.minister[m] if state.minister[m] >= 0 else None,
        "secretary": state.secretary[m] if state.secretary[m] >= 0 else None,
        "minister_chit": state.chits[2 * m],
        "secretary_chit": state.chits[2 * m + 1],
        "spaces": spaces,
    }


def _pending(state: State) -> dict[str, Any] | None:
    if state.phase == OVER:
        return None
    phase, ctx = state.phase, state.ctx or {}
    doc: dict[str, Any] = {"seat": state.seat, "decision": PHASE_NAMES[phase], "rule": PHASE_RULES[phase]}
    if "price" in ctx:
        doc.update(action=ctx["action"], price=ctx["price"], currency=CURRENCY_NAMES[ctx["currency"]])
    if "voyages" in ctx:
        doc["voyages"] = ctx["voyages"]
    if "receivers" in ctx:
        doc.update(ministry=MINISTRIES[state.res_m], receivers=ctx["receivers"])
        # R101: the final resolutions at the game's end, not the Court Phase's (R90); the step the
        # round resumes at afterwards, which a client rebuilding the state (sampling.py) needs
        doc["final_resolution"] = state.court == FINAL_STEP
    if phase == TUTOR:  # R83, R84: the student(s) the seat may tutor, and who tutors after it
        chosen = state.tutor[4 * state.seat]
        allowed = [chosen] if chosen >= 0 else allowed_students(state, state.seat)
        doc.update(students=[STUDENTS[s] for s in allowed], still_to_tutor=ctx["queue"])
    elif phase == PLACE:
        doc["candidate"] = CANDIDATE_NAMES[state.candidate]  # R88
    elif phase == KEEP:
        doc["keep"] = HAND_LIMIT  # R98
    return doc


def view(state: State, seat: int | None) -> dict[str, Any]:
    """Everything ``seat`` (None: a spectator) may see."""
    n = state.n
    remaining = sorted(state.candidates)
    return {
        "game": "confucius",
        "options": {"advanced": state.advanced, "admiral_variant": state.admiral_variant},
        "round": state.round,
        "phase": PHASE_NAMES[state.phase],
        "to_move": None if state.phase == OVER else state.seat,
        "pending": _pending(state),
        "chief_minister": state.cm,
        "turn": state.turn,
        "players": [_player(state, p, seat) for p in range(n)],
        "ministries": [_ministry(state, m) for m in range(len(MINISTRIES))],
        "candidate": CANDIDATE_NAMES[state.candidate] if state.candidate >= 0 else None,
        "candidate_stack": {
            "count": len(remaining),
            "ministries": [CANDIDATE_NAMES[k] for k in remaining if k != ANY_MINISTRY],
            "any": remaining.count(ANY_MINISTRY),
        },
        "students": {name: (o if o >= 0 else None) for name, o in zip(STUDENTS, state.students, strict=True)},
        "examination_forced": bool(state.forced),
        "foreign_lands": [
            {
                "position": pos + 1,
                "land": FOREIGN_LANDS[land],
                "cost_per_army": INVASION_COST[land],
                "state": LAND_STATE_NAMES[state.land_state[pos]],
                "boxes": [
                    {
                        "box": b,
                        "vp": vp,
                        "reward_card": b == REWARD_BOX[land],
                        "army": army if army >= 0 else None,
                    }
                    for b, (vp, army) in enumerate(zip(BOX_VP[land], state.boxes[pos], strict=True))
                ],
            }
            for pos, land in enumerate(state.foreign)
        ],
        "distant_lands": [
            {
                "land": d,
                "chit": state.land_chit[i] or None,
                "reached_by": [p for p in range(n) if state.reached[p] >> i & 1],
            }
            for i, d in enumerate(DISTANT_LANDS)
        ],
        "gift_tracker": [
            {"giver": g, "recipient": r, "value": state.given[g * n + r]}
            for g in range(n)
            for r in range(n)
            if state.given[g * n + r]
        ],
        "great_wall": state.wall,
        "junk_supply": state.supply,
        "emperor_insulted": state.insulted if state.insulted >= 0 else None,
        "deck": len(state.deck),
        "discard_pile": card_fields(state.discard),
        "official_stack": len(state.stack),
        # R15, R88: which officials are still face down is public (the others lie face up or left
        # the game when replaced); only their order is hidden
        "official_stack_costs": sorted(state.stack),
        "reward_stack": len(state.reward_deck),
        # R69: a played reward card leaves the game in view of all
        "reward_cards_played": _rewards_played(state),
        "resolving": MINISTRIES[state.res_m] if state.res_m >= 0 else None,
        "result": state.outcome,
    }


def _rewards_played(state: State) -> list[str]:
    """The reward cards played so far (R69): every card less those in the stack and in hands."""
    left = list(REWARD_COUNTS)
    for card in state.reward_deck:
        left[card] -= 1
    for hand in state.rewards:
        for card in hand:
            left[card] -= 1
    return [REWARDS[k] for k, count in enumerate(left) for _ in range(count)]


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A state ``seat`` cannot tell from this one: hidden cards, tiles and orders resampled.

    Confucius cards the seat cannot see (deck, other hands, others' face-down tutoring and set-aside
    cards) are pooled and dealt back in the same places and numbers; likewise the reward cards of the
    stack and of other hands; the official and candidate stacks are reshuffled (the candidates only
    among the Bingbu/Hubu/Gongbu tiles, whose set is public, above the Any tiles, R17).  Card counting
    beyond this (e.g. the known opening hands) is not modelled.  Every pool is sorted before it is
    shuffled, so the sample depends on what the seat knows and on ``rng`` alone.
    """
    s = state.clone()
    others = [q for q in range(s.n) if q != seat]
    places = [(s.hands, 3 * q) for q in others]
    places += [(s.tutor, 4 * q + 1) for q in others]
    places += [(s.held, 3 * q) for q in others]
    pool = list(s.deck)
    for counts, at in places:
        for k in KINDS:
            pool.extend([k] * counts[at + k])
    pool.sort()  # the sample must not depend on where the hidden cards really are
    rng.shuffle(pool)
    s.deck = pool[: len(s.deck)]
    rest = pool[len(s.deck) :]
    for counts, at in places:
        size = sum(counts[at + k] for k in KINDS)
        dealt, rest = rest[:size], rest[size:]
        for k in KINDS:
            counts[at + k] = dealt.count(k)
    rewards = sorted(s.reward_deck + [c for q in others for c in s.rewards[q]])
    rng.shuffle(rewards)
    s.reward_deck = rewards[: len(s.reward_deck)]
    rest = rewards[len(s.reward_deck) :]
    for q in others:
        size = len(s.rewards[q])
        s.rewards[q], rest = sorted(rest[:size]), rest[size:]
    s.stack.sort()
    rng.shuffle(s.stack)
    slots = [i for i, k in enumerate(s.candidates) if k != ANY_MINISTRY]
    kinds = sorted(s.candidates[i] for i in slots)
    rng.shuffle(kinds)
    for i, k in zip(slots, kinds, strict=True):
        s.candidates[i] = k
    s.rng = Rng.reseeded(rng)
    return s


def public_action(state: State, action: Action) -> Action | None:
    """The action as the other seats see it (MASKED_ACTIONS of outputs.py), or None when all of it is
    public: the card of a tutoring play and a hand kept are face down for others (R116, R98)."""
    kind = action["type"]
    if kind == "tutor":
        return {"type": kind, "student": action["student"]}
    if kind == "keep_cards":
        return {"type": kind}
    return None
