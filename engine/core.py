"""The contract every game implements, its one implementation, and the few helpers all games share.

"Contract" means one thing in the engine: the :class:`Game` protocol below.  The service, the workers
and the bots use nothing else, so a game is a plug-in: register it in :mod:`engine.registry` and it is
playable over HTTP and by every bot.  Every game implements it the same way: a :class:`GameBase`
subclass over the entry points of its role modules, a :class:`GameRules` (docs/adding-a-game.md).

A game object has the attributes ``id``, ``title``, ``min_players``, ``max_players``, ``options`` (a JSON
schema of the game options, with defaults), ``actions`` (action type -> JSON schema of that action object),
``rules_file`` (path of the packaged RULES.md), ``search_options`` (fields of
:class:`engine.ai.ismcts.SearchConfig` the game's search bots set differently from the defaults; usually
empty), ``data_notes`` (what in the game's component data is a reconstruction, see :class:`Game`), the
output schemas ``view_schema``, ``result_schema``, ``event_schemas``, ``masked_actions`` and these methods:

``setup(players, options=None, seed=0) -> State``
    A fresh state. ``options`` is validated against ``options`` (see :func:`resolve_options`).
``to_move(state) -> int | None``
    The one seat whose decision is pending; ``None`` once the game is over.  Out-of-turn choices (which
    person to release, which card to keep) are pending decisions of that seat, resolved in a fixed order.
``legal_actions(state) -> list[dict]``
    Every action :meth:`apply` accepts now, as small JSON objects with a ``"type"``.  Compound choices are
    split into sequences of small decisions so this list stays finite and short.  Each call returns a
    new list the caller may keep, reorder or cut (the action objects in it are shared: never mutate
    them); see :class:`GameBase` for the cache behind it.
``apply(state, action, seat=None) -> list[Event]``
    Mutates ``state`` and returns events, or raises :class:`IllegalAction` and leaves ``state`` untouched.
    When ``seat`` is given it must be the seat to move (rule ``"turn"``).
``clone(state) -> State``, ``encode(state) -> bytes``, ``decode(data) -> State``
``view(state, seat | None) -> dict``
    The only door out: what that seat (or a spectator, ``None``) may see, JSON-serialisable.  Always has
    ``players`` (one entry per seat) and ``to_move``; the rest is the game's own.
``result(state) -> Result | None``
    Once over, a dict with at least :data:`RESULT_FIELDS`: ``scores`` (per seat), ``ranking`` (every seat,
    best first: a total order), ``winners`` (the seats sharing the win, best first: one seat unless
    the rules let a tie stand) and ``tiebreak`` (the rule that separated equal scores, or ``None``);
    the rest is the game's own.  ``None`` while the game runs.
``determinize(state, seat, rng) -> State``
    A full state consistent with everything ``seat`` can see, every hidden thing resampled with ``rng``
    (a :class:`random.Random`), including the state's own RNG, so a searcher cannot peek at the future.
``sample_from_view(view, seat, rng, seen=None) -> State``
    The same from the other side of the door: a full state rebuilt from ``view(state, seat)`` alone
    (the dict an HTTP client gets, e.g. after a JSON round trip), every hidden thing drawn with
    ``rng`` by the game's own ``determinize``, so a client can run the engine locally (one-ply
    lookahead, IS-MCTS) on a state that ``view`` maps back to exactly ``view``.  Each game rebuilds
    the public and own parts in its ``sampling.py``; ``seen`` (the seat's visible events) is for a game
    whose view alone leaves something out, and no registered game needs it.  Where the history would
    narrow the hidden part beyond what the view says, each game's ``sampling.py`` names what it lets go.
``heuristic(state, seat) -> float``
    A cheap evaluation of ``state`` for ``seat`` (higher is better), used by the greedy and search bots.
``max_decisions(players) -> int``
    A proven upper bound on the decisions (``apply`` calls) of any game with that many players, under
    any options and whatever the seats choose: every game ends, and within this many decisions (the
    derivation is in each game's ``flow.max_decisions``).  Loose on purpose: it must hold for the most
    stubborn play, not describe a typical game.  OpenSpiel's ``max_game_length`` is this number.

Randomness lives in the state (:class:`Rng`), so ``apply`` is deterministic: replaying the action log on
``setup(players, options, seed)`` reproduces the state byte for byte.  Seed and RNG state are secrets.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar, cast, runtime_checkable

import orjson

Action = dict[str, Any]
Event = dict[str, Any]
Result = dict[str, Any]

#: The fields every game's result has (see ``result`` above); the contract suite checks them.
RESULT_FIELDS = ("scores", "ranking", "winners", "tiebreak")

#: Rule id used when an action is malformed (unknown type, missing/extra/ill-typed field).
RULE_SCHEMA = "schema"
#: Rule id used when an action is submitted for a seat whose decision is not pending.
RULE_TURN = "turn"
#: Rule id used when the game is already over.
RULE_OVER = "game-over"


class IllegalAction(Exception):
    """An action the rules (or the action schema) refuse.

    ``rule`` is a rule number of the game's RULES.md (``"R23"``) or one of ``RULE_SCHEMA``, ``RULE_TURN``,
    ``RULE_OVER``; ``field`` names the offending action field when there is one.  Clients see all three.
    """

    def __init__(self, rule: str, message: str, field: str | None = None) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message
        self.field = field


class InvalidOptions(ValueError):
    """Options or a player count that ``setup`` cannot accept; ``field`` names the culprit."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@runtime_checkable
