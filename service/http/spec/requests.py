"""What the spec says of requests beyond marshmallow's reach: ``CreateMatch`` (the game id, the seat
count, ``<G>Options``), its seats as named per-kind requests (``HumanSeatRequest``...), and the
defaults of request-only components said in their descriptions.  :func:`describe_match_request` is
the second step of building the document, once the blueprints registered their schemas."""

from __future__ import annotations

import json
from typing import Any

from apispec import APISpec

from engine.core import Game
from service.http.spec.documents import describe_documents
from service.http.spec.refs import copy_schema, pascal, ref

#: A human seat's ``kind`` may be left out: it is the server's default (said in the description, see
#: :func:`_request_defaults_described`).
HUMAN_KIND: dict[str, Any] = {
    "const": "human",
    "default": "human",
    "description": "Optional: a seat without `kind` is a human's.",
}
#: A bot seat must say ``kind`` (without it the server seats a human), but a generated client need not be
#: told: openapi-python-client makes a required property's ``default`` its argument's default
#: (``BotSeatRequest(name=...)`` sends ``"kind": "bot"``), and openapi-typescript keeps it required.
BOT_KIND: dict[str, Any] = {
    "const": "bot",
    "default": "bot",
    "description": "Required in the JSON: without it a seat is a human's.",
}


def describe_match_request(spec: APISpec, games: dict[str, Game]) -> None:
    """Say in the spec what ``CreateMatch`` validation enforces beyond marshmallow's reach: the game id
    is a registered one, the seat count is the game's, the options fit the game's option schema, a
    seat is a human (name only) or a bot (with level and think time).  Generated clients and fuzzers
    then send real requests.  Runs once the blueprints registered their schemas, so it also types
    the documents (:func:`~service.http.spec.documents.describe_documents`)."""
    create = spec.components.schemas["CreateMatch"]["properties"]
    create["game"]["enum"] = sorted(games)
    if games:
        create["seats"]["minItems"] = min(g.min_players for g in games.values())
        create["seats"]["maxItems"] = max(g.max_players for g in games.values())
    for gid in sorted(games):
        spec.components.schema(
            f"{pascal(gid)}Options",
            component={
                **copy_schema(games[gid].options),
                "description": f"Options of {games[gid].title}.",
                "additionalProperties": False,
            },
        )
    create.pop("options", None)  # each game's variant (below) names its own options
    create["options"] = {"type": "object", "description": "Game options; see `GET /v1/games/{game}`."}
    _describe_seat_requests(spec)
    describe_documents(spec, games)
    _request_defaults_described(spec)


def _referenced(node: Any, schemas: dict[str, Any]) -> set[str]:
    """The components ``node`` refers to, directly or through other components."""
    found: set[str] = set()
    todo = [node]
    while todo:
        item = todo.pop()
        if isinstance(item, list):
            todo.extend(item)
        elif isinstance(item, dict):
            reference = item.get("$ref")
            if isinstance(reference, str) and reference.startswith("#/components/schemas/"):
                name = reference.rsplit("/", 1)[1]
                if name not in found and name in schemas:
                    found.add(name)
                    todo.append(schemas[name])
            todo.extend(v for k, v in item.items() if k != "$ref")
    return found


def _request_defaults_described(spec: APISpec) -> None:
    """In the components only requests use, an optional property's default is said in its description
    rather than as ``default``: openapi-typescript types a property with a default as always present
    (its ``defaultNonNullable``, meant for responses), so a request leaving it out, as the docs' examples do,
    failed ``tsc --strict``.  The server applies the default; a client that leaves the field out gets it.
    Components that answers also use keep their defaults (there every field is sent)."""
    schemas = spec.components.schemas
    operations = [op for item in spec._paths.values() for op in item.values() if isinstance(op, dict)]
    sent = _referenced([op.get("requestBody", {}) for op in operations], schemas)
    answered = _referenced([op.get("responses", {}) for op in operations], schemas)
    for name in sorted(sent - answered):
        required = set(schemas[name].get("required", ()))
        for prop, schema in schemas[name].get("properties", {}).items():
            if prop not in required and "default" in schema:
                default = json.dumps(schema.pop("default"))
                note = f"Default: `{default}`."
                schema["description"] = (
                    f"{schema['description'].rstrip()} {note}" if schema.get("description") else note
                )


def _describe_seat_requests(spec: APISpec) -> None:
    """``SeatRequest`` as oneOf named per-kind requests (``HumanSeatRequest``, ``PlayerSeatRequest``,
    ``BotSeatRequest``...), so generated code says what each seat is rather than ``SeatRequestType0``.
    A human seat is either named (``HumanSeatRequest``) or one of the app's players
    (``PlayerSeatRequest``, its name optional): two variants, so each JSON seat matches exactly one."""
    schemas = spec.components.schemas
    seat = schemas["SeatRequest"]
    props = seat["properties"]
    kinds = props["kind"].get("enum", ["human", "bot"])
    variants: list[tuple[str, dict[str, Any], list[str]]] = []
    for kind in kinds:
        name = f"{pascal(kind)}SeatRequest"
        if kind == "human":
            variants.append((name, {"name": props["name"], "kind": copy_schema(HUMAN_KIND)}, ["name"]))
            player = {"player": props["player"], "name": props["name"], "kind": copy_schema(HUMAN_KIND)}
            variants.append(("PlayerSeatRequest", player, ["player"]))
        elif kind == "bot":
            fields = {k: v for k, v in props.items() if k not in ("kind", "player")}
            variants.append((name, {**fields, "kind": copy_schema(BOT_KIND)}, ["name", "kind"]))
        else:  # an open seat: the name is chosen at join; it may be kept for one of the app's players
            variants.append((name, {"kind": {"const": kind}, "player": props["player"]}, ["kind"]))
    for name, fields, required in variants:
        schemas[name] = {
            "type": "object",
            "properties": fields,
            "required": required,
            "additionalProperties": False,
        }
    seat.clear()
    seat["oneOf"] = [ref(name) for name, _, _ in variants]
