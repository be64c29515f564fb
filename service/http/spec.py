"""OpenAPI additions that depend on the registered games, so client generators get one real type per
thing a client reads or sends.

Per game ``<G>`` (the game id in PascalCase: ``YearOfDragon``), from the game's output
schemas (``engine/games/<game>/outputs.py``) and input schemas (``inputs.py``):

- ``<G><Type>Action`` per action type and ``<G>Action`` (oneOf, discriminated by ``type``);
  ``<G>Masked<Type>Action``: an action as the other seats see it when part of it is secret;
- ``<G>BoardLayout``: the board as data (each game's ``board``), typing ``Game.board``;
- ``<G>Options``, ``<G>View``, ``<G>Result``, and ``<G><Title>`` for each part of them the game named
  (``engine.core.named``: ``ChinaPlayer``, ``TajMahalCard``);
- ``<G><Type>Event`` per event type, ``<G>ActionEvent``, ``<G>MatchOverEvent`` and ``<G>Event``
  (oneOf by ``type``, with the service's own events);  ``<G>LogEntry``;
- ``<G>Match``, ``<G>CreatedMatch``, ``<G>Log``, ``<G>CreateMatch``: the documents and the request
  whose ``game`` names the game, with the game's view, result, options, log and seat counts.
  ``Match``, ``CreatedMatch``, ``Log`` and ``CreateMatch`` become oneOf these, discriminated by
  ``game``, so a typed client narrows everything at once by checking ``game``.

Across games: ``Action`` (anyOf the games' unions: what a move sends), ``GameView`` (oneOf by
``game``: move results carry a view, whose ``game`` tells which), ``GameResult``, ``Event`` and
``StreamLine`` (a line of the streamed feed).  Also the seat-token security scheme.
"""

from __future__ import annotations

import copy
import json
from http import HTTPStatus
from typing import Any

from apispec import APISpec
from flask import Flask

from engine.core import Game
from service.events import OVER
from service.http.schemas.events import EVENT_ID, SERVICE_EVENTS
from service.live.credentials import CREDENTIAL_REVOKED, REVOKED_REASONS
from service.storage.matches import STATUSES

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

SECURITY_SCHEME = "seatToken"
#: For endpoints open to spectators: a token is optional.  OpenAPI's own form for that,
#: ``[{}, {seatToken: []}]``, makes openapi-python-client (0.29) demand an authenticated client, so
#: anonymous calls do not type-check (openapi-python-client#1372); with no requirement at all it
#: accepts ``Client | AuthenticatedClient`` (and the authenticated one sends its token), and
#: openapi-typescript reads both forms alike.  The operations' descriptions say a token is optional
#: (:func:`describe_documents`).
OPTIONAL_SEAT: list[dict[str, list[str]]] = []
OPTIONAL_SEAT_NOTE = (
    "A seat token is optional: with `Authorization: Bearer <token>` the answer is as that seat sees "
    "the match, without one as a spectator sees it."
)
REQUIRED_SEAT: list[dict[str, list[str]]] = [{SECURITY_SCHEME: []}]
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


def pascal(name: str) -> str:
    """``year_of_dragon`` -> ``YearOfDragon``: component names read as class names once generated."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _copy(schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy, so no two components share a dict (and the engine's constants stay untouched)."""
    copied: dict[str, Any] = json.loads(json.dumps(schema))
    return copied


def _one_of(refs: dict[str, str], prop: str, description: str) -> dict[str, Any]:
    """oneOf the components ``refs`` (discriminator value -> component name), discriminated by ``prop``."""
    return {
        "description": description,
        "oneOf": [_ref(name) for name in refs.values()],
        "discriminator": {"propertyName": prop, "mapping": {k: _ref(v)["$ref"] for k, v in refs.items()}},
    }


def _with_id(event: dict[str, Any]) -> dict[str, Any]:
    """An event as the service delivers it: its stream id first, then the engine's fields."""
    out = _copy(event)
    out["properties"] = {
        "id": {"type": "string", "pattern": EVENT_ID, "description": "stream id: `<version>-<n>`"},
        **out["properties"],
    }
    out["required"] = ["id", *out.get("required", [])]
    return out


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
        return {**_ref(name), "description": out["description"]}
    return _ref(name)


def _game_schema(game: Game, attribute: str, fallback: dict[str, Any]) -> dict[str, Any]:
    """A schema from the game's contract; a game without one (a test game) gets ``fallback``."""
    schema = getattr(game, attribute, None)
    return _copy(schema) if schema is not None else fallback


