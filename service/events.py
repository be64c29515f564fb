"""The type names of the service's own events (not a game's): the one home of each name.

Every match's feed carries them beside its game's events, whatever the game, and no game's event type
is one of them.  Their shapes, as the spec shows them, are :data:`service.http.schemas.events.SERVICE_EVENTS`
(and ``match_over``'s, which carries the game's result, :mod:`service.http.spec.events`); who writes them is
:mod:`service.domain.matches.operations` (a match's first and last events, timeouts, returns) and
:mod:`service.domain.matches.lifecycle` (seats taken, left and resigned, rematches).
"""

from __future__ import annotations

#: The match was created: the first event of every match.
CREATED = "match_created"
#: The last open seat was taken: the match is under way.
STARTED = "match_started"
#: The match is over, finished or aborted (its ``status``): the last event of every match.
OVER = "match_over"
#: A human seat ran out of time: a bot made its decision.
TIMEOUT = "timeout"
#: The player of an away seat (a bot played it after too many timeouts) acted again: it is theirs again.
RETURNED = "seat_returned"
#: A player took an open seat.
JOINED = "seat_joined"
#: A player left a waiting match: the seat is open again.
LEFT = "seat_left"
#: A seat resigned during play: a bot plays it now, or the match is aborted.
RESIGNED = "resigned"
#: A seat asked for a rematch: the id of the new match.
REMATCH = "rematch"
#: The rematch offer ended before it started: declined, or withdrawn.
REMATCH_DECLINED = "rematch_declined"
#: Takebacks (:mod:`service.domain.matches.takebacks`): a seat asked to take back its latest decisions;
#: one of the others accepted; one declined (or the requester withdrew); the decisions were taken back
#: (every client reads the match again: the position is the one before them).
TAKEBACK_REQUESTED = "takeback_requested"
TAKEBACK_ACCEPTED = "takeback_accepted"
TAKEBACK_DECLINED = "takeback_declined"
TAKEBACK = "takeback"
#: A chat message of the match (its ``message``: :mod:`service.domain.chat`); the players' channel only
#: reaches the seats, the spectators' channel everyone.
CHAT = "chat"
#: A chat message was deleted by a moderator (``message_id``, ``channel``): clients drop it.
CHAT_DELETED = "chat_deleted"
