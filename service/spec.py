"""OpenAPI additions that depend on the registered games: every action type as a named component, so
client generators get one real type per action.

Components: ``<game>.<type>`` (the game's own JSON schema of that action), ``<game>.Action`` (oneOf
with a ``type`` discriminator) and ``Action`` (anyOf over the games; what request and response schemas
refer to).  Also the seat-token security scheme.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any

from apispec import APISpec
from flask import Flask

from engine.core import Game

SECURITY_SCHEME = "seatToken"
#: For endpoints open to spectators: a token is optional.
OPTIONAL_SEAT = [{}, {SECURITY_SCHEME: []}]
REQUIRED_SEAT = [{SECURITY_SCHEME: []}]
#: The 403 of the operations that act for the caller's seat (see :func:`errors`).
NOT_YOUR_DECISION = (403, "The pending decision is another seat's.")


def errors(*codes: int | tuple[int, str]) -> dict[int, Any]:
    """An operation's error responses, for ``@blp.doc(responses=...)``.

    A bare status refers to flask-smorest's response component for it (``FORBIDDEN``); a
    ``(status, description)`` pair is that response in the error shape with the operation's own
    description, which a reference cannot carry (``alt_response`` silently dropped it).  Also unlike
    ``alt_response``, this adds no wrapper around the view that runs on every request.
    """
    responses: dict[int, Any] = {}
    for code in codes:
        if isinstance(code, tuple):
            status, description = code
            responses[status] = {
                "description": description,
                "content": {"application/json": {"schema": _ref("Error")}},
            }
        else:
            responses[code] = HTTPStatus(code).name
    return responses


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def describe_match_request(spec: APISpec, games: dict[str, Game]) -> None:
    """Say in the spec what ``CreateMatch`` validation enforces beyond marshmallow's reach: the game id
    is a registered one, the seat count is in the registered games' range, the options fit one game's
    option schema, a seat is a human (name only) or a bot (with level and think time).  Generated
    clients and fuzzers then send real requests."""
    create = spec.components.schemas["CreateMatch"]["properties"]
    create["game"]["enum"] = sorted(games)
    if games:
        create["seats"]["minItems"] = min(g.min_players for g in games.values())
        create["seats"]["maxItems"] = max(g.max_players for g in games.values())
    option_refs = []
    for gid in sorted(games):
        spec.components.schema(
            f"{gid}.Options",
            component={**json.loads(json.dumps(games[gid].options)), "additionalProperties": False},
        )
        option_refs.append(_ref(f"{gid}.Options"))
    if option_refs:
        create["options"]["anyOf"] = option_refs
    seat = spec.components.schemas["SeatRequest"]
    props = seat["properties"]
    human = {"name": props["name"], "kind": {"const": "human", "default": "human"}}
    seat.clear()
    seat["oneOf"] = [
        {"type": "object", "properties": human, "required": ["name"], "additionalProperties": False},
        {
            "type": "object",
            "properties": {**props, "kind": {"const": "bot"}},
            "required": ["name", "kind"],
            "additionalProperties": False,
        },
    ]


def register_components(spec: APISpec, games: dict[str, Game]) -> None:
    spec.components.security_scheme(
        SECURITY_SCHEME,
        {"type": "http", "scheme": "bearer", "description": "A seat token returned by POST /v1/matches."},
    )
    per_game: list[dict[str, Any]] = []
    for gid in sorted(games):
        game = games[gid]
        mapping: dict[str, str] = {}
        for kind in sorted(game.actions):
            name = f"{gid}.{kind}"
            spec.components.schema(name, component=json.loads(json.dumps(game.actions[kind])))
            mapping[kind] = _ref(name)["$ref"]
        spec.components.schema(
            f"{gid}.Action",
            component={
                "description": f"An action of {game.title}.",
                "oneOf": [{"$ref": ref} for ref in mapping.values()],
                "discriminator": {"propertyName": "type", "mapping": mapping},
            },
        )
        per_game.append(_ref(f"{gid}.Action"))
    action: dict[str, Any] = {"type": "object", "description": "An action of the match's game."}
    if per_game:
        action["anyOf"] = per_game
    spec.components.schema("Action", component=action)


def render(app: Flask) -> str:
    """The app's OpenAPI document as committed in ``openapi/openapi.json`` (stable formatting)."""
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec
    return json.dumps(spec.to_dict(), indent=2, ensure_ascii=False) + "\n"
