"""A whole Confucius state rebuilt from one seat's view, the hidden parts then drawn by ``determinize``.

The board, the gifts, scores, cubes, every count and the discard pile are public (R113-R115); the
view shows them with the seat's own cards (R114, R116), the content of the face-down official stack
and the reward cards played (R15, R69, R88; only the orders are secret), and the decision in
progress with what it is about (``pending``).  The hidden Confucius and reward cards are the
components less every one the seat sees; they are put anywhere first and :func:`view.determinize`
deals them, and reshuffles the stacks, at random, so this module holds no sampler of its own.

Two fields of the state are bookkeeping the view names only through the decision: the step of the
Court Phase the round has reached (``court``: the exam for tutoring and placing, the discards for
keeping cards, the ministries or the final resolutions for giving influence) and the payment mode of
the turn (``mode``: Imperial Favour once every seat has passed, R31).
"""

from __future__ import annotations

import random
from typing import Any

from engine.core import Rng

from .cards import CURRENCY_NAMES, KINDS
from .components import (
    ACTION_SPACES,
    ANY_MINISTRY,
    CANDIDATE_NAMES,
    CARDS_PER_KIND,
    COLOURS,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    MINISTRIES,
    REWARD_COUNTS,
    REWARD_INDEX,
)
from .cubes import SPACE_COUNT
from .exam import STUDENTS
from .flow import STAGE_NAMES
from .gifts import GIFTS
from .state import (
    ACTION,
    CANDIDATE,
    EMPTY,
    EXTRA,
    FAVOUR,
    GIFT_STATE_NAMES,
    GIVE,
    KEEP,
    LAND,
    LAND_STATE_NAMES,
    OVER,
    PAY,
    PHASE_NAMES,
    PLACE,
    TUTOR,
    State,
)
from .view import FINAL_STEP, determinize

_CARD_FIELDS = ("c1", "c2", "c3")


def sample_from_view(view: dict[str, Any], seat: int, rng: random.Random, seen: Any = None) -> State:
    """A state whose ``view(state, seat)`` is ``view``, every card, tile order and the RNG ``seat``
    cannot see drawn with ``rng`` (``seen`` is not needed: the view tells everything public)."""
    players = view["players"]
    n = len(players)
    s = State.__new__(State)
    s._legal = None
    s.rng = Rng(0)
    s.n = n
    s.advanced = view["options"]["advanced"]
    s.admiral_variant = view["options"]["admiral_variant"]
    s.round = view["round"]
    s.wall = view["great_wall"]
    s.phase = PHASE_NAMES.index(view["phase"])
    s.seat = -1 if view["to_move"] is None else view["to_move"]
    s.turn = view["turn"]
    s.cm = view["chief_minister"]
    s.colours = tuple(COLOURS.index(p["colour"]) for p in players)
    s.outcome = view["result"]
    _ministries(s, view)
    s.stack = list(view["official_stack_costs"])
    stack = view["candidate_stack"]
    s.candidates = [ANY_MINISTRY] * stack["any"] + [CANDIDATE_NAMES.index(k) for k in stack["ministries"]]
    s.candidate = -1 if view["candidate"] is None else CANDIDATE_NAMES.index(view["candidate"])
    s.students = [view["students"][name] if view["students"][name] is not None else -1 for name in STUDENTS]
    s.forced = int(view["examination_forced"])
    s.supply = view["junk_supply"]
    s.insulted = -1 if view["emperor_insulted"] is None else view["emperor_insulted"]
    _players(s, players)
    _lands(s, view)
    s.given = [0] * (n * n)
    for gift in view["gift_tracker"]:
        s.given[gift["giver"] * n + gift["recipient"]] = gift["value"]
    s.discard = [view["discard_pile"][f] for f in _CARD_FIELDS]
    _decision(s, view["pending"])
    _hidden_cards(s, view, seat)
    return determinize(s, seat, rng)


def _ministries(s: State, view: dict[str, Any]) -> None:
    """Officials, markers and chits (R14, R15), and a resolution in progress (R91)."""
    s.tile, s.owner, s.secured, s.chits = [], [], [], []
    s.resolved, s.minister, s.secretary = [], [], []
    s.transferred = 0
    s.res_m, s.res_hold = -1, []
    for m, doc in enumerate(view["ministries"]):
        s.resolved.append(int(doc["resolved"]))
        s.minister.append(-1 if doc["minister"] is None else doc["minister"])
        s.secretary.append(-1 if doc["secretary"] is None else doc["secretary"])
        s.chits += [doc["minister_chit"], doc["secretary_chit"]]
        for space in doc["spaces"]:
            tile = space["tile"]
            s.tile.append(EMPTY if tile is None else CANDIDATE if tile == "candidate" else tile)
            s.owner.append(-1 if space["marker"] is None else space["marker"])
            s.secured.append(int(space["secured"]))
            if space["transferred"]:
                s.transferred |= 1 << (len(s.tile) - 1)
        if view["resolving"] == MINISTRIES[m]:
            s.res_m = m
            s.res_hold = [space["influence_held_by"] for space in doc["spaces"]]


