"""The documents and requests whose ``game`` names the game, typed per game: ``<G>Match``,
``<G>CreatedMatch``, ``<G>Log``, ``<G>CreateMatch``, ``<G>MoveResult``, ``<G>EventsPage`` and
``<G>LegalActions``, with the game's view, result, options, log, events, actions and seat counts.
``Match``, ``CreatedMatch``, ``Log``, ``CreateMatch``... become oneOf these, discriminated by ``game``,
so a typed client narrows everything at once by checking ``game``.  Also the one ``MatchStatus``."""

from __future__ import annotations

import copy
import json
from typing import Any

from apispec import APISpec

from engine.core import Game
from service.http.spec.refs import one_of, pascal, ref
from service.http.spec.security import describe_requirements
from service.storage.matches import STATUSES


def _split_by_game(
    spec: APISpec, games: dict[str, Game], name: str, typed: dict[str, dict[str, Any]], description: str
) -> None:
    """Replace component ``name`` (an object with a ``game`` property) by a oneOf of per-game copies
    ``<G><name>``, discriminated by ``game``; ``typed`` gives each copy's properties by name, with
    ``{g}``/``{gid}`` filled in, and may name a property ``"seats"`` with per-game item counts."""
    schemas = spec.components.schemas
    base = schemas[name]
    mapping = {}
    for gid in sorted(games):
        game, g = games[gid], pascal(gid)
        variant = copy.deepcopy(base)
        props = variant["properties"]
        props["game"] = {"const": gid}
        for prop, schema in typed.items():
            if prop in props:
                filled = json.loads(json.dumps(schema).replace("{g}", g).replace("{gid}", gid))
                props[prop] = {**props[prop], **filled}
                for key in ("type", "additionalProperties"):
                    if key not in filled:  # exactly the typed schema: no `object &` beside a reference
                        props[prop].pop(key, None)
        if name == "CreateMatch":
            props["seats"] = {**props["seats"], "minItems": game.min_players, "maxItems": game.max_players}
        mapping[gid] = f"{g}{name}"
        schemas[mapping[gid]] = variant
    schemas[name] = one_of(mapping, "game", description)


def _retype(prop: dict[str, Any], schema: dict[str, Any]) -> None:
    """Make a marshmallow ``Dict`` property exactly ``schema`` (keeping its description): apispec's
    ``type: object`` beside a reference makes generators emit ``{[key: string]: unknown} & T``."""
    description = prop.get("description")
    prop.clear()
    prop.update(schema)
    if description:
        prop["description"] = description


def _one_status_enum(spec: APISpec) -> None:
    """Every match status (matches, move results, event pages, the listing filter) as the one
    component ``MatchStatus``, so a generated client has one type to switch on, not one per place."""
    schemas = spec.components.schemas
    spec.components.schema(
        "MatchStatus",
        component={
            "type": "string",
            "enum": list(STATUSES),
            "description": "`waiting`: open seats left to join; `active`: being played; `finished`; "
            "`aborted`: cancelled while waiting, or left by every human.",
        },
    )
    for schema in schemas.values():
        status = schema.get("properties", {}).get("status")
        if status is not None and status.get("enum") == list(STATUSES):
            _retype(status, ref("MatchStatus"))
    for item in spec._paths.values():  # the listing's filter (apispec keeps the paths there until to_dict())
        for operation in item.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter.get("name") == "status" and parameter["schema"].get("enum") == list(STATUSES):
                    parameter["schema"] = ref("MatchStatus")


def describe_documents(spec: APISpec, games: dict[str, Game]) -> None:
    """Type what marshmallow declares as plain dicts: views, results, events, log entries, actions."""
    schemas = spec.components.schemas
    _one_status_enum(spec)
    nullable_result = {"anyOf": [{"$ref": "#/components/schemas/{g}Result"}, {"type": "null"}]}
    match_types: dict[str, dict[str, Any]] = {
        "options": {"$ref": "#/components/schemas/{g}Options"},
        "view": {"$ref": "#/components/schemas/{g}View"},
        "result": nullable_result,
    }
    for name in ("Match", "CreatedMatch"):
        if name in schemas:
            _split_by_game(spec, games, name, match_types, "A match: its `game` tells its view and result.")
    _split_by_game(
        spec,
        games,
        "Log",
        {
            "options": {"$ref": "#/components/schemas/{g}Options"},
            "entries": {"type": "array", "items": {"$ref": "#/components/schemas/{g}LogEntry"}},
        },
        "The action log of a match.",
    )
    schemas.pop("LogEntry", None)  # replaced by the per-game entries
    _split_by_game(
        spec,
        games,
        "CreateMatch",
        {"options": {"$ref": "#/components/schemas/{g}Options"}},
        "A new match of one game: its options and seat count.",
    )
    describe_requirements(spec)
    for parameter in spec._paths.get("/v1/games/{game_id}", {}).get("parameters", []):
        if parameter.get("name") == "game_id":
            parameter["schema"]["enum"] = sorted(games)
    # Answers that name their game: each game's own view, result, events and actions, not the union.
    events_of = {"type": "array", "items": {"$ref": "#/components/schemas/{g}Event"}}
    _split_by_game(
        spec,
        games,
        "MoveResult",
        {"view": {"$ref": "#/components/schemas/{g}View"}, "result": nullable_result, "events": events_of},
        "A move's outcome: its `game` tells its view, result and events.",
    )
    _split_by_game(spec, games, "EventsPage", {"events": events_of}, "A page of a match's events.")
    _split_by_game(
        spec,
        games,
        "LegalActions",
        {"actions": {"type": "array", "items": {"$ref": "#/components/schemas/{g}Action"}}},
        "The actions the caller's seat may submit: its game's own.",
    )
    _retype(schemas["ActionRequest"]["properties"]["action"], ref("Action"))
    drawn = [gid for gid in sorted(games) if getattr(games[gid], "board_schema", None)]
    boards = [ref(f"{pascal(gid)}BoardLayout") for gid in drawn]
    _retype(schemas["Game"]["properties"]["board"], {"anyOf": [*boards, {"type": "null"}]})
