"""Takebacks: which decisions a seat may take back, and the state once it has.

A seat may take back its own most recent decisions when, since the first of them, no other seat
decided, nothing hidden became known to anyone and nothing random was drawn: then undoing them hides
nothing that was seen and re-rolls nothing, so the position is as if they had never been made.  A
takeback replays the log without the taken-back decisions (``apply`` is deterministic, engine.core).

Which steps draw or reveal is each game's knowledge: a game package's ``takeback.blocker`` (its role
module, docs/adding-a-game.md) names, with the rule, what in one step was drawn at random or shown to
somebody who could not see it before.  On top of it this module checks the one thing every game shares:
the state's :class:`engine.core.Rng` moving (a reshuffle, a die) is always a random draw.  A game that
declares no classification has every step blocked: undoing blind could un-show a card.

A step is the decision and every forced step the engine plays after it (engine.core.play_forced): what
a forced step reveals or draws blocks the decision that triggered it.

Pure: imports nothing but the engine core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from engine.core import Action, Event, Game, action_events, play_forced

#: Reason codes of a step that cannot be taken back.
RANDOM = "random"
REVEAL = "reveal"
#: Reason codes of a takeback refused as a whole.
OTHER_PLAYER = "other_player"
NOTHING = "nothing"
OVER = "over"
#: Every reason a :class:`TakebackRefused` may carry.
REASONS = (OTHER_PLAYER, RANDOM, REVEAL, NOTHING, OVER)

#: One decision in force: the seat that made it and its action.
Decision = tuple[int, Action]


@dataclass(frozen=True, slots=True)
class Blocker:
    """Why one step cannot be taken back: ``reason`` is :data:`RANDOM` or :data:`REVEAL`, ``rule`` the
    rule id of the game's RULES.md that draws or reveals (``None`` only for the generic RNG check),
    ``what`` a short human description of what was drawn or revealed."""

    reason: str
    rule: str | None
    what: str


class TakebackRefused(Exception):
    """A takeback the rules refuse; ``reason`` is one of :data:`REASONS`, ``message`` names the step
    (and for random/reveal the rule), ``rule`` is that rule id or ``None``."""

    def __init__(self, reason: str, message: str, rule: str | None = None) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message
        self.rule = rule


def _no_classification(before: Any, seat: int, action: Action, after: Any, events: list[Event]) -> Blocker:
    """The classification of a game that declares none: every step blocked."""
    return Blocker(REVEAL, None, "this game does not say which of its steps reveal nothing")


def _classifier(game: Game) -> Any:
    """The game's ``takeback.blocker`` (engine.core.GameRules.takeback), or the blocking default."""
    hook = getattr(getattr(game, "rules", None), "takeback", None)
    return hook if hook is not None else _no_classification


