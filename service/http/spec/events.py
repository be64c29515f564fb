"""The events' components: ``<G><Type>Event`` per event type of a game (its own, from the game's
``event_schemas``, and ``<G>ActionEvent``, ``<G>MatchOverEvent``), the service's own events
(``<Type>Event``) and ``<G>Event``, oneOf them all by ``type``.  Each as the service delivers it,
with its stream id (``id``) first."""

from __future__ import annotations

from typing import Any

from apispec import APISpec

from engine.core import Game
from service.events import OVER
from service.http.schemas.events import EVENT_ID, SERVICE_EVENTS
from service.http.spec.refs import copy_schema, one_of, pascal, ref


def with_id(event: dict[str, Any]) -> dict[str, Any]:
    """An event as the service delivers it: its stream id first, then the engine's fields."""
    out = copy_schema(event)
    out["properties"] = {
        "id": {"type": "string", "pattern": EVENT_ID, "description": "stream id: `<version>-<n>`"},
        **out["properties"],
    }
    out["required"] = ["id", *out.get("required", [])]
    return out


def game_events(game: Game, g: str, shown_action: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The game's events by type, as delivered (:func:`with_id`): its own, a seat's decision
    (``action``, as ``shown_action``: the caller may see part of it only) and the match's end, whose
    result is the component ``<g>Result``."""
    events = {
        **{kind: copy_schema(schema) for kind, schema in getattr(game, "event_schemas", {}).items()},
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
                    "anyOf": [ref(f"{g}Result"), {"type": "null"}],
                    "description": "null if aborted",
                },
            },
            "required": ["type", "result"],
            "additionalProperties": False,
        },
    }
    return {kind: with_id(schema) for kind, schema in events.items()}


def game_event_name(g: str, kind: str) -> str:
    """The component of a game's event of type ``kind``: ``ChinaProvinceScoredEvent``."""
    return f"{g}{pascal(kind)}Event"


def game_event_union(game: Game, g: str, kinds: list[str]) -> dict[str, Any]:
    """``<g>Event``: oneOf the game's events of types ``kinds`` and the service's own, by ``type``."""
    by_type = {kind: game_event_name(g, kind) for kind in sorted(kinds)}
    for kind in sorted(SERVICE_EVENTS):
        by_type[kind] = f"{pascal(kind)}Event"
    return one_of(by_type, "type", f"An event of a {game.title} match.")


def register_service_events(spec: APISpec) -> None:
    """The service's own events (``<Type>Event``), shared by every game's union."""
    for kind, schema in sorted(SERVICE_EVENTS.items()):
        spec.components.schema(f"{pascal(kind)}Event", component=with_id(schema))
