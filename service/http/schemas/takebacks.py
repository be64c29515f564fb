"""Takebacks (issue 47, see service/domain/matches/takebacks.py): the request's body and the requests as
the API shows them."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from engine.takeback import REASONS
from service.domain.matches.takebacks import CLOSED, LIMIT, OPEN_REASON, STATUSES
from service.http.schemas.fields import JsonInteger

#: Decisions one request may take back at most (a turn of several small decisions fits many times).
MAX_COUNT = 50
#: Every ``details.reason`` of a 409 ``takeback_refused``.
REFUSAL_REASONS = (*REASONS, OPEN_REASON, LIMIT, CLOSED)


class TakebackRequestSchema(Schema):
    count = JsonInteger(
        load_default=1,
        validate=validate.Range(min=1, max=MAX_COUNT),
        metadata={"description": "How many of your latest decisions to take back (default 1)."},
    )


class TakebackSchema(Schema):
    """One takeback request of the match, as it stands now."""

    id = fields.String(required=True, metadata={"description": "The request's id in this match."})
    seat = fields.Integer(required=True, metadata={"description": "The seat that asks."})
    count = fields.Integer(required=True, metadata={"description": "How many of its decisions."})
    versions = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "The match versions the decisions to take back produced, oldest first."},
    )
    status = fields.String(
        required=True,
        validate=validate.OneOf(STATUSES),
        metadata={
            "description": "`open`: waiting for `waiting_for` to accept; `accepted`: the decisions were "
            "taken back; `declined`: `declined_by` said no (the requester's own seat: withdrawn); "
            "`expired`: not answered by `expires_at`; `void`: a decision was made after it (or the match "
            "ended), so it is about a position that is gone."
        },
    )
    requested_at = fields.Float(required=True, metadata={"description": "Epoch seconds."})
    expires_at = fields.Float(
        required=True,
        metadata={
            "description": "Answers are taken until then (epoch seconds): the pending decision's deadline "
            "when the match has a clock, else `TABLETOP_TAKEBACK_SECONDS` after the request."
        },
    )
    accepted_by = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "The seats that accepted (bots accept at once)."},
    )
    waiting_for = fields.List(
        fields.Integer(),
        required=True,
        metadata={"description": "The players' seats still to answer an open request."},
    )
    declined_by = fields.Integer(allow_none=True, required=True)
    answered_at = fields.Float(
        allow_none=True,
        required=True,
        metadata={"description": "When it was accepted by the last player, or declined (epoch seconds)."},
    )


class TakebackAnswerSchema(TakebackSchema):
    """A request after the caller's call: also the match's version after it."""

    match_version = fields.Integer(
        required=True,
        metadata={
            "description": "The match's version after this call (an accepted request: the position with the "
            "decisions taken back; read the match again)."
        },
    )


class MatchTakebacksSchema(Schema):
    """A match's takebacks (``listTakebacks``); not ``Takebacks``, which a generated client would name a
    model whose ``takebacks`` field shadows it."""

    version = fields.Integer(required=True, metadata={"description": "The match's version."})
    open = fields.Nested(
        TakebackSchema,
        required=True,
        allow_none=True,
        metadata={"description": "The open request (at most one a match), or null."},
    )
    takebacks = fields.List(
        fields.Nested(TakebackSchema),
        required=True,
        metadata={"description": "Every request of the match, oldest first."},
    )
    limit = fields.Integer(
        required=True,
        metadata={"description": "Requests each seat may make in a match (`TABLETOP_TAKEBACK_LIMIT`)."},
    )
    left = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "Requests your seat has left (null for a spectator)."},
    )
    undoable = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "How many of your latest decisions you could take back now (0: none; null for a "
            "spectator): what a client offers. Another request open or the limit reached still refuse it."
        },
    )
