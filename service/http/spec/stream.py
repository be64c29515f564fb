"""The documents of the streamed event feed (NDJSON lines, SSE data): ``StreamSnapshot``,
``StreamHeartbeat``, ``StreamRevoked`` and ``StreamLine``, anyOf them and the events."""

from __future__ import annotations

from apispec import APISpec

from service.http.spec.refs import ref
from service.live.credentials import CREDENTIAL_REVOKED, REVOKED_REASONS


def register_stream_lines(spec: APISpec) -> None:
    """The stream's documents; ``StreamLine`` refers to ``Event`` (:mod:`service.http.spec.events`) and
    ``Match`` (the blueprints' schema)."""
    spec.components.schema(
        "StreamSnapshot",
        component={
            "description": "The first document of a stream: the match as the caller sees it.",
            "type": "object",
            "properties": {"type": {"const": "snapshot"}, "match": ref("Match")},
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
            "anyOf": [ref("StreamSnapshot"), ref("Event"), ref("StreamHeartbeat"), ref("StreamRevoked")],
        },
    )
