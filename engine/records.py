"""Match records: the documented, versioned JSON of one match (docs/records.md), built from a play and
replayed through the engine step by step.

A record is plain JSON (format :data:`FORMAT`; its JSON Schema is :mod:`engine.record_schema`): a
header (game, versions, options, seats), every decision (seat, action, the events it caused) and the
result; with perspective ``"full"`` also the seed (``setup``), which is what makes it replayable.  The
server builds records from storage (``service.domain.records``); this module holds what needs nothing
but the engine, so the service, the research adapters and the command line share one definition:

- :func:`record_of_play` builds the full record of a game played offline (tests, datasets, research);
- :func:`restrict` derives a seat's or a spectator's record from a full one (the one place that decides
  what a perspective may see of a record: the engine's own event audiences and masked actions);
- :func:`replay` replays a full record and raises :class:`RecordMismatch` at the first step where the
  engine and the record disagree.

In a full record the events keep their audience (``visible_to``, as :func:`engine.core.event` builds
them), so every other perspective can be derived from it; a seat's or spectator's record holds only the
events that perspective sees, without the audience, as the events endpoints serve them.

Pure: no I/O beyond reading the game's own packaged rules for :func:`rules_version`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import orjson

from engine.core import Action, Event, Game, IllegalAction, Result, event_visible, resolve_options
from engine.takeback import TakebackRefused, take_back

#: The format id every record carries; bumped (``/2``) only for a change a reader of ``/1`` would misread
#: (docs/records.md, "Versioning").
FORMAT = "tabletop-record/1"
#: The format of a record holding takebacks (taken-back decisions and ``takebacks``, issue 47): a reader of
#: ``/1`` would replay a taken-back decision as played, so it must refuse such a record, and does by its
#: format.  A record without takebacks keeps :data:`FORMAT`, unchanged.
FORMAT_TAKEBACKS = "tabletop-record/2"
#: Every format this module reads.
FORMATS = (FORMAT, FORMAT_TAKEBACKS)
#: The perspectives a record is written from.
FULL, SEAT, SPECTATOR = "full", "seat", "spectator"
#: Match status of a record of a game played to its end (the service's ``finished``).
FINISHED = "finished"

#: A policy for :func:`record_of_play`: the action to take, given the state and its legal actions.
Policy = Callable[[Any, list[Action]], Action]


class RecordError(ValueError):
    """A record that cannot be replayed at all: another format, not a full record, an unknown game, a
    header the engine refuses."""


class RecordMismatch(RecordError):
    """The first place where a record and the engine's replay of it disagree.

    ``n`` is the decision's number (1 for the first; 0 for the state before any decision, the number of
    the last decision for the result), ``what`` names the part (``"seat"``, ``"action"``,
    ``"events[2]"``, ``"view"``, ``"result"``...), ``expected`` is what the engine computes and ``got``
    what the record holds.
    """

    def __init__(self, n: int, what: str, expected: Any, got: Any) -> None:
        super().__init__(
            f"decision {n}: {what}: the record has {_short(got)}, the engine gives {_short(expected)}"
        )
        self.n = n
        self.what = what
        self.expected = expected
        self.got = got


@dataclass(frozen=True, slots=True)
class Replayed:
    """What a replay leaves: the final state and result, and what was asked to be kept on the way.

    ``states`` (with ``replay(states=True)``) and ``views[p]`` (for each perspective ``p`` of
    ``replay(views=...)``, a seat or ``None`` for the spectator) hold one entry before the first decision
    and one after each decision: index ``n`` is the position after decision ``n``.
    """

    game: Game
    state: Any
    result: Result | None
    decisions: int
    #: The rules version the record names, and whether today's packaged rules are the same.
    rules_version: str
    same_rules: bool
    states: list[Any] | None = None
    views: dict[int | None, list[dict[str, Any]]] = field(default_factory=dict)


def rules_version(game: Game) -> str:
    """The first 16 hex digits of the SHA-256 of the game's packaged RULES.md followed by its
    components.json (where it has one): what changes when the rules or the components do, whatever
    the engine's own version."""
    return _digest(game.rules_file)


