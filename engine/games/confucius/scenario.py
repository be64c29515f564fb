"""Scenario builder: a valid Confucius state from a compact description, for tests and examples.

``build(desc)`` starts from ``setup(players, options, seed)`` and overrides what the description
lists; everything not mentioned stays as that seeded setup left it (officials on spaces 3-5, opening
hands, shuffled stacks...), except that the description's own cards, tiles and pieces are taken out of
the supplies they come from, so totals stay right.  The result is checked by :func:`validate`, which
refuses impossible states (the invariants listed there) with ``ScenarioError``.

Players are named by colour in seat order (``"players": ["black", "green", "purple"]``) or counted
(``"players": 4`` gives the first colours of components.json).  Keys, all optional but ``players``:

``advanced``, ``admiral_variant``, ``seed``  options (R22) and the setup seed
``round``, ``wall``                      round number; wall pieces (R78; default round - 1, or round
                                         when the description starts after this round's wall step)
``chief_minister``                       colour of the CM (for ``choose_chief_minister``: last round's)
``phase``                                ``"choose_chief_minister"`` (start of a round: Count Gifts runs),
                                         ``"actions"`` (default), ``"imperial_favour"`` or ``"court"``
``court_step``                           with ``"court"``: the step to start at (a name of flow.STAGES
                                         without the underscore, default ``"wall"``); the engine runs
                                         from there to the first decision, as in play
``to_move``                              whose Actions Phase turn it is (default: left of the CM)
``passed``, ``commercial_used``          colours
``cubes``                                {colour: active cubes left}; default R25 from the gifts, minus
                                         the CM's Imperial Favour cube (R27)
``cubes_placed``                         {colour: {action space id: cubes}}
``gifts``                                ["black>green:1", ...]: active gifts giver>recipient:value
``gift_states``                          {colour: {value: "available" | "removed" | "not_available"}}
``officials``                            {"gongbu#4": spec}: spec is ``"empty"``, a cost (``"4"``: an
                                         unbribed official), or ``"<colour> u|s [cost|cand]"`` (a marker,
                                         unsecured or secured, on an official of that cost, on the
                                         tile already there, or on a candidate tile)
``official_stack``                       costs of the face-down official stack, top (drawn first)
                                         first; default: setup's stack less the tiles ``officials``
                                         took.  An official neither on the board nor in the stack is
                                         out of play, which only a candidate replacing it does (R88)
``resolved``                             {ministry: [minister colour, secretary colour]}
``chits``                                {ministry: [minister chit, secretary chit]}
``hands``                                {colour: [coin values]}; unlisted players keep the opening hand
``empty_hands``                          true: unlisted players hold no card
``deck_top``                             coin values on top of the deck, the first drawn first
``discard``                              coin values in the discard pile
``rewards``                              {colour: [reward card ids]}; ``reward_stack``: ids, top first
                                         (default: the remaining cards in seeded order; with neither
                                         key nor ``emperor_insulted``, setup's own stack)
``candidate``, ``candidate_stack``       current candidate (ministry id, ``"any"`` or None) and the
                                         face-down stack, top first
``students``, ``forced``                 {"red": colour, "orange": colour}; Force taken this round
``foreign_lands``                        {position: {"land": id, "boxes": [colour|None...],
                                         "state": "unresolved" | "success" | "failed"}}
``armies``                               {colour: {"stock": n, "colonies": n}} (the rest stays in stock)
``emperor_insulted``                     colour holding the played card
``junks``                                {colour: {"shipyard": n, "ocean": n}}
``reached``, ``land_chits``              {colour: [land ids]}; {land id: chit value (0 = taken)}
``scores``                               {colour: VP}
"""

from __future__ import annotations

from typing import Any

from . import flow
from .cards import KINDS
from .components import (
    ACTION_SPACES,
    ANY_MINISTRY,
    ARMIES,
    BLUE_CHITS,
    BOX_VP,
    CANDIDATE_KINDS,
    CANDIDATE_NAMES,
    CARDS_PER_KIND,
    COIN_VALUES,
    COLOURS,
    CUBES,
    DISTANT_INDEX,
    DISTANT_LANDS,
    FOREIGN_LANDS,
    GIFT_VALUES,
    GREEN_CHITS,
    JUNKS,
    JUNKS_PER_VOYAGE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MINISTRIES,
    MINISTRY_INDEX,
    OFFICIAL_COST_COUNTS,
    OPENING_HAND,
    REWARD_COUNTS,
    REWARD_INDEX,
    WALL_SPACES,
)
from .cubes import SPACE_COUNT
from .gifts import GIFTS, active_cubes
from .ministries import SPACES_OF, space_index, space_name
from .setup import setup
from .state import (
    ACTION,
    ACTIVE,
    CANDIDATE,
    CHOOSE_CM,
    CONQUERED,
    EMPTY,
    FAVOUR,
    GIFT_STATE_NAMES,
    LAND_STATE_NAMES,
    NOT_AVAILABLE,
    OVER,
    State,
)


