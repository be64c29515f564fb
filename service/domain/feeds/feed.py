"""What a commit tells the players of a match: the notes of its outbox, one per player and event.

A commit of a match with players (seats held by, or kept for, an app's players: see
:mod:`service.domain.matches.seating`) carries its notes in the same script that writes the match
(``match_commit.lua``'s outbox), so none is lost if the process dies right after; the notes then reach each
player's feed (:meth:`service.domain.outbox.entries.Outbox.drain`).  This module decides the notes
from the match before and after the commit, and the commit's events: pure, so every writer (a move, a
join, a resign, a timeout, a creation) derives them the same way.

Every entry says where the match stands after the commit (``status``, ``version``, ``to_move``), the
player's own ``seat`` and whether it is now ``my_turn``, so a client acts on an entry without reading
the match first: ``invited`` says whether the player must still join (``join_required``: a seat kept
for it, taken with ``POST .../join``; false when the match seated it) and, for a rematch offer, the
finished match it follows (``rematch_of``: where the offer is taken or declined); ``seat_joined``
names the joiner by its app's own id (``joined_player``) when a player of the reader's app joined.
"""

from __future__ import annotations

from typing import Any

from service import events as match_events
from service.domain.matches import clocks, seating
from service.events import JOINED, OVER, STARTED, TIMEOUT
from service.storage.matches import ACTIVE, MatchMeta

YOUR_TURN = "your_turn"
MATCH_STARTED = "match_started"
SEAT_JOINED = "seat_joined"
MATCH_OVER = "match_over"
TIMED_OUT = "timeout"
CLOCK_WARNING = "clock_warning"
INVITED = "invited"
#: Matchmaking's entries (service/domain/matchmaking/seeks.py, challenges.py): a seek paired into a match, a
#: seek expired unpaired; a challenge received, accepted by all (its match made), declined, expired.
SEEK_MATCHED = "seek_matched"
SEEK_EXPIRED = "seek_expired"
CHALLENGE_RECEIVED = "challenge_received"
CHALLENGE_ACCEPTED = "challenge_accepted"
CHALLENGE_DECLINED = "challenge_declined"
CHALLENGE_EXPIRED = "challenge_expired"
#: Tournaments' entries (service/domain/tournaments/tournaments.py): a new match of the entrant, the event's
#: end.
TOURNAMENT_MATCH = "tournament_match"
TOURNAMENT_OVER = "tournament_over"
#: A chat message in the players' channel of one of the player's matches (service/domain/chat/), from
#: another seat the player has not muted.
CHAT_MESSAGE = "chat_message"
#: Takebacks (service/domain/matches/takebacks.py): a seat of one of the player's matches asked to take
#: back its latest decisions (every other player answers); the decisions were taken back (all accepted);
#: the request was declined or withdrawn.
TAKEBACK_REQUESTED = "takeback_requested"
TAKEBACK_ACCEPTED = "takeback_accepted"
TAKEBACK_DECLINED = "takeback_declined"
#: Every type of feed entry, in the order the spec lists them (webhook endpoints choose among them).
ENTRY_TYPES = (
    YOUR_TURN,
    MATCH_STARTED,
    SEAT_JOINED,
    MATCH_OVER,
    TIMED_OUT,
    CLOCK_WARNING,
    INVITED,
    SEEK_MATCHED,
    SEEK_EXPIRED,
    CHALLENGE_RECEIVED,
    CHALLENGE_ACCEPTED,
    CHALLENGE_DECLINED,
    CHALLENGE_EXPIRED,
    TOURNAMENT_MATCH,
    TOURNAMENT_OVER,
    CHAT_MESSAGE,
    TAKEBACK_REQUESTED,
    TAKEBACK_ACCEPTED,
    TAKEBACK_DECLINED,
)


def entry(kind: str, meta: MatchMeta, seat: int, **extra: Any) -> dict[str, Any]:
    """A feed entry about ``meta`` (the match after the commit) for the player of ``seat``."""
    return {
        "type": kind,
        "match_id": meta.id,
        "game": meta.game,
        "version": meta.version,
        "status": meta.status,
        "seat": seat,
        "to_move": meta.to_move,
        "my_turn": seating.decides_now(meta, seat),
        "deadline": clocks.pending_deadline(meta),
        **extra,
    }