def register_components(spec: APISpec, games: dict[str, Game]) -> None:
    """Components built from the games alone (before the blueprints register theirs)."""
    spec.components.security_scheme(
        SECURITY_SCHEME,
        {
            "type": "http",
            "scheme": "bearer",
            "description": "One bearer header, four kinds of token, told apart by their form: a seat token "
            "(returned by POST /v1/matches or a join: one seat of one match); a player token (`tp.…`, "
            "minted by an app for its player: acts for that player's seats in every match, within its "
            "scopes `read`/`play`); an app key (`ta.…`, the app's server: players, tokens, its matches); "
            "the operator's admin token (`/v1/admin/…` only).",
        },
    )
    unions, views, results, events = [], {}, [], []
    for gid in sorted(games):
        game, g = games[gid], pascal(gid)
        mapping = {}
        for kind in sorted(game.actions):
            mapping[kind] = f"{g}{pascal(kind)}Action"
            spec.components.schema(mapping[kind], component=_copy(game.actions[kind]))
        spec.components.schema(
            f"{g}Action", component=_one_of(mapping, "type", f"An action of {game.title}.")
        )
        unions.append(_ref(f"{g}Action"))
        masked = []
        for kind, schema in sorted(getattr(game, "masked_actions", {}).items()):
            spec.components.schema(f"{g}Masked{pascal(kind)}Action", component=_copy(schema))
            masked.append(_ref(f"{g}Masked{pascal(kind)}Action"))
        shown_action = {"anyOf": [_ref(f"{g}Action"), *masked]} if masked else _ref(f"{g}Action")
        result = _game_schema(game, "result_schema", {"type": "object"})
        result.pop("title", None)
        result.setdefault("properties", {}).update(_copy(SERVICE_RESULT_FIELDS))
        named: dict[str, dict[str, Any]] = {f"{g}Result": result}
        seeded = frozenset(named)
        result = named[f"{g}Result"] = _hoist(result, g, named, seeded)
        view = _game_schema(game, "view_schema", {"type": "object", "properties": {"game": {"const": gid}}})
        view.pop("title", None)
        spec.components.schema(f"{g}View", component=_hoist(view, g, named, seeded))
        views[gid] = f"{g}View"
        results.append(_ref(f"{g}Result"))
        board = getattr(game, "board_schema", None)
        if board is not None:  # GET /v1/games/{game}: board (see describe_documents)
            board = _copy(board)
            board.pop("title", None)
            spec.components.schema(f"{g}BoardLayout", component=board)
        entry_version = {"type": "integer", "description": "The version this entry produced."}
        spec.components.schema(
            f"{g}LogEntry",
            component={
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
            },
        )
        by_type = {}
        game_events = {
            **{kind: _copy(schema) for kind, schema in getattr(game, "event_schemas", {}).items()},
            "action": {
                "description": "A seat's decision (the other seats may see its public part only).",
                "type": "object",
                "properties": {
                    "type": {"const": "action"},
                    "seat": {"type": "integer", "minimum": 0},
                    "action": shown_action,
                    "auto": {
                        "type": "boolean",
                        "description": "Present (true) when the action was forced: the only one legal.",
                    },
                },
                "required": ["type", "seat", "action"],
                "additionalProperties": False,
            },
            OVER: {
                "description": "The match is over; the stream of a finished match ends here.",
                "type": "object",
                "properties": {
                    "type": {"const": OVER},
                    "status": {"type": "string", "enum": ["finished", "aborted"]},
                    "reason": {
                        "type": "string",
                        "enum": ["cancelled", "abandoned", "declined", "withdrawn"],
                        "description": "Why an aborted match was aborted: its creator cancelled it while it "
                        "waited, every human resigned (or, before the start, left a private seat no invite "
                        "code can fill), or (a rematch) a player declined the offer or one who had taken a "
                        "seat withdrew it.",
                    },
                    "result": {
                        "anyOf": [_ref(f"{g}Result"), {"type": "null"}],
                        "description": "null if aborted",
                    },
                },
                "required": ["type", "result"],
                "additionalProperties": False,
            },
        }
        for kind in sorted(game_events):
            by_type[kind] = f"{g}{pascal(kind)}Event"
            event = _hoist(_with_id(game_events[kind]), g, named, seeded)
            spec.components.schema(by_type[kind], component=event)
        for name in sorted(named):  # the titled parts, the result among them
            spec.components.schema(name, component=named[name])
        for kind in sorted(SERVICE_EVENTS):
            by_type[kind] = f"{pascal(kind)}Event"
        spec.components.schema(
            f"{g}Event", component=_one_of(by_type, "type", f"An event of a {game.title} match.")
        )
        events.append(_ref(f"{g}Event"))
    for kind, schema in sorted(SERVICE_EVENTS.items()):
        spec.components.schema(f"{pascal(kind)}Event", component=_with_id(schema))
    spec.components.schema(
        "Action", component={"description": "An action of the match's game.", "anyOf": unions}
    )
    spec.components.schema(
        "GameView", component=_one_of(views, "game", "The game state as the caller may see it.")
    )
    spec.components.schema(
        "GameResult",
        component={"description": "Scores, ranking and tie-break of a finished match.", "anyOf": results},
    )
    spec.components.schema("Event", component={"description": "An event of a match.", "anyOf": events})
    spec.components.schema(
        "StreamSnapshot",
        component={
            "description": "The first document of a stream: the match as the caller sees it.",
            "type": "object",
            "properties": {"type": {"const": "snapshot"}, "match": _ref("Match")},
            "required": ["type", "match"],
            "additionalProperties": False,
        },
    )
    spec.components.schema(
        "StreamHeartbeat",
        component={
            "description": "Sent while nothing happens (NDJSON; SSE sends a comment line instead).",
            "type": "object",
            "properties": {"type": {"const": "heartbeat"}},
            "required": ["type"],
            "additionalProperties": False,
        },
    )
    spec.components.schema(
        "StreamRevoked",
        component={
            "description": "A stream's last line when the credential it was opened with was revoked or "
            "expired (the stream ends after it; SSE `event: credential_revoked`): `id` is the last event "
            "id the stream carried, to resume from with another credential.",
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "type": {"const": CREDENTIAL_REVOKED},
                "reason": {"type": "string", "enum": list(REVOKED_REASONS)},
                "message": {"type": "string"},
            },
            "required": ["id", "type", "reason", "message"],
            "additionalProperties": False,
        },
    )
    spec.components.schema(
        "StreamLine",
        component={
            "description": "One document of the streamed event feed (NDJSON line, SSE data): the snapshot "
            "first, then events as they happen, heartbeats while nothing does; `credential_revoked` last "
            "if the stream's credential was revoked or expired.",
            "anyOf": [_ref("StreamSnapshot"), _ref("Event"), _ref("StreamHeartbeat"), _ref("StreamRevoked")],
        },
    )


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
    schemas[name] = _one_of(mapping, "game", description)


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
            _retype(status, _ref("MatchStatus"))
    for item in spec._paths.values():  # the listing's filter (apispec keeps the paths there until to_dict())
        for operation in item.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                if parameter.get("name") == "status" and parameter["schema"].get("enum") == list(STATUSES):
                    parameter["schema"] = _ref("MatchStatus")


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
    for item in spec._paths.values():  # apispec keeps the paths there until to_dict()
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("security") == [{}]:
                operation.pop("security")  # anonymous only: the same, in the form generators read right
            if isinstance(operation, dict) and operation.get("security") == OPTIONAL_SEAT:
                operation["description"] = (
                    f"{operation.get('description', '').rstrip()}\n\n{OPTIONAL_SEAT_NOTE}"
                )
                operation.pop("security")
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
    _retype(schemas["ActionRequest"]["properties"]["action"], _ref("Action"))
    drawn = [gid for gid in sorted(games) if getattr(games[gid], "board_schema", None)]
    boards = [_ref(f"{pascal(gid)}BoardLayout") for gid in drawn]
    _retype(schemas["Game"]["properties"]["board"], {"anyOf": [*boards, {"type": "null"}]})


