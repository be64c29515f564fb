"""Turn clocks: pure arithmetic over a match's time control, with the time passed in (tests inject it).

A time control (chosen at creation; no clock unless asked for) has a per-decision limit
(``per_move_seconds``, correspondence style: seconds to days) and/or a budget per seat
(``budget_seconds``, chess style) with an ``increment_seconds`` added after each of the seat's moves.
Only human seats have a clock, and it runs only while that seat is to decide: the time a human waits
for bots or other humans never counts against them.

The clock document stored with the match (``MatchMeta.clock``) holds the control and its state:
``remaining`` (per seat; ``None`` for bots or without a budget), ``turn_started`` and ``deadline`` (of the
decision pending, ``None`` when no human is to decide), and ``timeouts`` per seat.  When a deadline
passes, a worker plays the seat's decision with a bot of the ``on_timeout`` level
(:func:`workers.jobs.time_out`); from ``max_timeouts`` timeouts of one seat on, the seat is *away*: the
bot plays it without waiting for deadlines until its player acts again (see
:mod:`service.domain.matches.seating`).
"""

from __future__ import annotations

from typing import Any

from service.domain.matches import seating
from service.storage.matches import ACTIVE, MatchMeta

#: The longest per-decision limit or budget: 30 days (correspondence play).
MAX_SECONDS = 30 * 24 * 3600
DEFAULT_ON_TIMEOUT = "easy"
DEFAULT_MAX_TIMEOUTS = 3
#: Without the control's own ``warning_seconds``, a player is warned this share of a decision's time
#: before its deadline (6 s of a 30-s move, an hour of a day's, with the server's cap of an hour).
WARNING_SHARE = 0.2


def with_defaults(control: dict[str, Any]) -> dict[str, Any]:
    """A time control's settings with their defaults filled in (the one home of those defaults): what
    a clock is made of, and what matchmaking compares, so two controls spelled differently that mean
    the same compare equal.  ``warning_seconds`` only when the control chose it."""
    settings = {
        "per_move_seconds": control.get("per_move_seconds"),
        "budget_seconds": control.get("budget_seconds"),
        "increment_seconds": control.get("increment_seconds", 0),
        "on_timeout": control.get("on_timeout", DEFAULT_ON_TIMEOUT),
        "max_timeouts": control.get("max_timeouts", DEFAULT_MAX_TIMEOUTS),
    }
    if control.get("warning_seconds") is not None:
        settings["warning_seconds"] = control["warning_seconds"]
    return settings


def new_clock(control: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, Any]:
    """The clock document for a time control (as validated by the API), before the first decision."""
    budget = control.get("budget_seconds")
    return {
        **with_defaults(control),
        "warning_seconds": control.get("warning_seconds"),  # None: the default, see warning_seconds
        "remaining": [None if s["kind"] == "bot" or budget is None else float(budget) for s in seats],
        "timeouts": [0] * len(seats),
        "turn_started": None,
        "deadline": None,
    }


def start_turn(clock: dict[str, Any], seats: list[dict[str, Any]], to_move: int | None, now: float) -> None:
    """The decision of ``to_move`` is pending from ``now``: its deadline, if a human is to decide."""
    if to_move is None or seats[to_move]["kind"] != "human":
        clock["turn_started"] = clock["deadline"] = None
        return
    limits = [clock["per_move_seconds"], clock["remaining"][to_move]]
    clock["turn_started"] = now
    clock["deadline"] = now + min(x for x in limits if x is not None)


def end_turn(clock: dict[str, Any], seat: int, now: float, *, timed_out: bool) -> None:
    """``seat`` decided at ``now`` (or its bot did, when it ``timed_out``): charge its budget the time
    it took, add the increment, count the timeout."""
    started = clock["turn_started"]
    remaining = clock["remaining"][seat]
    if remaining is not None and started is not None:
        spent = remaining if timed_out else min(remaining, max(0.0, now - started))
        clock["remaining"][seat] = remaining - spent + clock["increment_seconds"]
    if timed_out:
        clock["timeouts"][seat] += 1
    clock["turn_started"] = clock["deadline"] = None