class ScenarioError(ValueError):
    """The description asks for a state the rules cannot produce."""


def validate(s: State) -> None:
    """Refuse impossible states.  Invariants checked (rule in brackets):

    1. 3-5 players; scores >= 0; 0 <= active cubes <= 5 (R13, R25).
    2. Each Confucius card kind totals 22 over hands, deck, discard pile, set-aside and tutoring (R9).
    3. Reward cards: no kind more often than it exists; the Emperor Insulted! card, once played,
       is nowhere else (R10, R75).
    4. Gifts: a gift is active exactly when it is in the Gift Tracker; nobody gives to himself; two
       players holding each other's gifts hold equal values (R52 step 3, R64); the wall hanging is
       never not-available (R20).
    5. Officials: markers only on tiles; a candidate always carries a secured marker (R4); no more
       tiles of a cost than exist (R3); no more candidates of a kind than exist (R4, R17); no more
       officials out of play than candidates on the board, since only a candidate's replacement takes
       one out (R88).
    6. A resolved ministry has its Minister and Secretary when it has markers; an unresolved one has
       none, and a mid-game resolution needs a full, fully marked ministry (R90, R91).
    7. Armies: stock + colonies + on tiles + on the Emperor Insulted! card = 6 per player (R11).
    8. Junks: supply + shipyards + oceans = 25; fewer than 5 junks stay at sea (R12, R47).
    9. A Distant Land's chit is gone exactly when somebody has reached it (R47).
    10. Foreign lands: a conquered tile is full (R93); the wall has at most 9 pieces and runs one
        piece per round (R78).
    11. Students are seats; two students of one player only through the vase petition (R44, R58.2).
    """
    n = s.n
    _check(MIN_PLAYERS <= n <= MAX_PLAYERS, f"{n} players: Confucius takes {MIN_PLAYERS}-{MAX_PLAYERS}")
    _check(all(v >= 0 for v in s.score), "scores are never negative")
    _check(all(0 <= c <= CUBES for c in s.cubes), "active cubes are 0-5 (R25)")
    for k in KINDS:
        total = (
            sum(s.hands[3 * p + k] for p in range(n))
            + s.deck.count(k)
            + s.discard[k]
            + sum(s.held[3 * p + k] for p in range(n))
            + sum(s.tutor[4 * p + 1 + k] for p in range(n))
        )
        _check(total == CARDS_PER_KIND[k], f"{total} cards worth {COIN_VALUES[k]} coins; there are 22 (R9)")
        _check(all(s.hands[3 * p + k] >= 0 for p in range(n)), "negative card count")
    for card, count in enumerate(REWARD_COUNTS):
        held = s.reward_deck.count(card) + sum(r.count(card) for r in s.rewards)
        _check(held <= count, f"{held} reward cards of kind {card}; there are {count} (R10)")
    insulted = REWARD_INDEX["emperor_insulted"]
    if s.insulted >= 0:
        _check(
            insulted not in s.reward_deck and not any(insulted in r for r in s.rewards),
            "the played Emperor Insulted! card is still in a hand or the stack (R75)",
        )
    for g in range(n):
        _check(not s.given[g * n + g], "a player cannot give himself a gift")
        _check(s.gift[g * GIFTS] != NOT_AVAILABLE, "the value-1 gift is available from the start (R20)")
        for v in GIFT_VALUES:
            active = s.gift[g * GIFTS + v - 1] == ACTIVE
            at = [r for r in range(n) if s.given[g * n + r] == v]
            _check(active == bool(at) and len(at) <= 1, f"gift {v} of seat {g}: tracker and card disagree")
        for r in range(n):
            a, b = s.given[g * n + r], s.given[r * n + g]
            _check(not (a and b and a != b), "mutual gifts must have equal values (R52, R64)")
    costs: dict[int, int] = {}
    kinds = [0] * (ANY_MINISTRY + 1)
    for i, t in enumerate(s.tile):
        if t == EMPTY:
            _check(s.owner[i] < 0, f"a marker on the empty space {space_name(i)}")
        elif t == CANDIDATE:
            _check(
                s.owner[i] >= 0 and bool(s.secured[i]),
                f"candidate on {space_name(i)} without a secured marker (R4)",
            )
        else:
            costs[t] = costs.get(t, 0) + 1
        _check(s.owner[i] >= 0 or not s.secured[i], f"secured flag without a marker on {space_name(i)}")
        _check(-1 <= s.owner[i] < n, f"marker of an unknown seat on {space_name(i)}")
    for t in s.stack:
        costs[t] = costs.get(t, 0) + 1
    for cost, count in costs.items():
        _check(count <= OFFICIAL_COST_COUNTS.get(cost, 0), f"{count} officials of cost {cost} (R3)")
    out = sum(OFFICIAL_COST_COUNTS.values()) - sum(costs.values())
    _check(
        out <= s.tile.count(CANDIDATE),
        f"{out} official(s) out of play but {s.tile.count(CANDIDATE)} candidate(s) on the board: only a "
        "candidate replacing an official takes it out of play (R88)",
    )
    for k in [*s.candidates, *([s.candidate] if s.candidate >= 0 else [])]:
        kinds[k] += 1
    for k, count in enumerate(kinds):
        _check(count <= CANDIDATE_KINDS.count(k), f"too many {CANDIDATE_NAMES[k]} candidates (R4)")
    placed = s.tile.count(CANDIDATE)
    _check(
        placed + sum(kinds) <= len(CANDIDATE_KINDS), f"{placed} candidates placed, {sum(kinds)} to come (R4)"
    )
    for m in range(len(MINISTRIES)):
        marked = any(s.owner[i] >= 0 for i in SPACES_OF[m])
        if s.resolved[m]:
            _check((s.minister[m] >= 0) == marked, f"{MINISTRIES[m]} resolved without its Minister (R91)")
            if s.phase != OVER and s.court != len(flow.STAGES) - 1:  # not in the final resolutions
                full = all(s.owner[i] >= 0 for i in SPACES_OF[m])
                _check(full, f"{MINISTRIES[m]} resolved mid-game but not full (R90)")
        else:
            _check(
                s.minister[m] < 0 and s.secretary[m] < 0, f"{MINISTRIES[m]} has a Minister but is unresolved"
            )
    for p in range(n):
        on_tiles = sum(b == p for boxes in s.boxes for b in boxes)
        total = s.stock[p] + s.colonies[p] + on_tiles + (s.insulted == p)
        _check(total == ARMIES and min(s.stock[p], s.colonies[p]) >= 0, f"seat {p} has {total} armies (R11)")
        _check(0 <= s.ocean[p] < JUNKS_PER_VOYAGE and s.shipyard[p] >= 0, f"seat {p}: junks at sea (R47)")
    _check(s.supply + sum(s.shipyard) + sum(s.ocean) == JUNKS and s.supply >= 0, "there are 25 junks (R12)")
    for d in range(len(DISTANT_LANDS)):
        reached = any(s.reached[p] >> d & 1 for p in range(n))
        _check(reached == (s.land_chit[d] == 0), f"{DISTANT_LANDS[d]}: chit and markers disagree (R47)")
    _check(len(set(s.foreign)) == len(s.foreign), "a foreign land tile is used twice (R16)")
    for pos, state in enumerate(s.land_state):
        _check(state != CONQUERED or all(b >= 0 for b in s.boxes[pos]), "a conquered tile has an empty box")
        _check(len(s.boxes[pos]) == len(BOX_VP[s.foreign[pos]]), "box count differs from the tile (R7)")
    _check(0 <= s.wall <= WALL_SPACES and s.wall in (s.round - 1, s.round), "one wall piece per round (R78)")
    _check(all(-1 <= st < n for st in s.students), "students must be seats")


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise ScenarioError(message)