def describe_match_request(spec: APISpec, games: dict[str, Game]) -> None:
    """Say in the spec what ``CreateMatch`` validation enforces beyond marshmallow's reach: the game id
    is a registered one, the seat count is the game's, the options fit the game's option schema, a
    seat is a human (name only) or a bot (with level and think time).  Generated clients and fuzzers
    then send real requests.  Runs once the blueprints registered their schemas, so it also types
    the documents (:func:`describe_documents`)."""
    create = spec.components.schemas["CreateMatch"]["properties"]
    create["game"]["enum"] = sorted(games)
    if games:
        create["seats"]["minItems"] = min(g.min_players for g in games.values())
        create["seats"]["maxItems"] = max(g.max_players for g in games.values())
    for gid in sorted(games):
        spec.components.schema(
            f"{pascal(gid)}Options",
            component={
                **_copy(games[gid].options),
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
            ref = item.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
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
            variants.append((name, {"name": props["name"], "kind": _copy(HUMAN_KIND)}, ["name"]))
            player = {"player": props["player"], "name": props["name"], "kind": _copy(HUMAN_KIND)}
            variants.append(("PlayerSeatRequest", player, ["player"]))
        elif kind == "bot":
            fields = {k: v for k, v in props.items() if k not in ("kind", "player")}
            variants.append((name, {**fields, "kind": _copy(BOT_KIND)}, ["name", "kind"]))
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
    seat["oneOf"] = [_ref(name) for name, _, _ in variants]


def render(app: Flask) -> str:
    """The app's OpenAPI document as committed in ``openapi/openapi.json`` (stable formatting)."""
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec
    return json.dumps(spec.to_dict(), indent=2, ensure_ascii=False) + "\n"
