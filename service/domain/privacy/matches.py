"""The matches part of a player's data (issue 48): every match of the player's index, with its record;
and, on erasure, the player's seats given up and their name replaced in what the match keeps.

**Export.**  One item per match the player's index lists (newest first), each with the player's seat
and the match's record: the full record of a match over, the seat's own record of one in play (what
the player may read of it: never another seat's hidden information).

**Erasure**, match by match, each step a compare-and-set change of the match
(:meth:`service.domain.matches.commits.Commits.change`), so it races safely with moves:

1. A seat the player still holds is given up as the player's own resign would
   (:meth:`service.domain.matches.lifecycle.Lifecycle.resign`): before the start the seat opens again;
   in play the match's leave policy applies (``on_leave``: a bot takes the seat and the match goes on
   for the others, or it ends ``aborted`` once no player is left).
2. The match forgets the player: the seat's name becomes the placeholder, the seat no longer names the
   player (``life.players``; a rematch seat kept for them and ``creator_player`` go too), so no later
   commit writes a note to them (no feed of theirs is made again) and a rated match that finishes
   rates the seat as the bot that plays it.
3. The match's events name the seat by the placeholder too (``match_created``'s seats and the
   player's ``seat_joined``), and so do the other players' feed entries about the player's joining
   (``name``, ``joined_player``).  Results, decisions and the other seats are untouched, so records
   replay and the other players' histories stay as they were.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from engine.records import FULL, SEAT
from service.domain.errors import Conflict, NotFound
from service.domain.identity import PLAY, PLAYER, READ, Caller, player_key
from service.domain.matches import seating
from service.domain.matches.changes import Change
from service.domain.matches.operations import Matches
from service.domain.matches.reading import summary
from service.domain.privacy.rewriting import rewrite_stream
from service.domain.records.building import SERVICE_EVENT_TYPES, build
from service.encoding import dumps
from service.events import CREATED, JOINED
from service.storage.accounts import AccountStore, player_slot_key
from service.storage.matches import ACTIVE, OVER_STATUSES, WAITING, MatchMeta, match_key
from service.storage.privacy import PrivacyStore
from service.storage.records import RecordStore

#: Matches read a round trip.
BATCH = 100
#: Why a waiting match with a seat kept for a deleted player ends (``match_over``'s ``reason``).
PLAYER_DELETED = "player_deleted"


def acting_as(app: str, player: str) -> Caller:
    """The player as the erasure acts for them (their own resign, with ``play``)."""
    return Caller(PLAYER, app=app, player=player, scopes=frozenset({PLAY, READ}))


def player_seats(meta: MatchMeta, key: str) -> list[int]:
    """The seats of ``meta`` that name the player ``key``: held (or held and resigned), or kept for them."""
    return sorted(seat for seat, holder in seating.player_keys(meta.life).items() if holder == key)


class MatchData:
    """The player's matches and records; their seats given up and their name replaced on erasure."""

    section = "matches"

    def __init__(self, matches: Matches, players: AccountStore, rewrites: PrivacyStore) -> None:
        self.matches = matches
        self.players = players
        self.rewrites = rewrites
        self.reads = RecordStore(matches.store.redis)

    def _ids(self, key: str) -> Iterator[list[str]]:
        before: int | None = None
        while True:
            rows = self.players.player_matches(key, before, BATCH)
            if rows:
                yield [mid for mid, _ in rows]
                before = rows[-1][1]
            if len(rows) < BATCH:
                return

    def export(self, app: str, player: str) -> Iterator[dict[str, Any]]:
        key = player_key(app, player)
        for ids in self._ids(key):
            for stored in self.reads.load_many(ids, SERVICE_EVENT_TYPES):
                if stored is None:
                    continue
                meta = stored.meta
                game = self.matches.games.get(meta.game)
                seats = player_seats(meta, key)
                if game is None or not seats:
                    continue
                over = meta.status in OVER_STATUSES
                perspective = FULL if over else SEAT
                record = build(game, stored, perspective, None if over else seats[0], viewer=app)
                yield {"match": summary(meta, app), "seat": seats[0], "record": record}

    def erase(self, app: str, player: str, placeholder: str) -> int:
        key = player_key(app, player)
        name = self._name(app, player)
        done = 0
        for ids in self._ids(key):
            for match_id in ids:
                done += self._erase_match(match_id, app, player, key, name, placeholder)
        return done

    def _name(self, app: str, player: str) -> str | None:
        found = self.players.player(app, player)
        return found.name if found is not None else None

    def _erase_match(
        self, match_id: str, app: str, player: str, key: str, name: str | None, placeholder: str
    ) -> int:
        try:
            meta = self.matches.meta(match_id)
        except NotFound:
            return 0
        seats = player_seats(meta, key)
        if not seats:
            return 0
        held = [s for s in seats if str(s) in meta.life.get("players", {})]
        if meta.status in (WAITING, ACTIVE) and any(seating.held_by_player(meta.seats[s]) for s in held):
            with contextlib.suppress(Conflict, NotFound):  # over or left meanwhile: nothing to give up
                self.matches.resign(match_id, acting_as(app, player))
        elif meta.status == WAITING and not held:
            # A seat kept for the player (named at creation, a rematch's): nobody else may take it, so
            # the match could never start.
            self.matches.abort(match_id, PLAYER_DELETED)
        names = {meta.seats[s].get("name") for s in seats} | {name}
        names.discard(None)
        names.discard("")

        def forget(current: MatchMeta) -> Change:
            life = json.loads(json.dumps(current.life))
            new_seats = [dict(s) for s in current.seats]
            for seat in player_seats(current, key):
                life.get("players", {}).pop(str(seat), None)
                if life.get("reserved", {}).get(str(seat)) == seating.player_mark(key):
                    life["reserved"].pop(str(seat))
                if new_seats[seat].get("name") in names:
                    new_seats[seat]["name"] = placeholder
            if life.get("creator_player") == key:
                life.pop("creator_player")
            return Change(replace(current, seats=new_seats, life=life), [])

        try:
            self.matches.commits.change(match_id, forget)
        except NotFound:
            return 0
        self._rewrite_events(match_id, set(seats), names, placeholder)
        others = {k for k in seating.player_keys(meta.life).values() if k != key}
        for other in sorted(others):
            self._rewrite_feed(other, match_id, player, set(seats), names, placeholder)
        return 1

    def _rewrite_events(self, match_id: str, seats: set[int], names: set[Any], placeholder: str) -> None:
        """The match's events name the seat by the placeholder: ``match_created``'s seats, ``seat_joined``."""

        def rename(event: dict[str, Any]) -> bool:
            changed = False
            if event.get("type") == CREATED:
                for seat in event.get("seats", []):
                    if seat.get("seat") in seats and seat.get("name") in names:
                        seat["name"] = placeholder
                        changed = True
            elif event.get("type") == JOINED and event.get("seat") in seats and event.get("name") in names:
                event["name"] = placeholder
                changed = True
            return changed

        rewrite_stream(self.rewrites, match_key(match_id, "events"), rename, dumps)

    def _rewrite_feed(
        self, other: str, match_id: str, player: str, seats: set[int], names: set[Any], placeholder: str
    ) -> None:
        """Another player's feed entries about this match's joining name the placeholder instead."""

        def rename(entry: dict[str, Any]) -> bool:
            if entry.get("match_id") != match_id or entry.get("joined_seat") not in seats:
                return False
            if entry.get("joined_player") == player or entry.get("name") in names:
                entry["joined_player"] = None
                entry["name"] = placeholder
                return True
            return False

        rewrite_stream(self.rewrites, player_slot_key(other, "feed"), rename)