def _players(s: State, players: list[dict[str, Any]]) -> None:
    """Everything per seat but the hidden cards (filled in by :func:`_hidden_cards`)."""
    s.score = [p["score"] for p in players]
    s.cubes = [p["cubes"] for p in players]
    s.placed = [p["cubes_placed"].get(space, 0) for p in players for space in ACTION_SPACES]
    assert len(s.placed) == len(players) * SPACE_COUNT
    s.passed = [int(p["passed"]) for p in players]
    s.commercial = [int(p["commercial_income_used"]) for p in players]
    s.gift = [GIFT_STATE_NAMES.index(p["gifts"][str(v + 1)]) for p in players for v in range(GIFTS)]
    s.shipyard = [p["shipyard"] for p in players]
    s.ocean = [p["ocean"] for p in players]
    s.reached = [sum(1 << DISTANT_LANDS.index(d) for d in p["distant_lands"]) for p in players]
    s.stock = [p["armies_in_stock"] for p in players]
    s.colonies = [p["armies_in_colonies"] for p in players]


def _lands(s: State, view: dict[str, Any]) -> None:
    """Foreign lands (R16, R93-R96) and Distant Lands with their chits."""
    lands = view["foreign_lands"]
    s.foreign = [FOREIGN_LANDS.index(land["land"]) for land in lands]
    s.land_state = [LAND_STATE_NAMES.index(land["state"]) for land in lands]
    s.boxes = [[-1 if box["army"] is None else box["army"] for box in land["boxes"]] for land in lands]
    s.land_chit = [d["chit"] or 0 for d in view["distant_lands"]]


def _decision(s: State, pending: dict[str, Any] | None) -> None:
    """The context of the pending decision (``State.ctx``), the payment mode and the Court step."""
    s.ctx, s.mode, s.court = None, ACTION, 0
    if pending is None or s.phase == OVER:
        return
    if "price" in pending:
        s.ctx = {
            "action": pending["action"],
            "currency": CURRENCY_NAMES.index(pending["currency"]),
            "price": pending["price"],
        }
    elif "voyages" in pending:
        s.ctx = {"voyages": pending["voyages"]}
    elif "receivers" in pending:
        s.ctx = {"receivers": pending["receivers"]}
    elif s.phase == TUTOR:
        s.ctx = {"queue": pending["still_to_tutor"]}
    if s.phase in (ACTION, EXTRA, FAVOUR):
        s.mode = s.phase
    elif all(s.passed) or s.phase not in (PAY, LAND):  # after every seat passed: Imperial Favour (R31,
        s.mode = FAVOUR  # R77), the payment or voyage inside it, and the Court Phase that follows
    if s.phase in (TUTOR, PLACE):
        s.court = STAGE_NAMES.index("exam")
    elif s.phase == KEEP:
        s.court = STAGE_NAMES.index("discards")
    elif s.phase == GIVE:
        s.court = FINAL_STEP if pending["final_resolution"] else STAGE_NAMES.index("ministries")


def _hidden_cards(s: State, view: dict[str, Any], seat: int) -> None:
    """Own cards from the view; everybody else's, the deck and the reward stack from what is left."""
    players = view["players"]
    n = s.n
    own = players[seat]
    unseen = list(CARDS_PER_KIND)
    for counts in (own["hand"], own["set_aside_cards"], view["discard_pile"], (own["tutoring"] or {})):
        for k, field in enumerate(_CARD_FIELDS):
            unseen[k] -= counts.get(field, 0)
    pool = [k for k in KINDS for _ in range(unseen[k])]
    s.hands, s.held, s.tutor = [0] * (3 * n), [0] * (3 * n), [-1, 0, 0, 0] * n

    def deal(counts: list[int], at: int, size: int) -> None:
        for _ in range(size):
            counts[at + pool.pop()] += 1

    for q, p in enumerate(players):
        tutoring = p["tutoring"]
        if tutoring is not None:
            s.tutor[4 * q] = STUDENTS.index(tutoring["student"])
        if q == seat:
            for k, field in enumerate(_CARD_FIELDS):
                s.hands[3 * q + k] = p["hand"][field]
                s.held[3 * q + k] = p["set_aside_cards"][field]
                if tutoring is not None:
                    s.tutor[4 * q + 1 + k] = tutoring[field]
            continue
        deal(s.hands, 3 * q, p["cards"])
        deal(s.held, 3 * q, p["set_aside"])
        if tutoring is not None:
            deal(s.tutor, 4 * q + 1, tutoring["cards"])
    if len(pool) != view["deck"] or min(unseen) < 0:
        raise ValueError("the view's Confucius cards do not add up to the deck (R19)")
    s.deck = pool
    # Reward cards (R18, R69, R76): every card less the played ones and the seat's own.
    left = list(REWARD_COUNTS)
    for name in (*view["reward_cards_played"], *own["rewards"]):
        left[REWARD_INDEX[name]] -= 1
    rewards = [k for k, count in enumerate(left) for _ in range(count)]
    s.rewards = []
    for q, p in enumerate(players):
        if q == seat:
            s.rewards.append(sorted(REWARD_INDEX[name] for name in p["rewards"]))
        else:
            s.rewards.append(sorted(rewards.pop() for _ in range(p["reward_cards"])))
    if len(rewards) != view["reward_stack"] or min(left) < 0:
        raise ValueError("the view's reward cards do not add up to the reward stack (R18)")
    s.reward_deck = rewards