class Game(Protocol):
    """Structural type of a game; see the module docstring for the meaning of each member."""

    id: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]
    actions: dict[str, dict[str, Any]]
    rules_file: str
    search_options: ClassVar[dict[str, Any]]
    #: What in the game's component data is a reconstruction rather than the printed component, one
    #: ``{"component", "rules": [RULES.md rule ids], "note"}`` each; empty when nothing is.
    data_notes: tuple[dict[str, Any], ...]
    #: JSON schemas of what clients read (each game's ``outputs.py``): a seat's or spectator's view,
    #: the result, event type -> event, and action type -> the action as the other seats see it when
    #: part of it is secret (their log and ``action`` events show that form).
    view_schema: dict[str, Any]
    result_schema: dict[str, Any]
    event_schemas: dict[str, dict[str, Any]]
    masked_actions: dict[str, dict[str, Any]]
    #: The board as data for clients to draw (each game's ``board.py``: spaces, roads or borders,
    #: colours, layout), and its JSON schema; ``None`` for a game that publishes none.
    board: dict[str, Any] | None
    board_schema: dict[str, Any] | None

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> Any: ...
    def to_move(self, state: Any) -> int | None: ...
    def legal_actions(self, state: Any) -> list[Action]: ...
    def apply(self, state: Any, action: Action, seat: int | None = None) -> list[Event]: ...
    def clone(self, state: Any) -> Any: ...
    def view(self, state: Any, seat: int | None) -> dict[str, Any]: ...
    def result(self, state: Any) -> Result | None: ...
    def determinize(self, state: Any, seat: int, rng: Any) -> Any: ...
    def sample_from_view(self, view: dict[str, Any], seat: int, rng: Any, seen: Any = None) -> Any: ...
    def heuristic(self, state: Any, seat: int) -> float: ...
    def encode(self, state: Any) -> bytes: ...
    def decode(self, data: bytes) -> Any: ...
    def max_decisions(self, players: int) -> int: ...


# --------------------------------------------------------------------------------------------------
# Randomness


_MASK = (1 << 64) - 1


