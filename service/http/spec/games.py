"""Each game's components, from its output schemas (``engine/games/<game>/outputs.py``) and input
schemas (``inputs.py``); ``<G>`` is the game id in PascalCase (``YearOfDragon``):

- ``<G><Type>Action`` per action type and ``<G>Action`` (oneOf, discriminated by ``type``);
  ``<G>Masked<Type>Action``: an action as the other seats see it when part of it is secret;
- ``<G>BoardLayout``: the board as data (each game's ``board``), typing ``Game.board``;
- ``<G>View``, ``<G>Result``, and ``<G><Title>`` for each part of them the game named
  (``engine.core.named``: ``ChinaPlayer``, ``TajMahalCard``);
- ``<G>LogEntry``; and the game's events (:mod:`service.http.spec.events`), whose titled parts are
  named the same way.

``<G>Options`` comes later, with the match request (:mod:`service.http.spec.requests`).
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from engine.core import Game
from service.http.spec.events import game_event_name, game_event_union, game_events
from service.http.spec.refs import copy_schema, one_of, pascal, ref

#: Fields the service adds to a game's result (service/domain/matches/operations.py), never required.
SERVICE_RESULT_FIELDS: dict[str, Any] = {
    "resigned": {
        "type": "array",
        "items": {"type": "integer", "minimum": 0},
        "description": "The seats that resigned, in order.",
    },
    "decisions": {
        "type": "array",
        "items": {"type": "integer", "minimum": 0},
        "description": "Per seat, the decisions committed for it, whoever made them (issue 42).",
    },
    "stand_in": {
        "type": "array",
        "items": {"type": "integer", "minimum": 0},
        "description": "Per seat, how many of its decisions a stand-in made: the clock's `on_timeout` bot "
        "for a decision out of time, the bot of an away or resigned seat. A seat a stand-in mostly "
        "played is rated last in a rated match.",
    },
}


def _hoist(node: Any, prefix: str, named: dict[str, dict[str, Any]], seeded: frozenset[str]) -> Any:
    """``node`` with every sub-schema that has a ``title`` replaced by a reference to the component
    ``<prefix><title>`` (collected in ``named``), so generated code names it (``ChinaPlayer``, not
    ``ChinaViewPlayersItem``).  Games title the parts of their schemas they reuse; a title used twice
    must mean the same schema (a different description may stand beside the reference).  Names in
    ``seeded`` are components already made (the result, whose view copy lacks the service's fields)."""
    if isinstance(node, list):
        return [_hoist(item, prefix, named, seeded) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: {k: _hoist(v, prefix, named, seeded) for k, v in value.items()}  # names, not keywords
        if key == "properties"
        else _hoist(value, prefix, named, seeded)
        for key, value in node.items()
    }
    title = out.pop("title", None)
    if title is None:
        return out
    name = f"{prefix}{title}"
    known = named.setdefault(name, out)
    if name not in seeded and {**known, "description": None} != {**out, "description": None}:
        raise ValueError(f"two different schemas are titled {title!r}: {known} and {out}")
    if out.get("description") and out.get("description") != known.get("description"):
        return {**ref(name), "description": out["description"]}
    return ref(name)


def _game_schema(game: Game, attribute: str, fallback: dict[str, Any]) -> dict[str, Any]:
    """A schema from the game's contract; a game without one (a test game) gets ``fallback``."""
    schema = getattr(game, attribute, None)
    return copy_schema(schema) if schema is not None else fallback


def _log_entry(shown_action: dict[str, Any]) -> dict[str, Any]:
    """``<G>LogEntry``: a decision (its action as the caller sees it, ``shown_action``) or a takeback."""
    entry_version = {"type": "integer", "description": "The version this entry produced."}
    return {
        "oneOf": [
            {
                "type": "object",
                "description": "A decision.",
                "properties": {
                    "version": entry_version,
                    "seat": {"type": "integer"},
                    "action": {**shown_action, "description": "The action, as the caller sees it."},
                },
                "required": ["version", "seat", "action"],
                "additionalProperties": False,
            },
            {
                "type": "object",
                "description": "A takeback: `seat`'s last `takeback` decisions in force were "
                "taken back (replaying the log undoes them here).",
                "properties": {
                    "version": entry_version,
                    "seat": {"type": "integer"},
                    "takeback": {"type": "integer", "minimum": 1},
                },
                "required": ["version", "seat", "takeback"],
                "additionalProperties": False,
            },
        ]
    }


def register_game(spec: APISpec, gid: str, game: Game) -> None:
    """The components of game ``gid``, in the order the committed document lists them."""
    g = pascal(gid)
    mapping = {}
    for kind in sorted(game.actions):
        mapping[kind] = f"{g}{pascal(kind)}Action"
        spec.components.schema(mapping[kind], component=copy_schema(game.actions[kind]))
    spec.components.schema(f"{g}Action", component=one_of(mapping, "type", f"An action of {game.title}."))
    masked = []
    for kind, schema in sorted(getattr(game, "masked_actions", {}).items()):
        spec.components.schema(f"{g}Masked{pascal(kind)}Action", component=copy_schema(schema))
        masked.append(ref(f"{g}Masked{pascal(kind)}Action"))
    shown_action = {"anyOf": [ref(f"{g}Action"), *masked]} if masked else ref(f"{g}Action")
    result = _game_schema(game, "result_schema", {"type": "object"})
    result.pop("title", None)
    result.setdefault("properties", {}).update(copy_schema(SERVICE_RESULT_FIELDS))
    named: dict[str, dict[str, Any]] = {f"{g}Result": result}
    seeded = frozenset(named)
    named[f"{g}Result"] = _hoist(result, g, named, seeded)
    view = _game_schema(game, "view_schema", {"type": "object", "properties": {"game": {"const": gid}}})
    view.pop("title", None)
    spec.components.schema(f"{g}View", component=_hoist(view, g, named, seeded))
    board = getattr(game, "board_schema", None)
    if board is not None:  # GET /v1/games/{game}: board (see service.http.spec.documents)
        board = copy_schema(board)
        board.pop("title", None)
        spec.components.schema(f"{g}BoardLayout", component=board)
    spec.components.schema(f"{g}LogEntry", component=_log_entry(shown_action))
    events = game_events(game, g, shown_action)
    for kind in sorted(events):
        spec.components.schema(game_event_name(g, kind), component=_hoist(events[kind], g, named, seeded))
    for name in sorted(named):  # the titled parts, the result among them
        spec.components.schema(name, component=named[name])
    spec.components.schema(f"{g}Event", component=game_event_union(game, g, list(events)))
