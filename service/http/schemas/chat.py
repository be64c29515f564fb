"""A match's chat (issue 47 point 2): messages, pages, mutes, blocks and reports."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.chat.chat import DEFAULT_PAGE, MAX_PAGE
from service.domain.chat.messages import MAX_REASON, MAX_TEXT
from service.domain.chat.moderation import DEFAULT_REPORTS_PAGE, MAX_REPORTS_PAGE
from service.storage.chat import CHANNELS, PLAYERS

_CHANNEL = validate.OneOf(CHANNELS)
_AUTHOR = (
    "The author's handle in this match: `seat:<n>` for a seat, `spectator:<16 hex digits>` for a player "
    "without a seat (stable within the match, unlinkable across matches)."
)


class ChatMessageSchema(Schema):
    """A chat message as its readers get it. Show `name` and `text` as text, never as markup."""

    id = fields.Integer(required=True, metadata={"description": "The message's id in the match (1, 2, ...)."})
    channel = fields.String(required=True, validate=_CHANNEL)
    author = fields.String(required=True, metadata={"description": _AUTHOR})
    seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "The author's seat; null: a spectator."}
    )
    name = fields.String(
        required=True, metadata={"description": "The author's name (held to the name rule)."}
    )
    text = fields.String(
        required=True,
        metadata={
            "description": "The message: the name rule's characters, at most `TABLETOP_CHAT_MAX_LENGTH` "
            f"of them (default {MAX_TEXT})."
        },
    )
    at = fields.Float(required=True, metadata={"description": "When it was written (epoch seconds)."})
    erased = fields.Boolean(
        metadata={"description": "Present (true) when its author's data was erased: `text` is empty."}
    )


class ChatPostSchema(Schema):
    channel = fields.String(
        required=True,
        validate=_CHANNEL,
        metadata={"description": "`players` (the seats') or `spectators` (public matches only)."},
    )
    text = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={
            "description": "Held to the rule of names: no control, format, bidirectional or invisible "
            "characters, no line breaks; spaces are collapsed.  At most `TABLETOP_CHAT_MAX_LENGTH` "
            f"characters after that (default {MAX_TEXT}; 422 beyond)."
        },
    )


class ChatQuerySchema(Schema):
    channel = fields.String(
        load_default=PLAYERS, validate=_CHANNEL, metadata={"description": "The channel (default `players`)."}
    )
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0),
        metadata={"description": "Messages with an id above this one (a page's `last_id`)."},
    )
    limit = fields.Integer(
        load_default=DEFAULT_PAGE,
        validate=validate.Range(min=1, max=MAX_PAGE),
        metadata={"description": f"Messages at most (default {DEFAULT_PAGE})."},
    )


class ChatPageSchema(Schema):
    channel = fields.String(required=True, validate=_CHANNEL)
    messages = fields.List(
        fields.Nested(ChatMessageSchema),
        required=True,
        metadata={"description": "Oldest first; without the authors you muted."},
    )
    last_id = fields.Integer(
        required=True,
        metadata={"description": "The last message id read (muted ones too): the next page's `after`."},
    )


class ChatMutesSchema(Schema):
    authors = fields.List(
        fields.String(), required=True, metadata={"description": "The authors you muted in this match."}
    )


class ChatBlockSchema(Schema):
    author = fields.String(required=True, metadata={"description": _AUTHOR})
    by = fields.String(required=True, metadata={"description": "`app` (the app key) or `admin`."})
    at = fields.Float(required=True)


class ChatBlocksSchema(Schema):
    blocks = fields.List(fields.Nested(ChatBlockSchema), required=True)


class ChatReportRequestSchema(Schema):
    message_id = fields.Integer(required=True, validate=validate.Range(min=1))
    reason = fields.String(
        validate=validate.Length(min=1, max=MAX_REASON),
        metadata={"description": f"Why (at most {MAX_REASON} characters, the rule of names)."},
    )


class ChatReportSchema(Schema):
    message_id = fields.Integer(required=True)
    channel = fields.String(required=True, validate=_CHANNEL)
    author = fields.String(required=True, metadata={"description": "The reported message's author."})
    reporter = fields.String(required=True, metadata={"description": "Who reported it (an author handle)."})
    reason = fields.String(required=True, allow_none=True)
    at = fields.Float(required=True)


class ChatReportsSchema(Schema):
    reports = fields.List(fields.Nested(ChatReportSchema), required=True)


class AppChatReportsQuerySchema(Schema):
    after = fields.String(metadata={"description": "The `next` of the previous page: reports older than it."})
    limit = fields.Integer(
        load_default=DEFAULT_REPORTS_PAGE,
        validate=validate.Range(min=1, max=MAX_REPORTS_PAGE),
        metadata={"description": f"Reports at most (default {DEFAULT_REPORTS_PAGE})."},
    )


class AppChatReportSchema(Schema):
    """A report of a message of one of the app's matches, with the message as it was when reported."""

    id = fields.String(
        required=True, metadata={"description": "The report's id in the app's list, in order."}
    )
    match_id = fields.String(required=True)
    message = fields.Nested(
        ChatMessageSchema,
        required=True,
        metadata={"description": "The message as reported (a later deletion leaves this copy)."},
    )
    reason = fields.String(required=True, allow_none=True)
    reporter = fields.String(required=True, metadata={"description": "Who reported it (an author handle)."})
    at = fields.Float(required=True, metadata={"description": "When it was reported (epoch seconds)."})


class AppChatReportsSchema(Schema):
    reports = fields.List(
        fields.Nested(AppChatReportSchema), required=True, metadata={"description": "Newest first."}
    )
    next = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The next page's `after`; null: no older report."},
    )
