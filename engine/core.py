"""The contract every game implements, and the few helpers all games share.

The service, the workers and the bots use nothing but this contract, so a game is a plug-in: register
it in :mod:`engine.registry` and it is playable over HTTP and by every bot.

A game object has the attributes ``id``, ``title``, ``min_players``, ``max_players``, ``options`` (a JSON
schema of the game options, with defaults), ``actions`` (action type -> JSON schema of that action object),
``rules_file`` (path of the packaged RULES.md), ``search_options`` (fields of
:class:`engine.ai.ismcts.SearchConfig` the game's search bots set differently from the defaults; usually
empty), ``data_notes`` (what in the game's component data is a reconstruction, see :class:`Game`) and
these methods:

``setup(players, options=None, seed=0) -> State``
    A fresh state. ``options`` is validated against ``options`` (see :func:`resolve_options`).
``to_move(state) -> int | None``
    The one seat whose decision is pending; ``None`` once the game is over.  Out-of-turn choices (which
    person to release, which card to keep) are pending decisions of that seat, resolved in a fixed order.
``legal_actions(state) -> list[dict]``
    Every action :meth:`apply` accepts now, as small JSON objects with a ``"type"``.  Compound choices are
    split into sequences of small decisions so this list stays finite and short.
``apply(state, action, seat=None) -> list[Event]``
    Mutates ``state`` and returns events, or raises :class:`IllegalAction` and leaves ``state`` untouched.
    When ``seat`` is given it must be the seat to move (rule ``"turn"``).
``clone(state) -> State``, ``encode(state) -> bytes``, ``decode(data) -> State``
``view(state, seat | None) -> dict``
    The only door out: what that seat (or a spectator, ``None``) may see, JSON-serialisable.  Always has
    ``players`` (one entry per seat) and ``to_move``; the rest is the game's own.
``result(state) -> Result | None``
    ``{"scores": [...], "ranking": [seats, best first], "tiebreak": str | None, ...}`` once over.
``determinize(state, seat, rng) -> State``
    A full state consistent with everything ``seat`` can see, every hidden thing resampled with ``rng``
    (a :class:`random.Random`), including the state's own RNG, so a searcher cannot peek at the future.
``heuristic(state, seat) -> float``
    A cheap evaluation of ``state`` for ``seat`` (higher is better), used by the greedy and search bots.

Randomness lives in the state (:class:`Rng`), so ``apply`` is deterministic: replaying the action log on
``setup(players, options, seed)`` reproduces the state byte for byte.  Seed and RNG state are secrets.
"""

from __future__ import annotations

import zlib
from typing import Any, Protocol, runtime_checkable

import orjson

Action = dict[str, Any]
Event = dict[str, Any]
Result = dict[str, Any]

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
    search_options: dict[str, Any]
    #: What in the game's component data is a reconstruction rather than the printed component, one
    #: ``{"component", "rules": [RULES.md rule ids], "note"}`` each; empty when nothing is.
    data_notes: tuple[dict[str, Any], ...]
    #: JSON schemas of what clients read (each game's ``contract.py``): a seat's or spectator's view,
    #: the result, event type -> event, and action type -> the action as the other seats see it when
    #: part of it is secret (their log and ``action`` events show that form).
    view_schema: dict[str, Any]
    result_schema: dict[str, Any]
    event_schemas: dict[str, dict[str, Any]]
    masked_actions: dict[str, dict[str, Any]]

    def setup(self, players: int, options: dict[str, Any] | None = None, seed: int = 0) -> Any: ...
    def to_move(self, state: Any) -> int | None: ...
    def legal_actions(self, state: Any) -> list[Action]: ...
    def apply(self, state: Any, action: Action, seat: int | None = None) -> list[Event]: ...
    def clone(self, state: Any) -> Any: ...
    def view(self, state: Any, seat: int | None) -> dict[str, Any]: ...
    def result(self, state: Any) -> Result | None: ...
    def determinize(self, state: Any, seat: int, rng: Any) -> Any: ...
    def heuristic(self, state: Any, seat: int) -> float: ...
    def encode(self, state: Any) -> bytes: ...
    def decode(self, data: bytes) -> Any: ...


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
    to = ev["visible_to"]
    if to == "all":
        return True
    if to == "others":
        return seat != ev["seat"]
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
    the shape games publish for their views, results and events (``contract.py`` of each game)."""
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
    schema = actions.get(kind) if isinstance(kind, str) else None
    if schema is None:
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


# --------------------------------------------------------------------------------------------------
# Serialization


def pack(game_id: str, version: int, payload: Any) -> bytes:
    """Versioned, compressed JSON envelope for ``encode``: JSON so a stored state can never execute
    code when decoded (unlike pickle), compressed because states are written on every move."""
    return zlib.compress(orjson.dumps({"g": game_id, "v": version, "s": payload}), 1)


class StateCodec:
    """``clone``/``encode``/``decode`` for a game whose State class offers ``clone()``, ``to_json()`` and
    ``from_json()``: one home for the storage envelope, so every game stores states the same way.

    A game class sets ``state_class`` and bumps ``encoding_version`` when its stored layout changes.
    """

    id: str
    state_class: Any
    encoding_version: int = 1

    def clone(self, state: Any) -> Any:
        return state.clone()

    def encode(self, state: Any) -> bytes:
        return pack(self.id, self.encoding_version, state.to_json())

    def decode(self, data: bytes) -> Any:
        return self.state_class.from_json(unpack(self.id, {self.encoding_version}, data)[1])


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
