"""Event feed and action log."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from engine.ai import LEVELS
from service.events import (
    CHAT,
    CHAT_DELETED,
    CREATED,
    JOINED,
    LEFT,
    REMATCH,
    REMATCH_DECLINED,
    RESIGNED,
    RETURNED,
    STARTED,
    TAKEBACK,
    TAKEBACK_ACCEPTED,
    TAKEBACK_DECLINED,
    TAKEBACK_REQUESTED,
    TIMEOUT,
)
from service.http.schemas.fields import FullMatch
from service.storage.matches import STATUSES

EVENT_ID = r"^[0-9]{1,18}-[0-9]{1,18}$"

_SEATS = {"type": "array", "items": {"$ref": "#/components/schemas/Seat"}}


def _service_event(kind: str, description: str, closed: bool = True, **fields: Any) -> dict[str, Any]:
    """JSON schema of an event the service (not a game) writes; ``closed=False`` for events whose
    fields are still growing, so a new field never makes a valid response fail the spec."""
    return {
        "type": "object",
        "description": description,
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": not closed,
    }


#: Events of every match, whatever the game (their ``type`` never clashes with a game's event):
#: each game's event union in the spec (service/http/spec/events.py) lists them beside the game's own.
SERVICE_EVENTS: dict[str, dict[str, Any]] = {
    CREATED: _service_event(
        CREATED,
        "The match was created: its game, seats and options.",
        game={"type": "string"},
        seats=_SEATS,
        options={"type": "object"},
    ),
    STARTED: _service_event(STARTED, "The last open seat was taken: the match is under way."),
    JOINED: _service_event(
        JOINED,
        "A player took an open seat.",
        seat={"type": "integer", "minimum": 0},
        name={"type": "string"},
    ),
    LEFT: _service_event(
        LEFT,
        "A player left a waiting match: the seat is open again.",
        seat={"type": "integer", "minimum": 0},
    ),
    RESIGNED: _service_event(
        RESIGNED,
        "A seat resigned during play; a bot of `level` plays it now (`then`: the match's `on_leave`).",
        seat={"type": "integer", "minimum": 0},
        then={"type": "string", "enum": ["bot", "abort"]},
        level={"type": "string", "enum": list(LEVELS)},
    ),
    TIMEOUT: _service_event(
        TIMEOUT,
        "A human seat ran out of time: a bot of `level` made its decision (the events that follow); when "
        "`bot_keeps_seat`, the seat is away: the bot plays it until its player acts again "
        "(`seat_returned`).",
        seat={"type": "integer", "minimum": 0},
        level={"type": "string", "enum": list(LEVELS)},
        bot_keeps_seat={"type": "boolean"},
    ),
    RETURNED: _service_event(
        RETURNED,
        "The player of an away seat (played by a bot after too many timeouts) acted again: the seat is "
        "theirs again, and its clock runs when it is to decide.",
        seat={"type": "integer", "minimum": 0},
    ),
    REMATCH: _service_event(
        REMATCH, "A seat asked for a rematch: the id of the new match.", match_id={"type": "string"}
    ),
    REMATCH_DECLINED: _service_event(
        REMATCH_DECLINED,
        "The rematch offer ended before it started (the rematch is `aborted`): a player it was offered "
        "to `declined` it, or one who had taken a seat `withdrawn` it.",
        match_id={"type": "string"},
        reason={"type": "string", "enum": ["declined", "withdrawn"]},
    ),
    TAKEBACK_REQUESTED: _service_event(
        TAKEBACK_REQUESTED,
        "`seat` asks to take back its last `count` decisions (those that made `versions`): every other "
        "player accepts or declines it by `expires_at` (`POST /v1/matches/{match_id}/takebacks/{id}/...`).",
        id={"type": "string"},
        seat={"type": "integer", "minimum": 0},
        count={"type": "integer", "minimum": 1},
        versions={"type": "array", "items": {"type": "integer"}},
        expires_at={"type": "number"},
    ),
    TAKEBACK_ACCEPTED: _service_event(
        TAKEBACK_ACCEPTED,
        "`seat` accepted the takeback request `id` (the decisions go back once every player has: "
        "`takeback`).",
        id={"type": "string"},
        seat={"type": "integer", "minimum": 0},
    ),
    TAKEBACK_DECLINED: _service_event(
        TAKEBACK_DECLINED,
        "`seat` declined the takeback request `id` of `requested_by` (its own: withdrawn); nothing changes.",
        id={"type": "string"},
        seat={"type": "integer", "minimum": 0},
        requested_by={"type": "integer", "minimum": 0},
    ),
    TAKEBACK: _service_event(
        TAKEBACK,
        "The takeback request `id` was accepted: `seat`'s last `count` decisions (those that made "
        "`versions`) are taken back and `to_move` decides again. The position is the one before them: "
        "read the match again (events before this one describe decisions no longer in force).",
        id={"type": "string"},
        seat={"type": "integer", "minimum": 0},
        count={"type": "integer", "minimum": 1},
        versions={"type": "array", "items": {"type": "integer"}},
        to_move={"type": ["integer", "null"], "minimum": 0},
    ),
    CHAT: _service_event(
        CHAT,
        "A chat message (docs/api/chat.md): the players' channel reaches the seats only, the spectators' "
        "channel everyone. Show its `name` and `text` as text, never as markup.",
        message={"$ref": "#/components/schemas/ChatMessage"},
    ),
    CHAT_DELETED: _service_event(
        CHAT_DELETED,
        "A moderator deleted the chat message `message_id` of `channel`: stop showing it.",
        message_id={"type": "integer", "minimum": 1},
        channel={"type": "string", "enum": ["players", "spectators"]},
    ),
}


class EventsQuerySchema(Schema):
    after = fields.String(
        validate=FullMatch(EVENT_ID),
        metadata={"description": "Return events after this event id (default: from the start)."},
    )
    wait = fields.Float(
        validate=validate.Range(min=0),
        metadata={
            "description": "Long-poll: wait up to this many seconds for an event you may see; more than "
            "the server's maximum (`TABLETOP_MAX_WAIT_SECONDS`, 30 by default) waits that maximum."
        },
    )


class EventsHeadersSchema(Schema):
    last_event_id = fields.String(
        data_key="Last-Event-ID",
        validate=FullMatch(EVENT_ID),
        metadata={"description": "SSE reconnection: same as `after`."},
    )


class EventsPageSchema(Schema):
    game = fields.String(
        required=True, metadata={"description": "The match's game: it tells the shapes below."}
    )
    events = fields.List(
        fields.Dict(),
        required=True,
        metadata={"description": "Events you may see, oldest first; each has `id`, `type` and its data."},
    )
    last_id = fields.String(
        required=True,
        metadata={"description": "Cursor for the next call's `after` (covers hidden events too)."},
    )
    version = fields.Integer(required=True)
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    to_move = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "The seat whose decision is pending (null: none, e.g. the match is over or "
            "waiting), so following a match needs no second request to learn whose turn it is."
        },
    )


class LogEntrySchema(Schema):
    """A decision (``action``), or a takeback (``takeback``: the seat's last so many decisions in force
    were taken back; replaying the log undoes them)."""

    version = fields.Integer(required=True, metadata={"description": "The version this entry produced."})
    seat = fields.Integer(required=True)
    action = fields.Dict(metadata={"description": "The decision (absent on a takeback entry)."})
    takeback = fields.Integer(
        metadata={
            "description": "A takeback entry: `seat`'s last `takeback` decisions in force are taken back "
            "(absent on a decision)."
        }
    )


class LogSchema(Schema):
    complete = fields.Boolean(
        required=True,
        metadata={
            "description": "True once the match is over: every action in full, and the seed to replay it."
        },
    )
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    seed = fields.Integer(required=True, allow_none=True)
    entries = fields.List(fields.Nested(LogEntrySchema), required=True)