def keeps_the_seat(clock: dict[str, Any], seat: int) -> bool:
    """Whether ``seat`` timed out often enough that its player is taken to be away: the bot then plays
    the seat until the player acts again (the count is not reset by a return, so one more timeout
    after it finds the player away again)."""
    return bool(clock["timeouts"][seat] >= clock["max_timeouts"])


def warning_seconds(clock: dict[str, Any], cap: float) -> float:
    """Seconds before a deadline that its player is warned: the control's ``warning_seconds`` if it
    says (0: never), else :data:`WARNING_SHARE` of the decision's time (the per-move limit, or the
    budget without one), at most ``cap`` (the server's ``clock_warning_seconds``; 0: no default
    warning).  A clock stored before issue 42 has no ``warning_seconds``: the default."""
    own = clock.get("warning_seconds")
    if own is not None:
        return float(own)
    limits = [float(x) for x in (clock["per_move_seconds"], clock["budget_seconds"]) if x is not None]
    if not limits or cap <= 0:
        return 0.0
    return min(round(WARNING_SHARE * min(limits), 3), float(cap))


def pending_deadline(meta: MatchMeta) -> float | None:
    """The deadline of the pending decision of a match under way (``None``: no clock, or not under
    way)."""
    if meta.clock is None or meta.status != ACTIVE:
        return None
    deadline: float | None = meta.clock.get("deadline")
    return deadline


def warning_at(meta: MatchMeta, lead: float) -> float | None:
    """When the player deciding in ``meta`` (the match after a commit) is warned of the deadline:
    ``lead`` seconds before it; ``None`` if no player decides against a deadline, or if the whole
    decision is no longer than ``lead`` (the ``your_turn`` entry carries the deadline already)."""
    clock = meta.clock
    if lead <= 0 or clock is None or meta.status != ACTIVE or clock.get("deadline") is None:
        return None
    if seating.deciding_player(meta) is None:
        return None
    at = float(clock["deadline"]) - lead
    started = clock.get("turn_started")
    if started is not None and at <= started:
        return None
    return at


def public(
    clock: dict[str, Any] | None, to_move: int | None, now: float, warning_cap: float
) -> dict[str, Any] | None:
    """The clock as every client sees it: the control (with the warning time it gets, ``warning_cap``
    being the server's :func:`warning_seconds` cap), each seat's budget left (running down for the
    seat deciding), the pending deadline and the timeouts so far."""
    if clock is None:
        return None
    remaining = list(clock["remaining"])
    started = clock["turn_started"]
    if to_move is not None and started is not None and remaining[to_move] is not None:
        remaining[to_move] = max(0.0, remaining[to_move] - (now - started))
    return {
        "per_move_seconds": clock["per_move_seconds"],
        "budget_seconds": clock["budget_seconds"],
        "increment_seconds": clock["increment_seconds"],
        "on_timeout": clock["on_timeout"],
        "max_timeouts": clock["max_timeouts"],
        "warning_seconds": warning_seconds(clock, warning_cap),
        "remaining_seconds": remaining,
        "deadline": clock["deadline"],
        "timeouts": list(clock["timeouts"]),
    }


#: The time control's own settings in a clock document (what a rematch copies).
CONTROL_KEYS = (
    "per_move_seconds",
    "budget_seconds",
    "increment_seconds",
    "on_timeout",
    "max_timeouts",
    "warning_seconds",
)


def control(clock: dict[str, Any]) -> dict[str, Any]:
    """The time control a clock was made from (for a rematch: same control, fresh clocks; a warning
    time it did not choose stays the default's)."""
    return {key: clock[key] for key in CONTROL_KEYS if clock.get(key) is not None}