# -- building -----------------------------------------------------------------------------------------


#: The keys that describe reward cards; without any of them the setup's reward stack is kept.
REWARD_KEYS = frozenset({"rewards", "reward_stack", "emperor_insulted"})
#: The keys a description may use (a typo is refused rather than silently ignored).
KEYS = frozenset(
    {
        "players",
        "advanced",
        "admiral_variant",
        "seed",
        "round",
        "wall",
        "chief_minister",
        "phase",
        "court_step",
        "to_move",
        "passed",
        "commercial_used",
        "cubes",
        "cubes_placed",
        "gifts",
        "gift_states",
        "officials",
        "official_stack",
        "resolved",
        "chits",
        "hands",
        "empty_hands",
        "deck_top",
        "discard",
        "rewards",
        "reward_stack",
        "candidate",
        "candidate_stack",
        "students",
        "forced",
        "foreign_lands",
        "armies",
        "emperor_insulted",
        "junks",
        "reached",
        "land_chits",
        "scores",
    }
)


def build(desc: dict[str, Any]) -> State:
    """A validated state from ``desc`` (see the module docstring)."""
    unknown = sorted(set(desc) - KEYS)
    _check(not unknown, f"unknown keys {unknown}")
    players = desc["players"]
    colours = list(COLOURS[:players]) if isinstance(players, int) else list(players)
    _check(len(set(colours)) == len(colours) and set(colours) <= set(COLOURS), f"bad colours {colours}")
    seats = {c: i for i, c in enumerate(colours)}

    def seat(colour: str) -> int:
        _check(colour in seats, f"{colour!r} is not playing; players: {colours}")
        return seats[colour]

    n = len(colours)
    _check(MIN_PLAYERS <= n <= MAX_PLAYERS, f"{n} players: Confucius takes {MIN_PLAYERS}-{MAX_PLAYERS}")
    options = {"advanced": desc.get("advanced", False), "admiral_variant": desc.get("admiral_variant", False)}
    s = setup(n, options, desc.get("seed", 0))
    s.colours = tuple(COLOURS.index(c) for c in colours)
    s.round = desc.get("round", 1)
    wall_placed = desc.get("phase") == "court" and desc.get("court_step", "wall") != "wall"
    s.wall = desc.get("wall", s.round if wall_placed else s.round - 1)
    if "chief_minister" in desc:
        s.cm = seat(desc["chief_minister"])
    _officials(s, desc, seat)
    _gifts(s, desc, seat)
    _cards(s, desc, seat)
    _rewards(s, desc, seat)
    _candidates(s, desc, seat)
    _pieces(s, desc, seat)
    for c, v in desc.get("scores", {}).items():
        s.score[seat(c)] = v
    _phase(s, desc, seat)
    s._legal = None
    validate(s)
    return s