def own_id(key: str | None, reader: str) -> str | None:
    """The id the app of the player ``reader`` (a key) knows the player ``key`` by: only a player of
    the reader's own app is named (a seat token's holder, or another app's player, is ``None``)."""
    if key is None:
        return None
    app, _, player = key.partition(":")
    return player if app == reader.partition(":")[0] else None


def seat_decides(meta: MatchMeta, seat: int) -> bool:
    """Whether the seat's player makes its decisions (not a bot playing it: resigned, or away)."""
    return bool(meta.seats[seat]["kind"] == seating.HUMAN)


def notes(before: MatchMeta | None, after: MatchMeta, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The notes of one commit (``before`` is ``None`` for a creation): ``{"player": key, "entry": {...}}``
    in the order the players should read them."""
    players = seating.player_keys(after.life)
    if not players:
        return []
    out: list[dict[str, Any]] = []

    def to_all(kind: str, **extra: Any) -> None:
        out.extend(
            {"player": key, "entry": entry(kind, after, seat, **extra)} for seat, key in players.items()
        )

    if before is None:
        seated = after.life.get("players", {})
        for seat, key in players.items():
            invited = entry(
                INVITED,
                after,
                seat,
                join_required=str(seat) not in seated,  # kept for the player: it joins to take it
                rematch_of=after.life.get("rematch_of"),
            )
            out.append({"player": key, "entry": invited})
    for event in events:
        kind = event["type"]
        if kind == JOINED:
            joiner = after.life.get("players", {}).get(str(event["seat"]))
            out.extend(
                {
                    "player": key,
                    "entry": entry(
                        SEAT_JOINED,
                        after,
                        seat,
                        joined_seat=event["seat"],
                        name=event.get("name"),
                        joined_player=own_id(joiner, key),
                    ),
                }
                for seat, key in players.items()
            )
        elif kind == STARTED:
            to_all(MATCH_STARTED)
        elif kind == TIMEOUT:
            # Whether the seat is away now (too many timeouts: a bot keeps it until its player acts).
            to_all(TIMED_OUT, timed_out_seat=event["seat"], away=seating.is_away(after.seats[event["seat"]]))
        elif kind == OVER:
            to_all(MATCH_OVER, result=event.get("result"))
        elif kind == match_events.TAKEBACK_REQUESTED:
            to_all(
                TAKEBACK_REQUESTED,
                takeback_id=event["id"],
                requested_by=event["seat"],
                count=event["count"],
                expires_at=event["expires_at"],
            )
        elif kind == match_events.TAKEBACK:  # every player accepted: the decisions were taken back
            to_all(
                TAKEBACK_ACCEPTED, takeback_id=event["id"], requested_by=event["seat"], count=event["count"]
            )
        elif kind == match_events.TAKEBACK_DECLINED:
            to_all(
                TAKEBACK_DECLINED,
                takeback_id=event["id"],
                requested_by=event["requested_by"],
                declined_seat=event["seat"],
            )
    if before is None and after.status == ACTIVE:
        to_all(MATCH_STARTED)  # created with every seat filled: under way at once
    turn = after.to_move
    if after.status == ACTIVE and turn is not None and turn in players and seat_decides(after, turn):
        # New to them: the match just started, the turn passed, or they are back from being away.
        new_turn = before is None or before.status != ACTIVE or before.to_move != turn
        new_turn = new_turn or (before is not None and not seat_decides(before, turn))
        if new_turn:
            out.append({"player": players[turn], "entry": entry(YOUR_TURN, after, turn)})
    return out


def warning(meta: MatchMeta) -> dict[str, Any] | None:
    """The ``clock_warning`` note for the pending decision of ``meta``, if a player makes it."""
    deciding = seating.deciding_player(meta)
    if deciding is None:
        return None
    seat, key = deciding
    return {"player": key, "entry": entry(CLOCK_WARNING, meta, seat)}