class Rng:
    """A small seeded generator (splitmix64) whose whole state is one integer.

    Python's ``random.Random`` carries 625 words of state, which would bloat every stored state and slow
    down every clone; one integer encodes, clones and compares for free, and its output is identical on
    every platform, which log replay relies on.
    """

    __slots__ = ("s",)

    def __init__(self, seed: int = 0) -> None:
        self.s = seed & _MASK

    def next64(self) -> int:
        self.s = s = (self.s + 0x9E3779B97F4A7C15) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Uniform integer in ``range(n)`` (multiply-shift; bias < n / 2**64)."""
        return (self.next64() * n) >> 64

    def choice(self, seq: list[Any]) -> Any:
        return seq[self.below(len(seq))]

    def shuffle(self, items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Rng:
        return Rng(self.s)

    @classmethod
    def reseeded(cls, rng: Any) -> Rng:
        """A fresh generator drawn from a bot's ``random.Random``: used by ``determinize``."""
        return cls(rng.getrandbits(64))


# --------------------------------------------------------------------------------------------------
# Events


def event(kind: str, visible_to: str | list[int] = "all", **data: Any) -> Event:
    """Build an event.  ``visible_to`` is ``"all"``, a list of seats, or ``"others"``.

    ``"others"`` means everybody (spectators included) except ``data["seat"]``: it carries the public
    half of an action whose private half goes to ``[seat]`` alone (see :func:`action_events`).
    """
    return {"type": kind, "visible_to": visible_to, **data}


def action_events(seat: int, action: Action, public: Action | None = None) -> list[Event]:
    """The ``action`` event(s) every successful ``apply`` emits first.

    With ``public`` given, the acting seat sees the full action and everyone else sees ``public``.
    """
    if public is None:
        return [{"type": "action", "visible_to": "all", "seat": seat, "action": action}]
    return [
        {"type": "action", "visible_to": [seat], "seat": seat, "action": action},
        {"type": "action", "visible_to": "others", "seat": seat, "action": public},
    ]


def event_visible(ev: Event, seat: int | None) -> bool:
    """Whether ``seat`` (``None`` = spectator) may see ``ev``: the one filter every consumer uses."""
    to: str | list[int] = ev["visible_to"]
    if to == "all":
        return True
    if to == "others":
        actor: int = ev["seat"]
        return seat != actor
    return seat is not None and seat in to


# --------------------------------------------------------------------------------------------------
# Options and action schemas


def resolve_options(schema: dict[str, Any], options: dict[str, Any] | None) -> dict[str, Any]:
    """Validate ``options`` against a game's flat option schema and fill in defaults.

    The schemas are deliberately simple (booleans, integers, strings with ``enum``) so this stays a
    dozen lines instead of a JSON-schema dependency in the pure core.
    """
    options = dict(options or {})
    props: dict[str, Any] = schema.get("properties", {})
    unknown = sorted(set(options) - set(props))
    if unknown:
        raise InvalidOptions(unknown[0], f"unknown option {unknown[0]!r}; known: {sorted(props)}")
    resolved: dict[str, Any] = {}
    for name, spec in props.items():
        value = options.get(name, spec.get("default"))
        kind = spec.get("type")
        ok = {
            "boolean": lambda v: isinstance(v, bool),
            "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "string": lambda v: isinstance(v, str),
        }.get(kind, lambda v: True)(value)
        if not ok:
            raise InvalidOptions(name, f"must be of type {kind}, got {value!r}")
        if "enum" in spec and value not in spec["enum"]:
            raise InvalidOptions(name, f"must be one of {spec['enum']}, got {value!r}")
        resolved[name] = value
    return resolved


def check_players(game: Game, players: Any) -> None:
    """Refuse a player count that is not an integer in the game's range (the API's 422 names it)."""
    if not isinstance(players, int) or isinstance(players, bool):
        raise InvalidOptions("players", f"must be an integer, got {players!r}")
    if not game.min_players <= players <= game.max_players:
        raise InvalidOptions(
            "players", f"{game.title} takes {game.min_players}-{game.max_players} players, not {players}"
        )