def _officials(s: State, desc: dict[str, Any], seat: Any) -> None:
    for where, spec in desc.get("officials", {}).items():
        ministry, _, space = where.partition("#")
        _check(ministry in MINISTRY_INDEX and space in {str(k) for k in range(1, 8)}, f"bad space {where}")
        i = space_index(ministry, int(space))
        if s.tile[i] > 0:
            s.stack.insert(0, s.tile[i])  # the setup's tile goes back under the stack
        words = str(spec).split()
        s.tile[i], s.owner[i], s.secured[i] = EMPTY, -1, 0
        if words == ["empty"]:
            continue
        if words[0] in COLOURS:
            _check(len(words) >= 2 and words[1] in ("u", "s"), f"{where}: marker state must be u or s")
            s.owner[i], s.secured[i] = seat(words[0]), int(words[1] == "s")
            words = words[2:]
        if words == ["cand"]:
            s.tile[i] = CANDIDATE
            continue
        cost = int(words[0]) if words else s.stack[-1]
        _check(cost in s.stack, f"{where}: no official of cost {cost} left (R3)")
        s.stack.remove(cost)
        s.tile[i] = cost
    if "official_stack" in desc:
        left = list(s.stack)
        for cost in desc["official_stack"]:
            _check(cost in left, f"official stack: no official of cost {cost} left (R3)")
            left.remove(cost)
        s.stack = list(reversed(desc["official_stack"]))  # drawn from the end (state.py)
    for ministry, (minister, secretary) in desc.get("resolved", {}).items():
        m = MINISTRY_INDEX[ministry]
        s.resolved[m], s.minister[m], s.secretary[m] = 1, seat(minister), seat(secretary)
    for ministry, chits in desc.get("chits", {}).items():
        m = MINISTRY_INDEX[ministry]
        _check(sorted(chits, reverse=True) == list(chits), "the higher chit is the Minister's (R14)")
        _check(all(c in GREEN_CHITS for c in chits), f"no such ministry chit {chits} (R5)")
        s.chits[2 * m : 2 * m + 2] = list(chits)


