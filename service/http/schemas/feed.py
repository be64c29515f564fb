"""A player's feed (``GET /v1/me/events``): its query and its entries, typed for generated clients."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.http.schemas.events import EVENT_ID
from service.http.schemas.fields import FullMatch
from service.matches.accounts import PLAYER_ID
from service.matches.feed import ENTRY_TYPES, MATCH_OVER, SEAT_JOINED, TIMED_OUT
from service.store import STATUSES


class FeedQuerySchema(Schema):
    after = fields.String(
        validate=FullMatch(EVENT_ID),
        metadata={"description": "Return entries after this entry id (default: every entry kept)."},
    )
    wait = fields.Float(
        validate=validate.Range(min=0),
        metadata={
            "description": "Long-poll: wait up to this many seconds for an entry; more than the server's "
            "maximum (`TABLETOP_MAX_WAIT_SECONDS`, 30 by default) waits that maximum."
        },
    )
    player = fields.String(
        validate=FullMatch(PLAYER_ID.pattern),
        metadata={
            "description": "With an app key: the app's player whose feed to read (a player token reads "
            "its own player's, and may omit it)."
        },
    )


class FeedEntrySchema(Schema):
    """One entry of a player's feed: what happened in one of the player's matches, and where that match
    stands after it, so a client can act on the entry without reading the match."""

    id = fields.String(
        required=True,
        validate=FullMatch(EVENT_ID),
        metadata={"description": "The entry's id: `after` (or SSE `Last-Event-ID`) resumes after it."},
    )
    type = fields.String(
        required=True,
        validate=validate.OneOf(ENTRY_TYPES),
        metadata={
            "description": "`your_turn`: a decision of yours is pending; `match_started`: the last seat "
            "was taken; `seat_joined`: someone took a seat (`joined_seat`, `name`); `match_over`: with "
            "the `result`; `timeout`: a seat ran out of time (`timed_out_seat`); `clock_warning`: your "
            "deadline is near; `invited`: a match was created with a seat for you."
        },
    )
    match_id = fields.String(required=True)
    game = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The match's version after it."})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    seat = fields.Integer(required=True, metadata={"description": "Your seat in the match."})
    to_move = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The seat whose decision is pending."}
    )
    my_turn = fields.Boolean(
        required=True,
        metadata={"description": "Whether the pending decision is yours (not a bot's playing for you)."},
    )
    deadline = fields.Float(
        required=True,
        allow_none=True,
        metadata={"description": "When the pending decision times out (epoch seconds); null: no clock."},
    )
    result = fields.Dict(
        allow_none=True,
        metadata={"description": f"`{MATCH_OVER}` only: the match's result (see `GameResult`)."},
    )
    joined_seat = fields.Integer(metadata={"description": f"`{SEAT_JOINED}` only: the seat taken."})
    name = fields.String(
        allow_none=True, metadata={"description": f"`{SEAT_JOINED}` only: the name of who took it."}
    )
    timed_out_seat = fields.Integer(
        metadata={"description": f"`{TIMED_OUT}` only: the seat that ran out of time."}
    )


class FeedPageSchema(Schema):
    events = fields.List(
        fields.Nested(FeedEntrySchema),
        required=True,
        metadata={"description": "Your feed's entries after `after`, oldest first."},
    )
    last_id = fields.String(
        required=True, metadata={"description": "Cursor for the next call's `after` (unchanged when empty)."}
    )