def action_schema(kind: str, description: str, **fields: dict[str, Any]) -> dict[str, Any]:
    """JSON schema of one action type: an object with a constant ``type`` and the given fields, all
    required, nothing else allowed.  Games declare their ``actions`` with it; clients generate types
    from it."""
    return {
        "type": "object",
        "description": description,
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


def closed_object(optional: dict[str, Any] | None = None, **required: dict[str, Any]) -> dict[str, Any]:
    """JSON schema of an object with exactly these ``required`` fields and maybe the ``optional`` ones:
    the shape games publish for their views, results and events (``outputs.py`` of each game)."""
    return {
        "type": "object",
        "properties": {**required, **(optional or {})},
        "required": list(required),
        "additionalProperties": False,
    }


def array_of(items: dict[str, Any], **bounds: int) -> dict[str, Any]:
    """JSON schema of a list of ``items`` (``minItems``/``maxItems`` as keywords)."""
    return {"type": "array", "items": items, **bounds}


def named(title: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with a ``title``: the spec publishes it as its own component (``<Game><title>``),
    so generated clients get a named type for a part of a view that is reused or worth naming."""
    return {"title": title, **schema}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` or null, in the form both OpenAPI 3.1 client generators we test read as optional."""
    return {"anyOf": [schema, {"type": "null"}]}


def event_schema(
    kind: str, description: str, optional: dict[str, Any] | None = None, **fields: dict[str, Any]
) -> dict[str, Any]:
    """JSON schema of one event type as clients receive it: a constant ``type`` and the given fields
    (``visible_to`` is the service's business and never reaches a client)."""
    return {"description": description, **closed_object(optional, type={"const": kind}, **fields)}


def check_shape(actions: dict[str, dict[str, Any]], action: Any) -> str:
    """Refuse an action object that does not fit its declared schema; return its type.

    Checks what the schema promises and nothing more: the type is known, exactly the declared fields,
    their kinds and their declared ``enum``/``minimum``/``maximum``; the rules check the rest.  The
    service calls it before comparing versions, so a malformed move is refused as such whatever the
    match's version.  Cheap enough for the hot path: a dict lookup, a key-set comparison, a few tests.
    """
    if not isinstance(action, dict):
        raise IllegalAction(RULE_SCHEMA, "an action must be a JSON object", field=None)
    kind = action.get("type")
    if not isinstance(kind, str) or (schema := actions.get(kind)) is None:
        raise IllegalAction(RULE_SCHEMA, f"unknown action type {kind!r}; known: {sorted(actions)}", "type")
    props = schema["properties"]
    if action.keys() != props.keys():
        missing = [f for f in props if f not in action]
        if missing:
            raise IllegalAction(RULE_SCHEMA, f"{kind}: missing field {missing[0]!r}", missing[0])
        extra = next(f for f in action if f not in props)
        raise IllegalAction(RULE_SCHEMA, f"{kind}: unknown field {extra!r}", extra)
    for name, spec in props.items():
        want = spec.get("type")
        value = action[name]
        if want == "integer" and (not isinstance(value, int) or isinstance(value, bool)):
            raise IllegalAction(RULE_SCHEMA, f"{kind}: field {name!r} must be an integer", name)
        if want == "string" and not isinstance(value, str):
            raise IllegalAction(RULE_SCHEMA, f"{kind}: field {name!r} must be a string", name)
        if want == "boolean" and not isinstance(value, bool):
            raise IllegalAction(RULE_SCHEMA, f"{kind}: field {name!r} must be a boolean", name)
        if "enum" in spec and value not in spec["enum"]:
            raise IllegalAction(RULE_SCHEMA, f"{kind}: field {name!r} must be one of {spec['enum']}", name)
        if ("minimum" in spec and value < spec["minimum"]) or ("maximum" in spec and value > spec["maximum"]):
            bounds = f"{spec.get('minimum', '-inf')}..{spec.get('maximum', 'inf')}"
            raise IllegalAction(RULE_SCHEMA, f"{kind}: field {name!r} must be in {bounds}", name)
    return kind


def check_turn(to_move: int | None, seat: int | None) -> int:
    """Refuse an action when the game is over or ``seat`` (if given) is not the one to move."""
    if to_move is None:
        raise IllegalAction(RULE_OVER, "the game is over; no action is pending")
    if seat is not None and seat != to_move:
        raise IllegalAction(RULE_TURN, f"seat {seat} is not to move; seat {to_move} is")
    return to_move


K = TypeVar("K")


class ActionTable(dict[K, Action]):
    """Action objects by key, each built by ``build(key)`` on first use and shared from then on: what a
    legal-action generator looks up instead of writing a dict literal per action.

    Legal actions are shared and never mutated (see :class:`GameBase`), so one object per action is
    sound, and finding it costs about a third of building it, which is most of a legal list's cost in
    the bots' inner loop.  The key is one int or str (an index, a few small numbers combined, a
    payment's name): a tuple key costs about what it saves.  The table holds the actions seen so far.
    """

    __slots__ = ("build",)

    def __init__(self, build: Callable[[K], Action]) -> None:
        super().__init__()
        self.build = build

    def __missing__(self, key: K) -> Action:
        action = self[key] = self.build(key)
        return action


# --------------------------------------------------------------------------------------------------
# Serialization


def pack(game_id: str, version: int, payload: Any) -> bytes:
    """Versioned, compressed JSON envelope for ``encode``: JSON so a stored state can never execute
    code when decoded (unlike pickle), compressed because states are written on every move."""
    return zlib.compress(orjson.dumps({"g": game_id, "v": version, "s": payload}), 1)


def unpack(game_id: str, versions: set[int] | frozenset[int], data: bytes) -> tuple[int, Any]:
    """Inverse of :func:`pack`; refuses another game's state or an unknown version."""
    try:
        doc = orjson.loads(zlib.decompress(data))
    except (zlib.error, ValueError) as exc:
        raise ValueError(f"not an encoded {game_id} state: {exc}") from None
    if doc.get("g") != game_id:
        raise ValueError(f"encoded state is for game {doc.get('g')!r}, not {game_id!r}")
    if doc.get("v") not in versions:
        raise ValueError(f"unsupported {game_id} state version {doc.get('v')!r}")
    return doc["v"], doc["s"]


# --------------------------------------------------------------------------------------------------
# The one implementation of the contract


class GameState(Protocol):
    """What :class:`GameBase` needs of a game's State class.

    ``_legal`` is the cached legal list of the pending decision (``None``: not computed yet); it is
    never encoded.  ``clone()`` copies it by reference, which is sound because the cache is replaced,
    never mutated in place (see :class:`GameBase`).
    """

    _legal: list[Action] | None

    def clone(self) -> Self: ...
    def to_json(self) -> Any: ...
    @classmethod
    def from_json(cls, doc: Any) -> Self: ...


S = TypeVar("S", bound=GameState)

#: An action handler of ``actions.py``: ``(state, seat, action, events)``; it mutates ``state`` and
#: appends the events that follow (the action event itself is already in ``events``).
Handler = Callable[[S, int, Action, list[Event]], None]


@dataclass(frozen=True, slots=True)
class GameRules(Generic[S]):
    """The entry points of a game's role modules (docs/adding-a-game.md), one field per role; what a
    game declares instead of writing the contract's methods itself.

    ``forced`` and ``public_action`` are the optional ones: a game without decisions the engine plays
    itself, or without secret parts in its actions, leaves them ``None`` and pays nothing for them.
    ``max_decisions`` is optional only for games outside the registry (test doubles): the research
    adapters need it.
    """

    #: ``setup.setup(players, options, seed)``: a fresh state; ``options`` already resolved.
    setup: Callable[[int, dict[str, Any], int], S]
    #: ``flow.to_move(state)``: the seat of the pending decision, ``None`` once over.
    to_move: Callable[[S], int | None]
    #: ``legal.legal_actions(state)``: a new list of the pending decision's actions, ``[]`` once over.
    legal: Callable[[S], list[Action]]
    #: ``actions.HANDLERS``: action type -> handler, run only for actions in the legal list.
    handlers: Mapping[str, Handler[S]]
    #: ``explain.explain(state, seat, action)``: why a well-formed action outside the legal list is
    #: refused, naming the rule (the cold path).
    explain: Callable[[S, int, Action], IllegalAction]
    #: ``view.view(state, seat)`` and ``view.determinize(state, seat, rng)``.
    view: Callable[[S, int | None], dict[str, Any]]
    determinize: Callable[[S, int, random.Random], S]
    #: ``scoring.result(state)``: the result (with :data:`RESULT_FIELDS`) once over, else ``None``.
    result: Callable[[S], Result | None]
    #: ``heuristic.heuristic(state, seat)``.
    heuristic: Callable[[S, int], float]
    #: ``flow.forced(state, only)``: whether the engine plays ``only``, the single legal action of the
    #: pending decision, itself.  Only when the lone option follows from public facts: skipping a
    #: decision is visible, so a skip made possible by a hidden hand would reveal the hand.
    forced: Callable[[S, Action], bool] | None = None
    #: ``view.public_action(state, action)``: the action as the other seats see it (one of the game's
    #: ``masked_actions``) when part of it is secret, else ``None``.
    public_action: Callable[[S, Action], Action | None] | None = None
    #: ``flow.max_decisions(players)``: the proven bound on a game's decisions (see :class:`Game`);
    #: every registered game declares one.
    max_decisions: Callable[[int], int] | None = None
    #: ``sampling.sample_from_view(view, seat, rng, seen)``: a full state rebuilt from a seat's view
    #: (see :class:`Game`); every registered game has one, test doubles may not.
    sample_from_view: Callable[[dict[str, Any], int, random.Random, Any], S] | None = None
    #: ``takeback.blocker(before, seat, action, after, events)``: what one step (a decision and its
    #: forced steps) drew at random or revealed, as an :class:`engine.takeback.Blocker`, or ``None``
    #: (engine/takeback.py); a game without one has no step taken back.
    takeback: Callable[[S, int, Action, S, list[Event]], Any] | None = None


def _action_events(rules: GameRules[S], state: S, seat: int, action: Action) -> list[Event]:
    """The action event(s) of ``action``: its public form to the others when part of it is secret."""
    public_action = rules.public_action
    if public_action is None:
        return action_events(seat, action)
    return action_events(seat, action, public_action(state, action))


def play_forced(
    rules: GameRules[S],
    state: S,
    events: list[Event],
    on_step: Callable[[S, int, Action], None] | None = None,
) -> None:
    """Play every pending decision whose single legal action ``rules.forced`` lets the engine play, each
    action event marked ``"auto": True``, until a seat has a choice or the game is over; the last list
    computed stays cached.  The last step of every ``apply``; scenario builders call it too, to leave a
    state where the rules would.  ``on_step(state, seat, action)`` runs before each forced step: the
    takebacks (engine/takeback.py) judge each step on its own."""
    forced = rules.forced
    if forced is None:
        return
    while True:
        legal = state._legal
        if legal is None:
            legal = state._legal = rules.legal(state)  # [] once over
        if len(legal) != 1 or not forced(state, legal[0]):
            return
        only = legal[0]
        seat = cast(int, rules.to_move(state))  # a legal action means a seat to move
        if on_step is not None:
            on_step(state, seat, only)
        for ev in _action_events(rules, state, seat, only):
            ev["auto"] = True
            events.append(ev)
        state._legal = None
        rules.handlers[only["type"]](state, seat, only, events)


#: The value types of action fields (:func:`action_schema`: integers and strings).
_PLAIN = frozenset((int, str))


class GameBase(Generic[S]):
    """The :class:`Game` contract implemented once, over the functions a game names in ``rules``.

    A game subclasses it, sets the contract's attributes, ``state_class``, ``rules`` and maybe
    ``encoding_version`` (bumped when the stored layout changes), and writes no methods; a game package
    passes ``package=__package__`` instead of setting what its role modules hold (see
    ``__init_subclass__``).

    - ``apply`` is one pipeline for every game: the turn (:func:`check_turn`), the action's shape
      (:func:`check_shape`) and membership in the cached legal list, and on a miss the game's
      ``explain`` (cold path).  On the hot path membership comes first: an action equal to a legal one
      whose values are plain ints and strings fits its schema by construction, so the shape check
      runs only for the others (and names the malformed field before ``explain`` is asked).  Then
      the action event(s) (secret parts through ``public_action``), the handler of the action type,
      and the forced decisions: while the pending decision has one legal action and ``forced``
      allows it, the engine plays it, its action event marked ``"auto": True``.
      Membership in the legal list is the whole rules check, so ``legal_actions`` is exactly what
      ``apply`` accepts by construction.
    - The legal list is cached on the state (``state._legal``, never encoded): computed on first need,
      dropped by ``apply`` before the handler runs (a handler or the flow may fill it with the next
      decision's list when it computed that list anyway), shared with clones (sound because the cache
      is only ever replaced, never mutated in place, and saves the bots recomputing it for every child
      of a node), and dropped by ``determinize`` (a resampled world may give a seat other options).
      ``legal_actions`` returns a copy, so no caller can corrupt the cache.
    - ``clone``/``encode``/``decode`` use the State's ``clone()``, ``to_json()``, ``from_json()`` inside
      the one storage envelope (:func:`pack`), so every game stores states the same way.

    The other methods are the role functions themselves, bound as attributes: no forwarding layer on
    the bots' hot path.
    """

    id: str
    title: str
    min_players: int
    max_players: int
    options: dict[str, Any]
    actions: dict[str, dict[str, Any]]
    rules_file: str
    search_options: ClassVar[dict[str, Any]] = {}
    data_notes: tuple[dict[str, Any], ...] = ()
    view_schema: dict[str, Any]
    result_schema: dict[str, Any]
    event_schemas: dict[str, dict[str, Any]]
    masked_actions: dict[str, dict[str, Any]]
    board: dict[str, Any] | None = None
    board_schema: dict[str, Any] | None = None
    state_class: type[S]
    encoding_version: ClassVar[int] = 1
    rules: ClassVar[GameRules[Any]]

    to_move: Callable[[S], int | None]
    view: Callable[[S, int | None], dict[str, Any]]
    result: Callable[[S], Result | None]
    heuristic: Callable[[S, int], float]

    def __init_subclass__(cls, package: str | None = None, **kwargs: Any) -> None:
        """``class China(GameBase[State], package=__package__)``: take what a game package declares
        from its role modules by their standard names (docs/adding-a-game.md): ``RULES.md``,
        ``components.DATA_NOTES``, the schemas of ``inputs`` and ``outputs``, and ``rules`` from the
        entry points of the others (``flow.forced``, ``view.public_action`` and ``takeback.blocker``
        where they exist)."""
        super().__init_subclass__(**kwargs)
        if package is None:
            return

        def role(name: str) -> Any:
            return import_module(f"{package}.{name}")

        inputs, outputs, flow, view = role("inputs"), role("outputs"), role("flow"), role("view")
        cls.rules_file = str(Path(inputs.__file__).with_name("RULES.md"))
        cls.data_notes = role("components").DATA_NOTES
        cls.options, cls.actions = inputs.OPTIONS, inputs.ACTIONS
        cls.view_schema, cls.result_schema = outputs.VIEW, outputs.RESULT
        cls.event_schemas, cls.masked_actions = outputs.EVENTS, outputs.MASKED_ACTIONS
        if find_spec(f"{package}.board") is not None:  # a published board is optional
            board = role("board")
            cls.board, cls.board_schema = board.BOARD, board.BOARD_SCHEMA
        cls.rules = GameRules(
            setup=role("setup").setup,
            to_move=flow.to_move,
            legal=role("legal").legal_actions,
            handlers=role("actions").HANDLERS,
            explain=role("explain").explain,
            view=view.view,
            determinize=view.determinize,
            result=role("scoring").result,
            heuristic=role("heuristic").heuristic,
            forced=getattr(flow, "forced", None),
            public_action=getattr(view, "public_action", None),
            max_decisions=getattr(flow, "max_decisions", None),
            sample_from_view=role("sampling").sample_from_view,
            takeback=role("takeback").blocker if find_spec(f"{package}.takeback") is not None else None,
        )

    def __init__(self) -> None:
        rules: GameRules[S] = self.rules
        self.to_move = rules.to_move
        self.view = rules.view
        self.result = rules.result
        self.heuristic = rules.heuristic
        self._rules = rules

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> S:
        check_players(self, players)
        return self._rules.setup(players, resolve_options(self.options, options), seed)

    def legal_actions(self, state: S) -> list[Action]:
        legal = state._legal
        if legal is None:
            legal = state._legal = self._rules.legal(state)
        return legal[:]

    def apply(self, state: S, action: Action, seat: int | None = None) -> list[Event]:
        rules = self._rules
        mover = check_turn(rules.to_move(state), seat)
        legal = state._legal
        if legal is None:
            legal = state._legal = rules.legal(state)
        # A legal action fits its schema (the contract suite checks it), and so does an action equal
        # to one with plain values; the type guard stops values equal to but not of the declared type
        # (True == 1.0 == 1).  The shape check runs only when both tests fail.  The first test is
        # identity: a bot passes back one of the listed objects, and then the type guard is moot.
        try:
            listed = legal[legal.index(action)] is action
        except ValueError:
            listed = False
        if not listed and (action not in legal or not _PLAIN.issuperset(map(type, action.values()))):
            check_shape(self.actions, action)
            if action not in legal:
                raise rules.explain(state, mover, action)
        public_action = rules.public_action
        if public_action is None:
            events = action_events(mover, action)
        else:
            events = action_events(mover, action, public_action(state, action))
        state._legal = None
        rules.handlers[action["type"]](state, mover, action, events)
        if rules.forced is not None:
            play_forced(rules, state, events)
        return events

    def determinize(self, state: S, seat: int, rng: random.Random) -> S:
        sample = self._rules.determinize(state, seat, rng)
        sample._legal = None  # the sample may hide a different hand behind the same view
        return sample

    def sample_from_view(self, view: dict[str, Any], seat: int, rng: random.Random, seen: Any = None) -> S:
        """A full state whose ``view(state, seat)`` equals ``view``, hidden parts drawn with ``rng``.

        Rebuilding costs more than a ``determinize`` (up to ~0.7 ms against 0.03 ms for China), and
        ``determinize`` depends on the seat's information alone: a searcher rebuilds once per decision
        and draws each further world with ``determinize(sample, seat, rng)``."""
        sample_from_view = self._rules.sample_from_view
        if sample_from_view is None:
            raise NotImplementedError(f"{self.id} cannot rebuild a state from a view (sampling.py)")
        sample = sample_from_view(view, seat, rng, seen)
        sample._legal = None  # built afresh: nothing cached belongs to it
        return sample

    def clone(self, state: S) -> S:
        return state.clone()

    def max_decisions(self, players: int) -> int:
        bound = self._rules.max_decisions
        if bound is None:
            raise NotImplementedError(f"{self.id} declares no bound on its decisions (flow.max_decisions)")
        check_players(self, players)
        return bound(players)

    def encode(self, state: S) -> bytes:
        return pack(self.id, self.encoding_version, state.to_json())

    def decode(self, data: bytes) -> S:
        return self.state_class.from_json(unpack(self.id, {self.encoding_version}, data)[1])