def _gifts(s: State, desc: dict[str, Any], seat: Any) -> None:
    n = s.n
    for colour, states in desc.get("gift_states", {}).items():
        for value, name in states.items():
            s.gift[seat(colour) * GIFTS + int(value) - 1] = GIFT_STATE_NAMES.index(name)
    for text in desc.get("gifts", []):
        pair, _, value = text.partition(":")
        giver, _, recipient = pair.partition(">")
        g, r, v = seat(giver), seat(recipient), int(value)
        _check(s.gift[g * GIFTS + v - 1] != ACTIVE, f"{giver}'s gift {v} is given twice")
        _check(not s.given[g * n + r], f"{giver} has two gifts at {recipient} (R52 step 1)")
        s.given[g * n + r] = v
        s.gift[g * GIFTS + v - 1] = ACTIVE


def _cards(s: State, desc: dict[str, Any], seat: Any) -> None:
    n = s.n
    listed = {seat(c): values for c, values in desc.get("hands", {}).items()}
    default = [] if desc.get("empty_hands") else list(OPENING_HAND)
    s.hands = [0] * (3 * n)
    for p in range(n):
        for v in listed.get(p, default):
            s.hands[3 * p + COIN_VALUES.index(v)] += 1
    s.discard = [0, 0, 0]
    for v in desc.get("discard", []):
        s.discard[COIN_VALUES.index(v)] += 1
    top = [COIN_VALUES.index(v) for v in desc.get("deck_top", [])]
    rest = []
    for k in KINDS:
        left = CARDS_PER_KIND[k] - sum(s.hands[3 * p + k] for p in range(n)) - s.discard[k] - top.count(k)
        _check(left >= 0, f"more than 22 cards worth {COIN_VALUES[k]} coins (R9)")
        rest += [k] * left
    s.rng.shuffle(rest)
    s.deck = rest + top[::-1]


def _rewards(s: State, desc: dict[str, Any], seat: Any) -> None:
    if not REWARD_KEYS & desc.keys():
        return  # setup's shuffled stack of all ten cards stays (R18)
    left = [k for k, count in enumerate(REWARD_COUNTS) for _ in range(count)]
    s.rewards = [[] for _ in range(s.n)]
    for colour, names in desc.get("rewards", {}).items():
        for name in names:
            _check(REWARD_INDEX.get(name) in left, f"no {name} reward card left (R10)")
            left.remove(REWARD_INDEX[name])
            s.rewards[seat(colour)].append(REWARD_INDEX[name])
        s.rewards[seat(colour)].sort()
    if "emperor_insulted" in desc:
        s.insulted = seat(desc["emperor_insulted"])
        left.remove(REWARD_INDEX["emperor_insulted"])
    if "reward_stack" in desc:
        stack = [REWARD_INDEX[name] for name in desc["reward_stack"]]
        for k in stack:
            _check(k in left, "reward stack holds a card that is elsewhere (R10)")
            left.remove(k)
        s.reward_deck = stack[::-1]
    else:
        s.rng.shuffle(left)
        s.reward_deck = left


def _candidates(s: State, desc: dict[str, Any], seat: Any) -> None:
    if "candidate" in desc:
        name = desc["candidate"]
        s.candidate = -1 if name is None else CANDIDATE_NAMES.index(name)
        left = list(CANDIDATE_KINDS)  # default stack: the others in R17 order, Any at the bottom
        if s.candidate >= 0:
            left.remove(s.candidate)
        specific = [k for k in left if k != ANY_MINISTRY]
        s.rng.shuffle(specific)
        s.candidates = [k for k in left if k == ANY_MINISTRY] + specific
    if "candidate_stack" in desc:
        s.candidates = [CANDIDATE_NAMES.index(name) for name in reversed(desc["candidate_stack"])]
    students = desc.get("students", {})
    s.students = [seat(students[k]) if students.get(k) else -1 for k in ("red", "orange")]
    s.forced = int(desc.get("forced", False))


