"""A player's feed (``GET /v1/me/events``): its query and its entries, typed for generated clients."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.domain.accounts import PLAYER_ID
from service.domain.feeds.feed import (
    CHALLENGE_ACCEPTED,
    CHALLENGE_DECLINED,
    CHALLENGE_EXPIRED,
    CHALLENGE_RECEIVED,
    CHAT_MESSAGE,
    ENTRY_TYPES,
    INVITED,
    MATCH_OVER,
    SEAT_JOINED,
    SEEK_EXPIRED,
    SEEK_MATCHED,
    TAKEBACK_ACCEPTED,
    TAKEBACK_DECLINED,
    TAKEBACK_REQUESTED,
    TIMED_OUT,
    TOURNAMENT_MATCH,
    TOURNAMENT_OVER,
    YOUR_TURN,
)
from service.http.schemas.actions import DecisionSchema
from service.http.schemas.chat import ChatMessageSchema
from service.http.schemas.events import EVENT_ID
from service.http.schemas.fields import FullMatch
from service.storage.tournaments import CANCELLED as TOURNAMENT_CANCELLED

#: ``include=decision`` (the feed's query), ``include_decision`` (a webhook endpoint's): a ``your_turn``
#: entry carries the pending decision whole.
DECISION = "decision"


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
    include = fields.String(
        validate=validate.OneOf([DECISION]),
        metadata={
            "description": "`decision`: each `your_turn` entry carries `decision`, the pending decision "
            "whole (your view and legal actions at the match's current version), or null once the match "
            "moved on (JSON pages, long-polls and streams alike)."
        },
    )
    player = fields.String(
        validate=FullMatch(PLAYER_ID.pattern),
        metadata={
            "description": "With an app key: the app's player whose feed to read (a player token reads "
            "its own player's, and may omit it)."
        },
    )


class FeedChallengerSchema(Schema):
    id = fields.String(required=True)
    name = fields.String(required=True)


class FeedEntrySchema(Schema):
    """One entry of a player's feed: what happened in one of the player's matches, and where that match
    stands after it, so a client can act on the entry without reading the match; or what happened to
    one of the player's seeks or challenges (matchmaking's entries, which carry no match state)."""

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
            "deadline is near; `invited`: a match was created with a seat for you (`join_required`: "
            "whether you must still join it; `rematch_of`: the finished match a rematch offer follows). "
            "Matchmaking's "
            "(no `version`, `status`, `to_move`, `my_turn` or `deadline`: they are about a seek or a "
            f"challenge): `{SEEK_MATCHED}`: your seek (`seek_id`) was paired into `match_id` (your "
            f"`seat`); `{SEEK_EXPIRED}`: it expired unpaired; `{CHALLENGE_RECEIVED}`: `challenger` "
            f"challenges you (`challenge_id`, answer by `expires_at`); `{CHALLENGE_ACCEPTED}`: everyone "
            f"accepted, the match is `match_id`; `{CHALLENGE_DECLINED}`: `declined_by` declined it "
            f"(`reason` `declined`), or its challenger withdrew it (`cancelled`); `{CHALLENGE_EXPIRED}`: "
            "it was not answered in time. Tournaments' (`tournament_id`): "
            f"`{TOURNAMENT_MATCH}`: a match of yours in the tournament (`tournament_name`) was made, "
            f"`match_id` in `round`; `{TOURNAMENT_OVER}`: the tournament ended (`status` `finished` or "
            "`cancelled`) and you ended it `rank`-th with `points`. Takebacks (`takeback_id`, "
            f"`requested_by`): `{TAKEBACK_REQUESTED}`: a seat asks to take back its last `count` "
            "decisions (accept or decline by `expires_at`: `POST /v1/matches/{match_id}/takebacks/"
            f"{{takeback_id}}/accept`); `{TAKEBACK_ACCEPTED}`: every player accepted and the decisions "
            f"were taken back; `{TAKEBACK_DECLINED}`: `declined_seat` declined it (the requester's own "
            "seat: withdrawn)."
        },
    )
    match_id = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "The match; null for a matchmaking entry with no match (yet)."},
    )
    game = fields.String(required=True)
    version = fields.Integer(metadata={"description": "The match's version after it (match entries)."})
    status = fields.Raw(
        metadata={
            # The match's status (the one MatchStatus component generated clients switch on, as before
            # tournaments), or a tournament's end: typed as either, so no client's MatchStatus breaks.
            "anyOf": [
                {"$ref": "#/components/schemas/MatchStatus"},
                {"type": "string", "enum": [TOURNAMENT_CANCELLED]},
            ],
            "description": f"Match entries: the match's status; `{TOURNAMENT_OVER}`: the tournament's "
            f"(`finished` or `{TOURNAMENT_CANCELLED}`).",
        },
    )
    seat = fields.Integer(
        metadata={"description": f"Your seat in the match (match entries, and `{SEEK_MATCHED}`)."}
    )
    to_move = fields.Integer(
        allow_none=True,
        metadata={"description": "The seat whose decision is pending (match entries)."},
    )
    my_turn = fields.Boolean(
        metadata={
            "description": "Whether the pending decision is yours (not a bot's playing for you); "
            "match entries."
        },
    )
    deadline = fields.Float(
        allow_none=True,
        metadata={
            "description": "When the pending decision times out (epoch seconds); null: no clock. Match "
            "entries."
        },
    )
    result = fields.Dict(
        allow_none=True,
        metadata={"description": f"`{MATCH_OVER}` only: the match's result (see `GameResult`)."},
    )
    join_required = fields.Boolean(
        metadata={
            "description": f"`{INVITED}` only: true when the seat is kept for you and you take it by "
            "joining (`POST /v1/matches/{match_id}/join` with your player token; for a rematch "
            "offer, `POST /v1/matches/{rematch_of}/rematch` also does); false when the match seated "
            "you already."
        }
    )
    rematch_of = fields.String(
        allow_none=True,
        metadata={
            "description": f"`{INVITED}` only: for a rematch offer, the finished match it follows "
            "(decline the offer there: `POST /v1/matches/{rematch_of}/rematch/decline`); null "
            "otherwise."
        },
    )
    joined_seat = fields.Integer(metadata={"description": f"`{SEAT_JOINED}` only: the seat taken."})
    joined_player = fields.String(
        allow_none=True,
        metadata={
            "description": f"`{SEAT_JOINED}` only: your app's id of the player who took it; null when "
            "it was taken with a seat token (an anonymous joiner)."
        },
    )
    name = fields.String(
        allow_none=True, metadata={"description": f"`{SEAT_JOINED}` only: the name of who took it."}
    )
    timed_out_seat = fields.Integer(
        metadata={"description": f"`{TIMED_OUT}` only: the seat that ran out of time."}
    )
    away = fields.Boolean(
        metadata={
            "description": f"`{TIMED_OUT}` only: whether the timed-out seat is now away (a bot plays it "
            "until its player comes back: `POST /v1/me/return`, or a move)."
        }
    )
    decision = fields.Nested(
        DecisionSchema,
        allow_none=True,
        metadata={
            "description": f"`{YOUR_TURN}` only, with `include=decision` (or a webhook endpoint's "
            "`include_decision`): the decision whole (`version`, `seat`, `view`, `legal_actions`) as it "
            "stands when the entry is served or sent; null when it is no longer pending."
        },
    )
    seek_id = fields.String(metadata={"description": f"`{SEEK_MATCHED}`, `{SEEK_EXPIRED}`: the seek."})
    challenge_id = fields.String(metadata={"description": "The challenge entries' challenge."})
    players = fields.Integer(
        metadata={"description": "Matchmaking entries: the player count of the match sought or offered."}
    )
    challenger = fields.Nested(
        FeedChallengerSchema, metadata={"description": f"`{CHALLENGE_RECEIVED}` only: who challenges you."}
    )
    expires_at = fields.Float(
        metadata={
            "description": f"`{CHALLENGE_RECEIVED}`, `{TAKEBACK_REQUESTED}`: answer before this (epoch "
            "seconds)."
        }
    )
    declined_by = fields.String(
        metadata={"description": f"`{CHALLENGE_DECLINED}` only: the player who declined (or cancelled)."}
    )
    reason = fields.String(
        validate=validate.OneOf(["declined", "cancelled"]),
        metadata={"description": f"`{CHALLENGE_DECLINED}` only: declined, or withdrawn by the challenger."},
    )
    tournament_id = fields.String(metadata={"description": "The tournament entries' tournament."})
    tournament_name = fields.String(metadata={"description": "The tournament entries' tournament's name."})
    round = fields.Integer(metadata={"description": f"`{TOURNAMENT_MATCH}` only: the match's round."})
    rank = fields.Integer(
        metadata={"description": f"`{TOURNAMENT_OVER}` only: your place in the final standings (1 = first)."}
    )
    points = fields.Float(metadata={"description": f"`{TOURNAMENT_OVER}` only: your tournament points."})
    chat = fields.Nested(
        ChatMessageSchema,
        metadata={
            "description": f"`{CHAT_MESSAGE}` only: a message another seat wrote in the match's players' "
            "channel (docs/api/chat.md); none from an author you muted."
        },
    )
    takeback_id = fields.String(
        metadata={"description": "The takeback entries' request (its id in the match)."}
    )
    requested_by = fields.Integer(
        metadata={"description": "The takeback entries' requesting seat (the one whose decisions go back)."}
    )
    count = fields.Integer(
        metadata={
            "description": f"`{TAKEBACK_REQUESTED}`, `{TAKEBACK_ACCEPTED}`: how many of its latest "
            "decisions the seat takes back."
        }
    )
    declined_seat = fields.Integer(
        metadata={"description": f"`{TAKEBACK_DECLINED}` only: the seat that declined (or withdrew) it."}
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
