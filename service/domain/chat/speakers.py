"""Who is who in a match's chat: the two channels, who reads and writes each, how an author is named,
and who moderates.

- The **players' channel** is the seats': a seat (its seat token, or its player's token) reads and
  writes it; spectators never see it.
- The **spectators' channel** exists for public matches only: everyone who may read the match reads
  it; a seat or a player token (of any app: a public match is open to all) writes in it.  An
  anonymous reader (no credential, or a pass such as an invite code) reads and never writes: a writer
  must be someone a moderator can block and a rate limit can count.
- Writing takes a player token's ``play`` scope (``read`` only reads), as a move does.
- **Moderators**: the key of the match's app (``life["app"]``: the app whose key or player created
  it) and the operator's admin token.  They read both channels, delete messages, block authors and
  read reports; they never write (a moderator is no participant).

An author is named by a handle stable within the match and meaningless outside it: ``seat:<n>`` for a
seat, ``spectator:<16 hex digits>`` for a player without a seat (an HMAC of the match id and the
player key under the server's secret, :meth:`service.storage.privacy.PrivacyStore.secret`: the same
player's handles in two matches cannot be linked, no app's player id is shown to another app, and
without the secret nobody can check a guess of whose handle it is, say a deleted player's
tombstone).  Mutes, blocks and reports name authors by these handles.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from service.domain import names
from service.domain.errors import Forbidden, NotFound, unauthorized
from service.domain.identity import ADMIN, APP, PLAYER, Caller
from service.domain.matches import seating
from service.storage.chat import PLAYERS, SPECTATORS
from service.storage.matches import MatchMeta

#: What a spectator who writes is called when its profile's name does not pass the name rule.
SPECTATOR_NAME = "spectator"


@dataclass(frozen=True)
class Speaker:
    """The caller in a match's chat: its seat (``None``: a spectator), its author handle (``None``:
    it may read, never write), its name, and its player key (``None``: a seat token's holder)."""

    seat: int | None
    author: str | None
    name: str
    player: str | None = None
    moderator: bool = False


def seat_author(seat: int) -> str:
    return f"seat:{seat}"


def spectator_author(secret: bytes, match_id: str, player_key: str) -> str:
    """A spectator's handle: keyed with the server's secret (``secret``), so that knowing a match id and
    a player id is not enough to tell whether a handle (a tombstone's author, a mute, a report) is
    theirs; stable per match and player, and unlinkable across matches."""
    message = f"spectator\0{match_id}\0{player_key}".encode()
    return f"spectator:{hmac.new(secret, message, hashlib.sha256).hexdigest()[:16]}"


def is_moderator(meta: MatchMeta, who: Caller) -> bool:
    """The match's app's key, or the admin token."""
    if who.kind == ADMIN:
        return True
    return who.kind == APP and who.app is not None and who.app == meta.life.get("app")


def public(meta: MatchMeta) -> bool:
    return meta.life.get("visibility") != seating.PRIVATE


def audience(meta: MatchMeta, channel: str) -> str | list[int]:
    """Who sees a channel's events on the match's event stream: the seats, or everyone."""
    return list(range(meta.players)) if channel == PLAYERS else "all"


def check_channel(meta: MatchMeta, channel: str) -> None:
    """404 for the spectators' channel of a private match (it has none)."""
    if channel == SPECTATORS and not public(meta):
        raise NotFound("not_found", f"match {meta.id!r} is private: it has no spectators' channel")


def may_read(speaker: Speaker, channel: str) -> bool:
    return speaker.moderator or channel == SPECTATORS or speaker.seat is not None


def require_reader(speaker: Speaker, channel: str) -> None:
    """403 ``players_only`` for a spectator asking for the players' channel."""
    if not may_read(speaker, channel):
        raise Forbidden("players_only", "the players' channel is for the match's seats")


def require_writer(speaker: Speaker, channel: str) -> str:
    """The author handle of a caller who may write in ``channel``: 403 for a moderator, or a
    spectator in the players' channel; 401 for a caller with no identity to write under."""
    if speaker.moderator:
        raise Forbidden("moderator", "moderators read, delete and block; they do not write")
    if channel == PLAYERS and speaker.seat is None:
        raise Forbidden("players_only", "the players' channel is for the match's seats")
    if speaker.author is None:
        raise unauthorized("writing in a chat takes a seat token or a player token")
    return speaker.author


def seat_name(meta: MatchMeta, seat: int) -> str:
    """A seat's name as chat shows it: it passed the name rule when the seat was taken."""
    name = str(meta.seats[seat].get("name") or "")
    return _ruled(name, f"seat {seat}")


def spectator_name(profile_name: str | None) -> str:
    return _ruled(profile_name or "", SPECTATOR_NAME)


def _ruled(name: str, fallback: str) -> str:
    try:
        return names.normalise(name)
    except names.BadName:
        return fallback


def player_of(who: Caller) -> str | None:
    return who.player_key if who.kind == PLAYER else None


def speaker_fields(speaker: Speaker) -> dict[str, Any]:
    """How a message names its author (the shown form: no player key)."""
    return {"author": speaker.author, "seat": speaker.seat, "name": speaker.name}