def rng_moved(before: Any, after: Any) -> bool:
    """Whether the state's random generator advanced between ``before`` and ``after`` (a shuffle, a
    die, a random start player): the one sign of randomness every game shares."""
    rng_before, rng_after = getattr(before, "rng", None), getattr(after, "rng", None)
    return getattr(rng_before, "s", None) != getattr(rng_after, "s", None)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a decision: the decision itself or one forced step the engine played after it
    (``auto``), with the state before and after it and the events it emitted."""

    before: Any
    seat: int
    action: Action
    after: Any
    events: list[Event]
    auto: bool = False


def steps(game: Game, before: Any, action: Action, seat: int | None = None) -> list[Step]:
    """The decision ``action`` (of ``seat``, default the seat to move) on ``before`` and each forced step
    that follows it (engine.core.play_forced), each on its own, so a game judges a forced payment by
    the hand it was paid from.  ``before`` is not mutated; raises ``IllegalAction`` like ``apply``."""
    after = game.clone(before)
    events = game.apply(after, action, seat)  # refuses what apply refuses; the reference outcome
    mover = cast(int, game.to_move(before) if seat is None else seat)
    rules = getattr(game, "rules", None)
    if rules is None or rules.forced is None or not any(ev.get("auto") for ev in events):
        return [Step(before, mover, action, after, events)]
    # Again, one step at a time: the decision's handler as GameBase.apply runs it, then the forced
    # steps through play_forced itself, each marked where it starts.
    state = game.clone(before)
    public = None if rules.public_action is None else rules.public_action(state, action)
    split = action_events(mover, action, public)
    state._legal = None
    rules.handlers[action["type"]](state, mover, action, split)
    marks: list[tuple[Any, int, Action, int]] = []

    def mark(st: Any, s: int, a: Action) -> None:
        marks.append((game.clone(st), s, a, len(split)))

    play_forced(rules, state, split, mark)
    if game.encode(state) != game.encode(after):  # pragma: no cover - apply and this split agree
        raise AssertionError("the step-by-step replay of a decision differs from apply")
    out: list[Step] = []
    starts = [(before, mover, action, 0, False)] + [(b, s, a, i, True) for b, s, a, i in marks]
    for k, (b, s, a, i, auto) in enumerate(starts):
        nxt = starts[k + 1] if k + 1 < len(starts) else (state, 0, {}, len(split), False)
        out.append(Step(b, s, a, nxt[0], split[i : nxt[3]], auto))
    return out


def classify(game: Game, step: Step) -> Blocker | None:
    """The :class:`Blocker` of one step, or ``None``: the game's own classification first (it names
    the rule), then the generic RNG check."""
    found: Blocker | None = _classifier(game)(step.before, step.seat, step.action, step.after, step.events)
    if found is not None:
        return found
    if rng_moved(step.before, step.after):
        return Blocker(RANDOM, None, "the random generator was used (a shuffle or a draw)")
    return None


def judge(game: Game, before: Any, action: Action, seat: int | None = None) -> tuple[Any, Blocker | None]:
    """The state after the decision (with its forced steps) and the :class:`Blocker` of the first of
    its steps that drew or revealed, or ``None``."""
    parts = steps(game, before, action, seat)
    for part in parts:
        found = classify(game, part)
        if found is not None:
            return parts[-1].after, found
    return parts[-1].after, None


def step_block(game: Game, before: Any, action: Action, seat: int | None = None) -> Blocker | None:
    """:func:`step_blocker` with the rule and the description: the :class:`Blocker`, or ``None``."""
    return judge(game, before, action, seat)[1]


def step_blocker(game: Game, before: Any, action: Action, seat: int | None = None) -> str | None:
    """Why the decision ``action`` of ``seat`` on ``before`` (with the forced steps it triggers) cannot be
    taken back: :data:`RANDOM`, :data:`REVEAL`, or ``None``.  ``before`` is not mutated."""
    found = step_block(game, before, action, seat)
    return None if found is None else found.reason


# --------------------------------------------------------------------------------------------------
# Helpers for the games' classifications


def surely_held(pool: Sequence[int], size: int, shown: Sequence[int]) -> bool:
    """Whether a hidden set of ``size`` items, which may be any part of the hidden ``pool`` (counts per
    kind, the set's own items included), surely holds ``shown`` (counts per kind): then showing them
    tells nobody anything.  Every possible set holds at least ``pool[k] - (sum(pool) - size)`` of kind
    ``k``, and some set holds exactly that, so the test is exact."""
    rest = sum(pool) - size
    return all(want <= max(0, have - rest) for have, want in zip(pool, shown, strict=True))


# --------------------------------------------------------------------------------------------------
# Logs and takebacks


def live_decisions(entries: Iterable[Mapping[str, Any]]) -> list[Decision]:
    """The decisions in force of a log of entries, each ``{"seat", "action"}`` (a decision) or
    ``{"seat", "takeback": k}`` (the last ``k`` decisions in force were taken back).  ``ValueError``
    for a takeback of more decisions than are in force or an entry that is neither."""
    live: list[Decision] = []
    for i, entry in enumerate(entries):
        if "takeback" in entry:
            k = entry["takeback"]
            if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= len(live):
                raise ValueError(f"entry {i}: takeback of {k!r} decisions with {len(live)} in force")
            del live[len(live) - k :]
        elif "action" in entry:
            live.append((entry["seat"], entry["action"]))
        else:
            raise ValueError(f"entry {i}: neither a decision nor a takeback: {sorted(entry)}")
    return live


def replay(
    game: Game, players: int, options: dict[str, Any] | None, seed: int, decisions: Sequence[Decision]
) -> Any:
    """The state after ``decisions`` from ``game.setup(players, options, seed)``."""
    state = game.setup(players, options, seed)
    for s, action in decisions:
        game.apply(state, action, s)
    return state


def _describe(n: int, seat: int, action: Action) -> str:
    return f"decision {n} ({action.get('type')} by seat {seat})"


def take_back(
    game: Game,
    players: int,
    options: dict[str, Any] | None,
    seed: int,
    decisions: Sequence[Decision],
    seat: int,
    count: int,
) -> Any:
    """The state after ``seat`` takes back its last ``count`` decisions in force (``decisions``, as
    :func:`live_decisions` gives them): the replay of ``decisions[:-count]`` from
    ``game.setup(players, options, seed)``.

    Raises :class:`TakebackRefused` when the rules refuse it, checking in this order: a count that is
    not a whole number of the decisions made (``nothing``), the game is over (``over``), the seat made
    none of the decisions in force (``nothing``), another seat made one of the last ``count``
    (``other_player``), then the first of them, in the order they were made, whose step drew something
    random or revealed something hidden (``random``, ``reveal``, naming the rule)."""
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise TakebackRefused(
            NOTHING, f"the number of decisions to take back must be at least 1, not {count!r}"
        )
    if count > len(decisions):
        raise TakebackRefused(NOTHING, f"only {len(decisions)} decisions were made, not {count}")
    first = len(decisions) - count
    state = replay(game, players, options, seed, decisions[:first])
    blocker: tuple[int, Decision, Blocker] | None = None
    current = state
    for n, (s, action) in enumerate(decisions[first:], start=first + 1):
        current, found = judge(game, current, action, s)
        if found is not None and blocker is None:
            blocker = (n, (s, action), found)
    if game.to_move(current) is None:
        raise TakebackRefused(OVER, "the game is over: its result stands")
    if not any(s == seat for s, _ in decisions):
        raise TakebackRefused(NOTHING, f"seat {seat} has made no decision to take back")
    for n, (s, action) in enumerate(decisions[first:], start=first + 1):
        if s != seat:
            raise TakebackRefused(
                OTHER_PLAYER,
                f"seat {s} decided since ({_describe(n, s, action)}): only a seat's own latest "
                "decisions can be taken back",
            )
    if blocker is not None:
        n, (s, action), found = blocker
        verb = "drew something random" if found.reason == RANDOM else "revealed something hidden"
        rule = f"{found.rule}: " if found.rule else ""
        raise TakebackRefused(
            found.reason, f"{_describe(n, s, action)} {verb}: {rule}{found.what}", found.rule
        )
    return state


def undoable(
    game: Game,
    players: int,
    options: dict[str, Any] | None,
    seed: int,
    decisions: Sequence[Decision],
    seat: int,
) -> int:
    """How many of its latest decisions ``seat`` may take back now (0: none), for a client to offer."""
    if not decisions or decisions[-1][0] != seat:
        return 0
    first = len(decisions)
    while first > 0 and decisions[first - 1][0] == seat:
        first -= 1
    state = replay(game, players, options, seed, decisions[:first])
    count = 0  # the length of the run of unblocked steps ending at the latest one
    for s, action in decisions[first:]:
        state, found = judge(game, state, action, s)
        count = 0 if found is not None else count + 1
    return count if game.to_move(state) is not None else 0