@cache
def _digest(rules_file: str) -> str:
    rules = Path(rules_file)
    digest = hashlib.sha256(rules.read_bytes())
    components = rules.with_name("components.json")
    if components.is_file():
        digest.update(components.read_bytes())
    return digest.hexdigest()[:16]


@cache
def engine_version() -> str:
    """The installed tabletop package's version (``"0+unknown"`` when run from an uninstalled tree)."""
    try:
        return version("tabletop")
    except PackageNotFoundError:
        return "0+unknown"


def format_for(takebacks: Sequence[Any]) -> str:
    """The format of a record with these ``takebacks``: :data:`FORMAT` without any, else
    :data:`FORMAT_TAKEBACKS`."""
    return FORMAT_TAKEBACKS if takebacks else FORMAT


def in_force(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The decisions of ``record`` in force, in order: the live line, the ones not ``taken_back`` (all
    of a :data:`FORMAT` record's).  What a reader that wants the game as it ended follows (the
    trajectories of research.records); whether the marks match ``takebacks`` and the takebacks were
    allowed is :func:`replay`'s check."""
    return [d for d in record.get("decisions", []) if not d.get("taken_back")]


def _games(games: Mapping[str, Game] | None) -> Mapping[str, Game]:
    if games is not None:
        return games
    from engine.registry import GAMES  # imported late: the registry imports every game package

    return GAMES


def _plain(obj: Any) -> Any:
    """``obj`` as it reads back from JSON (tuples become lists): what a record holds."""
    return orjson.loads(orjson.dumps(obj))


def _short(obj: Any, limit: int = 300) -> str:
    text = orjson.dumps(obj).decode() if not isinstance(obj, str) else repr(obj)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------------------
# Building


def record_of_play(
    game_id: str,
    players: int,
    options: dict[str, Any] | None,
    seed: int,
    actions: Iterable[Action] | None = None,
    *,
    policy: Policy | None = None,
    games: Mapping[str, Game] | None = None,
    match_id: str | None = None,
    seats: Sequence[dict[str, Any]] | None = None,
    views: bool = False,
    rated: bool = False,
    tournament: str | None = None,
    created_at: str | None = None,
    takebacks: Mapping[int, int] | None = None,
) -> dict[str, Any]:
    """The full record of a game played offline: ``actions`` (each decision's action, in order) or
    ``policy`` (called for each decision with the live state, which it must not change, and its legal
    actions) on ``setup(players, options, seed)``, to the end.

    ``takebacks`` maps a decision's number ``n`` to a count ``k``: right after decision ``n`` is made,
    its seat takes back its last ``k`` decisions in force (:func:`engine.takeback.take_back`, which
    raises :class:`engine.takeback.TakebackRefused` where the rules refuse), and play goes on from the
    position before them; ``actions`` then continue with the decision made next.  The record holds
    the taken-back decisions (``taken_back``) and the ``takebacks``, in format :data:`FORMAT_TAKEBACKS`.

    Offline there is no clock: ``at``, ``clock``, ``time_control`` and ``started_at`` are null, each
    decision's ``version`` is its number, and the match id defaults to ``offline-<game>-<seed>``.
    ``seats`` (one ``{"kind", "player", "name", "level"}`` per seat) says who played; by default
    anonymous players.  With ``views`` the record carries the spectator's view before the first
    decision and after each (what ``?include=views`` adds to a full record).  An illegal action raises
    :class:`IllegalAction`; actions that stop before the end raise ``ValueError``: a full record is of
    a match that is over.
    """
    if (actions is None) == (policy is None):
        raise ValueError("give either the actions or a policy")
    known = _games(games)
    if game_id not in known:
        raise KeyError(f"unknown game {game_id!r}; known: {sorted(known)}")
    game = known[game_id]
    state = game.setup(players, options, seed=seed)
    resolved = resolve_options(game.options, options)
    decisions: list[dict[str, Any]] = []
    live: list[dict[str, Any]] = []  # the decisions in force
    taken: list[dict[str, Any]] = []  # the record's takebacks
    steps = iter(actions) if actions is not None else None
    while (seat := game.to_move(state)) is not None:
        if steps is not None:
            action = next(steps, None)
            if action is None:
                raise ValueError(f"the actions end after {len(decisions)} decisions; the game is not over")
        else:
            assert policy is not None
            action = policy(state, game.legal_actions(state))
        events = game.apply(state, action, seat=seat)
        n = len(decisions) + 1
        decision: dict[str, Any] = {
            "n": n,
            "version": n,
            "seat": seat,
            "action": action,
            "at": None,
            "clock": None,
            "events": events,
        }
        if views:
            decision["view"] = game.view(state, None)
        decisions.append(decision)
        live.append(decision)
        if takebacks and n in takebacks:
            count = takebacks[n]
            state = take_back(
                game, players, options, seed, [(d["seat"], d["action"]) for d in live], seat, count
            )
            undone, live = live[len(live) - count :], live[: len(live) - count]
            for d in undone:
                d["taken_back"] = True
            taken.append(
                {
                    "seat": seat,
                    "decisions": [d["n"] for d in undone],
                    "requested_at": None,
                    "accepted_at": None,
                }
            )
    if steps is not None and next(steps, None) is not None:
        raise ValueError(f"the game is over after {len(decisions)} decisions; more actions follow")
    header = {
        "match_id": match_id if match_id is not None else f"offline-{game_id}-{seed}",
        "game": game_id,
        "title": game.title,
        "engine_version": engine_version(),
        "rules_version": rules_version(game),
        "players": players,
        "options": resolved,
        "seats": [
            {
                "seat": i,
                "kind": "player",
                "player": None,
                "name": None,
                "level": None,
                **(dict(seats[i]) if seats else {}),
            }
            for i in range(players)
        ],
        "time_control": None,
        "rated": rated,
        "tournament": tournament,
        "created_at": created_at,
        "started_at": None,
        "status": FINISHED,
    }
    record: dict[str, Any] = {
        "format": format_for(taken),
        "perspective": FULL,
        "seat": None,
        "header": header,
        "decisions": decisions,
    }
    if taken:
        record["takebacks"] = taken
    if views:
        record["initial_view"] = game.view(game.setup(players, options, seed=seed), None)
    record["result"] = game.result(state)
    record["setup"] = {"seed": seed}
    plain: dict[str, Any] = _plain(record)
    return plain


# --------------------------------------------------------------------------------------------------
# Perspectives


def restrict(
    record: dict[str, Any], seat: int | None, views: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """A seat's (``seat``) or the spectator's (``None``) record, derived from a full one.

    Each decision keeps the events the perspective may see (:func:`engine.core.event_visible`), without
    their audience, and its action as the perspective saw it: whole for the seat's own decisions, in
    the game's masked form (``masked_actions``) for another seat's secret one.  No seed.  ``views``,
    when given, are the perspective's views before the first decision and after each (from
    :func:`replay`); without them the record carries no views (a full record's are the spectator's,
    kept for the spectator only).
    """
    if record.get("perspective") != FULL:
        raise RecordError(f"only a full record can be restricted, not a {record.get('perspective')!r} one")
    decisions = []
    for i, decision in enumerate(record["decisions"]):
        events = decision["events"]
        decided = decision["seat"]
        shown = next(
            (
                ev["action"]
                for ev in events[:2]
                if ev["type"] == "action"
                and ev["seat"] == decided
                and not ev.get("auto")
                and event_visible(ev, seat)
            ),
            None,
        )
        if shown is None:
            raise RecordError(f"decision {decision['n']} has no action event that {_who(seat)} sees")
        out = {
            **{k: v for k, v in decision.items() if k not in ("events", "view")},
            "action": shown,
            "events": [
                {k: v for k, v in ev.items() if k != "visible_to"} for ev in events if event_visible(ev, seat)
            ],
        }
        if views is not None:
            out["view"] = views[i + 1]
        elif seat is None and "view" in decision:
            out["view"] = decision["view"]
        decisions.append(out)
    restricted: dict[str, Any] = {
        "format": record["format"],
        "perspective": SPECTATOR if seat is None else SEAT,
        "seat": seat,
        "header": record["header"],
        "decisions": decisions,
    }
    if "takebacks" in record:  # who took back which decisions is public: the decisions were
        restricted["takebacks"] = record["takebacks"]
    if views is not None:
        restricted["initial_view"] = views[0]
    elif seat is None and "initial_view" in record:
        restricted["initial_view"] = record["initial_view"]
    restricted["result"] = record["result"]
    restricted["setup"] = None
    return restricted


def _who(seat: int | None) -> str:
    return "the spectator" if seat is None else f"seat {seat}"


# --------------------------------------------------------------------------------------------------
# Replay


def replay(
    record: Mapping[str, Any],
    games: Mapping[str, Game] | None = None,
    *,
    states: bool = False,
    views: Iterable[int | None] = (),
) -> Replayed:
    """Replay a full record through the engine, checking every step; :class:`RecordMismatch` at the first
    difference.

    The game is set up from the header's player count and options and the record's seed; for each
    decision in order its ``n`` must be the next number, its seat the seat to move, its action one the
    engine accepts, its events exactly the events the engine emits (audiences included), and its
    ``view``, when the record has views, the spectator's view after it.  After the last decision the
    record's result must be the engine's (``None`` for a match that ended early, e.g. aborted).  The
    versions in the header are not checked: ``Replayed.same_rules`` says whether the rules changed
    since.  ``states`` keeps a copy of every position, ``views`` the views of those perspectives (seats,
    ``None`` for the spectator) at every position; both index 0 for the start and ``n`` after decision
    ``n``.
    """
    if record.get("format") not in FORMATS:
        raise RecordError(f"not a {FORMAT} record (nor {FORMAT_TAKEBACKS}: format {record.get('format')!r})")
    if record.get("perspective") != FULL or not isinstance(record.get("setup"), dict):
        raise RecordError(
            f"only a full record (its seed included) can be replayed, not a {record.get('perspective')!r} one"
        )
    header, decisions = record.get("header"), record.get("decisions")
    if not isinstance(header, dict) or not isinstance(decisions, list):
        raise RecordError("a record has a header (an object) and its decisions (a list)")
    known = _games(games)
    name = header.get("game")
    game = known.get(name) if isinstance(name, str) else None
    if game is None:
        raise RecordError(f"unknown game {name!r}; known: {sorted(known)}")
    try:
        state = game.setup(header["players"], header["options"], seed=record["setup"]["seed"])
    except (ValueError, KeyError, TypeError) as exc:
        raise RecordError(f"the engine cannot set this record's game up: {exc}") from None
    takebacks = _Takebacks(record, game, header, decisions)
    kept = [game.clone(state)] if states else None
    seen: dict[int | None, list[dict[str, Any]]] = {p: [game.view(state, p)] for p in views}
    if "initial_view" in record:
        _check(0, "view", game.view(state, None), record["initial_view"])
    n = 0
    for n, decision in enumerate(decisions, start=1):
        if not isinstance(decision, dict):
            raise RecordMismatch(n, "decision", "an object", decision)
        state = takebacks.due(n - 1, state)
        _check(n, "n", n, decision.get("n"))
        _check(n, "seat", game.to_move(state), decision.get("seat"))
        action: Any = decision.get("action")  # apply refuses what is not an action of the game
        try:
            events = game.apply(state, action, seat=decision.get("seat"))
        except IllegalAction as exc:
            raise RecordMismatch(n, "action", f"a legal action (refused: {exc})", action) from None
        _check_events(n, events, decision.get("events"))
        takebacks.made(n, decision)
        if "view" in decision:
            _check(n, "view", game.view(state, None), decision["view"])
        if kept is not None:
            kept.append(game.clone(state))
        for p, list_ in seen.items():
            list_.append(game.view(state, p))
    state = takebacks.due(n, state)
    takebacks.finish(n)
    result = game.result(state)
    _check(n, "result", result, record.get("result"))
    recorded_rules = header.get("rules_version", "")
    return Replayed(
        game=game,
        state=state,
        result=result,
        decisions=n,
        rules_version=recorded_rules,
        same_rules=recorded_rules == rules_version(game),
        states=kept,
        views=seen,
    )


class _Takebacks:
    """The takebacks of a record as :func:`replay` meets them (format :data:`FORMAT_TAKEBACKS`).

    Each takes effect as soon as its decisions are the latest in force, in the order of the list: the
    one moment it can have happened, since a decision made after it would be in force and later.  It
    must be one the engine allows (:func:`engine.takeback.take_back`: the seat's own latest decisions,
    none of which drew or revealed); the play then goes on from the position before them.  A decision
    is ``taken_back`` exactly when a takeback names it.
    """

    def __init__(
        self, record: Mapping[str, Any], game: Game, header: Mapping[str, Any], decisions: list[Any]
    ) -> None:
        listed = record.get("takebacks", [])
        if record.get("format") == FORMAT and ("takebacks" in record or _any_taken_back(decisions)):
            raise RecordError(f"a {FORMAT} record holds no takebacks (they are format {FORMAT_TAKEBACKS})")
        if not isinstance(listed, list) or not all(
            isinstance(t, dict)
            and isinstance(t.get("seat"), int)
            and isinstance(t.get("decisions"), list)
            and t["decisions"]
            for t in listed
        ):
            raise RecordError(
                "takebacks: a list of objects, each naming its seat and the decisions it took back"
            )
        self.listed: list[dict[str, Any]] = listed
        self.undone = {n for t in listed for n in t["decisions"]}
        self.next = 0  # the index of the next takeback to take effect
        self.game, self.header, self.seed = game, header, record["setup"]["seed"]
        self.live: list[tuple[int, int, Action]] = []  # (n, seat, action) of the decisions in force

    def made(self, n: int, decision: Mapping[str, Any]) -> None:
        _check(n, "taken_back", n in self.undone, bool(decision.get("taken_back", False)))
        self.live.append((n, decision["seat"], decision["action"]))

    def due(self, n: int, state: Any) -> Any:
        """The state after every takeback that takes effect once decision ``n`` is made."""
        while self.next < len(self.listed):
            takeback = self.listed[self.next]
            numbers = takeback["decisions"]
            if len(numbers) > len(self.live) or [d for d, _, _ in self.live[-len(numbers) :]] != numbers:
                return state
            try:
                state = take_back(
                    self.game,
                    self.header["players"],
                    self.header["options"],
                    self.seed,
                    [(seat, action) for _, seat, action in self.live],
                    int(takeback["seat"]),
                    len(numbers),
                )
            except TakebackRefused as exc:
                raise RecordMismatch(
                    n, f"takebacks[{self.next}]", f"a takeback allowed ({exc})", takeback
                ) from None
            del self.live[-len(numbers) :]
            self.next += 1
        return state

    def finish(self, n: int) -> None:
        """Every takeback took effect, and the decisions marked ``taken_back`` are those they name."""
        if self.next < len(self.listed):
            raise RecordMismatch(
                n, f"takebacks[{self.next}]", "decisions that are the latest in force", self.listed[self.next]
            )


def _any_taken_back(decisions: list[Any]) -> bool:
    return any(isinstance(d, dict) and d.get("taken_back") for d in decisions)


def _canon(obj: Any) -> bytes:
    """``obj``'s JSON with sorted keys: equal for equal JSON whatever the key order, and unequal where
    Python's ``==`` is lenient (``1 == 1.0 == True``)."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def _check(n: int, what: str, expected: Any, got: Any) -> None:
    if _canon(expected) != _canon(got):
        raise RecordMismatch(n, what, expected, got)


def _check_events(n: int, events: list[Event], got: Any) -> None:
    if _canon(events) == _canon(got):
        return
    expected = _plain(events)
    if not isinstance(got, list):
        raise RecordMismatch(n, "events", expected, got)
    for i in range(max(len(expected), len(got))):
        want = expected[i] if i < len(expected) else None
        have = got[i] if i < len(got) else None
        if i >= len(expected) or i >= len(got) or _canon(want) != _canon(have):
            raise RecordMismatch(n, f"events[{i}]", want, have)