def _pieces(s: State, desc: dict[str, Any], seat: Any) -> None:
    listed = {int(pos) - 1: spec for pos, spec in desc.get("foreign_lands", {}).items()}
    taken = [FOREIGN_LANDS.index(spec["land"]) for spec in listed.values()]
    spare = [land for land in range(len(FOREIGN_LANDS)) if land not in taken and land not in s.foreign]
    for pos in range(len(s.foreign)):
        if pos in listed:
            spec = listed[pos]
            land = s.foreign[pos] = FOREIGN_LANDS.index(spec["land"])
            boxes = spec.get("boxes", [None] * len(BOX_VP[land]))
            _check(len(boxes) == len(BOX_VP[land]), f"{spec['land']} has {len(BOX_VP[land])} boxes (R7)")
            s.boxes[pos] = [-1 if c is None else seat(c) for c in boxes]
            s.land_state[pos] = LAND_STATE_NAMES.index(spec.get("state", "unresolved"))
        elif s.foreign[pos] in taken:  # the setup's tile is listed elsewhere: use an unused one here
            s.foreign[pos] = spare.pop()
            s.boxes[pos] = [-1] * len(BOX_VP[s.foreign[pos]])
    for p in range(s.n):
        on_tiles = sum(b == p for boxes in s.boxes for b in boxes)
        s.stock[p] = ARMIES - on_tiles - (s.insulted == p)
        s.colonies[p] = 0
    for colour, spec in desc.get("armies", {}).items():
        p = seat(colour)
        s.colonies[p] = spec.get("colonies", 0)
        s.stock[p] -= s.colonies[p]
        if "stock" in spec:
            _check(
                spec["stock"] == s.stock[p], f"{colour}: {spec['stock']} armies in stock but 6 in all (R11)"
            )
    for colour, spec in desc.get("junks", {}).items():
        p = seat(colour)
        s.shipyard[p], s.ocean[p] = spec.get("shipyard", 0), spec.get("ocean", 0)
    s.supply = JUNKS - sum(s.shipyard) - sum(s.ocean)
    for colour, lands in desc.get("reached", {}).items():
        for land in lands:
            s.reached[seat(colour)] |= 1 << DISTANT_INDEX[land]
    for land, chit in desc.get("land_chits", {}).items():
        _check(chit == 0 or chit in BLUE_CHITS, f"no Distant Land chit worth {chit} (R5)")
        s.land_chit[DISTANT_INDEX[land]] = chit
    for d, land_id in enumerate(DISTANT_LANDS):  # the first visitor took the chit (R47)
        if any(s.reached[p] >> d & 1 for p in range(s.n)) and land_id not in desc.get("land_chits", {}):
            s.land_chit[d] = 0


def _phase(s: State, desc: dict[str, Any], seat: Any) -> None:
    n = s.n
    s.placed = [0] * (n * SPACE_COUNT)
    for colour, spaces in desc.get("cubes_placed", {}).items():
        for space, count in spaces.items():
            s.placed[seat(colour) * SPACE_COUNT + ACTION_SPACES.index(space)] = count
    s.passed, s.commercial = [0] * n, [0] * n
    for colour in desc.get("passed", []):
        s.passed[seat(colour)] = 1
    for colour in desc.get("commercial_used", []):
        s.commercial[seat(colour)] = 1
    s.cubes = [active_cubes(s, p) for p in range(n)]
    phase = desc.get("phase", "actions")
    s.court = 0
    if phase == "choose_chief_minister":
        s.round -= 1
        s.wall = min(s.wall, s.round)
        flow.start_round(s, [])
        _check(s.phase == CHOOSE_CM, "the Chief Minister is chosen from round 2 on (R26)")
    else:
        s.cubes[s.cm] -= 1  # R27
        for colour, cubes in desc.get("cubes", {}).items():
            s.cubes[seat(colour)] = cubes
        s.mode = s.phase = ACTION if phase == "actions" else FAVOUR
        s.turn = s.seat = seat(desc["to_move"]) if "to_move" in desc else (s.cm + 1) % n
        s.ctx = None
        if phase == "imperial_favour":
            s.passed = [1] * n
            s.seat = s.cm
        elif phase == "court":
            s.passed = [1] * n
            step = desc.get("court_step", "wall")
            _check(step in flow.STAGE_NAMES, f"unknown court step {step!r}; steps: {flow.STAGE_NAMES}")
            s.court = flow.STAGE_NAMES.index(step)
            flow.run_court(s, [])
        else:
            _check(phase == "actions", f"unknown phase {phase!r}")
            _check(not s.passed[s.seat], "the player to move has passed (R30)")
